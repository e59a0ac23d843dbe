// SPDX-License-Identifier: GPL-2.0
/*
 * util/probe-spec, util/fetcharg and util/probe-dwarf without tracefs:
 * the spec grammar, the definition text, and translations of this very
 * binary's DWARF checked against what the compiler says (offsetof, the
 * bit a bitfield store sets), not against strings written by hand.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "tests/tests.h"
#include "util/fetcharg.h"
#include "util/probe-dwarf.h"
#include "util/probe-spec.h"
#include "util/tracefs.h"

static int parse_ok(void)
{
	struct probe_spec s;
	struct strbuf err = STRBUF_INIT;

	TEST_ASSERT_EQUAL("full spec", probe_spec_parse(
		"grp:ev=func@dir/src.c:12 n=a->b.c[3]:u8 @g->x $retval %di +8(%sp):s32", &s, &err), 0);
	TEST_ASSERT_STR("group", s.group, "grp");
	TEST_ASSERT_STR("event", s.event, "ev");
	TEST_ASSERT_STR("func", s.func, "func");
	TEST_ASSERT_STR("file", s.file, "dir/src.c");
	TEST_ASSERT_VAL("line", s.has_line && s.line == 12 && !s.has_offset);
	TEST_ASSERT_EQUAL("args", s.nr_args, 5);
	TEST_ASSERT_STR("arg name", s.args[0].name, "n");
	TEST_ASSERT_STR("arg var", s.args[0].var, "a");
	TEST_ASSERT_EQUAL("fields", s.args[0].nr_fields, 3);
	TEST_ASSERT_EQUAL("->", s.args[0].fields[0].kind, PROBE_FIELD_ARROW);
	TEST_ASSERT_STR("-> name", s.args[0].fields[0].name, "b");
	TEST_ASSERT_EQUAL(".", s.args[0].fields[1].kind, PROBE_FIELD_MEMBER);
	TEST_ASSERT_EQUAL("[3]", s.args[0].fields[2].index, 3);
	TEST_ASSERT_STR("type", s.args[0].type, "u8");
	TEST_ASSERT_VAL("global", s.args[1].global && !strcmp(s.args[1].var, "g"));
	TEST_ASSERT_EQUAL("$retval", s.args[2].kind, PROBE_ARG_RETVAL);
	TEST_ASSERT_EQUAL("raw", s.args[3].kind, PROBE_ARG_RAW);
	TEST_ASSERT_STR("raw with type", s.args[4].type, "s32");
	TEST_ASSERT_STR("raw body", s.args[4].var, "+8(%sp)");
	probe_spec_release(&s);

	TEST_ASSERT_EQUAL("offset", probe_spec_parse("f.isra.0+0x10", &s, &err), 0);
	TEST_ASSERT_STR("clone name", s.func, "f.isra.0");
	TEST_ASSERT_VAL("offset value", s.has_offset && s.offset == 16);
	probe_spec_release(&s);
	TEST_ASSERT_EQUAL("return", probe_spec_parse("f%return $retval:x32", &s, &err), 0);
	TEST_ASSERT_VAL("retprobe", s.retprobe);
	probe_spec_release(&s);

	TEST_ASSERT_VAL("sdt", probe_spec_is_sdt("sdt_app:tick"));
	TEST_ASSERT_VAL("%sdt", probe_spec_is_sdt("%sdt_app:tick"));
	TEST_ASSERT_VAL("%provider", probe_spec_is_sdt("%app:tick"));
	TEST_ASSERT_VAL("sdt_ function line", !probe_spec_is_sdt("sdt_fn:12"));
	TEST_ASSERT_VAL("plain", !probe_spec_is_sdt("ip_rcv skb"));
	TEST_ASSERT_VAL("named sdt_ function", !probe_spec_is_sdt("e=sdt_fn:3"));
	strbuf_release(&err);
	return TEST_OK;
}

static int parse_bad(void)
{
	static const char *const bad[] = {
		"", "9x", "f:", "f:x", "f+", "f%ret", "f@", "f a[-1]", "f a->", "f a.b[",
		"f a:s-t", "f\nx", "f a=\"x\"", "1ev=f", "g-x:e=f", "f $params:u8",
		"f ba-d=x", "f common_x=y", "f x=%di>1", "f x:s32;x",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct probe_spec s;
		struct strbuf err = STRBUF_INIT;

		if (probe_spec_parse(bad[i], &s, &err) == 0) {
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
			probe_spec_release(&s);
			return TEST_FAIL;
		}
		TEST_ASSERT_VAL("error says why", err.len > 0 && !strchr(err.buf, '\n'));
		strbuf_release(&err);
	}
	TEST_ASSERT_VAL("31-char name", fetch_arg_name_valid("a234567890123456789012345678901"));
	TEST_ASSERT_VAL("32-char name", !fetch_arg_name_valid("a2345678901234567890123456789012"));
	return TEST_OK;
}

static int format(struct fetch_arg *fa, enum probe_kind kind, int64_t delta,
		  const char *want)
{
	struct fetch_ctx ctx = { .kind = kind, .arch = &arch_x86_64,
				 .load_delta = delta };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int ret = fetch_arg_format(fa, &ctx, &out, &err);

	if (ret || strcmp(out.buf, want)) {
		fprintf(stderr, "got '%s' (%d: %s), want '%s'\n", out.buf, ret, err.buf, want);
		ret = -1;
	}
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

static int fetcharg_text(void)
{
	struct fetch_arg fa = { .name = "x", .base = FETCH_REG, .reg = 5, .type = "s32" };
	struct fetch_ctx ctx = { .kind = PROBE_KPROBE, .arch = &arch_x86_64 };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int i;

	TEST_ASSERT_EQUAL("register", format(&fa, PROBE_UPROBE, 0, " x=%di:s32"), 0);
	fetch_arg_push_deref(&fa, 8);
	fetch_arg_push_deref(&fa, -16);
	TEST_ASSERT_EQUAL("nested", format(&fa, PROBE_UPROBE, 0, " x=-16(+8(%di)):s32"), 0);
	fa.base = FETCH_ARGN;
	fa.argn = 7;
	TEST_ASSERT_EQUAL("$argN", format(&fa, PROBE_KPROBE, 0, " x=-16(+8($arg7)):s32"), 0);
	fa.base = FETCH_ADDR;
	fa.addr = 0x404060;
	fa.nr_derefs = 1;
	fa.deref[0] = 4;
	/* uprobes: N = vaddr - (p_vaddr - p_offset), here a non-PIE delta. */
	TEST_ASSERT_EQUAL("@+N", format(&fa, PROBE_UPROBE, 0x400000, " x=@+0x4064:s32"), 0);
	fa.sym = "g";
	fa.sym_addr = 0x404040;
	TEST_ASSERT_EQUAL("@sym", format(&fa, PROBE_KPROBE, 0, " x=@g+36:s32"), 0);
	fa.sym = NULL;
	fa.base = FETCH_REG;
	fa.type = NULL;
	fa.nr_derefs = 0;
	fa.reg = 16;
	TEST_ASSERT_VAL("no pt_regs name for the RA column", fetch_arg_format(&fa, &ctx, &out, &err) < 0);
	fa.reg = 5;
	/* 16 nested derefs: +0(...) x16 around %di is 67 characters. */
	for (i = 0; i < FETCH_MAX_DEREF; i++)
		fetch_arg_push_deref(&fa, 0);
	TEST_ASSERT_VAL("deref limit", fetch_arg_push_deref(&fa, 0) < 0);
	strbuf_reset(&err);
	TEST_ASSERT_EQUAL("63-char limit", fetch_arg_format(&fa, &ctx, &out, &err), -E2BIG);
	TEST_ASSERT_VAL("limit named", strstr(err.buf, "at most 63"));
	fa.nr_derefs = 14;	/* 59 characters */
	strbuf_reset(&out);
	TEST_ASSERT_EQUAL("59 chars pass", fetch_arg_format(&fa, &ctx, &out, &err), 0);
	fa.name = "a b";
	TEST_ASSERT_VAL("bad name", fetch_arg_format(&fa, &ctx, &out, &err) < 0);
	strbuf_release(&out);
	strbuf_release(&err);
	return TEST_OK;
}

