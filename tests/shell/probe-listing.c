// SPDX-License-Identifier: GPL-2.0
/*
 * The program probe-perf-listing.sh lists with perf and tracekit side by
 * side (-L, -V, -F): globals, a function inlined only (square) and one
 * both inlined and out of line (twice), a loop with block-local
 * variables, an alias, a static function of a name probe-listing-aux.c
 * has too, and a second source file and a header.
 */
#include <stdio.h>
#include <stdlib.h>
#include "probe-listing.h"

int g_count = 3;
static long g_total;
extern int other_value;
int _hidden_start;
int helper(int x);

static inline int square(int v)
{
	int r = v * v;

	return r;
}

static int twice(int v)
{
	return v * 2 + g_count;
}

__attribute__((noinline)) static int dup(int d)
{
	return d + g_count;
}

__attribute__((noinline)) int compute(int n, const char *tag)
{
	int sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		int sq = square(i);
		long acc = sq + g_count;

		sum += clamp_to((int)acc, 0, 100);
		g_total += acc;
	}
	if (tag)
		printf("%s %d\n", tag, sum);
	return sum + dup(sum) + twice(n);
}

int compute_alias(int n, const char *tag) __attribute__((alias("compute")));

int main(int argc, char **argv)
{
	int (*volatile fn)(int) = twice;
	int n = argc > 1 ? atoi(argv[1]) : 4;

	n = compute(n, argv[0]);
	n += compute_alias(n & 3, NULL) + fn(argc);
	return helper(n) + other_value + _hidden_start > 1000;
}
