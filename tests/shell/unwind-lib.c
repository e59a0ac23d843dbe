// SPDX-License-Identifier: GPL-2.0
/*
 * The shared library of tests/shell/unwind-target.c built with
 * -DUNWIND_LIB: its leaf() is called from here through libc's qsort(), so
 * that the stack crosses the program, this library and libc.
 */
#include <stdlib.h>

void unwind_lib_sort(void (*fn)(int, int), int id, int depth);

static void (*cb)(int, int);
static int cb_id, cb_depth;
volatile int unwind_lib_sink;

static int cmp(const void *a, const void *b)
{
	cb(cb_id, cb_depth);
	unwind_lib_sink++;
	return *(const int *)a - *(const int *)b;
}

/* Two elements: qsort() compares them once. */
void unwind_lib_sort(void (*fn)(int, int), int id, int depth)
{
	int v[2] = { 2, 1 };

	cb = fn;
	cb_id = id;
	cb_depth = depth;
	qsort(v, 2, sizeof(v[0]), cmp);
	unwind_lib_sink += v[0];
}
