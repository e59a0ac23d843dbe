// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <string.h>

#include "arch/x86/sdt-regs.h"

#define LEGACY(k, q, d, w, l, h) \
	{ q, k, 0, 64 }, { d, k, 0, 32 }, { w, k, 0, 16 }, { l, k, 0, 8 }, \
	{ h, k, 8, 8 }
#define INDEX(k, q, d, w, l) \
	{ q, k, 0, 64 }, { d, k, 0, 32 }, { w, k, 0, 16 }, { l, k, 0, 8 }
#define RNUM(k) \
	{ k, k, 0, 64 }, { k "d", k, 0, 32 }, { k "w", k, 0, 16 }, \
	{ k "b", k, 0, 8 }, { k "l", k, 0, 8 }

/* "r8l" is the Intel spelling of r8b; gas accepts both. */
static const struct sdt_reg sdt_regs[] = {
	LEGACY("ax", "rax", "eax", "ax", "al", "ah"),
	LEGACY("bx", "rbx", "ebx", "bx", "bl", "bh"),
	LEGACY("cx", "rcx", "ecx", "cx", "cl", "ch"),
	LEGACY("dx", "rdx", "edx", "dx", "dl", "dh"),
	INDEX("si", "rsi", "esi", "si", "sil"),
	INDEX("di", "rdi", "edi", "di", "dil"),
	INDEX("bp", "rbp", "ebp", "bp", "bpl"),
	INDEX("sp", "rsp", "esp", "sp", "spl"),
	RNUM("r8"), RNUM("r9"), RNUM("r10"), RNUM("r11"),
	RNUM("r12"), RNUM("r13"), RNUM("r14"), RNUM("r15"),
	{ "rip", "ip", 0, 64 }, { "eip", "ip", 0, 32 },
};

const struct sdt_reg *sdt_reg_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sdt_regs) / sizeof(sdt_regs[0]); i++)
		if (!strcmp(sdt_regs[i].name, name))
			return &sdt_regs[i];
	return NULL;
}
