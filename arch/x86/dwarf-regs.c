// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64: DWARF register numbers (psABI figure 3.36), the SysV integer
 * argument registers behind the kernel's $argN, and the table entry of
 * the architecture.
 */
#include <elf.h>
#include <stddef.h>

#include "arch/x86/x86.h"

#define DWARF_REG_SP 7

/*
 * Index = DWARF number; names as kernel/trace's x86 regs_query_register_offset.
 */
static const char *const regnames[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* rdi, rsi, rdx, rcx, r8, r9 in DWARF numbering. */
static const int arg_regs[] = { 5, 4, 1, 2, 8, 9 };

#define NR_ARG_REGS (int)(sizeof(arg_regs) / sizeof(arg_regs[0]))

/*
 * The SysV x86-64 ABI (3.2.3): a scalar takes the next of the six
 * integer registers, or the next stack slot once they are used up; an
 * aggregate of at most 16 bytes whose eightbytes are all of class
 * INTEGER takes one or two registers, or when both do not fit, stack
 * slots (later scalars still take the registers left); a larger one
 * (class MEMORY) always goes on the stack, by value.  Stack slot s is
 * $arg(6 + s).
 */
static int arg_slot(size_t size, int aggregate, int *regs, int *stack,
		    int *by_ref)
{
	int n = (int)((size + 7) / 8), k;

	*by_ref = 0;
	if (!size || (!aggregate && size > 8))
		return -1;
	if (*regs + n <= NR_ARG_REGS && size <= 16) {
		k = *regs + 1;
		*regs += n;
		return k;
	}
	k = NR_ARG_REGS + *stack + 1;
	*stack += n;
	return k;
}

/*
 * What the offline unwinder of user stacks reads at a probe.
 * DWARF CFI of the psABI restores rip, rsp and the callee-saved rbx,
 * rbp, r12-r15; every other register is dead across a call, so no
 * caller's frame depends on it.  The DWARF numbers are the psABI's
 * (Figure 3.36), 16 the return address column.
 */
static const struct arch_unwind_reg unwind_regs[] = {
	{ "ip", 16 }, { "sp", 7 }, { "bp", 6 }, { "bx", 3 },
	{ "r12", 12 }, { "r13", 13 }, { "r14", 14 }, { "r15", 15 },
};

const struct arch arch_x86_64 = {
	.name = "x86_64",
	.uname = "x86_64",
	.e_machine = EM_X86_64,
	.regnames = regnames,
	.nr_regnames = sizeof(regnames) / sizeof(regnames[0]),
	.sp_regno = DWARF_REG_SP,
	/* call pushed the return address: the CFA is rsp + 8 ... */
	.entry_cfa = 8,
	.arg_regs = arg_regs,
	.nr_arg_regs = NR_ARG_REGS,
	/* ... and the stack arguments lie above it. */
	.stack_args = 8,
	.argn_stack = 1,
	.arg_slot = arg_slot,
	.sdt_reg_lookup = x86_sdt_reg_lookup,
	.sdt_operand_parse = x86_sdt_operand_parse,
	.unwind_regs = unwind_regs,
	.nr_unwind_regs = sizeof(unwind_regs) / sizeof(unwind_regs[0]),
};
