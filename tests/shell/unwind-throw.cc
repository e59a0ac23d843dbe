// SPDX-License-Identifier: GPL-2.0
/*
 * The target of tests/shell/unwind-libstdcxx.sh and arm64-unwind-x86.sh:
 * thrower() throws at the end of a recursion of rec() (depths 3 and 9,
 * alternately), caught in catcher(); first it prints the stack glibc's
 * backtrace() walks in-process from its caller on, "BT RET1 RET2 ...".
 *
 *   unwind-throw N	N throws
 */
#include <cstdio>
#include <cstdlib>
#include <execinfo.h>

volatile int sink;

extern "C" __attribute__((noinline)) void thrower(int id)
{
	void *bt[128];
	int n = backtrace(bt, 128), i;

	printf("BT");
	for (i = 1; i < n; i++)
		printf(" %lu", (unsigned long)bt[i]);
	printf("\n");
	throw id;
}

/* Not a tail call: the add after it keeps each frame on the stack. */
extern "C" __attribute__((noinline)) void rec(int id, int left)
{
	if (left)
		rec(id, left - 1);
	else
		thrower(id);
	sink++;
}

extern "C" __attribute__((noinline)) void catcher(int id, int depth)
{
	try {
		rec(id, depth);
	} catch (int e) {
		sink += e;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, i;

	for (i = 0; i < n; i++)
		catcher(i, i % 2 ? 9 : 3);
	return 0;
}
