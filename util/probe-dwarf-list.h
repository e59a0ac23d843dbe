/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_DWARF_LIST_H
#define TK_PROBE_DWARF_LIST_H

#include "util/probe-dwarf.h"
#include "util/probe-filter.h"
#include "util/probe-line.h"
#include "util/probe-spec.h"
#include "util/strbuf.h"

/*
 * The listings of `tracekit probe` from DWARF, as perf 6.1 prints them:
 * -V the variables at a probe point, -L the lines of a function or a
 * source file, -F the functions.
 */

/* What -V and -F show: perf's --filter, --externs, --range. */
struct probe_dwarf_list_opts {
	const struct probe_filter *filter;	/* names shown; NULL: all */
	int externs;	/* -V: the unit's globals too */
	int range;	/* -V: [VAL] or [INV], and where each is located */
};

/*
 * -V: "Available variables at POINT", then for each point the spec
 * resolves to under popts (as probe_dwarf_resolve() places a spec
 * without arguments; --no-inlines is popts') its "@<SYM+OFF>" line and
 * the variables visible there, "TYPE\tNAME" sorted; note gets the note
 * of the first point.
 */
int probe_dwarf_list_vars(struct probe_debuginfo *dbg,
			  const struct probe_spec *spec,
			  const struct probe_opts *popts,
			  const struct probe_dwarf_list_opts *o,
			  struct strbuf *out, struct strbuf *note,
			  struct strbuf *err);
/*
 * -L: the source lines of lr, numbered where they can be probed (a
 * function's relative to its first line); note as for -V.  -ENOENT with
 * err set when no line of the range has code.
 */
int probe_dwarf_list_lines(struct probe_debuginfo *dbg,
			   const struct probe_line_range *lr,
			   struct strbuf *out, struct strbuf *note,
			   struct strbuf *err);
/* -F: the functions with code whose name filter takes, sorted, once each. */
int probe_dwarf_list_funcs(struct probe_debuginfo *dbg,
			   const struct probe_filter *filter,
			   struct strbuf *out, struct strbuf *err);

#endif
