// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation tables as bpftrace's maps: a hash table of key tuples, each
 * with its count, sum, min, max and buckets; sorted and printed at the
 * end as bpftrace 0.17 prints a map at exit (src/bpftrace.cpp print_map,
 * print_map_hist, print_map_stats; src/output.cpp).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/aggregate.h"
#include "util/array.h"
#include "util/json.h"
#include "util/usage.h"

/*
 * hist(): bucket 0 holds the negative values, 1 zero, 2 + log2(v) the
 * rest; bpftrace 0.17's log2 shifts by 16, 8, 4, 2 and 1 at most, so
 * every v from 2^31 up lands in bucket 33, "[2G, 4G)" (measured with
 * bpftrace 0.17.0 on 2^32 and INT64_MAX).
 */
#define HIST_BUCKETS	34
#define HIST_MAX_LOG2	31
/* lhist(): at most 1000 buckets between min and max, as bpftrace's. */
#define LHIST_MAX_BUCKETS	1000
#define BAR_WIDTH	52

struct agg_entry {
	struct aggregate_key *keys;
	uint64_t count;
	uint64_t sum;			/* wraps as bpftrace's 64-bit sum */
	int64_t min, max;
	uint64_t *buckets;
	/* what the entries are sorted by */
	int64_t sort_s;
	uint64_t sort_u;
};

struct aggregate {
	enum aggregate_op op;
	int nr_keys;
	struct aggregate_lhist lh;
	int nr_buckets;			/* hist and lhist */
	struct agg_entry *entries;
	size_t nr, alloc;
	size_t *slots;			/* index + 1 into entries, 0: free */
	size_t nr_slots;		/* a power of two */
};

int aggregate_hist_bucket(int64_t v)
{
	int log2 = 0;
	uint64_t n = v;

	if (v < 0)
		return 0;
	if (!v)
		return 1;
	while (n >>= 1)
		log2++;
	return 2 + (log2 > HIST_MAX_LOG2 ? HIST_MAX_LOG2 : log2);
}

int aggregate_lhist_bucket(const struct aggregate_lhist *lh, int64_t v)
{
	if (v < lh->min)
		return 0;
	if (v > lh->max)
		return 1 + (lh->max - lh->min) / lh->step;
	return 1 + (v - lh->min) / lh->step;
}

/* bpftrace's labels and bounds are C ints: no larger values. */
int aggregate_lhist_check(const struct aggregate_lhist *lh,
			  struct strbuf *err)
{
	if (lh->min < 0 || lh->max > INT32_MAX) {
		strbuf_addf(err, "MIN and MAX must lie in 0..%d", INT32_MAX);
		return -EINVAL;
	}
	if (lh->step < 1) {
		strbuf_addstr(err, "STEP must be 1 or more");
		return -EINVAL;
	}
	if (lh->min >= lh->max) {
		strbuf_addstr(err, "MIN must be less than MAX");
		return -EINVAL;
	}
	if ((lh->max - lh->min) / lh->step > LHIST_MAX_BUCKETS) {
		strbuf_addf(err, "(MAX - MIN) / STEP must be at most %d",
			    LHIST_MAX_BUCKETS);
		return -EINVAL;
	}
	return 0;
}

struct aggregate *aggregate_new(enum aggregate_op op, int nr_keys,
				const struct aggregate_lhist *lh)
{
	struct aggregate *a = xcalloc(1, sizeof(*a));

	a->op = op;
	a->nr_keys = nr_keys;
	if (op == AGGREGATE_HIST)
		a->nr_buckets = HIST_BUCKETS;
	if (op == AGGREGATE_LHIST) {
		a->lh = *lh;
		a->nr_buckets = (lh->max - lh->min) / lh->step + 2;
	}
	a->nr_slots = 64;
	a->slots = xcalloc(a->nr_slots, sizeof(*a->slots));
	return a;
}

/* FNV-1a over the keys' bytes. */
uint64_t aggregate_keys_hash(const struct aggregate_key *key, int n)
{
	uint64_t h = 14695981039346656037ULL;
	const unsigned char *p;
	size_t len;
	int i;

	for (i = 0; i < n; i++) {
		p = key[i].str ? (const unsigned char *)key[i].str :
				 (const unsigned char *)&key[i].num;
		len = key[i].str ? strlen(key[i].str) + 1 : sizeof(key[i].num);
		while (len--)
			h = (h ^ *p++) * 1099511628211ULL;
	}
	return h;
}

