// SPDX-License-Identifier: GPL-2.0
/*
 * report's aggregation: the options, and each kept event's keys and value
 * read from its record into the aggregate table that util/aggregate.c
 * keeps and prints; --latency's STARTs kept in a table of their own until
 * their END comes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "util/parse-options.h"
#include "util/print.h"
#include "util/report-aggregate.h"
#include "util/tracedat-read.h"
#include "util/usage.h"

static const char *const key_names[] = {
	[REPORT_AGG_KEY_COMM] = "comm", [REPORT_AGG_KEY_PID] = "pid",
	[REPORT_AGG_KEY_CPU] = "cpu", [REPORT_AGG_KEY_EVENT] = "event",
	[REPORT_AGG_KEY_KSTACK] = "kstack",
};

enum report_agg_key report_agg_key_kind(const char *key)
{
	int k;

	for (k = REPORT_AGG_KEY_COMM; k <= REPORT_AGG_KEY_KSTACK; k++)
		if (!strcmp(key, key_names[k]))
			return k;
	return REPORT_AGG_KEY_FIELD;
}

/* Linear probing, half full at most. */
#define START_SLOTS	(2 * REPORT_AGG_PENDING)

/* A --latency START waiting for its END: the match value and the time. */
struct agg_start {
	struct aggregate_key key;	/* str owned */
	uint64_t hash;
	unsigned long long ts;
	int used;
};

/* An event's keys and value, held until its stack trace comes. */
struct agg_held {
	int used;
	int64_t value;
	struct aggregate_key *keys;
	struct strbuf *strs;		/* by key: a string key's text */
};

struct report_agg {
	const struct report_agg_opts *o;
	struct aggregate *table;
	enum report_agg_key *kinds;	/* by key */
	struct aggregate_key *keys;
	struct strbuf *strs;		/* by key: a string key's text */
	/* --latency: START_SLOTS slots, nr_starts used */
	struct agg_start *starts;
	size_t nr_starts, dropped;
	struct strbuf match;		/* a string match value's text */
	/*
	 * The kstack key's index, or -1; the events that wait, by merge
	 * source, for the kernel_stack record that follows them.
	 */
	int kstack;
	struct agg_held *held;
	int nr_held;
};

static const struct {
	const char *option;
	enum aggregate_op op;
} ops[] = {
	{ "--count", AGGREGATE_COUNT }, { "--sum", AGGREGATE_SUM },
	{ "--min", AGGREGATE_MIN }, { "--max", AGGREGATE_MAX },
	{ "--avg", AGGREGATE_AVG }, { "--hist", AGGREGATE_HIST },
	{ "--lhist", AGGREGATE_LHIST },
};

/* "FIELD,MIN,MAX,STEP": the numbers decimal, as bpftrace takes them. */
static int parse_lhist(struct report_agg_opts *o, const char *arg,
		       struct strbuf *err)
{
	int64_t *v[] = { &o->lh.min, &o->lh.max, &o->lh.step };
	const char *p = strchr(arg, ',');
	struct strbuf why = STRBUF_INIT;
	char *end;
	size_t i;

	if (!p || p == arg) {
		strbuf_addf(err, "--lhist: '%s' is not FIELD,MIN,MAX,STEP",
			    arg);
		return -EINVAL;
	}
	o->field = xstrndup(arg, p - arg);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		errno = 0;
		*v[i] = strtoll(p + 1, &end, 10);
		if (end == p + 1 || errno ||
		    *end != (i + 1 < sizeof(v) / sizeof(v[0]) ? ',' : '\0')) {
			strbuf_addf(err, "--lhist: '%s' is not FIELD,MIN,MAX,STEP",
				    arg);
			return -EINVAL;
		}
		p = end;
	}
	if (aggregate_lhist_check(&o->lh, &why)) {
		strbuf_addf(err, "--lhist: %s", why.buf);
		strbuf_release(&why);
		return -EINVAL;
	}
	return 0;
}

