/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ARCH_H
#define TK_ARCH_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * What the probe translator must know about the machine it probes: the
 * registers of struct pt_regs as the kernel's fetchargs name them, the
 * calling convention behind $argN, and the operand syntax the compiler
 * writes into SDT notes.  One binary carries every architecture it
 * knows (arch/x86/, arch/arm64/): the target's is chosen at run time,
 * from the ELF header of the file probed or from the running kernel, so
 * that a build host makes definitions for a target of another machine.
 * Nothing in util/ knows more about a machine than struct arch says.
 */

struct sdt_arg;

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

/*
 * The registers an offline unwinder needs at a user-space probe (the
 * return address register, the stack pointer and the callee-saved ones
 * that DWARF CFI restores): the fetcharg name and its DWARF number (the
 * psABI's, as CFI names it, which libunwind uses too; for the
 * instruction pointer the number libunwind gives it).  unwind_regs[0]
 * is the instruction pointer, [1] the stack pointer.
 */
struct arch_unwind_reg {
	const char *kname;	/* fetcharg name without the '%' */
	int dwarf;		/* DWARF register number */
};

struct arch {
	/* The kernel's name for it (ARCH=, /lib/modules/.../build/arch/) */
	const char *name;
	const char *uname;	/* uname -m's: "x86_64", "aarch64" */
	unsigned int e_machine;	/* EM_X86_64, EM_AARCH64 */

	/* Index: DWARF register number; fetcharg names without '%'. */
	const char *const *regnames;
	int nr_regnames;
	int sp_regno;		/* DWARF number of the stack pointer */
	/* The CFA minus the stack pointer at a function's first instruction */
	long long entry_cfa;

	/*
	 * The integer argument registers (DWARF numbers) in order; further
	 * arguments in 8-byte stack slots from stack_args(sp) at the entry.
	 */
	const int *arg_regs;
	int nr_arg_regs;
	long long stack_args;
	/*
	 * Whether the kernel's $argN reads stack arguments too
	 * (regs_get_kernel_argument(): x86-64 does, arm64 gives 0 past x7).
	 */
	unsigned argn_stack:1;

	/*
	 * The argument k ($argk, as arch_entry_arg() places it) of a
	 * parameter of size bytes, a scalar or (aggregate) a struct or union
	 * of integers and pointers passed by value, after the earlier ones
	 * took *regs argument registers and *stack stack slots, which it
	 * updates; *by_ref set when the slot holds the address of a copy
	 * rather than the value.  -1 when the ABI does not say.
	 */
	int (*arg_slot)(size_t size, int aggregate, int *regs, int *stack,
			int *by_ref);

	/* The register an SDT operand calls name, or NULL. */
	const struct sdt_reg *(*sdt_reg_lookup)(const char *name);
	/*
	 * Parses the OPERAND of an SDT argument (len bytes, not empty) into
	 * the op fields of arg.  0; -EINVAL when it is malformed;
	 * -EOPNOTSUPP when it is valid but no fetcharg can express it.
	 * why gets the reason.
	 */
	int (*sdt_operand_parse)(const char *op, size_t len,
				 struct sdt_arg *arg, struct strbuf *why);

	/* What probe --call-graph captures for the unwinder. */
	const struct arch_unwind_reg *unwind_regs;
	int nr_unwind_regs;
};

extern const struct arch arch_x86_64;
extern const struct arch arch_arm64;

/*
 * The machine this tracekit is built for: what libunwind-generic unwinds,
 * and what a process of tracekit's own is.
 */
#if defined(__aarch64__)
#define ARCH_NATIVE (&arch_arm64)
#else
#define ARCH_NATIVE (&arch_x86_64)
#endif

/*
 * The architecture of an ELF file's e_machine and EI_CLASS; NULL with
 * why naming the machine ("riscv64", "32-bit arm") when tracekit does not
 * translate for it.
 */
const struct arch *arch_of_elf(unsigned int e_machine, int elfclass,
			       struct strbuf *why);

/* The architecture of the running kernel (uname); NULL with why. */
const struct arch *arch_of_kernel(struct strbuf *why);

/* The names of the architectures tracekit knows, for messages: "x86_64, arm64" */
const char *arch_known(void);

/* The architecture after prev in the table (the first for NULL), or NULL. */
const struct arch *arch_next(const struct arch *prev);

/*
 * The architecture whose fetcharg register name is name (len bytes, no
 * '%') when a has none of that name: a definition made for another
 * machine.  NULL when a has it, or no architecture does.
 */
const struct arch *arch_other_reg(const struct arch *a, const char *name,
				  size_t len);

/* The fetcharg name ("di", "x8"...) of a DWARF register; NULL if none. */
const char *arch_dwarf_regname(const struct arch *a, int regno);

/*
 * The call frame address at a function's first instruction, for code
 * without CFI (kernel modules): DWARF register *regno plus *off.
 */
void arch_entry_cfa(const struct arch *a, int *regno, long long *off);

/*
 * Where integer argument k (from 1) is at a function's entry: 0 with
 * *regno its register, 1 with *off(*regno) its stack slot, -1 when the
 * arch does not say.
 */
int arch_entry_arg(const struct arch *a, int k, int *regno, long long *off);

/* Whether the kernel's $argk reads argument k as arch_entry_arg() places it. */
int arch_argn_ok(const struct arch *a, int k);

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
 * [+-]NUMBER (base 0: decimal, 0x hex, 0 octal) covering all of
 * s[0..len); *is_unsigned (may be NULL) when it lies above LLONG_MAX.
 * 0 or -EINVAL.  The assemblers' operands share this.
 */
int arch_parse_number(const char *s, size_t len, long long *val,
		      int *is_unsigned);

#endif
