// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64: what the offline unwinder of user stacks reads at a probe.
 * DWARF CFI of the psABI restores rip, rsp and the callee-saved rbx,
 * rbp, r12-r15; every other register is dead across a call, so no
 * caller's frame depends on it.
 */
#include <libunwind-x86_64.h>

#include "arch/arch.h"

static const struct arch_unwind_reg regs[] = {
	{ "ip", UNW_X86_64_RIP },
	{ "sp", UNW_X86_64_RSP },
	{ "bp", UNW_X86_64_RBP },
	{ "bx", UNW_X86_64_RBX },
	{ "r12", UNW_X86_64_R12 },
	{ "r13", UNW_X86_64_R13 },
	{ "r14", UNW_X86_64_R14 },
	{ "r15", UNW_X86_64_R15 },
};

const struct arch_unwind_reg *arch_unwind_regs(int *nr)
{
	*nr = sizeof(regs) / sizeof(regs[0]);
	return regs;
}