/* KEYS, a comma list, of --by or --count=KEYS. */
static int set_keys(struct report_agg_opts *o, const char *option,
		    const char *keys, struct strbuf *err)
{
	const char *p = keys, *comma;

	if (o->nr_keys) {
		strbuf_addf(err, "%s: the keys are given twice (--count=KEYS and --by)",
			    option);
		return -EINVAL;
	}
	do {
		comma = strchrnul(p, ',');
		if (comma == p) {
			strbuf_addf(err, "%s: '%s' has an empty key", option,
				    keys);
			return -EINVAL;
		}
		o->keys = xrealloc(o->keys,
				   (o->nr_keys + 1) * sizeof(*o->keys));
		o->keys[o->nr_keys++] = xstrndup(p, comma - p);
		p = comma + 1;
	} while (*comma);
	return 0;
}

/* "A,B" into two strings ("A" into A twice where one may be given). */
static int parse_pair(char *pair[2], const char *option, const char *arg,
		      const char *what, int one, struct strbuf *err)
{
	const char *comma = strchr(arg, ',');

	if (pair[0]) {
		strbuf_addf(err, "%s: given twice", option);
		return -EINVAL;
	}
	if (comma ? comma == arg || !comma[1] || strchr(comma + 1, ',') :
		    !one || !*arg) {
		strbuf_addf(err, "%s: '%s' is not %s", option, arg, what);
		return -EINVAL;
	}
	pair[0] = comma ? xstrndup(arg, comma - arg) : xstrdup(arg);
	pair[1] = xstrdup(comma ? comma + 1 : arg);
	return 0;
}

/*
 * START,END; or EVENT, from EVENT to EVENT__return, the name probe -a
 * gives a FUNC%return probe (as perf does): a function's time.
 */
static int set_latency(struct report_agg_opts *o, const char *option,
		       const char *arg, struct strbuf *err)
{
	if (parse_pair(o->latency, option, arg, "START,END or EVENT", 1, err))
		return -EINVAL;
	if (!strchr(arg, ',')) {
		struct strbuf end = STRBUF_INIT;

		strbuf_addf(&end, "%s__return", arg);
		free(o->latency[1]);
		o->latency[1] = strbuf_detach(&end, NULL);
	}
	if (!strcmp(o->latency[0], o->latency[1])) {
		strbuf_addf(err, "%s: START and END are the same event, '%s'",
			    option, o->latency[0]);
		return -EINVAL;
	}
	return 0;
}

int report_agg_set(struct report_agg_opts *o, const char *option,
		   const char *arg, struct strbuf *err)
{
	size_t i;

	if (!strcmp(option, "--by"))
		return set_keys(o, option, arg, err);
	if (!strcmp(option, "--latency"))
		return set_latency(o, option, arg, err);
	if (!strcmp(option, "--match"))
		return parse_pair(o->match, option, arg,
				  "FIELD or START_FIELD,END_FIELD", 1, err);
	if (o->option) {
		strbuf_addf(err, "%s: one aggregation at a time, and %s is given",
			    option, o->option);
		return -EINVAL;
	}
	for (i = 0; strcmp(ops[i].option, option); i++)
		;
	o->option = ops[i].option;
	o->op = ops[i].op;
	if (o->op == AGGREGATE_LHIST)
		return parse_lhist(o, arg, err);
	if (o->op == AGGREGATE_COUNT)
		return arg ? set_keys(o, option, arg, err) : 0;
	if (!*arg) {
		strbuf_addf(err, "%s: no FIELD", option);
		return -EINVAL;
	}
	o->field = xstrdup(arg);
	return 0;
}

