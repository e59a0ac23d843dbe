// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "util/fetcharg.h"
#include "util/usage.h"

int fetch_arg_name_valid(const char *name)
{
	if (!probe_name_valid(name) || strlen(name) >= FETCH_MAX_ARG_NAME_LEN)
		return 0;
	/* Names the kernel gives to its own fields. */
	return strncmp(name, "common_", 7) && strncmp(name, "__probe_", 8);
}

int fetch_arg_push_deref(struct fetch_arg *fa, long long off)
{
	if (fa->nr_derefs == FETCH_MAX_DEREF)
		return -E2BIG;
	fa->deref[fa->nr_derefs++] = off;
	return 0;
}

static void add_offset(struct strbuf *sb, long long off)
{
	strbuf_addf(sb, "%c%lld", off < 0 ? '-' : '+', off < 0 ? -off : off);
}

static int format_base(const struct fetch_arg *fa, const struct fetch_ctx *ctx,
		       struct strbuf *sb, struct strbuf *err)
{
	const char *reg;

	switch (fa->base) {
	case FETCH_REG:
		reg = arch_dwarf_regname(ctx->arch, fa->reg);
		if (!reg) {
			strbuf_addf(err, "DWARF register %d has no %s kernel name",
				    fa->reg, ctx->arch->name);
			return -EINVAL;
		}
		strbuf_addf(sb, "%%%s", reg);
		return 0;
	case FETCH_ARGN:
		strbuf_addf(sb, "$arg%d", fa->argn);
		return 0;
	case FETCH_RETVAL:
		strbuf_addstr(sb, "$retval");
		return 0;
	case FETCH_IMM:
		strbuf_addf(sb, "\\%lld", fa->imm);
		return 0;
	case FETCH_RAW:
		strbuf_addstr(sb, fa->raw);
		return 0;
	case FETCH_ADDR:
		break;
	}
	/* The first load from an absolute address is part of the @ form. */
	if (!fa->nr_derefs) {
		strbuf_addstr(err,
			      "the address of a variable cannot be fetched, only its value");
		return -EINVAL;
	}
	if (ctx->kind == PROBE_UPROBE) {
		int64_t n = (int64_t)(fa->addr + fa->deref[0]) -
			    ctx->load_delta;

		if (n < 0) {
			strbuf_addstr(err,
				      "global lies below the probed segment");
			return -EINVAL;
		}
		strbuf_addf(sb, "@+0x%" PRIx64, (uint64_t)n);
	} else if (fa->sym) {
		strbuf_addf(sb, "@%s", fa->sym);
		add_offset(sb, (long long)(fa->addr - fa->sym_addr) +
			   fa->deref[0]);
	} else {
		strbuf_addf(sb, "@0x%" PRIx64,
			    fa->addr + (uint64_t)fa->deref[0]);
	}
	return 0;
}

/* u8..u64, s8..s64, x8..x64 */
static int basic_type(const char *t, size_t len)
{
	static const char *const bits[] = { "8", "16", "32", "64" };
	size_t i;

	if (len < 2 || !strchr("usx", t[0]))
		return 0;
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (len - 1 == strlen(bits[i]) &&
		    !strncmp(t + 1, bits[i], len - 1))
			return 1;
	return 0;
}

/* "bW@O/S": W bits at bit O of an S-bit container (S 8..64, W+O <= S). */
static int bitfield_type(const char *t)
{
	unsigned int w, o, c;
	int n = 0;

	if (sscanf(t, "b%u@%u/%u%n", &w, &o, &c, &n) != 3 || t[n])
		return 0;
	return (c == 8 || c == 16 || c == 32 || c == 64) && w >= 1 &&
	       o + w <= c;
}

void fetch_arg_bitfield(struct fetch_arg *fa, char *bf, int is_signed,
			const char *path, struct strbuf *warn)
{
	unsigned int w, o, c;

	fa->type = bf;
	if (!is_signed || sscanf(bf, "b%u@%u/%u", &w, &o, &c) != 3)
		return;
	/* Byte o / 8 of the container holds bit o: x86-64 is little-endian. */
	if ((w == 8 || w == 16 || w == 32 || w == 64) && !(o % w) &&
	    fa->nr_derefs) {
		fa->deref[fa->nr_derefs - 1] += o / 8;
		fa->type = xmalloc(8);
		snprintf(fa->type, 8, "s%u", w);
		free(bf);
		/*
		 * libtraceevent prints an s8 or s16 with %d unsigned (-300 in
		 * an s16 reads 65236 in trace-cmd report 3.1.6): noted too.
		 */
		if (w < 32)
			fa->signed_bits = (int)w;
		return;
	}
	/* The kernel's b type has no sign: kernel/trace/trace_probe.c. */
	fa->signed_bits = (int)w;
	if (warn)
		strbuf_addf(warn, "'%s' is a signed bitfield, which the kernel records unsigned (%s): tracekit record notes it for tracekit report, other readers see 2^width + value\n",
			    path, bf);
}

