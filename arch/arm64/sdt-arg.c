// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 SDT operands as gcc and clang write them (the "nor" constraint
 * of <sys/sdt.h> printed in A64 syntax): a register x0-x30, w0-w30 or
 * sp; memory [REG] or [REG, DISP] (DISP with or without '#'); a
 * constant, with or without '#'.  w registers are the low half of their
 * x register, which is what fetchargs name.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "arch/arm64/arm64.h"

#define XREG(n) { "x" #n, "x" #n, 0, 64 }, { "w" #n, "x" #n, 0, 32 }

static const struct sdt_reg sdt_regs[] = {
	XREG(0), XREG(1), XREG(2), XREG(3), XREG(4), XREG(5), XREG(6),
	XREG(7), XREG(8), XREG(9), XREG(10), XREG(11), XREG(12), XREG(13),
	XREG(14), XREG(15), XREG(16), XREG(17), XREG(18), XREG(19),
	XREG(20), XREG(21), XREG(22), XREG(23), XREG(24), XREG(25),
	XREG(26), XREG(27), XREG(28), XREG(29), XREG(30),
	/* The aliases gas accepts for x29 and x30. */
	{ "fp", "x29", 0, 64 }, { "lr", "x30", 0, 64 },
	{ "sp", "sp", 0, 64 }, { "wsp", "sp", 0, 32 },
};

const struct sdt_reg *arm64_sdt_reg_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sdt_regs) / sizeof(sdt_regs[0]); i++)
		if (!strcmp(sdt_regs[i].name, name))
			return &sdt_regs[i];
	return NULL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* s[0..len) without the blanks around it. */
static void trim(const char **s, size_t *len)
{
	while (*len && is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
}

/* Why a register name that is not a general-purpose one cannot be read. */
static int bad_reg(const char *name, struct strbuf *why)
{
	if (strchr("bhsdqv", name[0]) && name[1] >= '0' && name[1] <= '9') {
		strbuf_addf(why, "floating-point/SIMD register %s cannot be fetched",
			    name);
		return -EOPNOTSUPP;
	}
	strbuf_addf(why, "'%s' is not a register tracekit can fetch", name);
	return -EOPNOTSUPP;
}

static int parse_reg(const char *s, size_t len, const struct sdt_reg **reg,
		     struct strbuf *why)
{
	char name[16];

	trim(&s, &len);
	if (!len || len >= sizeof(name)) {
		strbuf_addf(why, "bad register '%.*s'", (int)len, s);
		return -EINVAL;
	}
	memcpy(name, s, len);
	name[len] = '\0';
	*reg = arm64_sdt_reg_lookup(name);
	return *reg ? 0 : bad_reg(name, why);
}

/* "[REG]" or "[REG, DISP]"; a post- or pre-indexed form is not an operand sdt.h makes. */
static int parse_memory(const char *s, size_t len, struct sdt_arg *arg,
			struct strbuf *why)
{
	const char *in = s + 1, *comma;
	size_t inlen;
	int ret;

	if (len < 3 || s[len - 1] != ']') {
		strbuf_addf(why, "operand does not end with ']'");
		return -EINVAL;
	}
	inlen = len - 2;
	comma = memchr(in, ',', inlen);
	ret = parse_reg(in, comma ? (size_t)(comma - in) : inlen, &arg->reg,
			why);
	if (ret)
		return ret;
	arg->op = SDT_OP_MEM;
	arg->disp = 0;
	if (comma) {
		const char *d = comma + 1;
		size_t dlen = in + inlen - d;

		trim(&d, &dlen);
		if (dlen && *d == '#') {
			d++;
			dlen--;
		}
		/* [x1, x2] or [x1, x2, lsl 3]: fetchargs add no registers. */
		if (memchr(d, ',', dlen) ||
		    (dlen && isalpha((unsigned char)*d))) {
			strbuf_addf(why, "base+index operand '%.*s' cannot be fetched",
				    (int)len, s);
			return -EOPNOTSUPP;
		}
		if (dlen && *d == ':') {
			/* [x0, #:lo12:sym]: a global, after an adrp. */
			strbuf_addf(why, "symbol-relative operand '%.*s' cannot be fetched",
				    (int)len, s);
			return -EOPNOTSUPP;
		}
		if (arch_parse_number(d, dlen, &arg->disp, NULL)) {
			strbuf_addf(why, "bad displacement '%.*s'", (int)dlen, d);
			return -EINVAL;
		}
	}
	return 0;
}

static int arm64_sdt_imm(const char *op, size_t len, struct sdt_arg *arg,
			 struct strbuf *why)
{
	int imm_unsigned;

	if (len && *op == '#') {
		op++;
		len--;
	}
	if (arch_parse_number(op, len, &arg->imm, &imm_unsigned)) {
		strbuf_addf(why, "constant '%.*s' is not a number", (int)len, op);
		return -EINVAL;
	}
	arg->op = SDT_OP_IMM;
	arg->imm_unsigned = imm_unsigned;
	return 0;
}

int arm64_sdt_operand_parse(const char *op, size_t len, struct sdt_arg *arg,
			    struct strbuf *why)
{
	trim(&op, &len);
	if (!len) {
		strbuf_addf(why, "empty operand");
		return -EINVAL;
	}
	if (op[0] == '[') {
		if (op[len - 1] == '!') {
			strbuf_addf(why, "pre-indexed operand '%.*s' cannot be fetched",
				    (int)len, op);
			return -EOPNOTSUPP;
		}
		return parse_memory(op, len, arg, why);
	}
	if (op[0] == '#' || op[0] == '-' || op[0] == '+' ||
	    (op[0] >= '0' && op[0] <= '9'))
		return arm64_sdt_imm(op, len, arg, why);
	/* The zero register reads as the constant 0. */
	if ((len == 3 && (!memcmp(op, "xzr", 3) || !memcmp(op, "wzr", 3)))) {
		arg->op = SDT_OP_IMM;
		arg->imm = 0;
		return 0;
	}
	arg->op = SDT_OP_REG;
	return parse_reg(op, len, &arg->reg, why);
}