int report_agg_finish(struct report_agg_opts *o, struct strbuf *err)
{
	if (o->match[0] && !o->latency[0]) {
		strbuf_addstr(err, "--match: needs --latency");
		return -EINVAL;
	}
	if (!o->latency[0])
		return 0;
	/* bpftrace's `@ns = hist(nsecs - @start[tid])` */
	if (!o->option) {
		o->option = "--latency";
		o->op = AGGREGATE_HIST;
		o->field = xstrdup(REPORT_AGG_LATENCY);
	}
	if (o->field && strcmp(o->field, REPORT_AGG_LATENCY)) {
		strbuf_addf(err, "%s: with --latency the value is '%s', not '%s'",
			    o->option, REPORT_AGG_LATENCY, o->field);
		return -EINVAL;
	}
	return 0;
}

/* NAME, SYSTEM:NAME or SYSTEM/NAME, as -e names an event. */
static int event_named(const char *name, const struct tep_event *event)
{
	const char *sep = strpbrk(name, ":/");

	if (!sep)
		return !strcmp(name, event->name);
	return !strncmp(name, event->system, sep - name) &&
	       !event->system[sep - name] && !strcmp(sep + 1, event->name);
}

struct tep_event *report_agg_find_event(struct tep_handle *tep,
					const char *name)
{
	int i, n = tep_get_events_count(tep);

	for (i = 0; i < n; i++)
		if (event_named(name, tep_get_event(tep, i)))
			return tep_get_event(tep, i);
	return NULL;
}

void report_agg_latency_seen(const struct report_agg_opts *o,
			     struct tep_handle *tep, int seen[2])
{
	int i, n = tep_get_events_count(tep);
	struct tep_event *ev;

	for (i = 0; i < n; i++) {
		ev = tep_get_event(tep, i);
		seen[0] |= event_named(o->latency[0], ev);
		seen[1] |= event_named(o->latency[1], ev);
	}
}

void report_agg_opts_release(struct report_agg_opts *o)
{
	int i;

	for (i = 0; i < o->nr_keys; i++)
		free(o->keys[i]);
	free(o->keys);
	free(o->field);
	for (i = 0; i < 2; i++) {
		free(o->latency[i]);
		free(o->match[i]);
	}
}

struct report_agg *report_agg_new(const struct report_agg_opts *o)
{
	struct report_agg *ra = xcalloc(1, sizeof(*ra));
	int i;

	ra->o = o;
	ra->table = aggregate_new(o->op, o->nr_keys, &o->lh);
	ra->kinds = xcalloc(o->nr_keys + 1, sizeof(*ra->kinds));
	ra->keys = xcalloc(o->nr_keys + 1, sizeof(*ra->keys));
	ra->strs = xcalloc(o->nr_keys + 1, sizeof(*ra->strs));
	for (i = 0; i <= o->nr_keys; i++)
		strbuf_init(&ra->strs[i], 0);
	ra->kstack = -1;
	for (i = 0; i < o->nr_keys; i++) {
		ra->kinds[i] = report_agg_key_kind(o->keys[i]);
		if (ra->kinds[i] == REPORT_AGG_KEY_KSTACK)
			ra->kstack = i;
	}
	if (o->latency[0])
		ra->starts = xcalloc(START_SLOTS, sizeof(*ra->starts));
	strbuf_init(&ra->match, 0);
	return ra;
}

/* "SYSTEM:EVENT has no field 'F' (its fields: a, b)": one line. */
static int no_field(const char *option, struct tep_event *event,
		    const char *name, struct strbuf *err)
{
	struct tep_format_field **f = tep_event_fields(event);
	int i;

	strbuf_addf(err, "%s: %s:%s has no field '%s' (its fields:",
		    option, event->system, event->name, name);
	for (i = 0; f && f[i]; i++)
		strbuf_addf(err, "%s %s", i ? "," : "", f[i]->name);
	strbuf_addstr(err, i ? ")" : " none)");
	free(f);
	return -EINVAL;
}

/*
 * The field name of ev as a number (sign-extended where the format says
 * signed) or, for strings and char arrays, as text into str.
 */
