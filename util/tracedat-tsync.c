// SPDX-License-Identifier: GPL-2.0
/*
 * Time sync of a guest's trace.dat: the TIME_SHIFT option read, and the
 * host's time of a guest's timestamp computed from its samples, as
 * trace-cmd computes it.
 */
#include <stddef.h>
#include <stdlib.h>

#include "util/tracedat-read-int.h"
#include "util/usage.h"


static int sample_cmp(const void *a, const void *b)
{
	const struct td_tsync_sample *x = a, *y = b;

	return x->time > y->time ? 1 : x->time < y->time ? -1 : 0;
}

void tracedat_tsync_release(struct td_tsync *t)
{
	int i;

	for (i = 0; i < t->nr_cpus; i++)
		free(t->samples[i]);
	free(t->samples);
	free(t->nr_samples);
	memset(t, 0, sizeof(*t));
}

/* Reads n s64 values into member member of each sample: 0, or -1 if short. */
static int tsync_column(const struct tracedat *td, const char **p,
			const char *end, struct td_tsync_sample *s, int n,
			size_t member)
{
	int i;

	if ((uint64_t)(end - *p) < (uint64_t)n * 8)
		return -1;
	for (i = 0; i < n; i++, *p += 8)
		*(int64_t *)((char *)&s[i] + member) =
			(int64_t)tracedat_num(td, *p, 8);
	return 0;
}

/*
 * TIME_SHIFT, as trace-cmd reads it: the fraction columns are optional,
 * the samples sorted by time with repeated times dropped.  A file whose
 * option does not parse is refused, as trace-cmd refuses it.
 */
int tracedat_parse_time_shift(struct tracedat *td, const char *data,
			      uint64_t len, uint64_t off)
{
	struct td_tsync *t = &td->tsync;
	const char *p = data + 12, *end = data + len;
	int cpu, i, j, n;

	if (len < 16)
		return 0;
	tracedat_tsync_release(t);
	t->flags = tracedat_num(td, data + 8, 4);
	n = tracedat_num(td, p, 4);
	p += 4;
	if (n < 0 || n > MAX_CPUS)
		return tracedat_bad(td, off, "TIME_SHIFT: absurd CPU count %d",
				    n);
	t->nr_cpus = n;
	t->nr_samples = xcalloc(n ? n : 1, sizeof(*t->nr_samples));
	t->samples = xcalloc(n ? n : 1, sizeof(*t->samples));
	for (cpu = 0; cpu < n; cpu++) {
		struct td_tsync_sample *s;

		if (end - p < 4)
			goto short_option;
		i = tracedat_num(td, p, 4);
		p += 4;
		if (i < 0 || (uint64_t)i * 24 > (uint64_t)(end - p))
			goto short_option;
		s = t->samples[cpu] = xcalloc(i ? i : 1, sizeof(*s));
		t->nr_samples[cpu] = i;
		if (tsync_column(td, &p, end, s, i,
				 offsetof(struct td_tsync_sample, time)) ||
		    tsync_column(td, &p, end, s, i,
				 offsetof(struct td_tsync_sample, offset)) ||
		    tsync_column(td, &p, end, s, i,
				 offsetof(struct td_tsync_sample, scaling)))
			goto short_option;
	}
	for (cpu = 0; p < end && cpu < n; cpu++)
		if (tsync_column(td, &p, end, t->samples[cpu],
				 t->nr_samples[cpu],
				 offsetof(struct td_tsync_sample, fraction)))
			goto short_option;
	for (cpu = 0; cpu < n; cpu++) {
		struct td_tsync_sample *s = t->samples[cpu];

		qsort(s, t->nr_samples[cpu], sizeof(*s), sample_cmp);
		for (i = j = 0; i < t->nr_samples[cpu]; i++)
			if (!i || s[i].time != s[i - 1].time)
				s[j++] = s[i];
		t->nr_samples[cpu] = j;
	}
	return 0;
short_option:
	tracedat_tsync_release(t);
	return tracedat_bad(td, off,
			    "TIME_SHIFT option of %llu bytes is cut short",
			    (unsigned long long)len);
}

/*
 * trace-cmd's timestamp_correction_calc(): the offset of sample a, or
 * interpolated between a and b, after the scaling of a; in its 64-bit
 * arithmetic, wrapping where it wraps.
 */
static uint64_t tsync_correct(uint64_t ts, uint32_t flags,
			      const struct td_tsync_sample *a,
			      const struct td_tsync_sample *b)
{
	int64_t cor = a->offset;

	if (flags & TRACEDAT_TSYNC_INTERPOLATE) {
		int64_t delta = (int64_t)((uint64_t)b->time -
					  (uint64_t)a->time);
		int64_t off = (int64_t)((ts - (uint64_t)a->time) *
					((uint64_t)b->offset -
					 (uint64_t)a->offset));

		cor = (int64_t)((uint64_t)a->offset +
				(uint64_t)((off + delta / 2) / delta));
	}
	/* Its ts - llabs(cor) for a negative cor is this, modulo 2^64. */
	return ((ts * (uint64_t)a->scaling) >> (a->fraction & 63)) +
	       (uint64_t)cor;
}

uint64_t tracedat_tsync(const struct td_tsync *t, int cpu, uint64_t ts)
{
	const struct td_tsync_sample *s;
	int n, lo, hi, mid;

	if (cpu < 0 || cpu >= t->nr_cpus || !t->nr_samples[cpu])
		return ts;
	s = t->samples[cpu];
	n = t->nr_samples[cpu];
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	if (n == 2 || (int64_t)ts <= s[0].time)
		return tsync_correct(ts, t->flags, &s[0], &s[1]);
	if ((int64_t)ts >= s[n - 1].time)
		return tsync_correct(ts, t->flags, &s[n - 2], &s[n - 1]);
	lo = 0;
	hi = n - 1;
	mid = (lo + hi) / 2;
	while (lo <= hi) {
		if ((int64_t)ts < s[mid].time)
			hi = mid - 1;
		else if ((int64_t)ts > s[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	return tsync_correct(ts, t->flags, &s[mid], &s[mid + 1]);
}
