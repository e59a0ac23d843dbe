// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of trace-live.sh.  "burst N": take(i) for i < N, each
 * call followed by a write(2) to /dev/null, as fast as it goes.  "slow N
 * MS": take(i) every MS milliseconds, the CLOCK_REALTIME time of each
 * call written to stderr first ("i seconds.nanoseconds"), so that the
 * test can tell how long the event took to be printed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) long take(long v)
{
	/* Not folded into main(): the probe needs the call. */
	__asm__ volatile("" : : "r"(v) : "memory");
	return v;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	long ms = argc > 3 ? atol(argv[3]) : 0;
	int fd = open("/dev/null", O_WRONLY);
	struct timespec t, nap = { ms / 1000, ms % 1000 * 1000000L };
	long i;

	if (argc < 3 || fd < 0 || (strcmp(argv[1], "burst") && argc < 4)) {
		fprintf(stderr, "usage: %s burst N | slow N MS\n", argv[0]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[1], "burst")) {
			take(i);
			if (write(fd, "x", 1) != 1)
				return 1;
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &t);
		fprintf(stderr, "%ld %lld.%09ld\n", i, (long long)t.tv_sec,
			t.tv_nsec);
		take(i);
		nanosleep(&nap, NULL);
	}
	return 0;
}
