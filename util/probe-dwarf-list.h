/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_DWARF_LIST_H
#define TK_PROBE_DWARF_LIST_H

#include "util/probe-dwarf.h"
#include "util/probe-spec.h"
#include "util/strbuf.h"

/*
 * The listings of `tracekit probe` from DWARF, as perf's: -V the
 * variables at a probe point, -L a function's lines, -F the functions.
 */

/*
 * -V: variables (with types) available at the spec's probe point; note
 * gets the lines of probe_point's note.
 */
int probe_dwarf_list_vars(struct probe_debuginfo *dbg,
			  const struct probe_spec *spec, struct strbuf *out,
			  struct strbuf *note, struct strbuf *err);
/*
 * -L: the function's lines, numbered relative to its first line where
 * probe-able.
 */
int probe_dwarf_list_lines(struct probe_debuginfo *dbg,
			   const struct probe_spec *spec, struct strbuf *out,
			   struct strbuf *note, struct strbuf *err);
/*
 * -F: functions with code whose name matches glob (NULL: all), one a
 * line, sorted.
 */
int probe_dwarf_list_funcs(struct probe_debuginfo *dbg, const char *glob,
			   struct strbuf *out, struct strbuf *err);

#endif
