// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64: DWARF register numbers (psABI figure 3.36) and the SysV
 * integer argument registers behind the kernel's $argN.
 */
#include <stddef.h>

#include "arch/arch.h"

#define DWARF_REG_SP 7

/*
 * Index = DWARF number; names as kernel/trace's x86 regs_query_register_offset.
 */
static const char *const regnames[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

const char *arch_dwarf_regname(int regno)
{
	if (regno < 0 ||
	    (size_t)regno >= sizeof(regnames) / sizeof(regnames[0]))
		return NULL;
	return regnames[regno];
}

/* call pushed the return address: the CFA is rsp + 8. */
void arch_entry_cfa(int *regno, long long *off)
{
	*regno = DWARF_REG_SP;
	*off = 8;
}

int arch_entry_arg(int k, int *regno, long long *off)
{
	/* rdi, rsi, rdx, rcx, r8, r9 in DWARF numbering. */
	static const int args[] = { 5, 4, 1, 2, 8, 9 };
	const int nr_regs = sizeof(args) / sizeof(args[0]);

	if (k < 1)
		return -1;
	if (k <= nr_regs) {
		*regno = args[k - 1];
		return 0;
	}
	/* The rest on the stack, above the return address. */
	*regno = DWARF_REG_SP;
	*off = 8LL * (k - nr_regs);
	return 1;
}

/*
 * The SysV x86-64 ABI (3.2.3): a scalar takes the next of the six
 * integer registers, or the next stack slot once they are used up; an
 * aggregate of at most 16 bytes whose eightbytes are all of class
 * INTEGER takes one or two registers, or when both do not fit, stack
 * slots (later scalars still take the registers left); a larger one
 * (class MEMORY) always goes on the stack.  Stack slot s is $arg(6 + s).
 */
int arch_arg_slot(size_t size, int aggregate, int *regs, int *stack)
{
	const int nr_regs = 6;
	int n = (int)((size + 7) / 8), k;

	if (!size || (!aggregate && size > 8))
		return -1;
	if (*regs + n <= nr_regs && size <= 16) {
		k = *regs + 1;
		*regs += n;
		return k;
	}
	k = nr_regs + *stack + 1;
	*stack += n;
	return k;
}
