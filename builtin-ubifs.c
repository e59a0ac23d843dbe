// SPDX-License-Identifier: GPL-2.0
#include "builtin.h"
#include "util/usage.h"

int cmd_ubifs(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	error("not implemented yet (issue #8)");
	return TK_EXIT_USAGE;
}
