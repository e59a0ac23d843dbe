/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_AGGREGATE_H
#define TK_AGGREGATE_H

#include <stdint.h>

#include "util/strbuf.h"

/*
 * Keyed aggregation tables in the manner of bpftrace's maps: one
 * operation (count, sum, min, max, avg, hist, lhist) over values added
 * under a tuple of keys (numbers or strings), kept in a hash table, and
 * printed as bpftrace 0.17 prints the anonymous map `@` when it exits,
 * as text or as `bpftrace -f json` does.  Nothing here reads events:
 * the caller hands the keys and the value.
 */

enum aggregate_op {
	AGGREGATE_COUNT,
	AGGREGATE_SUM,
	AGGREGATE_MIN,
	AGGREGATE_MAX,
	AGGREGATE_AVG,
	AGGREGATE_HIST,
	AGGREGATE_LHIST,
};

/* One key of a tuple: str NULL for a number. */
struct aggregate_key {
	const char *str;
	int64_t num;
};

/* lhist()'s arguments, checked as bpftrace checks them. */
struct aggregate_lhist {
	int64_t min, max, step;
};

struct aggregate;

/* A hash of the n keys of key (strings by their text, numbers by value). */
uint64_t aggregate_keys_hash(const struct aggregate_key *key, int n);

/* 1 where the n keys of a and b are the same numbers and strings, else 0. */
int aggregate_keys_equal(const struct aggregate_key *a,
			 const struct aggregate_key *b, int n);

/* The bucket of v in hist(): 0 for v < 0, 1 for 0, 2 + log2(v) up to 33. */
int aggregate_hist_bucket(int64_t v);

/* The bucket of v in lhist(): 0 below min, 1 + (max - min) / step above. */
int aggregate_lhist_bucket(const struct aggregate_lhist *lh, int64_t v);

/*
 * Whether lh is an lhist() bpftrace accepts: 0, or -EINVAL with the
 * reason in err.
 */
int aggregate_lhist_check(const struct aggregate_lhist *lh,
			  struct strbuf *err);

/* A table of nr_keys keys (0: the one value of `@`); lh for LHIST only. */
struct aggregate *aggregate_new(enum aggregate_op op, int nr_keys,
				const struct aggregate_lhist *lh);

/* Adds v (ignored by count) under the nr_keys keys of key; copies them. */
void aggregate_add(struct aggregate *a, const struct aggregate_key *key,
		   int64_t v);

/*
 * n >= 1 hits at once, as n calls of aggregate_add(a, key, v) would add
 * them, for counts that come already summed (a kernel hist trigger's
 * hitcount and sum): count gets n, sum and avg get sum (the n values
 * added up, wrapping at 64 bits as aggregate_add()'s sum does), and min,
 * max, hist and lhist see v n times; where one of those four is the
 * table's op, the n values must all be v, and then sum is n * v.
 */
void aggregate_add_n(struct aggregate *a, const struct aggregate_key *key,
		     int64_t v, uint64_t n, uint64_t sum);

/* The number of distinct key tuples. */
size_t aggregate_size(const struct aggregate *a);

/*
 * The table as bpftrace prints `@` at exit, after its "Attaching" line,
 * appended to out.  top > 0 keeps the top entries only, as print(@, top)
 * does.
 */
void aggregate_print_text(struct aggregate *a, size_t top,
			  struct strbuf *out);

/* The same as `bpftrace -f json` prints it. */
void aggregate_print_json(struct aggregate *a, size_t top,
			  struct strbuf *out);

void aggregate_free(struct aggregate *a);

#endif
