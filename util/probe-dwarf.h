/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_DWARF_H
#define TK_PROBE_DWARF_H

#include "util/probe-point.h"
#include "util/probe-spec.h"
#include "util/strbuf.h"

/*
 * DWARF side of `tracekit probe`: a probe spec becomes a probe address and
 * one fetch chain per argument, from the location expressions (location
 * lists by pc, frame base through the CFI), the types (sizes, signedness,
 * arrays, bitfields in both DWARF 2-4 and DWARF 4-5 encodings) and the
 * member chains.  libdw's offline Dwfl opens executables, DSOs and kernel
 * modules (whose ET_REL debug sections need its relocation).
 */

struct probe_debuginfo;

/* Opens PATH; NULL with err = "PATH: why" (not ELF, no debug info...). */
struct probe_debuginfo *probe_debuginfo_open(const char *path,
					     struct strbuf *err);
/* The file the DWARF is read from: a separate debug file, else PATH. */
const char *probe_debuginfo_file(const struct probe_debuginfo *dbg);
/*
 * The architecture of the file's ELF header (arch_of_elf()); NULL with
 * why naming the machine tracekit does not know.
 */
const struct arch *probe_debuginfo_arch(const struct probe_debuginfo *dbg,
					struct strbuf *why);
void probe_debuginfo_close(struct probe_debuginfo *dbg);

/*
 * The probe points of spec: one, or one per inlined copy of a function
 * that exists only inlined (they share one event: the kernel's multi-probe
 * append needs their arguments to have the same names and types).  warn
 * gets a line for what is fetched other than asked (signed bitfields,
 * $params left out or cut), NULL: none.  A function symbol no DIE is
 * named after is an alias of the function DIE entered at its address
 * (glibc's malloc of __libc_malloc): that DIE gives its places and
 * arguments, the first point's note says so.
 */
int probe_dwarf_resolve(struct probe_debuginfo *dbg,
			const struct probe_spec *spec,
			const struct probe_opts *opts, struct probe_point **pps,
			int *nr, struct strbuf *warn, struct strbuf *err);

/*
 * A wildcard spec's functions, as perf matches them: the names of the
 * functions glob matches (fnmatch) in the DWARF that have code or, with
 * inlines, inlined copies; without DWARF, the function symbols.  Sorted,
 * each once; the strings are dbg's, the array the caller's to free.
 */
int probe_dwarf_match_funcs(struct probe_debuginfo *dbg, const char *glob,
			    int inlines, const char ***names, int *nr);

#endif
