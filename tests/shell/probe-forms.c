// SPDX-License-Identifier: GPL-2.0
/*
 * The program probe-perf-forms.sh probes with perf and tracekit side by
 * side: functions for wildcards, block-local variables for $vars, lines
 * for lazy patterns, a function whose first instruction is an inlined
 * copy's (gcc -O2), and a second source file (probe-forms-aux.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct req {
	int len;
	char name[16];
	struct req *next;
};

int aux_sum(const struct req *r, int scale);

static inline int weight(const struct req *r, int scale)
{
	return r->len * scale;
}

/* -O2: its first instruction is weight()'s. */
__attribute__((noinline)) int first_weight(const struct req *head, int scale)
{
	return weight(head, scale) + 1;
}

__attribute__((noinline)) int handle_len(struct req *r, int k)
{
	int total = r->len * k;

	for (int i = 0; i < k; i++) {
		int step = i * 2;

		total += step;
	}
	return total;
}

__attribute__((noinline)) int handle_name(struct req *r)
{
	int len = strlen(r->name);
	int res = handle_len(r, len);

	r->len = res;
	return res;
}

__attribute__((noinline)) int handle_all(struct req *head, int scale)
{
	int sum = 0;

	for (struct req *r = head; r; r = r->next) {
		int w = weight(r, scale);

		sum += w + handle_name(r);
	}
	return sum + aux_sum(head, scale);
}

int main(int argc, char **argv)
{
	struct req b = { 5, "bb", NULL }, a = { 3, "a", &b };

	(void)argv;
	printf("%d %d\n", handle_all(&a, argc), first_weight(&a, argc));
	return 0;
}