static int read_field(const char *option, const struct tracedat_event *ev,
		      struct tep_event *event, const char *name,
		      struct aggregate_key *k, struct strbuf *str,
		      struct strbuf *err)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_format_field *f = tep_find_any_field(event, name);
	const char *data = ev->rec->data;
	unsigned long long v;
	unsigned int off, size;

	if (!f)
		return no_field(option, event, name, err);
	if (print_field_span(tep, f, ev->rec, &off, &size)) {
		strbuf_addf(err, "%s: offset %llu: %s:%s's field '%s' lies beyond its record",
			    tracedat_path(ev->td), ev->rec->offset,
			    event->system, event->name, name);
		return -EINVAL;
	}
	if ((f->flags & TEP_FIELD_IS_STRING) ||
	    ((f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize == 1)) {
		strbuf_reset(str);
		strbuf_add(str, data + off, strnlen(data + off, size));
		k->str = str->buf;
		return 0;
	}
	v = tep_read_number(tep, data + off, size);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && size < 8 &&
	    (v >> (8 * size - 1) & 1))
		v |= ~0ULL << (8 * size);
	k->str = NULL;
	k->num = (int64_t)v;
	return 0;
}

/* The keys of ev into ra->keys. */
static int read_keys(struct report_agg *ra, const struct tracedat_event *ev,
		     struct tep_event *event, struct strbuf *err)
{
	const struct report_agg_opts *o = ra->o;
	struct tep_handle *tep = tracedat_tep(ev->td);
	int pid = tep_data_pid(tep, ev->rec), i;
	struct aggregate_key *k;

	for (i = 0; i < o->nr_keys; i++) {
		k = &ra->keys[i];
		k->str = NULL;
		switch (ra->kinds[i]) {
		case REPORT_AGG_KEY_FIELD:
			if (read_field(o->option, ev, event, o->keys[i], k,
				       &ra->strs[i], err))
				return -EINVAL;
			break;
		case REPORT_AGG_KEY_COMM:
			k->str = tep_data_comm_from_pid(tep, pid);
			break;
		case REPORT_AGG_KEY_PID:
			k->num = pid;
			break;
		case REPORT_AGG_KEY_CPU:
			k->num = ev->rec->cpu;
			break;
		case REPORT_AGG_KEY_EVENT:
			strbuf_reset(&ra->strs[i]);
			strbuf_addf(&ra->strs[i], "%s:%s", event->system,
				    event->name);
			k->str = ra->strs[i].buf;
			break;
		case REPORT_AGG_KEY_KSTACK:
			/* report_agg_stack()'s, from the record after */
			k->str = "";
			break;
		}
	}
	return 0;
}

/* The slot of the START of match value k, or the free one it would take. */
static struct agg_start *find_start(struct report_agg *ra,
				    const struct aggregate_key *k,
				    uint64_t hash)
{
	size_t i = hash % START_SLOTS;

	while (ra->starts[i].used &&
	       (ra->starts[i].hash != hash ||
		!aggregate_keys_equal(&ra->starts[i].key, k, 1)))
		i = (i + 1) % START_SLOTS;
	return &ra->starts[i];
}

/*
 * Frees slot s, moving back the slots after it that a probe from their
 * hash would no longer reach (Knuth's deletion for linear probing).
 */
static void drop_start(struct report_agg *ra, struct agg_start *s)
{
	size_t i = s - ra->starts, j = i, home;

	free((char *)s->key.str);
	s->used = 0;
	ra->nr_starts--;
	for (;;) {
		j = (j + 1) % START_SLOTS;
		if (!ra->starts[j].used)
			return;
		home = ra->starts[j].hash % START_SLOTS;
		/* j stays where home lies cyclically in (i, j] */
		if (i <= j ? i < home && home <= j : i < home || home <= j)
			continue;
		ra->starts[i] = ra->starts[j];
		ra->starts[j].used = 0;
		i = j;
	}
}

