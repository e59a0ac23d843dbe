/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_POINT_H
#define TK_PROBE_POINT_H

#include <stdint.h>

#include "util/fetcharg.h"
#include "util/probe-file.h"
#include "util/probe-spec.h"
#include "util/strbuf.h"

/*
 * The probe layer under the sources of debug information (DWARF, BTF):
 * what a resolved probe is, what the kernel accepts, and the arguments of
 * a probe point made from what a source says about its variables and
 * types.  A source resolves the places and the types; how arguments are
 * named, made unique and left out, and how the kernel's limits are met,
 * is decided here once for all of them.
 */

/* What the running kernel accepts, decided by the caller (tk_features). */
struct probe_opts {
	enum probe_kind kind;
	const struct arch *arch;	/* the target's */
	unsigned argn:1;	/* kprobes: $argN at function entry */
	unsigned ustring:1;	/* uprobes: ustring type */
	unsigned symbol:1;	/* kprobes: symbol type for code pointers */
	unsigned imm:1;		/* \IMM for constants */
	/* and what the user chose, as perf's options */
	unsigned no_inlines:1;	/* --no-inlines: no inlined copies */
	unsigned force:1;	/* --force: EVENT= taken is numbered */
	int max_probes;		/* --max-probes: points of one spec */
};

/* perf's default --max-probes (MAX_PROBES in util/probe-finder.h). */
#define PROBE_MAX_PROBES 128

/* One resolved probe. */
struct probe_point {
	char *func;		/* the function as the spec named it */
	/* for -v: lines on how func was found (an alias), or NULL */
	char *note;
	char *sym;		/* ELF symbol holding addr (f.isra.0) */
	char *module;		/* kprobes: MOD of MOD:SYM, or NULL */
	uint64_t sym_off;	/* addr - symbol */
	uint64_t addr;		/* link-time address of the probe */
	uint64_t file_off;	/* uprobes: file offset of addr */
	int64_t load_delta;	/* uprobes: segment p_vaddr - p_offset */
	int retprobe;
	int skipped_prologue;
	struct fetch_arg *args;
	int nr_args;
};

void probe_point_release(struct probe_point *pp);
void probe_points_release(struct probe_point *pps, int nr);

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
	/* $params: the parameter names in order, in an array to be freed. */
	int (*params)(void *ctx, const char ***names, int *nr);
	/*
	 * $vars: as params, with the local variables in scope after them;
	 * -EOPNOTSUPP with err set where the source describes no locals.
	 */
	int (*vars)(void *ctx, const char ***names, int *nr,
		    struct strbuf *err);
};

/*
 * The fetch args of spec at pp, from ops: named (NAME=, the last member,
 * or argN) and made unique as the kernel needs; $params and $vars leave
 * out what ops cannot fetch, as perf does, and say so in warn (unless
 * NULL).
 */
int probe_point_args(struct probe_point *pp, const struct probe_spec *spec,
		     const struct probe_arg_ops *ops, void *ctx,
		     struct strbuf *warn, struct strbuf *err);

/* The kinds of type probe_final_type() tells apart. */
enum probe_type_kind {
	PROBE_TYPE_OTHER,	/* a scalar, or what has no value (void) */
	PROBE_TYPE_POINTER,
	PROBE_TYPE_ARRAY,
	PROBE_TYPE_AGGREGATE,	/* a struct or a union */
};

/*
 * What a source of types (DWARF, BTF) says of the type of a fetched
 * value: the facts that decide its kernel type, each computed by the
 * source with its own type API, and the source's scalar_type.
 */
struct probe_type {
	enum probe_type_kind kind;
	int is_signed;		/* a bitfield's, or its enum's */
	/* pointers, arrays: the element is not void, is a one-byte char */
	int has_elem, elem_char;
	int elem_text;		/* ... whose arrays hold text: strings */
	long long count;	/* array: its elements, <= 0 unknown */
	/* aggregates: for $params and the messages (STRBUF_INIT else) */
	struct strbuf name;	/* as C spells it: "struct pkt" */
	struct strbuf members;	/* named members, ", " between */
	long size;		/* in bytes */
	/*
	 * $params: an aggregate is fetched whole (the source says where:
	 * BTF only where it lies in registers).
	 */
	int whole;
	/*
	 * A ustring cast is taken as given: unlike a string cast, neither
	 * checked nor dereferenced (what probe-btf.c has always done).
	 */
	int ustring_as_is;
	/*
	 * The kernel type of the value, or with elem of the array's
	 * element; NULL with err set where there is none.
	 */
	char *(*scalar)(void *ctx, int elem, const char *path,
			struct strbuf *err);
	void *ctx;
};

/*
 * The kernel type of a value of type t named path, into fa: the user's
 * cast (a string one checked), a bitfield bf (owned, NULL: none), a char
 * array as a string, an array of scalars, an aggregate of $params (as
 * perf fetches it, a line in warn, unless NULL, when cut), a scalar.
 * 0, or -errno with err set.
 */
int probe_final_type(const struct probe_type *t, const struct probe_arg *arg,
		     const struct probe_opts *opts, struct fetch_arg *fa,
		     char *bf, const char *path, struct strbuf *warn,
		     struct strbuf *err);

void probe_type_release(struct probe_type *t);

/*
 * 0 when fa's value lies in memory (its last deref can be offset, for a
 * member or an element), else -EINVAL with err naming what.
 */
int probe_need_memory(struct fetch_arg *fa, const char *what,
		      struct strbuf *err);

#endif
