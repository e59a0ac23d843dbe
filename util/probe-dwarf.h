/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_DWARF_H
#define TK_PROBE_DWARF_H

#include <stdint.h>

#include "util/fetcharg.h"
#include "util/probe-file.h"
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

/* What the running kernel accepts, decided by the caller (tk_features). */
struct probe_dwarf_opts {
	enum probe_kind kind;
	unsigned argn:1;	/* kprobes: $argN at function entry */
	unsigned ustring:1;	/* uprobes: ustring type */
	unsigned symbol:1;	/* kprobes: symbol type for code pointers */
	unsigned imm:1;		/* \IMM for constants */
};

/* One resolved probe. */
struct probe_point {
	char *func;		/* the function as the spec named it */
	char *note;		/* for -v: lines on how func was found (an alias), or NULL */
	char *sym;		/* the ELF symbol holding addr (clones: foo.isra.0) */
	char *module;		/* kprobes: the module holding sym (MOD:SYM), or NULL */
	uint64_t sym_off;	/* addr - symbol */
	uint64_t addr;		/* link-time address of the probe */
	uint64_t file_off;	/* uprobes: file offset of addr */
	int64_t load_delta;	/* uprobes: p_vaddr - p_offset of its segment */
	int retprobe;
	int skipped_prologue;
	struct fetch_arg *args;
	int nr_args;
};

/* Opens PATH; NULL with err = "PATH: why" (not ELF, no debug info...). */
struct probe_debuginfo *probe_debuginfo_open(const char *path, struct strbuf *err);
/* The file the DWARF is read from: a separate debug file, else PATH. */
const char *probe_debuginfo_file(const struct probe_debuginfo *dbg);
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
int probe_dwarf_resolve(struct probe_debuginfo *dbg, const struct probe_spec *spec,
			const struct probe_dwarf_opts *opts, struct probe_point **pps,
			int *nr, struct strbuf *warn, struct strbuf *err);
void probe_point_release(struct probe_point *pp);

/*
 * What a source of types (DWARF, BTF) says about the arguments of one
 * probe point; ctx is the source's own.  Each returns 0 or -errno with
 * err set.
 */
struct probe_arg_ops {
	/*
	 * A variable and its member chain: fa's base, derefs and type.
	 * whole: a parameter of $params, where a struct passed by value is
	 * fetched as such, as perf does, instead of refused.
	 */
	int (*var)(void *ctx, const struct probe_arg *arg, int whole,
		   struct fetch_arg *fa, struct strbuf *err);
	/* The type of $retval (fa->base is FETCH_RETVAL). */
	int (*retval)(void *ctx, struct fetch_arg *fa, struct strbuf *err);
	/* $params: the parameter names in order, in an array the caller frees. */
	int (*params)(void *ctx, const char ***names, int *nr);
};

/*
 * $params: a struct or union of size bytes passed by value in registers,
 * fetched as perf fetches it: its first bytes, in hex, cut down to 64
 * bits ("pt exceeds max-bitwidth"), with a line in warn (unless NULL)
 * when that is not all of it.  0, or -EINVAL with err for a size the
 * kernel cannot fetch.
 */
int probe_whole_aggregate(long size, const char *type_name, const char *path,
			  struct fetch_arg *fa, struct strbuf *warn, struct strbuf *err);

/*
 * The fetch args of spec at pp, from ops: named (NAME=, the last member,
 * or argN) and made unique as the kernel needs; $params leaves out what
 * ops cannot fetch, as perf does, and says so in warn (unless NULL).
 */
int probe_point_args(struct probe_point *pp, const struct probe_spec *spec,
		     const struct probe_arg_ops *ops, void *ctx, struct strbuf *warn,
		     struct strbuf *err);
void probe_points_release(struct probe_point *pps, int nr);

/*
 * -V: variables (with types) available at the spec's probe point; note
 * gets the lines of probe_point's note.
 */
int probe_dwarf_list_vars(struct probe_debuginfo *dbg, const struct probe_spec *spec,
			  struct strbuf *out, struct strbuf *note, struct strbuf *err);
/* -L: the function's lines, numbered relative to its first line where probe-able. */
int probe_dwarf_list_lines(struct probe_debuginfo *dbg, const struct probe_spec *spec,
			   struct strbuf *out, struct strbuf *note, struct strbuf *err);
/* -F: functions with code whose name matches glob (NULL: all), one a line, sorted. */
int probe_dwarf_list_funcs(struct probe_debuginfo *dbg, const char *glob,
			   struct strbuf *out, struct strbuf *err);

#endif
