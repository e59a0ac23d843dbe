// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of tests/shell/report-flamegraph.sh, whose stacks the
 * test knows before it runs: target() is called A times from from_a()
 * and B times from from_b(), both from main(), and (with a third
 * count) C times from from_c() through from_b(), so that one frame
 * name has two parents.
 *
 *   flame-target A B [C]
 */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) void target(int i)
{
	sink += i;
}

/* The add after each call keeps it from being a tail call. */
__attribute__((noinline)) void from_a(int i)
{
	target(i);
	sink++;
}

__attribute__((noinline)) void from_c(int i)
{
	target(i);
	sink++;
}

__attribute__((noinline)) void from_b(int i, int via_c)
{
	if (via_c)
		from_c(i);
	else
		target(i);
	sink++;
}

int main(int argc, char **argv)
{
	int a = argc > 1 ? atoi(argv[1]) : 1, b = argc > 2 ? atoi(argv[2]) : 1;
	int c = argc > 3 ? atoi(argv[3]) : 0, i;

	for (i = 0; i < a; i++)
		from_a(i);
	for (i = 0; i < b; i++)
		from_b(i, 0);
	for (i = 0; i < c; i++)
		from_b(i, 1);
	return 0;
}
