// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 SDT operands, AT&T syntax as gcc writes them: %reg of any width,
 * $IMM, [DISP](%reg) and SYM[+-DISP](%rip).  Registers map to the names
 * of struct pt_regs that kprobe and uprobe fetchargs accept (%ax, %r8...).
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/x86.h"
#include "util/usage.h"

#define LEGACY(k, q, d, w, l, h) \
	{ q, k, 0, 64 }, { d, k, 0, 32 }, { w, k, 0, 16 }, { l, k, 0, 8 }, \
	{ h, k, 8, 8 }
#define INDEX(k, q, d, w, l) \
	{ q, k, 0, 64 }, { d, k, 0, 32 }, { w, k, 0, 16 }, { l, k, 0, 8 }
#define RNUM(k) \
	{ k, k, 0, 64 }, { k "d", k, 0, 32 }, { k "w", k, 0, 16 }, \
	{ k "b", k, 0, 8 }, { k "l", k, 0, 8 }

/* "r8l" is the Intel spelling of r8b; gas accepts both. */
static const struct sdt_reg sdt_regs[] = {
	LEGACY("ax", "rax", "eax", "ax", "al", "ah"),
	LEGACY("bx", "rbx", "ebx", "bx", "bl", "bh"),
	LEGACY("cx", "rcx", "ecx", "cx", "cl", "ch"),
	LEGACY("dx", "rdx", "edx", "dx", "dl", "dh"),
	INDEX("si", "rsi", "esi", "si", "sil"),
	INDEX("di", "rdi", "edi", "di", "dil"),
	INDEX("bp", "rbp", "ebp", "bp", "bpl"),
	INDEX("sp", "rsp", "esp", "sp", "spl"),
	RNUM("r8"), RNUM("r9"), RNUM("r10"), RNUM("r11"),
	RNUM("r12"), RNUM("r13"), RNUM("r14"), RNUM("r15"),
	{ "rip", "ip", 0, 64 }, { "eip", "ip", 0, 32 },
};

const struct sdt_reg *x86_sdt_reg_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sdt_regs) / sizeof(sdt_regs[0]); i++)
		if (!strcmp(sdt_regs[i].name, name))
			return &sdt_regs[i];
	return NULL;
}

/* "%name" (s[0..len)) -> register; -EOPNOTSUPP for unknown ones. */
static int parse_reg(const char *s, size_t len, const struct sdt_reg **reg,
		     struct strbuf *why)
{
	char name[16];

	if (len < 2 || s[0] != '%' || len - 1 >= sizeof(name)) {
		strbuf_addf(why, "bad register '%.*s'", (int)len, s);
		return -EINVAL;
	}
	memcpy(name, s + 1, len - 1);
	name[len - 1] = '\0';
	*reg = x86_sdt_reg_lookup(name);
	if (!*reg) {
		strbuf_addf(why, "register %%%s has no fetcharg name", name);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int is_sym_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@';
}

/* "SYM[+-DISP]" before "(%rip)". */
static int parse_rip(const char *s, size_t len, struct sdt_arg *arg,
		     struct strbuf *why)
{
	size_t n = 0;

	while (n < len && is_sym_char((unsigned char)s[n]))
		n++;
	if (!n || isdigit((unsigned char)s[0]) || s[0] == '$') {
		strbuf_addf(why, "rip-relative operand without a symbol");
		return -EOPNOTSUPP;
	}
	if (n < len && arch_parse_number(s + n, len - n, &arg->disp, NULL)) {
		strbuf_addf(why, "bad displacement '%.*s'", (int)(len - n), s + n);
		return -EINVAL;
	}
	arg->sym = xstrndup(s, n);
	arg->op = SDT_OP_RIP;
	return 0;
}

static int parse_memory(const char *s, size_t len, struct sdt_arg *arg,
			struct strbuf *why)
{
	const char *open = memchr(s, '(', len);
	const char *in;
	size_t pre, inlen;
	int ret;

	if (!open) {
		strbuf_addf(why, "absolute memory operand");
		return -EOPNOTSUPP;
	}
	pre = open - s;
	in = open + 1;
	if (s[len - 1] != ')') {
		strbuf_addf(why, "operand does not end with ')'");
		return -EINVAL;
	}
	inlen = s + len - 1 - in;
	if (memchr(in, ',', inlen)) {
		/* Fetchargs have no index arithmetic: base + index * scale. */
		strbuf_addf(why, "base+index*scale operand cannot be fetched");
		return -EOPNOTSUPP;
	}
	ret = parse_reg(in, inlen, &arg->reg, why);
	if (ret)
		return ret;
	if (!strcmp(arg->reg->kname, "ip"))
		return parse_rip(s, pre, arg, why);
	arg->op = SDT_OP_MEM;
	if (pre && arch_parse_number(s, pre, &arg->disp, NULL)) {
		if (isdigit((unsigned char)s[0]) || s[0] == '+' ||
		    s[0] == '-') {
			strbuf_addf(why, "bad displacement '%.*s'", (int)pre, s);
			return -EINVAL;
		}
		strbuf_addf(why, "symbol '%.*s' relative to %%%s cannot be fetched",
			    (int)pre, s, arg->reg->name);
		return -EOPNOTSUPP;
	}
	return 0;
}

int x86_sdt_operand_parse(const char *op, size_t len, struct sdt_arg *arg,
			  struct strbuf *why)
{
	int imm_unsigned;

	if (memchr(op, ':', len)) {
		strbuf_addf(why, "segment-prefixed (TLS) operand cannot be fetched");
		return -EOPNOTSUPP;
	}
	if (op[0] == '%') {
		arg->op = SDT_OP_REG;
		return parse_reg(op, len, &arg->reg, why);
	}
	if (op[0] == '$') {
		arg->op = SDT_OP_IMM;
		if (arch_parse_number(op + 1, len - 1, &arg->imm,
				      &imm_unsigned)) {
			strbuf_addf(why, "constant '%.*s' is not a number",
				    (int)len, op);
			return -EOPNOTSUPP;
		}
		arg->imm_unsigned = imm_unsigned;
		return 0;
	}
	return parse_memory(op, len, arg, why);
}
