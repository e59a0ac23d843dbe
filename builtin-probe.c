// SPDX-License-Identifier: GPL-2.0
#include "builtin.h"
#include "util/usage.h"

int cmd_probe(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	error("not implemented yet (issue #3)");
	return TK_EXIT_USAGE;
}
