// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>

#include "arch/x86/dwarf-regs.h"

/* Index = DWARF number; names as kernel/trace's x86 regs_query_register_offset. */
static const char *const regnames[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

const char *x86_dwarf_regname(int regno)
{
	if (regno < 0 || (size_t)regno >= sizeof(regnames) / sizeof(regnames[0]))
		return NULL;
	return regnames[regno];
}

int x86_abi_arg_dwarf_reg(int slot)
{
	/* rdi, rsi, rdx, rcx, r8, r9 in DWARF numbering. */
	static const int args[X86_ABI_NR_REG_ARGS] = { 5, 4, 1, 2, 8, 9 };

	if (slot < 1 || slot > X86_ABI_NR_REG_ARGS)
		return -1;
	return args[slot - 1];
}