/* An event held for a stack that did not come: an empty one, as bpftrace's. */
static void flush_held(struct report_agg *ra, struct agg_held *h)
{
	if (!h->used)
		return;
	h->keys[ra->kstack].str = "";
	aggregate_add(ra->table, h->keys, h->value);
	h->used = 0;
}

/*
 * The keys and value of ev into the table; with a kstack key, held until
 * ev's stack trace, the kernel_stack record after it on its CPU.
 */
static void add(struct report_agg *ra, const struct tracedat_event *ev,
		int64_t v)
{
	const struct report_agg_opts *o = ra->o;
	struct agg_held *h;
	int i;

	if (ra->kstack < 0) {
		aggregate_add(ra->table, ra->keys, v);
		return;
	}
	if (ev->source >= ra->nr_held) {
		ra->held = xreallocarray(ra->held, ev->source + 1,
					 sizeof(*ra->held));
		memset(ra->held + ra->nr_held, 0,
		       (ev->source + 1 - ra->nr_held) * sizeof(*ra->held));
		ra->nr_held = ev->source + 1;
	}
	h = &ra->held[ev->source];
	flush_held(ra, h);
	if (!h->keys) {
		h->keys = xcalloc(o->nr_keys, sizeof(*h->keys));
		h->strs = xcalloc(o->nr_keys, sizeof(*h->strs));
		for (i = 0; i < o->nr_keys; i++)
			strbuf_init(&h->strs[i], 0);
	}
	for (i = 0; i < o->nr_keys; i++) {
		h->keys[i] = ra->keys[i];
		if (ra->keys[i].str) {
			strbuf_reset(&h->strs[i]);
			strbuf_addstr(&h->strs[i], ra->keys[i].str);
			h->keys[i].str = h->strs[i].buf;
		}
	}
	h->value = v;
	h->used = 1;
}

void report_agg_stack(struct report_agg *ra, const struct tracedat_event *ev,
		      struct tep_event *event)
{
	unsigned long long addr[PRINT_MAX_KSTACK];
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct strbuf *sb;
	struct agg_held *h;
	int n, i;

	if (ra->kstack < 0 || ev->source >= ra->nr_held ||
	    !ra->held[ev->source].used)
		return;
	h = &ra->held[ev->source];
	sb = &h->strs[ra->kstack];
	strbuf_reset(sb);
	n = print_kernel_stack_frames(tep, event, ev->rec, addr,
				      PRINT_MAX_KSTACK);
	/* bpftrace's kstack: a frame a line, "    func+offset" */
	for (i = 0; i < n; i++) {
		const char *name = tep_find_function(tep, addr[i]);

		strbuf_addch(sb, '\n');
		if (name)
			strbuf_addf(sb, "    %s+%llu", name, addr[i] -
				    tep_find_function_address(tep, addr[i]));
		else
			strbuf_addf(sb, "    0x%llx", addr[i]);
	}
	strbuf_addch(sb, '\n');
	h->keys[ra->kstack].str = sb->buf;
	aggregate_add(ra->table, h->keys, h->value);
	h->used = 0;
}

/*
 * A START is kept, the latest of a match value winning; an END with a
 * START is aggregated with the time since it as the value.
 */
static int latency_event(struct report_agg *ra,
			 const struct tracedat_event *ev,
			 struct tep_event *event, struct strbuf *err)
{
	const struct report_agg_opts *o = ra->o;
	int end = event_named(o->latency[1], event);
	struct aggregate_key k = { 0 };
	struct agg_start *s;
	uint64_t hash;
	int64_t ns;

