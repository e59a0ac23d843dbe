// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of bench/trace.sh: hit(v) called CALLS times, v running
 * through 0..7, so that a count by v has eight keys of CALLS / 8 each.
 * It writes to FILE its loop's wall and CPU seconds and its own CPU
 * seconds so far (user + sys, from getrusage): the loop is what a probe
 * slows down, and a tracer's own CPU is its total, which counts the
 * workload it waited for, less the workload's.
 *
 *   trace-target CALLS FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

__attribute__((noinline)) int hit(int v);
__attribute__((noinline)) int hit(int v)
{
	/* Not folded into the loop: the probe needs the call. */
	__asm__ volatile("" : : "r"(v) : "memory");
	return v;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	double w0, c0, w1, c1;
	long i, calls;
	FILE *f;
	int sum = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: trace-target CALLS FILE\n");
		return 2;
	}
	calls = atol(argv[1]);
	w0 = wall_s();
	c0 = cpu_s();
	for (i = 0; i < calls; i++)
		sum += hit((int)(i % 8));
	w1 = wall_s();
	c1 = cpu_s();
	f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	fprintf(f, "%.6f %.6f %.6f\n", w1 - w0, c1 - c0, c1);
	return fclose(f) || sum < 0;
}
