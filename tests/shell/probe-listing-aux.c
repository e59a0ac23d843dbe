// SPDX-License-Identifier: GPL-2.0
/* probe-listing.c's second source file: SRC forms, globals of its own. */
#include "probe-listing.h"

int other_value = 7;
static int other_hidden;

__attribute__((noinline)) static int dup(int d)
{
	return d * other_value;
}

int helper(int x)
{
	int y = x * 2;

	other_hidden += y;
	if (y > 10) {
		int z = clamp_to(y - 10, 1, 50);

		return dup(z);
	}
	return y + other_hidden;
}