	if (!end && !event_named(o->latency[0], event))
		return 0;
	if (!o->match[end])
		k.num = tep_data_pid(tracedat_tep(ev->td), ev->rec);
	else if (read_field("--match", ev, event, o->match[end], &k,
			    &ra->match, err))
		return -EINVAL;
	hash = aggregate_keys_hash(&k, 1);
	s = find_start(ra, &k, hash);
	if (!end) {
		if (!s->used && ra->nr_starts == REPORT_AGG_PENDING) {
			ra->dropped++;
			return 0;
		}
		if (!s->used) {
			s->used = 1;
			s->hash = hash;
			s->key.num = k.num;
			s->key.str = k.str ? xstrdup(k.str) : NULL;
			ra->nr_starts++;
		}
		s->ts = ev->rec->ts;
		return 0;
	}
	if (!s->used)
		return 0;
	ns = (int64_t)(ev->rec->ts - s->ts);
	drop_start(ra, s);
	if (read_keys(ra, ev, event, err))
		return -EINVAL;
	add(ra, ev, ns);
	return 0;
}

int report_agg_event(struct report_agg *ra, const struct tracedat_event *ev,
		     struct tep_event *event, struct strbuf *err)
{
	const struct report_agg_opts *o = ra->o;
	struct aggregate_key val = { 0 };

	if (o->latency[0])
		return latency_event(ra, ev, event, err);
	if (read_keys(ra, ev, event, err))
		return -EINVAL;
	if (o->field) {
		if (read_field(o->option, ev, event, o->field, &val,
			       &ra->strs[o->nr_keys], err))
			return -EINVAL;
		if (val.str) {
			strbuf_addf(err, "%s: %s:%s's field '%s' is a string, not a number",
				    o->option, event->system, event->name,
				    o->field);
			return -EINVAL;
		}
	}
	add(ra, ev, val.num);
	return 0;
}

void report_agg_print(struct report_agg *ra, struct strbuf *out)
{
	struct strbuf msg = STRBUF_INIT;
	int i;

	for (i = 0; i < ra->nr_held; i++)
		flush_held(ra, &ra->held[i]);
	if (ra->dropped && ra->o->warn) {
		strbuf_addf(&msg, "--latency: %zu START events dropped: %d STARTs waited for their END already (bpftrace's map size)",
			    ra->dropped, REPORT_AGG_PENDING);
		ra->o->warn(msg.buf);
		strbuf_release(&msg);
	}
	if (ra->o->json)
		aggregate_print_json(ra->table, ra->o->top, out);
	else
		aggregate_print_text(ra->table, ra->o->top, out);
}

struct aggregate *report_agg_table(struct report_agg *ra)
{
	return ra->table;
}

void report_agg_clear(struct report_agg *ra)
{
	aggregate_free(ra->table);
	ra->table = aggregate_new(ra->o->op, ra->o->nr_keys, &ra->o->lh);
}

void report_agg_free(struct report_agg *ra)
{
	int i;

	if (!ra)
		return;
	aggregate_free(ra->table);
	for (i = 0; ra->starts && i < START_SLOTS; i++)
		if (ra->starts[i].used)
			free((char *)ra->starts[i].key.str);
	free(ra->starts);
	strbuf_release(&ra->match);
	for (i = 0; i < ra->nr_held; i++) {
		struct agg_held *h = &ra->held[i];
		int k;

		for (k = 0; h->strs && k < ra->o->nr_keys; k++)
			strbuf_release(&h->strs[k]);
		free(h->strs);
		free(h->keys);
	}
	free(ra->held);
	for (i = 0; i <= ra->o->nr_keys; i++)
		strbuf_release(&ra->strs[i]);
	free(ra->strs);
	free(ra->keys);
	free(ra->kinds);
	free(ra);
}

int report_agg_opt(const struct option *opt, const char *arg, int unset)
{
	struct strbuf name = STRBUF_INIT, err = STRBUF_INIT;
	int ret = 0;

	(void)unset;
	strbuf_addf(&name, "--%s", opt->long_name);
	if (report_agg_set(opt->value, name.buf, arg, &err))
		ret = error("%s", err.buf);
	strbuf_release(&name);
	strbuf_release(&err);
	return ret;
}
