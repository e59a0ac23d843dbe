// SPDX-License-Identifier: GPL-2.0
/*
 * util/aggregate.c: the buckets, the order and the text and JSON of the
 * tables, against what bpftrace 0.17.0 printed for the same values
 * (uprobe on a function called with VALUES below; its output at exit,
 * the "Attaching" line left out).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/tests.h"
#include "util/aggregate.h"
#include "util/strbuf.h"

static const int64_t values[] = {
	0, 1, -1, 2, 3, 4, 256, 7, 8, 9, 15, 16, 17, 1023, 1024, 1025, -2,
	-3, -100, 100, 100, 100, 5, 5, 3, 3, 3, -8, -7, -7, 33, -5, -5, -5,
	-10, -11, 97, 98, 99, 101, -256, INT64_MAX, INT64_MIN, 4294967296LL,
};
#define NR_VALUES (sizeof(values) / sizeof(values[0]))

static const struct aggregate_lhist lh_0_100_7 = { 0, 100, 7 };

/* bpftrace -e '... { @ = lhist((int64)arg0, 0, 100, 7); }' */
static const char want_lhist[] =
	"\n"
	"\n"
	"@: \n"
	"(..., 0)              14 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[0, 7)                10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@               |\n"
	"[7, 14)                3 |@@@@@@@@@@@                                         |\n"
	"[14, 21)               3 |@@@@@@@@@@@                                         |\n"
	"[21, 28)               0 |                                                    |\n"
	"[28, 35)               1 |@@@                                                 |\n"
	"[35, 42)               0 |                                                    |\n"
	"[42, 49)               0 |                                                    |\n"
	"[49, 56)               0 |                                                    |\n"
	"[56, 63)               0 |                                                    |\n"
	"[63, 70)               0 |                                                    |\n"
	"[70, 77)               0 |                                                    |\n"
	"[77, 84)               0 |                                                    |\n"
	"[84, 91)               0 |                                                    |\n"
	"[91, 98)               1 |@@@                                                 |\n"
	"[100, ...)            12 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@        |\n"
	"\n";

/* bpftrace -f json -e '... { @ = hist((int64)arg0); }' */
static const char want_hist_json[] =
	"\n\n{\"type\": \"hist\", \"data\": {\"@\": [{\"max\": -1, \""
	"count\": 14}, {\"min\": 0, \"max\": 0, \"count\": 1}, {\"min"
	"\": 1, \"max\": 1, \"count\": 1}, {\"min\": 2, \"max\": 3, \""
	"count\": 5}, {\"min\": 4, \"max\": 7, \"count\": 4}, {\"min\""
	": 8, \"max\": 15, \"count\": 3}, {\"min\": 16, \"max\": 31, "
	"\"count\": 2}, {\"min\": 32, \"max\": 63, \"count\": 1}, {\""
	"min\": 64, \"max\": 127, \"count\": 7}, {\"min\": 128, \"max"
	"\": 255, \"count\": 0}, {\"min\": 256, \"max\": 511, \"count"
	"\": 1}, {\"min\": 512, \"max\": 1023, \"count\": 1}, {\"min\""
	": 1024, \"max\": 2047, \"count\": 2}, {\"min\": 2048, \"max\""
	": 4095, \"count\": 0}, {\"min\": 4096, \"max\": 8191, \"coun"
	"t\": 0}, {\"min\": 8192, \"max\": 16383, \"count\": 0}, {\"m"
	"in\": 16384, \"max\": 32767, \"count\": 0}, {\"min\": 32768,"
	" \"max\": 65535, \"count\": 0}, {\"min\": 65536, \"max\": 13"
	"1071, \"count\": 0}, {\"min\": 131072, \"max\": 262143, \"co"
	"unt\": 0}, {\"min\": 262144, \"max\": 524287, \"count\": 0},"
	" {\"min\": 524288, \"max\": 1048575, \"count\": 0}, {\"min\""
	": 1048576, \"max\": 2097151, \"count\": 0}, {\"min\": 209715"
	"2, \"max\": 4194303, \"count\": 0}, {\"min\": 4194304, \"max"
	"\": 8388607, \"count\": 0}, {\"min\": 8388608, \"max\": 1677"
	"7215, \"count\": 0}, {\"min\": 16777216, \"max\": 33554431, "
	"\"count\": 0}, {\"min\": 33554432, \"max\": 67108863, \"coun"
	"t\": 0}, {\"min\": 67108864, \"max\": 134217727, \"count\": "
	"0}, {\"min\": 134217728, \"max\": 268435455, \"count\": 0}, "
	"{\"min\": 268435456, \"max\": 536870911, \"count\": 0}, {\"m"
	"in\": 536870912, \"max\": 1073741823, \"count\": 0}, {\"min\""
	": 1073741824, \"max\": 2147483647, \"count\": 0}, {\"min\": "
	"-2147483648, \"max\": 0, \"count\": 2}]}}\n";

