// SPDX-License-Identifier: GPL-2.0
/*
 * probe --call-graph's capture fields: written into a uprobe's
 * definition, recognised in the events that carry them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "util/callgraph.h"
#include "util/fetcharg.h"
#include "util/parse-options.h"
#include "util/usage.h"

int callgraph_fetch_args(const struct arch *a, unsigned int stack_size,
			 struct strbuf *out)
{
	const struct arch_unwind_reg *regs = a->unwind_regs;
	unsigned int off, n;
	int i, nr = a->nr_unwind_regs;

	for (i = 0; i < nr; i++)
		strbuf_addf(out, " %s%s=%%%s", CALLGRAPH_PREFIX, regs[i].kname,
			    regs[i].kname);
	for (off = 0, i = 0; off < stack_size; off += n * 8, i++) {
		n = (stack_size - off) / 8;
		if (n > FETCH_MAX_ARRAY_LEN)
			n = FETCH_MAX_ARRAY_LEN;
		strbuf_addf(out, " %s%d=+%u(%%sp):x64[%u]", CALLGRAPH_STACK, i,
			    off, n);
	}
	return nr + i;
}

int callgraph_parse_size(const char *arg, unsigned int *size)
{
	char *end;
	unsigned long n;

	if (!arg) {
		*size = CALLGRAPH_DEF_STACK;
		return 0;
	}
	n = strtoul(arg, &end, 0);
	if (end == arg || *end || !n || n % 8 || n > CALLGRAPH_MAX_STACK)
		return -EINVAL;
	*size = n;
	return 0;
}

int callgraph_is_field(const char *name)
{
	size_t plen = strlen(CALLGRAPH_PREFIX);
	const struct arch *a = NULL;
	int i;

	if (strncmp(name, CALLGRAPH_PREFIX, plen))
		return 0;
	if (!strncmp(name, CALLGRAPH_STACK, strlen(CALLGRAPH_STACK)))
		return 1;
	while ((a = arch_next(a)))
		for (i = 0; i < a->nr_unwind_regs; i++)
			if (!strcmp(name + plen, a->unwind_regs[i].kname))
				return 1;
	return 0;
}

int callgraph_opt(const struct option *opt, const char *arg, int unset)
{
	unsigned int *size = opt->value;

	if (unset)
		*size = 0;
	else if (callgraph_parse_size(arg, size))
		die_code(TK_EXIT_USAGE, "--call-graph: '%s': the stack size is "
			 "a multiple of 8 bytes, 8 to %d", arg,
			 CALLGRAPH_MAX_STACK);
	return 0;
}