int aggregate_keys_equal(const struct aggregate_key *a,
			 const struct aggregate_key *b, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!a[i].str != !b[i].str)
			return 0;
		if (a[i].str ? strcmp(a[i].str, b[i].str) :
			       a[i].num != b[i].num)
			return 0;
	}
	return 1;
}

static size_t *find_slot(struct aggregate *a, const struct aggregate_key *key)
{
	size_t mask = a->nr_slots - 1;
	size_t i = aggregate_keys_hash(key, a->nr_keys) & mask;

	while (a->slots[i] &&
	       !aggregate_keys_equal(a->entries[a->slots[i] - 1].keys, key,
				     a->nr_keys))
		i = (i + 1) & mask;
	return &a->slots[i];
}

/* The slots made again for nr_slots, from where the entries now are. */
static void rehash(struct aggregate *a, size_t nr_slots)
{
	size_t i;

	free(a->slots);
	a->nr_slots = nr_slots;
	a->slots = xcalloc(a->nr_slots, sizeof(*a->slots));
	for (i = 0; i < a->nr; i++)
		*find_slot(a, a->entries[i].keys) = i + 1;
}

static struct agg_entry *new_entry(struct aggregate *a,
				   const struct aggregate_key *key)
{
	struct agg_entry *e;
	int i;

	grow_array(a->entries, a->nr, a->alloc, 64);
	e = &a->entries[a->nr++];
	memset(e, 0, sizeof(*e));
	e->keys = xcalloc(a->nr_keys ? a->nr_keys : 1, sizeof(*e->keys));
	for (i = 0; i < a->nr_keys; i++) {
		e->keys[i].num = key[i].num;
		e->keys[i].str = key[i].str ? xstrdup(key[i].str) : NULL;
	}
	if (a->nr_buckets)
		e->buckets = xcalloc(a->nr_buckets, sizeof(*e->buckets));
	e->min = INT64_MAX;
	e->max = INT64_MIN;
	return e;
}

void aggregate_add_n(struct aggregate *a, const struct aggregate_key *key,
		     int64_t v, uint64_t n, uint64_t sum)
{
	size_t *slot = find_slot(a, key), i = *slot;
	struct agg_entry *e;

	if (!i) {
		new_entry(a, key);
		*slot = i = a->nr;
		/* Twice the slots when half full: probes stay short. */
		if (2 * a->nr > a->nr_slots)
			rehash(a, 2 * a->nr_slots);
	}
	e = &a->entries[i - 1];
	e->count += n;
	e->sum += sum;
	if (v < e->min)
		e->min = v;
	if (v > e->max)
		e->max = v;
	if (a->op == AGGREGATE_HIST)
		e->buckets[aggregate_hist_bucket(v)] += n;
	else if (a->op == AGGREGATE_LHIST)
		e->buckets[aggregate_lhist_bucket(&a->lh, v)] += n;
}

void aggregate_add(struct aggregate *a, const struct aggregate_key *key,
		   int64_t v)
{
	aggregate_add_n(a, key, v, 1, (uint64_t)v);
}

size_t aggregate_size(const struct aggregate *a)
{
	return a->nr;
}

/*
 * The order bpftrace's std::map gives the keys before it sorts by value:
 * the bytes of the key as the map stores it, compared as memcmp() does,
 * so a number by its little-endian bytes, a string as strcmp() (they are
 * NUL-padded to a fixed size).
 */
static int cmp_keys(const struct aggregate_key *a,
		    const struct aggregate_key *b, int n)
{
	int i, k, c;

	for (i = 0; i < n; i++) {
		if (!a[i].str != !b[i].str)
			c = a[i].str ? 1 : -1;	/* two events' types differ */
		else if (a[i].str)
			c = strcmp(a[i].str, b[i].str);
		else
			for (k = 0, c = 0; !c && k < 64; k += 8)
				c = (int)((uint64_t)a[i].num >> k & 0xff) -
				    (int)((uint64_t)b[i].num >> k & 0xff);
		if (c)
			return c;
	}
	return 0;
}