/* This binary's architecture, as probe_target_open() reads it. */
static const struct arch *self_arch(struct probe_debuginfo *dbg)
{
	struct strbuf why = STRBUF_INIT;
	const struct arch *a = probe_debuginfo_arch(dbg, &why);

	strbuf_release(&why);
	return a;
}

/* Translates SPEC against this binary; the definition's args into out. */
static int self_resolve(struct probe_debuginfo *dbg, const char *text,
			struct strbuf *out)
{
	struct probe_opts opts = { .kind = PROBE_UPROBE,
				   .arch = self_arch(dbg) };
	struct fetch_ctx ctx = { .kind = PROBE_UPROBE, .arch = opts.arch };
	struct strbuf err = STRBUF_INIT;
	struct probe_spec spec;
	struct probe_point *pps;
	int i, nr, ret;

	ret = probe_spec_parse(text, &spec, &err);
	if (!ret)
		ret = probe_dwarf_resolve(dbg, &spec, &opts, &pps, &nr, NULL,
					  &err);
	if (!ret) {
		ctx.load_delta = pps[0].load_delta;
		for (i = 0; i < pps[0].nr_args && !ret; i++)
			ret = fetch_arg_format(&pps[0].args[i], &ctx, out,
					       &err);
		probe_points_release(pps, nr);
	}
	if (ret)
		fprintf(stderr, "%s: %s\n", text, err.buf);
	if (spec.func)
		probe_spec_release(&spec);
	strbuf_release(&err);
	return ret;
}

