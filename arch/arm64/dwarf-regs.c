// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: DWARF register numbers (DWARF for the Arm 64-bit Architecture,
 * 4.1: 0-30 x0-x30, 31 sp), the AAPCS64 integer argument registers
 * behind the kernel's $argN, and the table entry of the architecture.
 */
#include <elf.h>
#include <stddef.h>

#include "arch/arm64/arm64.h"

#define DWARF_REG_SP 31

/*
 * Index = DWARF number; names as arch/arm64/kernel/ptrace.c's
 * regoffset_table has them (the kernel refuses %fp, %w0: a w register
 * is read as its x register).
 */
static const char *const regnames[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7",
	"x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
	"x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
	"x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp",
};

/* x0-x7. */
static const int arg_regs[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

#define NR_ARG_REGS (int)(sizeof(arg_regs) / sizeof(arg_regs[0]))

/*
 * AAPCS64 (6.8.2, integer and pointer arguments only): a scalar of up
 * to 8 bytes takes the next of x0-x7 (NGRN), else the next 8-byte stack
 * slot; a composite of up to 16 bytes takes as many consecutive
 * registers as it has doublewords when they all fit, else the stack,
 * and then NGRN is set to 8 (C.13: later arguments go on the stack too,
 * unlike x86-64); a larger composite is copied by the caller and
 * passed as a pointer to the copy (B.4), one register or slot.  Stack
 * slot s is $arg(8 + s), which the kernel's $argN does not read
 * (regs_get_kernel_argument() gives 0 past x7).  A composite aligned to
 * 16 bytes starts at an even register (C.12); BTF does not say the
 * alignment, so such a parameter would be placed one register early.
 */
static int arg_slot(size_t size, int aggregate, int *regs, int *stack,
		    int *by_ref)
{
	int n = (int)((size + 7) / 8), k;

	*by_ref = 0;
	if (!size || (!aggregate && size > 8))
		return -1;
	if (aggregate && size > 16) {
		*by_ref = 1;
		n = 1;
	}
	if (*regs + n <= NR_ARG_REGS) {
		k = *regs + 1;
		*regs += n;
		return k;
	}
	if (aggregate)
		*regs = NR_ARG_REGS;
	k = NR_ARG_REGS + *stack + 1;
	*stack += n;
	return k;
}

/*
 * What the offline unwinder of user stacks reads at a probe: pc (32,
 * libunwind's UNW_AARCH64_PC), sp, the frame and link registers, and
 * the first callee-saved registers AAPCS64 code keeps its CFA in when
 * it has no frame pointer.  Eight, as x86-64's, so that
 * CALLGRAPH_MAX_STACK holds for both.
 */
static const struct arch_unwind_reg unwind_regs[] = {
	{ "pc", 32 }, { "sp", 31 }, { "x29", 29 }, { "x30", 30 },
	{ "x19", 19 }, { "x20", 20 }, { "x21", 21 }, { "x22", 22 },
};

const struct arch arch_arm64 = {
	.name = "arm64",
	.uname = "aarch64",
	.e_machine = EM_AARCH64,
	.regnames = regnames,
	.nr_regnames = sizeof(regnames) / sizeof(regnames[0]),
	.sp_regno = DWARF_REG_SP,
	/* bl puts the return address in x30, not on the stack. */
	.entry_cfa = 0,
	.arg_regs = arg_regs,
	.nr_arg_regs = NR_ARG_REGS,
	.stack_args = 0,
	.argn_stack = 0,
	.arg_slot = arg_slot,
	.sdt_reg_lookup = arm64_sdt_reg_lookup,
	.sdt_operand_parse = arm64_sdt_operand_parse,
	.unwind_regs = unwind_regs,
	.nr_unwind_regs = sizeof(unwind_regs) / sizeof(unwind_regs[0]),
};