/*
 * bpftrace -e '... { @[(int64)arg0] = hist((int64)arg0); }': 35 keys, 27
 * of them with one value each, in the order libstdc++'s std::sort left
 * the ties.
 */
static const int64_t want_hist_keys[] = {
	17, -1, INT64_MAX, 1023, -2, -3, -8, -10, -11, -100, 101, 99, 98,
	97, 33, 0, 2, INT64_MIN, 4294967296LL, 256, 1024, -256, 1, 1025, 16,
	4, 7, 8, 9, 15, -7, 5, 100, -5, 3,
};

static int test_buckets(void)
{
	/* hist(): measured edges; everything from 2^31 in "[2G, 4G)" */
	static const struct { int64_t v; int bucket; } h[] = {
		{ INT64_MIN, 0 }, { -2, 0 }, { -1, 0 }, { 0, 1 }, { 1, 2 },
		{ 2, 3 }, { 3, 3 }, { 4, 4 }, { 7, 4 }, { 8, 5 },
		{ 1023, 11 }, { 1024, 12 }, { 1025, 12 },
		{ INT32_MAX, 32 }, { 2147483648LL, 33 },
		{ 4294967296LL, 33 }, { INT64_MAX, 33 },
	};
	/* lhist(0, 100, 7): 14 buckets; 98 and 99 fall above, as 100 */
	static const struct { int64_t v; int bucket; } l[] = {
		{ INT64_MIN, 0 }, { -1, 0 }, { 0, 1 }, { 6, 1 }, { 7, 2 },
		{ 90, 13 }, { 91, 14 }, { 97, 14 }, { 98, 15 }, { 99, 15 },
		{ 100, 15 }, { 101, 15 }, { INT64_MAX, 15 },
	};
	size_t i;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		TEST_ASSERT_EQUAL("hist bucket", aggregate_hist_bucket(h[i].v),
				  h[i].bucket);
	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		TEST_ASSERT_EQUAL("lhist bucket",
				  aggregate_lhist_bucket(&lh_0_100_7, l[i].v),
				  l[i].bucket);
	return TEST_OK;
}

static int test_lhist_check(void)
{
	static const struct aggregate_lhist bad[] = {
		{ -1, 10, 1 }, { 0, 10, 0 }, { 10, 10, 1 }, { 0, 1001, 1 },
		{ 0, (int64_t)INT32_MAX + 1, 1 << 30 },
	};
	struct strbuf err = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		TEST_ASSERT_VAL("bad lhist refused",
				aggregate_lhist_check(&bad[i], &err) < 0 &&
				err.len);
	}
	TEST_ASSERT_EQUAL("lhist(0, 1000, 1)",
			  aggregate_lhist_check(&(struct aggregate_lhist)
						{ 0, 1000, 1 }, &err), 0);
	strbuf_release(&err);
	return TEST_OK;
}