static int64_t avg_of(const struct agg_entry *e)
{
	return e->count ? (int64_t)e->sum / (int64_t)e->count : 0;
}

/* What bpftrace sorts the entries by, signed or not as it does. */
static void set_sort_value(const struct aggregate *a, struct agg_entry *e)
{
	int i;

	switch (a->op) {
	case AGGREGATE_COUNT:
		e->sort_u = e->count;
		break;
	case AGGREGATE_SUM:
		e->sort_s = (int64_t)e->sum;
		break;
	case AGGREGATE_MIN:
		e->sort_s = e->min;
		break;
	case AGGREGATE_MAX:
		e->sort_s = e->max;
		break;
	case AGGREGATE_AVG:
		e->sort_s = avg_of(e);
		break;
	case AGGREGATE_HIST:
	case AGGREGATE_LHIST:
		for (i = 0, e->sort_u = 0; i < a->nr_buckets; i++)
			e->sort_u += e->buckets[i];
		break;
	}
}

static int is_signed_sort(const struct aggregate *a)
{
	return a->op == AGGREGATE_SUM || a->op == AGGREGATE_MIN ||
	       a->op == AGGREGATE_MAX || a->op == AGGREGATE_AVG;
}

static int cmp_key_order(const void *pa, const void *pb, void *arg)
{
	const struct agg_entry *x = pa, *y = pb;
	const struct aggregate *a = arg;

	return cmp_keys(x->keys, y->keys, a->nr_keys);
}

static int less(const struct aggregate *a, const struct agg_entry *x,
		const struct agg_entry *y)
{
	return is_signed_sort(a) ? x->sort_s < y->sort_s :
				   x->sort_u < y->sort_u;
}

static void swap_entries(struct agg_entry *x, struct agg_entry *y)
{
	struct agg_entry t = *x;

	*x = *y;
	*y = t;
}

/*
 * libstdc++'s std::sort (bits/stl_algo.h, bits/stl_heap.h, GCC 12, which
 * bpftrace 0.17 is built with on Debian 12): introsort down to runs of
 * 16, a heap sort where the depth runs out, then an insertion sort.  It
 * is not stable; bpftrace's ties come out in the order it leaves them,
 * so the same steps are taken here.
 */
#define STDSORT_THRESHOLD	16

