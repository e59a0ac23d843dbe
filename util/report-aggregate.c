// SPDX-License-Identifier: GPL-2.0
/*
 * report's aggregation: the options, and each kept event's keys and value
 * read from its record into the aggregate table that util/aggregate.c
 * keeps and prints.
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

/* The keys that are not fields: the task's, the CPU's, the event's. */
enum agg_special { KEY_FIELD, KEY_COMM, KEY_PID, KEY_CPU, KEY_EVENT };

static const char *const special_names[] = {
	[KEY_COMM] = "comm", [KEY_PID] = "pid", [KEY_CPU] = "cpu",
	[KEY_EVENT] = "event",
};

struct report_agg {
	const struct report_agg_opts *o;
	struct aggregate *table;
	enum agg_special *kinds;	/* by key */
	struct aggregate_key *keys;
	struct strbuf *strs;		/* by key: a string key's text */
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

int report_agg_set(struct report_agg_opts *o, const char *option,
		   const char *arg, struct strbuf *err)
{
	size_t i;

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
		return arg ? report_agg_set_keys(o, option, arg, err) : 0;
	if (!*arg) {
		strbuf_addf(err, "%s: no FIELD", option);
		return -EINVAL;
	}
	o->field = xstrdup(arg);
	return 0;
}

int report_agg_set_keys(struct report_agg_opts *o, const char *option,
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

void report_agg_opts_release(struct report_agg_opts *o)
{
	int i;

	for (i = 0; i < o->nr_keys; i++)
		free(o->keys[i]);
	free(o->keys);
	free(o->field);
}

struct report_agg *report_agg_new(const struct report_agg_opts *o)
{
	struct report_agg *ra = xcalloc(1, sizeof(*ra));
	int i, k;

	ra->o = o;
	ra->table = aggregate_new(o->op, o->nr_keys, &o->lh);
	ra->kinds = xcalloc(o->nr_keys + 1, sizeof(*ra->kinds));
	ra->keys = xcalloc(o->nr_keys + 1, sizeof(*ra->keys));
	ra->strs = xcalloc(o->nr_keys + 1, sizeof(*ra->strs));
	for (i = 0; i <= o->nr_keys; i++)
		strbuf_init(&ra->strs[i], 0);
	for (i = 0; i < o->nr_keys; i++) {
		for (k = KEY_COMM; k <= KEY_EVENT; k++)
			if (!strcmp(o->keys[i], special_names[k]))
				ra->kinds[i] = k;
	}
	return ra;
}

/* "SYSTEM:EVENT has no field 'F' (its fields: a, b)": one line. */
static int no_field(const struct report_agg *ra, struct tep_event *event,
		    const char *name, struct strbuf *err)
{
	struct tep_format_field **f = tep_event_fields(event);
	int i;

	strbuf_addf(err, "%s: %s:%s has no field '%s' (its fields:",
		    ra->o->option, event->system, event->name, name);
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
static int read_field(const struct report_agg *ra,
		      const struct tracedat_event *ev, struct tep_event *event,
		      const char *name, struct aggregate_key *k,
		      struct strbuf *str, struct strbuf *err)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_format_field *f = tep_find_any_field(event, name);
	const char *data = ev->rec->data;
	unsigned long long v;
	unsigned int off, size;

	if (!f)
		return no_field(ra, event, name, err);
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

int report_agg_event(struct report_agg *ra, const struct tracedat_event *ev,
		     struct tep_event *event, struct strbuf *err)
{
	const struct report_agg_opts *o = ra->o;
	struct tep_handle *tep = tracedat_tep(ev->td);
	int pid = tep_data_pid(tep, ev->rec), i;
	struct aggregate_key *k;
	struct aggregate_key val = { 0 };

	for (i = 0; i < o->nr_keys; i++) {
		k = &ra->keys[i];
		k->str = NULL;
		switch (ra->kinds[i]) {
		case KEY_FIELD:
			if (read_field(ra, ev, event, o->keys[i], k,
				       &ra->strs[i], err))
				return -EINVAL;
			break;
		case KEY_COMM:
			k->str = tep_data_comm_from_pid(tep, pid);
			break;
		case KEY_PID:
			k->num = pid;
			break;
		case KEY_CPU:
			k->num = ev->rec->cpu;
			break;
		case KEY_EVENT:
			strbuf_reset(&ra->strs[i]);
			strbuf_addf(&ra->strs[i], "%s:%s", event->system,
				    event->name);
			k->str = ra->strs[i].buf;
			break;
		}
	}
	if (o->field) {
		if (read_field(ra, ev, event, o->field, &val,
			       &ra->strs[o->nr_keys], err))
			return -EINVAL;
		if (val.str) {
			strbuf_addf(err, "%s: %s:%s's field '%s' is a string, not a number",
				    o->option, event->system, event->name,
				    o->field);
			return -EINVAL;
		}
	}
	aggregate_add(ra->table, ra->keys, val.num);
	return 0;
}

void report_agg_print(struct report_agg *ra, struct strbuf *out)
{
	if (ra->o->json)
		aggregate_print_json(ra->table, ra->o->top, out);
	else
		aggregate_print_text(ra->table, ra->o->top, out);
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
	if (!strcmp(opt->long_name, "by") ?
	    report_agg_set_keys(opt->value, name.buf, arg, &err) :
	    report_agg_set(opt->value, name.buf, arg, &err))
		ret = error("%s", err.buf);
	strbuf_release(&name);
	strbuf_release(&err);
	return ret;
}