static struct aggregate *fill(enum aggregate_op op, int keyed,
			      const struct aggregate_lhist *lh)
{
	struct aggregate *a = aggregate_new(op, keyed, lh);
	struct aggregate_key k = { 0 };
	size_t i;

	for (i = 0; i < NR_VALUES; i++) {
		k.num = values[i];
		aggregate_add(a, &k, values[i]);
	}
	return a;
}

static int test_printed(void)
{
	struct strbuf out = STRBUF_INIT;
	struct aggregate *a;
	struct aggregate_key k = { 0 };
	const char *p;
	char want[64];
	size_t i, n;

	a = fill(AGGREGATE_LHIST, 0, &lh_0_100_7);
	aggregate_print_text(a, 0, &out);
	TEST_ASSERT_STR("lhist text", out.buf, want_lhist);
	aggregate_free(a);

	strbuf_reset(&out);
	a = fill(AGGREGATE_HIST, 0, NULL);
	aggregate_print_json(a, 0, &out);
	TEST_ASSERT_STR("hist json", out.buf, want_hist_json);
	aggregate_free(a);

	strbuf_reset(&out);
	a = fill(AGGREGATE_HIST, 1, NULL);
	aggregate_print_text(a, 0, &out);
	p = out.buf;
	for (i = 0; i < sizeof(want_hist_keys) / sizeof(want_hist_keys[0]);
	     i++) {
		snprintf(want, sizeof(want), "\n@[%lld]: \n",
			 (long long)want_hist_keys[i]);
		p = strstr(p, want);
		TEST_ASSERT_VAL(want, p);
	}
	/* Printing sorts the entries: a key seen again is still found. */
	n = aggregate_size(a);
	for (i = 0; i < NR_VALUES; i++) {
		k.num = values[i];
		aggregate_add(a, &k, values[i]);
	}
	TEST_ASSERT_EQUAL("no entry twice after printing", aggregate_size(a),
			  n);
	aggregate_free(a);
	strbuf_release(&out);
	return TEST_OK;
}

/* count keyed by two keys, one a string: bpftrace -f json's members */
static int test_json_keys(void)
{
	static const struct { int64_t k; int n; } c[] = {
		{ 0, 14 }, { 2, 15 }, { 1, 12 },
	};
	struct strbuf out = STRBUF_INIT;
	struct aggregate *a = aggregate_new(AGGREGATE_COUNT, 2, NULL);
	struct aggregate_key k[2] = { { NULL, 0 }, { "t2", 0 } };
	size_t i;
	int n;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (n = 0, k[0].num = c[i].k; n < c[i].n; n++)
			aggregate_add(a, k, 0);
	TEST_ASSERT_EQUAL("3 entries", aggregate_size(a), 3);
	aggregate_print_json(a, 0, &out);
	TEST_ASSERT_STR("count json", out.buf,
			"\n\n{\"type\": \"map\", \"data\": {\"@\": {\"1,t2\": 12, \"0,t2\": 14, \"2,t2\": 15}}}\n");
	strbuf_reset(&out);
	aggregate_print_text(a, 2, &out);
	TEST_ASSERT_STR("count text, top 2", out.buf,
			"\n\n@[0, t2]: 14\n@[2, t2]: 15\n");
	strbuf_reset(&out);
	aggregate_print_json(a, 1, &out);
	TEST_ASSERT_STR("count json, top 1", out.buf,
			"\n\n{\"type\": \"map\", \"data\": {\"@\": {\"2,t2\": 15}}}\n");
	aggregate_free(a);
	strbuf_release(&out);
	return TEST_OK;
}

