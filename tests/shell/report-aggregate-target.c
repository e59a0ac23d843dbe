// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of report-aggregate.sh: take() is called with each value
 * of vals[], the i-th one i + 1 times, so that no two keys of a count,
 * sum, min or max table tie (bpftrace orders ties by its kernel hash
 * table, which a trace file does not keep), while hist() and avg() keys
 * do tie.  small() gets those of them that bpftrace 0.17's min() gets
 * right: it keeps the greatest 0xffffffff - v in 64 bits, where values
 * from 2^32 on and near INT64_MIN wrap (src/ast/codegen_llvm.cpp).
 */
#include <stdint.h>

static const int64_t vals[] = {
	0, 1, -1, 2, 3, 4, 7, 8, 15, 16, 33, 97, 98, 99, 100, 101, 1023, 1024,
	1025, -2, -100, INT64_MAX, INT64_MIN, 4294967296LL, 2147483647,
	2147483648LL,
};

__attribute__((noinline)) int64_t take(int64_t v)
{
	/* Not folded into main(): the probe needs the call. */
	__asm__ volatile("" : : "r"(v) : "memory");
	return v;
}

__attribute__((noinline)) int64_t small(int64_t v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
	return v;
}

int main(void)
{
	int64_t sum = 0;
	unsigned int i, n;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (n = 0; n <= i; n++)
			sum += take(vals[i]);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (vals[i] > -4294967296LL && vals[i] < 4294967296LL)
			sum += small(vals[i]);
	return sum == 42;
}
