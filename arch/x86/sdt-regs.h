/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ARCH_X86_SDT_REGS_H
#define TK_ARCH_X86_SDT_REGS_H

/*
 * x86-64 register names as gcc writes them in SDT argument strings (AT&T,
 * every width) mapped to the names of struct pt_regs that kprobe and
 * uprobe fetchargs accept (%ax, %r8 ...).  A sub-register is the low part
 * of its full register, except the high bytes %ah %bh %ch %dh, which are
 * bits 8..15: those need a bitfield fetch, not a narrower type.
 */
struct sdt_reg {
	const char *name;	/* without the '%': "eax", "r8w", "ah" */
	const char *kname;	/* pt_regs name without the '%': "ax", "r8" */
	unsigned char shift;	/* lowest bit of the sub-register: 0 or 8 */
	unsigned char bits;	/* width of the sub-register: 8, 16, 32, 64 */
};

/* The entry for name (without '%'), or NULL for an unknown register
 * (%xmm0, %fs, %st ...). */
const struct sdt_reg *sdt_reg_lookup(const char *name);

#endif
