// SPDX-License-Identifier: GPL-2.0
/*
 * The table of architectures one tracekit binary translates for, and
 * what reads the same on all of them from struct arch's data.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "arch/arch.h"

static const struct arch *const arches[] = { &arch_x86_64, &arch_arm64 };

#define NR_ARCHES (sizeof(arches) / sizeof(arches[0]))

const char *arch_known(void)
{
	static char names[64];
	size_t i;

	if (!*names)
		for (i = 0; i < NR_ARCHES; i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", arches[i]->name);
	return names;
}

const struct arch *arch_next(const struct arch *prev)
{
	size_t i = 0;

	if (prev)
		while (i < NR_ARCHES && arches[i++] != prev)
			;
	return i < NR_ARCHES ? arches[i] : NULL;
}

/* The names of the machines tracekit does not know, for the refusal. */
static const char *machine_name(unsigned int e_machine, int elfclass)
{
	int is64 = elfclass == ELFCLASS64;

	switch (e_machine) {
	case EM_X86_64:
		return is64 ? "x86_64" : "x32 (x86-64 with 32-bit pointers)";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return is64 ? "arm64" : "arm64 ILP32";
	case EM_ARM:
		return "32-bit arm";
	case EM_RISCV:
		return is64 ? "riscv64" : "riscv32";
	case EM_PPC64:
		return "ppc64";
	case EM_PPC:
		return "ppc (32-bit)";
	case EM_S390:
		return is64 ? "s390x" : "s390";
	case EM_MIPS:
		return "mips";
	case EM_LOONGARCH:
		return "loongarch";
	default:
		return NULL;
	}
}

const struct arch *arch_of_elf(unsigned int e_machine, int elfclass,
			       struct strbuf *why)
{
	const char *name;
	size_t i;

	for (i = 0; i < NR_ARCHES; i++)
		if (arches[i]->e_machine == e_machine && elfclass == ELFCLASS64)
			return arches[i];
	name = machine_name(e_machine, elfclass);
	if (name)
		strbuf_addf(why, "%s", name);
	else
		strbuf_addf(why, "ELF machine %u", e_machine);
	return NULL;
}

const struct arch *arch_of_kernel(struct strbuf *why)
{
	struct utsname u;
	size_t i;

	if (uname(&u)) {
		strbuf_addf(why, "uname: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < NR_ARCHES; i++)
		if (!strcmp(u.machine, arches[i]->uname))
			return arches[i];
	strbuf_addf(why, "%s", u.machine);
	return NULL;
}

static int has_reg(const struct arch *a, const char *name, size_t len)
{
	int r;

	for (r = 0; r < a->nr_regnames; r++)
		if (strlen(a->regnames[r]) == len &&
		    !strncmp(a->regnames[r], name, len))
			return 1;
	return 0;
}

const struct arch *arch_other_reg(const struct arch *a, const char *name,
				  size_t len)
{
	size_t i;

	if (has_reg(a, name, len))
		return NULL;
	for (i = 0; i < NR_ARCHES; i++)
		if (arches[i] != a && has_reg(arches[i], name, len))
			return arches[i];
	return NULL;
}

const char *arch_dwarf_regname(const struct arch *a, int regno)
{
	if (regno < 0 || regno >= a->nr_regnames)
		return NULL;
	return a->regnames[regno];
}

void arch_entry_cfa(const struct arch *a, int *regno, long long *off)
{
	*regno = a->sp_regno;
	*off = a->entry_cfa;
}

int arch_entry_arg(const struct arch *a, int k, int *regno, long long *off)
{
	if (k < 1)
		return -1;
	if (k <= a->nr_arg_regs) {
		*regno = a->arg_regs[k - 1];
		return 0;
	}
	*regno = a->sp_regno;
	*off = a->stack_args + 8LL * (k - a->nr_arg_regs - 1);
	return 1;
}

int arch_argn_ok(const struct arch *a, int k)
{
	return k >= 1 && (k <= a->nr_arg_regs || a->argn_stack);
}

int arch_parse_number(const char *s, size_t len, long long *val,
		      int *is_unsigned)
{
	char buf[32], *end;
	unsigned long long mag;
	int neg = 0;
	size_t i = 0;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] == '-' || buf[0] == '+')
		neg = buf[i++] == '-';
	if (!isdigit((unsigned char)buf[i]))
		return -EINVAL;
	errno = 0;
	mag = strtoull(buf + i, &end, 0);
	if (*end || errno)
		return -EINVAL;
	if (neg && mag > (unsigned long long)LLONG_MAX + 1)
		return -EINVAL;
	*val = neg ? (long long)(0 - mag) : (long long)mag;
	if (is_unsigned)
		*is_unsigned = !neg && mag > (unsigned long long)LLONG_MAX;
	return 0;
}