/*
 * The types of kernel/trace/trace_probe.c (probe_fetch_types, parse_probe_arg
 * arrays and bitfields) that tracekit writes or a user may name, checked
 * here so that a bad one is refused before anything reaches tracefs:
 * the kernel only says "Invalid argument" to the whole line.
 */
static int type_check(const struct fetch_arg *fa, const struct fetch_ctx *ctx,
		      struct strbuf *err)
{
	const char *t = fa->type, *br = strchr(t, '[');
	size_t len = br ? (size_t)(br - t) : strlen(t);

	if (br) {
		char *end;
		long n = strtol(br + 1, &end, 10);

		if (end == br + 1 || strcmp(end, "]") || n < 1 ||
		    n > FETCH_MAX_ARRAY_LEN) {
			strbuf_addf(err,
				    "'%s': array type '%s': the kernel takes 1 to %d elements",
				    fa->name, t, FETCH_MAX_ARRAY_LEN);
			return -EINVAL;
		}
	}
	if (basic_type(t, len) || (!br && bitfield_type(t)) ||
	    (len == 6 && !strncmp(t, "string", 6)) ||
	    (len == 7 && !strncmp(t, "ustring", 7)))
		return 0;
	if ((len == 6 && !strncmp(t, "symbol", 6)) ||
	    (len == 6 && !strncmp(t, "symstr", 6))) {
		if (ctx->kind == PROBE_UPROBE) {
			strbuf_addf(err,
				    "'%s': type '%.*s' names kernel symbols: kprobes only",
				    fa->name, (int)len, t);
			return -EINVAL;
		}
		return 0;
	}
	strbuf_addf(err, "'%s': unknown type '%s' (want u8..u64, s8..s64, "
		    "x8..x64, string, ustring, symbol, bW@O/S or TYPE[N])",
		    fa->name, t);
	return -EINVAL;
}

int fetch_arg_format(const struct fetch_arg *fa, const struct fetch_ctx *ctx,
		     struct strbuf *out, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT, inner = STRBUF_INIT;
	int i, first = fa->base == FETCH_ADDR ? 1 : 0, ret;

	if (!fetch_arg_name_valid(fa->name)) {
		strbuf_addf(err, "'%s': invalid argument name", fa->name);
		return -EINVAL;
	}
	if (ctx->kind == PROBE_UPROBE && fa->base == FETCH_RAW &&
	    strstr(fa->raw, "$arg")) {
		strbuf_addf(err,
			    "'%s': '%s': $argN is for kprobes at function entry; uprobes take registers",
			    fa->name, fa->raw);
		return -EINVAL;
	}
	if (fa->base == FETCH_ARGN && ctx->kind == PROBE_UPROBE) {
		strbuf_addf(err,
			    "'%s': $arg%d is for kprobes at function entry; uprobes take registers",
			    fa->name, fa->argn);
		return -EINVAL;
	}
	if (fa->type && (ret = type_check(fa, ctx, err)))
		return ret;
	ret = format_base(fa, ctx, &inner, err);
	if (ret)
		goto out;
	for (i = first; i < fa->nr_derefs; i++) {
		strbuf_reset(&body);
		add_offset(&body, fa->deref[i]);
		strbuf_addf(&body, "(%s)", inner.buf);
		strbuf_reset(&inner);
		strbuf_addstr(&inner, body.buf);
	}
	if (fa->type)
		strbuf_addf(&inner, ":%s", fa->type);
	if (inner.len > FETCH_MAX_ARGSTR_LEN) {
		strbuf_addf(err,
			    "'%s': fetch expression '%s' is %zu characters, the kernel takes at most %d",
			    fa->name, inner.buf, inner.len,
			    FETCH_MAX_ARGSTR_LEN);
		ret = -E2BIG;
		goto out;
	}
	strbuf_addf(out, " %s=%s", fa->name, inner.buf);
out:
	strbuf_release(&body);
	strbuf_release(&inner);
	return ret;
}

void fetch_arg_release(struct fetch_arg *fa)
{
	free(fa->name);
	free(fa->sym);
	free(fa->raw);
	free(fa->type);
	memset(fa, 0, sizeof(*fa));
}
