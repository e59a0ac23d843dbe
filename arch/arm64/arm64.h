/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ARCH_ARM64_H
#define TK_ARCH_ARM64_H

#include "arch/arch.h"

/* What sdt-arg.c defines for the table in dwarf-regs.c. */
const struct sdt_reg *arm64_sdt_reg_lookup(const char *name);
int arm64_sdt_operand_parse(const char *op, size_t len, struct sdt_arg *arg,
			    struct strbuf *why);

#endif
