/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_FETCHARG_H
#define TK_FETCHARG_H

#include <stdint.h>

#include "util/probe-file.h"
#include "util/strbuf.h"

struct arch;

/*
 * A fetch chain: where a value lives, as the kernel's fetchargs can say
 * it (Documentation/trace/kprobetrace.rst).  The value is BASE, then for
 * each deref[i] in order: value = *(value + deref[i]).  An FETCH_ADDR base
 * is an absolute address (a global), whose first load the kernel writes
 * as @SYM+OFF (kprobes) or @+N (uprobes).
 */

enum fetch_base {
	FETCH_REG,	/* a register (DWARF number) */
	FETCH_ARGN,	/* $argN: kprobes at function entry */
	FETCH_ADDR,	/* an absolute address */
	FETCH_RETVAL,	/* $retval */
	FETCH_IMM,	/* \IMM: a constant */
	FETCH_RAW,	/* a user-written fetcharg, verbatim */
};

#define FETCH_MAX_DEREF 16

/* MAX_ARGSTR_LEN in kernel/trace/trace_probe.h: "BODY[:TYPE]" after NAME=. */
#define FETCH_MAX_ARGSTR_LEN 63

/* MAX_ARRAY_LEN and MAX_TRACE_ARGS in kernel/trace/trace_probe.h. */
#define FETCH_MAX_ARRAY_LEN 64
#define FETCH_MAX_ARGS 128

/* MAX_ARG_NAME_LEN in kernel/trace/trace_probe.h, including the NUL. */
#define FETCH_MAX_ARG_NAME_LEN 32

struct fetch_arg {
	char *name;
	enum fetch_base base;
	int reg;		/* FETCH_REG: DWARF register number */
	int argn;		/* FETCH_ARGN */
	uint64_t addr;		/* FETCH_ADDR: link-time address */
	/* FETCH_ADDR, kprobes: symbol the address is in */
	char *sym;
	uint64_t sym_addr;	/* its address */
	long long imm;		/* FETCH_IMM */
	char *raw;		/* FETCH_RAW */
	int nr_derefs;
	long long deref[FETCH_MAX_DEREF];
	char *type;		/* "s32", "x8[6]", "b5@3/32", "string"... or NULL */
	/*
	 * A signed bitfield fetched with the kernel's b type, which has no
	 * sign, or as an s8 or s16, which libtraceevent prints unsigned:
	 * its width, for the probe's note (util/probe-note.h); else 0.
	 */
	int signed_bits;
};

/* How to spell addresses for the probe being built. */
struct fetch_ctx {
	enum probe_kind kind;
	const struct arch *arch;	/* the target's registers */
	/*
	 * uprobes: p_vaddr - p_offset of the probed segment (@+N = addr -
	 * delta)
	 */
	int64_t load_delta;
};

/*
 * The kernel's rule for fetcharg names: a C identifier below
 * FETCH_MAX_ARG_NAME_LEN characters, and none of the names it gives its
 * own fields.
 */
int fetch_arg_name_valid(const char *name);

/* Appends a dereference with offset off; -E2BIG past FETCH_MAX_DEREF. */
int fetch_arg_push_deref(struct fetch_arg *fa, long long off);

/*
 * Types fa, whose last dereference is at the container, as the bitfield bf
 * ("b<width>@<lsb>/<bits>", which it takes).  A signed one that fills a
 * whole naturally aligned s8..s64 of its container is fetched as that,
 * which the kernel sign-extends (signed_bits set for 8 and 16 bits);
 * any other keeps the b type, which has no sign, with signed_bits set,
 * and warn (unless NULL) gets a line saying so for path.
 */
void fetch_arg_bitfield(struct fetch_arg *fa, char *bf, int is_signed,
			const char *path, struct strbuf *warn);

/*
 * Appends " NAME=BODY[:TYPE]" to out.  Fails with -E2BIG when BODY:TYPE
 * exceeds the kernel's MAX_ARGSTR_LEN, -EINVAL for an invalid name or a
 * chain the kernel cannot express; err says why.
 */
int fetch_arg_format(const struct fetch_arg *fa, const struct fetch_ctx *ctx,
		     struct strbuf *out, struct strbuf *err);

void fetch_arg_release(struct fetch_arg *fa);

#endif
