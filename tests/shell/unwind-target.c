// SPDX-License-Identifier: GPL-2.0
/*
 * The target of tests/shell/unwind-*.sh: leaf() is reached through a
 * recursion of rec() of a chosen depth, and prints its own backtrace,
 * taken in-process by glibc's backtrace() (libgcc's unwinder, from the
 * same .eh_frame): "BT ID DEPTH PC RET1 RET2 ..." in decimal, which the
 * tests hold tracekit's offline stack of the probe on leaf() against,
 * and the same addresses less the base of their file (dladdr()) as
 * "BTREL ID DEPTH ...", for perf script's file-relative ones.  leaf()
 * has an SDT marker too, sdt_tkunwind:leaf(id, depth).  Built with
 * -DUNWIND_LIB, the recursion reaches leaf() through unwind-lib.c's
 * library and libc's qsort().  The call to either is in via_inline(),
 * inlined into rec().
 *
 *   unwind-target N [DEPTH,...]   N calls, of the depths in turn (5,20,60)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

volatile int sink;

#ifdef UNWIND_LIB
void unwind_lib_sort(void (*fn)(int, int), int id, int depth);
#endif

__attribute__((noinline)) void leaf(int id, int depth)
{
	void *bt[128];
	int n, i;

	DTRACE_PROBE2(tkunwind, leaf, id, depth);
	n = backtrace(bt, 128);

	printf("BT %d %d", id, depth);
	for (i = 0; i < n; i++)
		printf(" %lu", (unsigned long)bt[i]);
	printf("\nBTREL %d %d", id, depth);
	for (i = 0; i < n; i++) {
		Dl_info dl;

		printf(" %lu", dladdr(bt[i], &dl) ? (unsigned long)bt[i] -
		       (unsigned long)dl.dli_fbase : 0);
	}
	printf("\n");
	sink += id;
}

/* Inlined into rec(): an inlined frame between leaf() and rec(). */
static inline __attribute__((always_inline)) void via_inline(int id, int depth)
{
#ifdef UNWIND_LIB
	unwind_lib_sort(leaf, id, depth);
#else
	leaf(id, depth);
#endif
	sink += 2;
}

/* Not a tail call: the add after it keeps each frame on the stack. */
__attribute__((noinline)) void rec(int id, int depth, int left)
{
	if (left == 0)
		via_inline(id, depth);
	else
		rec(id, depth, left - 1);
	sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, nr = 3, i;
	int depths[8] = { 5, 20, 60 };
	char *p = argc > 2 ? argv[2] : NULL;

	for (i = 0; p && *p && i < 8; i++, p += *p == ',')
		depths[i] = strtol(p, &p, 10);
	if (argc > 2)
		nr = i ? i : 1;
	for (i = 0; i < n; i++)
		rec(i, depths[i % nr], depths[i % nr]);
	return 0;
}
