// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64: what the offline unwinder of user stacks reads at a probe.
 * DWARF CFI of the psABI restores rip, rsp and the callee-saved rbx,
 * rbp, r12-r15; every other register is dead across a call, so no
 * caller's frame depends on it.  The DWARF numbers are the psABI's
 * (Figure 3.36), 16 the return address column.
 */
#include <libunwind-x86_64.h>

#include "arch/arch.h"

static const struct arch_unwind_reg regs[] = {
	{ "ip", UNW_X86_64_RIP, 16 },
	{ "sp", UNW_X86_64_RSP, 7 },
	{ "bp", UNW_X86_64_RBP, 6 },
	{ "bx", UNW_X86_64_RBX, 3 },
	{ "r12", UNW_X86_64_R12, 12 },
	{ "r13", UNW_X86_64_R13, 13 },
	{ "r14", UNW_X86_64_R14, 14 },
	{ "r15", UNW_X86_64_R15, 15 },
};

const struct arch_unwind_reg *arch_unwind_regs(int *nr)
{
	*nr = sizeof(regs) / sizeof(regs[0]);
	return regs;
}
