// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of report-latency.sh: three threads each call nap() with
 * sleeps of 1.5, 3.5, 6.5 and 12.5 ms, the i-th length i + 1 + t times in
 * thread t; and begin(a), finish(b) around them with tokens, which
 * --match pairs: a token begun twice (the latest counts), and one
 * finished that never began.  The lengths lie in the middle of
 * power-of-two buckets of ns ([1M, 2M) is 1.05 to 2.10 ms) and of 1 ms
 * steps, so that the timer's slack (50 us) and the few us the two
 * tracers' clocks differ by leave each in its bucket.  With an argument,
 * begin() takes 5000 tokens before finish() ends them: more than the 4096
 * STARTs that bpftrace's map and report keep.
 */
#include <pthread.h>
#include <time.h>

#define THREADS	3

static const long lens_us[] = { 1500, 3500, 6500, 12500 };

__attribute__((noinline)) void nap(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void begin(long a)
{
	/* Not folded into the caller: the probe needs the call. */
	__asm__ volatile("" : : "r"(a) : "memory");
}

__attribute__((noinline)) void finish(long b)
{
	__asm__ volatile("" : : "r"(b) : "memory");
}

static void *worker(void *arg)
{
	long t = (long)arg, i, n;

	for (i = 0; i < 4; i++)
		for (n = 0; n <= i + t; n++)
			nap(lens_us[i]);
	for (i = 0; i < 4; i++) {
		begin(100 * t + i);
		if (i == 1) {
			nap(lens_us[0]);
			begin(100 * t + i);
		}
		nap(lens_us[i]);
		finish(100 * t + i);
	}
	finish(100 * t + 99);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	long t;

	(void)argv;
	if (argc > 1) {
		for (t = 0; t < 5000; t++)
			begin(1000 + t);
		for (t = 0; t < 5000; t++)
			finish(1000 + t);
		return 0;
	}

	for (t = 0; t < THREADS; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)t))
			return 1;
	for (t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	return 0;
}