/* The bit a store to tk_features.ustring sets: the compiler's own layout. */
static int ustring_bit(void)
{
	struct tk_features f;
	unsigned char *p = (unsigned char *)&f;
	size_t i;
	int b;

	memset(&f, 0, sizeof(f));
	f.ustring = 1;
	for (i = 0; i < sizeof(f); i++)
		for (b = 0; b < 8; b++)
			if (p[i] & (1 << b))
				return (int)(i * 8 + b);
	return -1;
}

static int self_dwarf(void)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
	struct probe_debuginfo *dbg;
	const struct arch *a;
	const char *arg1;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	TEST_ASSERT_VAL("readlink", n > 0);
	self[n] = '\0';
	/* Always built with -g: no DWARF here is a regression, not a skip. */
	dbg = probe_debuginfo_open(self, &err);
	if (!dbg)
		fprintf(stderr, "FAILED: own DWARF: %s\n", err.buf);
	TEST_ASSERT_VAL("probe_debuginfo_open(self)", dbg);
	a = self_arch(dbg);
	TEST_ASSERT_VAL("this binary's machine is one tracekit knows", a);
	/* The first argument's register: %di on x86-64, %x0 on arm64. */
	arg1 = a->regnames[a->arg_regs[0]];
	TEST_ASSERT_EQUAL("member", self_resolve(dbg, "fetch_arg_push_deref fa->nr_derefs", &out), 0);
	strbuf_addf(&want, " nr_derefs=+%zu(%%%s):s32", offsetof(struct fetch_arg, nr_derefs),
		    arg1);
	TEST_ASSERT_STR("offsetof(nr_derefs)", out.buf, want.buf);

	strbuf_reset(&out);
	strbuf_reset(&want);
	TEST_ASSERT_EQUAL("array", self_resolve(dbg, "fetch_arg_push_deref fa->deref", &out), 0);
	strbuf_addf(&want, " deref=+%zu(%%%s):s64[%d]", offsetof(struct fetch_arg, deref),
		    arg1, FETCH_MAX_DEREF);
	TEST_ASSERT_STR("long long[16]", out.buf, want.buf);

	strbuf_reset(&out);
	strbuf_reset(&want);
	TEST_ASSERT_EQUAL("bitfield", self_resolve(dbg, "tk_features_probe f->ustring", &out), 0);
	strbuf_addf(&want, " ustring=+%d(%%%s):b1@%d/32", ustring_bit() / 32 * 4, arg1,
		    ustring_bit() % 32);
	TEST_ASSERT_STR("bitfield as the compiler lays it out", out.buf, want.buf);

	strbuf_reset(&out);
	TEST_ASSERT_VAL("unknown member", self_resolve(dbg, "fetch_arg_push_deref fa->nosuch", &out) < 0);
	TEST_ASSERT_VAL("unknown function", self_resolve(dbg, "no_such_function_x", &out) < 0);
	probe_debuginfo_close(dbg);

	strbuf_reset(&err);
	TEST_ASSERT_VAL("non-ELF", !probe_debuginfo_open("/proc/self/cmdline", &err));
	TEST_ASSERT_VAL("non-ELF said", strstr(err.buf, "not an ELF file"));
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&want);
	return TEST_OK;
}

int test__probe_spec(void)
{
	if (parse_ok() || parse_bad() || fetcharg_text())
		return TEST_FAIL;
	return self_dwarf();
}