static void adjust_heap(const struct aggregate *a, struct agg_entry *first,
			size_t hole, size_t len, struct agg_entry v)
{
	size_t top = hole, child = hole, parent;

	while (child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (less(a, &first[child], &first[child - 1]))
			child--;
		first[hole] = first[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		first[hole] = first[child - 1];
		hole = child - 1;
	}
	/* __push_heap */
	while (hole > top) {
		parent = (hole - 1) / 2;
		if (!less(a, &first[parent], &v))
			break;
		first[hole] = first[parent];
		hole = parent;
	}
	first[hole] = v;
}

/* std::partial_sort(first, last, last): make_heap, then sort_heap. */
static void heap_sort(const struct aggregate *a, struct agg_entry *first,
		      size_t len)
{
	struct agg_entry v;
	size_t parent;

	if (len < 2)
		return;
	for (parent = (len - 2) / 2;; parent--) {
		adjust_heap(a, first, parent, len, first[parent]);
		if (!parent)
			break;
	}
	while (len > 1) {
		len--;
		v = first[len];
		first[len] = first[0];
		adjust_heap(a, first, 0, len, v);
	}
}

static void median_to_first(const struct aggregate *a, struct agg_entry *r,
			    struct agg_entry *x, struct agg_entry *y,
			    struct agg_entry *z)
{
	if (less(a, x, y)) {
		if (less(a, y, z))
			swap_entries(r, y);
		else if (less(a, x, z))
			swap_entries(r, z);
		else
			swap_entries(r, x);
	} else if (less(a, x, z)) {
		swap_entries(r, x);
	} else if (less(a, y, z)) {
		swap_entries(r, z);
	} else {
		swap_entries(r, y);
	}
}

static struct agg_entry *partition_pivot(const struct aggregate *a,
					 struct agg_entry *first,
					 struct agg_entry *last)
{
	struct agg_entry *mid = first + (last - first) / 2, *pivot = first;

	median_to_first(a, first, first + 1, mid, last - 1);
	first++;
	for (;;) {
		while (less(a, first, pivot))
			first++;
		last--;
		while (less(a, pivot, last))
			last--;
		if (!(first < last))
			return first;
		swap_entries(first, last);
		first++;
	}
}

static void introsort_loop(const struct aggregate *a, struct agg_entry *first,
			   struct agg_entry *last, int depth)
{
	struct agg_entry *cut;

	while (last - first > STDSORT_THRESHOLD) {
		if (!depth) {
			heap_sort(a, first, last - first);
			return;
		}
		depth--;
		cut = partition_pivot(a, first, last);
		introsort_loop(a, cut, last, depth);
		last = cut;
	}
}

/* __unguarded_linear_insert: something before i is not greater. */
static void linear_insert(const struct aggregate *a, struct agg_entry *i)
{
	struct agg_entry v = *i, *next = i - 1;

	while (less(a, &v, next)) {
		*i = *next;
		i = next--;
	}
	*i = v;
}

static void insertion_sort(const struct aggregate *a, struct agg_entry *first,
			   struct agg_entry *last)
{
	struct agg_entry *i, v;

	if (first == last)
		return;
	for (i = first + 1; i != last; i++) {
		if (less(a, i, first)) {
			v = *i;
			memmove(first + 1, first, (i - first) * sizeof(*i));
			*first = v;
		} else {
			linear_insert(a, i);
		}
	}
}

static void std_sort(const struct aggregate *a, struct agg_entry *first,
		     size_t n)
{
	struct agg_entry *i;
	int lg = 0;

	if (n < 2)
		return;
	while (n >> (lg + 1))
		lg++;
	introsort_loop(a, first, first + n, 2 * lg);
	if (n > STDSORT_THRESHOLD) {
		insertion_sort(a, first, first + STDSORT_THRESHOLD);
		for (i = first + STDSORT_THRESHOLD; i != first + n; i++)
			linear_insert(a, i);
	} else {
		insertion_sort(a, first, first + n);
	}
}

/*
 * The entries in bpftrace's order: by key (its std::map), then
 * std::sort by value.  Its count, sum, min and max maps start from the
 * kernel's hash table order instead, which no file keeps: the key order
 * stands for it.
 */
static void sort_entries(struct aggregate *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		set_sort_value(a, &a->entries[i]);
	if (a->nr)
		qsort_r(a->entries, a->nr, sizeof(*a->entries), cmp_key_order,
			a);
	std_sort(a, a->entries, a->nr);
	/* The slots point at entries by index: events may come after. */
	rehash(a, a->nr_slots);
}

/* bpftrace's hist_index_label(): 1 << power with K, M, G, T. */
static void hist_label(struct strbuf *out, int power)
{
	static const char suffix[] = "\0KMGT";
	int s = power >= 40 ? 4 : power / 10;

	strbuf_addf(out, "%d", 1 << (power - 10 * s));
	if (s)
		strbuf_addch(out, suffix[s]);
}

/* bpftrace's lhist_index_label(): exact multiples of 1M and 1K so named. */
static void lhist_label(struct strbuf *out, int64_t n)
{
	if (n && n % 1048576 == 0)
		strbuf_addf(out, "%" PRId64 "M", n / 1048576);
	else if (n && n % 1024 == 0)
		strbuf_addf(out, "%" PRId64 "K", n / 1024);
	else
		strbuf_addf(out, "%" PRId64, n);
}

/* The first and last bucket that is not empty; 0 when all are. */
static int bucket_span(const struct aggregate *a, const struct agg_entry *e,
		       int *lo, int *hi)
{
	int i;

	*lo = -1;
	*hi = -1;
	for (i = 0; i < a->nr_buckets; i++) {
		if (!e->buckets[i])
			continue;
		if (*lo < 0)
			*lo = i;
		*hi = i;
	}
	return *lo >= 0;
}

static void bucket_header(const struct aggregate *a, struct strbuf *h, int i)
{
	const struct aggregate_lhist *lh = &a->lh;

	if (a->op == AGGREGATE_HIST) {
		if (i == 0) {
			strbuf_addstr(h, "(..., 0)");
		} else if (i == 1 || i == 2) {
			strbuf_addf(h, "[%d]", i - 1);
		} else {
			strbuf_addch(h, '[');
			hist_label(h, i - 2);
			strbuf_addstr(h, ", ");
			hist_label(h, i - 1);
			strbuf_addch(h, ')');
		}
		return;
	}
	if (i == 0) {
		strbuf_addstr(h, "(..., ");
		lhist_label(h, lh->min);
		strbuf_addch(h, ')');
	} else if (i == a->nr_buckets - 1) {
		strbuf_addch(h, '[');
		lhist_label(h, lh->max);
		strbuf_addstr(h, ", ...)");
	} else {
		strbuf_addch(h, '[');
		lhist_label(h, (i - 1) * lh->step + lh->min);
		strbuf_addstr(h, ", ");
		lhist_label(h, i * lh->step + lh->min);
		strbuf_addch(h, ')');
	}
}

/*
 * "HEADER  COUNT |@@@   |": the header padded to 16, the count right in
 * 8, a bar of 52 scaled to the largest bucket in float, as bpftrace's
 * TextOutput::hist_to_str() and lhist_to_str().
 */
static void hist_text(const struct aggregate *a, const struct agg_entry *e,
		      struct strbuf *out)
{
	struct strbuf h = STRBUF_INIT;
	uint64_t max = 0;
	int lo, hi, i, bar;

	if (!bucket_span(a, e, &lo, &hi))
		return;
	for (i = 0; i < a->nr_buckets; i++)
		if (e->buckets[i] > max)
			max = e->buckets[i];
	for (i = lo; i <= hi; i++) {
		strbuf_reset(&h);
		bucket_header(a, &h, i);
		bar = (float)e->buckets[i] / (float)max * BAR_WIDTH;
		strbuf_addf(out, "%-16s%8" PRIu64 " |%.*s%*s|\n", h.buf,
			    e->buckets[i], bar,
			    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
			    BAR_WIDTH - bar, "");
	}
	strbuf_release(&h);
}

/* "@" or "@[K1, K2]" (text), "K1,K2" (JSON's member name, unquoted). */
static void key_text(const struct aggregate *a, const struct agg_entry *e,
		     const char *sep, struct strbuf *out)
{
	int i;

	for (i = 0; i < a->nr_keys; i++) {
		if (i)
			strbuf_addstr(out, sep);
		if (e->keys[i].str)
			strbuf_addstr(out, e->keys[i].str);
		else
			strbuf_addf(out, "%" PRId64, e->keys[i].num);
	}
}

static void value_text(const struct aggregate *a, const struct agg_entry *e,
		       struct strbuf *out)
{
	switch (a->op) {
	case AGGREGATE_COUNT:
		strbuf_addf(out, "%" PRIu64, e->count);
		break;
	case AGGREGATE_SUM:
		strbuf_addf(out, "%" PRId64, (int64_t)e->sum);
		break;
	case AGGREGATE_MIN:
		strbuf_addf(out, "%" PRId64, e->min);
		break;
	case AGGREGATE_MAX:
		strbuf_addf(out, "%" PRId64, e->max);
		break;
	case AGGREGATE_AVG:
		strbuf_addf(out, "%" PRId64, avg_of(e));
		break;
	case AGGREGATE_HIST:
	case AGGREGATE_LHIST:
		break;
	}
}

static int is_hist(const struct aggregate *a)
{
	return a->op == AGGREGATE_HIST || a->op == AGGREGATE_LHIST;
}

/* print(@, top): the last top entries of the sorted ones. */
static size_t first_shown(const struct aggregate *a, size_t top)
{
	return top && a->nr > top ? a->nr - top : 0;
}

/*
 * bpftrace at exit: two empty lines (one ending the ^C line), then the
 * entries one per line, a histogram's under its "@[KEY]: " line and
 * followed by an empty one, then a newline; an avg() map has one more.
 */
void aggregate_print_text(struct aggregate *a, size_t top,
			  struct strbuf *out)
{
	size_t i;

	sort_entries(a);
	strbuf_addstr(out, "\n\n");
	for (i = first_shown(a, top); i < a->nr; i++) {
		const struct agg_entry *e = &a->entries[i];

		if (i > first_shown(a, top))
			strbuf_addch(out, '\n');
		strbuf_addch(out, '@');
		if (a->nr_keys) {
			strbuf_addch(out, '[');
			key_text(a, e, ", ", out);
			strbuf_addch(out, ']');
		}
		strbuf_addstr(out, ": ");
		if (is_hist(a)) {
			strbuf_addch(out, '\n');
			hist_text(a, e, out);
		} else {
			value_text(a, e, out);
		}
	}
	strbuf_addch(out, '\n');
	if (a->op == AGGREGATE_AVG)
		strbuf_addch(out, '\n');
}

/*
 * JsonOutput::hist_to_str(): bpftrace computes the bounds as C ints on
 * x86-64, where 1 << 32 is 1 << 0: the last bucket of hist() reads
 * {"min": -2147483648, "max": 0} (measured with bpftrace 0.17.0).
 */
static void hist_json_bounds(const struct aggregate *a, int i,
			     struct strbuf *out)
{
	const struct aggregate_lhist *lh = &a->lh;
	int p = i - 2;

	if (a->op == AGGREGATE_HIST) {
		if (i == 0)
			strbuf_addstr(out, "\"max\": -1, ");
		else if (i <= 2)
			strbuf_addf(out, "\"min\": %d, \"max\": %d, ", i - 1,
				    i - 1);
		else
			strbuf_addf(out, "\"min\": %d, \"max\": %d, ",
				    (int32_t)(1U << (p & 31)),
				    (int32_t)((1U << ((p + 1) & 31)) - 1));
	} else if (i == 0) {
		strbuf_addf(out, "\"max\": %" PRId64 ", ", lh->min - 1);
	} else if (i == a->nr_buckets - 1) {
		strbuf_addf(out, "\"min\": %" PRId64 ", ", lh->max);
	} else {
		strbuf_addf(out, "\"min\": %" PRId64 ", \"max\": %" PRId64
			    ", ", (i - 1) * lh->step + lh->min,
			    i * lh->step + lh->min - 1);
	}
}

static void hist_json(const struct aggregate *a, const struct agg_entry *e,
		      struct strbuf *out)
{
	int lo, hi, i;

	if (!bucket_span(a, e, &lo, &hi))
		return;
	strbuf_addch(out, '[');
	for (i = lo; i <= hi; i++) {
		strbuf_addstr(out, i > lo ? ", {" : "{");
		hist_json_bounds(a, i, out);
		strbuf_addf(out, "\"count\": %" PRIu64 "}", e->buckets[i]);
	}
	strbuf_addch(out, ']');
}

/*
 * One line, {"type": T, "data": {"@": V}}, V an object of "K1,K2": value
 * members where the map has keys; nothing at all for an empty map.  The
 * spacing is bpftrace's, which json_writer's compact output is not: the
 * strings go through json_add_string() and the rest is written here.
 */
void aggregate_print_json(struct aggregate *a, size_t top,
			  struct strbuf *out)
{
	struct strbuf k = STRBUF_INIT;
	size_t i;

	sort_entries(a);
	strbuf_addstr(out, "\n\n");
	if (!a->nr)
		return;
	strbuf_addf(out, "{\"type\": \"%s\", \"data\": {\"@\": ",
		    is_hist(a) ? "hist" :
		    a->op == AGGREGATE_AVG ? "stats" : "map");
	if (a->nr_keys)
		strbuf_addch(out, '{');
	for (i = first_shown(a, top); i < a->nr; i++) {
		const struct agg_entry *e = &a->entries[i];

		if (i > first_shown(a, top))
			strbuf_addstr(out, ", ");
		if (a->nr_keys) {
			strbuf_reset(&k);
			key_text(a, e, ",", &k);
			json_add_string(out, k.buf, k.len);
			strbuf_addstr(out, ": ");
		}
		if (is_hist(a))
			hist_json(a, e, out);
		else
			value_text(a, e, out);
	}
	if (a->nr_keys)
		strbuf_addch(out, '}');
	strbuf_addstr(out, "}}\n");
	strbuf_release(&k);
}

void aggregate_free(struct aggregate *a)
{
	size_t i;
	int k;

	if (!a)
		return;
	for (i = 0; i < a->nr; i++) {
		for (k = 0; k < a->nr_keys; k++)
			free((char *)a->entries[i].keys[k].str);
		free(a->entries[i].keys);
		free(a->entries[i].buckets);
	}
	free(a->entries);
	free(a->slots);
	free(a);
}