/* the one-value maps and the empty ones, as bpftrace printed them */
static int test_unkeyed(void)
{
	struct strbuf out = STRBUF_INIT;
	struct aggregate *a;

	a = fill(AGGREGATE_SUM, 0, NULL);
	aggregate_print_text(a, 0, &out);
	TEST_ASSERT_STR("sum", out.buf, "\n\n@: 4294971032\n");
	aggregate_free(a);
	strbuf_reset(&out);
	a = fill(AGGREGATE_AVG, 0, NULL);
	aggregate_print_json(a, 0, &out);
	TEST_ASSERT_STR("avg json", out.buf,
			"\n\n{\"type\": \"stats\", \"data\": {\"@\": 97612978}}\n");
	strbuf_reset(&out);
	aggregate_print_text(a, 0, &out);
	TEST_ASSERT_STR("avg text", out.buf, "\n\n@: 97612978\n\n");
	aggregate_free(a);
	strbuf_reset(&out);
	a = aggregate_new(AGGREGATE_COUNT, 1, NULL);
	aggregate_print_text(a, 0, &out);
	TEST_ASSERT_STR("empty text", out.buf, "\n\n\n");
	strbuf_reset(&out);
	aggregate_print_json(a, 0, &out);
	TEST_ASSERT_STR("empty json", out.buf, "\n\n");
	aggregate_free(a);
	strbuf_release(&out);
	return TEST_OK;
}

/* Both printings of a and b, which must be the same bytes. */
static int same_tables(const char *what, struct aggregate *a,
		       struct aggregate *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	int ret = TEST_FAIL;

	aggregate_print_text(a, 0, &x);
	aggregate_print_text(b, 0, &y);
	aggregate_print_json(a, 0, &x);
	aggregate_print_json(b, 0, &y);
	if (strcmp(x.buf, y.buf))
		fprintf(stderr, "FAILED %s:\n%s\n!=\n%s\n", what, x.buf, y.buf);
	else
		ret = TEST_OK;
	strbuf_release(&x);
	strbuf_release(&y);
	return ret;
}

/*
 * aggregate_add_n() against the calls of aggregate_add() it stands for:
 * each value added 1 to 4 times, keyed by the value modulo 5; and for
 * the ops that keep no single value (count, sum, avg), each key's hits
 * in one call with their sum.
 */
static int test_add_n(void)
{
	static const enum aggregate_op ops[] = {
		AGGREGATE_COUNT, AGGREGATE_SUM, AGGREGATE_MIN, AGGREGATE_MAX,
		AGGREGATE_AVG, AGGREGATE_HIST, AGGREGATE_LHIST,
	};
	struct aggregate *a, *b, *c;
	struct aggregate_key k = { 0 };
	uint64_t n[5], sum[5];
	size_t o, i, j;
	int ret = TEST_OK;

	for (o = 0; o < sizeof(ops) / sizeof(ops[0]) && !ret; o++) {
		a = aggregate_new(ops[o], 1, &lh_0_100_7);
		b = aggregate_new(ops[o], 1, &lh_0_100_7);
		c = aggregate_new(ops[o], 1, &lh_0_100_7);
		memset(n, 0, sizeof(n));
		memset(sum, 0, sizeof(sum));
		for (i = 0; i < NR_VALUES; i++) {
			k.num = (values[i] % 5 + 5) % 5;
			for (j = 0; j <= i % 4; j++)
				aggregate_add(a, &k, values[i]);
			aggregate_add_n(b, &k, values[i], j,
					j * (uint64_t)values[i]);
			n[k.num] += j;
			sum[k.num] += j * (uint64_t)values[i];
		}
		for (k.num = 0; k.num < 5; k.num++)
			aggregate_add_n(c, &k, values[0], n[k.num],
					sum[k.num]);
		ret = same_tables("add_n, one value", a, b);
		if (!ret && (ops[o] == AGGREGATE_COUNT ||
			     ops[o] == AGGREGATE_SUM ||
			     ops[o] == AGGREGATE_AVG))
			ret = same_tables("add_n, a key's sum", a, c);
		aggregate_free(a);
		aggregate_free(b);
		aggregate_free(c);
	}
	return ret;
}

int test__aggregate(void)
{
	if (test_buckets() || test_lhist_check() || test_printed() ||
	    test_json_keys() || test_unkeyed() || test_add_n())
		return TEST_FAIL;
	return TEST_OK;
}
