/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ARCH_X86_DWARF_REGS_H
#define TK_ARCH_X86_DWARF_REGS_H

/*
 * x86-64 facts the probe translator needs: DWARF register numbers (psABI
 * figure 3.36) to the pt_regs names the kernel's fetchargs accept, and
 * the SysV integer argument registers behind the kernel's $argN.
 */

/* "di", "sp", "r8"...; NULL for numbers without a pt_regs slot (xmm, ra). */
const char *x86_dwarf_regname(int regno);

/* DWARF number of the stack pointer (rsp). */
#define X86_DWARF_REG_SP 7

/* Integer arguments passed in registers by the SysV ABI. */
#define X86_ABI_NR_REG_ARGS 6

/* DWARF register of integer argument slot 1..6, or -1. */
int x86_abi_arg_dwarf_reg(int slot);

#endif
