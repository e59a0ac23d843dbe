/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ARCH_H
#define TK_ARCH_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * What the probe translator must know about the machine it probes: the
 * registers of struct pt_regs as the kernel's fetchargs name them, the
 * calling convention behind $argN, and the operand syntax the compiler
 * writes into SDT notes.  Every arch/$(SRCARCH)/ implements all of this
 * header and nothing in util/ knows more about the machine than it says.
 */

/* The fetcharg name ("di", "r8"...) of a DWARF register; NULL if none. */
const char *arch_dwarf_regname(int regno);

/*
 * The call frame address at a function's first instruction, for code
 * without CFI (kernel modules): DWARF register *regno plus *off.
 */
void arch_entry_cfa(int *regno, long long *off);

/*
 * Where integer argument k (from 1) is at a function's entry, as the
 * kernel's $argN reads it: 0 with *regno its register, 1 with *off(*regno)
 * its stack slot, -1 when the arch does not say.
 */
int arch_entry_arg(int k, int *regno, long long *off);

/*
 * The argument k ($argk, as arch_entry_arg() places it) of a parameter
 * of size bytes, a scalar or (aggregate) a struct or union of integers
 * and pointers passed by value, after the earlier ones took *regs
 * argument registers and *stack stack slots, which it updates; -1 when
 * the arch does not say.
 */
int arch_arg_slot(size_t size, int aggregate, int *regs, int *stack);

/*
 * A register as an SDT operand names it (any width), mapped to the
 * pt_regs slot that fetchargs read.  A sub-register other than the low
 * part of its slot (x86's %ah) needs a bitfield fetch, not a narrower type.
 */
struct sdt_reg {
	const char *name;	/* as the note writes it, without prefix */
	const char *kname;	/* fetcharg name without the '%' */
	unsigned char shift;	/* lowest bit of the sub-register */
	unsigned char bits;	/* width of the sub-register: 8, 16, 32, 64 */
};

/* The register called name, or NULL for one without a pt_regs slot. */
const struct sdt_reg *arch_sdt_reg_lookup(const char *name);

enum sdt_operand {
	SDT_OP_REG,		/* a register */
	SDT_OP_MEM,		/* DISP off a register */
	SDT_OP_IMM,		/* a constant */
	SDT_OP_RIP,		/* SYM+DISP relative to the program counter */
};

/* One SDT argument "[-]SIZE[f]@OPERAND" of a note. */
struct sdt_arg {
	/* bytes: 1, 2, 4, 8; 0 when the note gives none */
	int size;
	unsigned is_signed:1;	/* negative SIZE */
	unsigned is_float:1;	/* "f" after SIZE: raw IEEE bits in a GPR */
	enum sdt_operand op;
	const struct sdt_reg *reg;	/* REG and MEM */
	long long disp;			/* MEM and RIP */
	/* IMM (unsigned values above LLONG_MAX wrap) */
	long long imm;
	unsigned imm_unsigned:1;	/* print imm as unsigned */
	char *sym;			/* RIP, allocated */
};

/*
 * Parses the OPERAND of an SDT argument (len bytes, not empty) into the
 * op fields of arg.  0; -EINVAL when it is malformed; -EOPNOTSUPP when it
 * is valid but no fetcharg can express it.  why gets the reason.
 */
int arch_sdt_operand_parse(const char *op, size_t len, struct sdt_arg *arg,
			   struct strbuf *why);

/*
 * The registers an offline unwinder needs at a user-space probe (the
 * return address register, the stack pointer and the callee-saved ones
 * that DWARF CFI restores): the fetcharg name, libunwind's number for
 * it and its DWARF number (the psABI's, as CFI names it; the return
 * address column for the instruction pointer).  unwind_regs[0] is the
 * instruction pointer, [1] the stack pointer.
 */
struct arch_unwind_reg {
	const char *kname;	/* fetcharg name without the '%' */
	int unw;		/* libunwind register number */
	int dwarf;		/* DWARF register number */
};

const struct arch_unwind_reg *arch_unwind_regs(int *nr);

#endif
