/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_REPORT_AGGREGATE_H
#define TK_REPORT_AGGREGATE_H

#include <stddef.h>

#include "util/aggregate.h"
#include "util/parse-options.h"
#include "util/strbuf.h"
#include "util/tracedat-merge.h"

/*
 * report's aggregation (--count, --sum, --hist, --lhist, --min, --max,
 * --avg, --by, --top, --latency, --match): the options checked, the keys
 * and the value of each event the session keeps taken from its fields,
 * task and CPU into an aggregate table, which the end prints as bpftrace
 * prints its map.  With --latency the value is the time from a START
 * event to the END event that matches it, paired event by event.
 */

/*
 * The keys that are not fields: the task's name and pid, the CPU, the
 * event, the kernel stack; REPORT_AGG_KEY_FIELD is an event's field.
 */
enum report_agg_key {
	REPORT_AGG_KEY_FIELD,
	REPORT_AGG_KEY_COMM,
	REPORT_AGG_KEY_PID,
	REPORT_AGG_KEY_CPU,
	REPORT_AGG_KEY_EVENT,
	REPORT_AGG_KEY_KSTACK,
};

/* What the key called key (of --by, --count=KEYS) is. */
enum report_agg_key report_agg_key_kind(const char *key);

/* The value's name with --latency: END's time less its START's, in ns. */
#define REPORT_AGG_LATENCY	"latency"

struct report_agg_opts {
	enum aggregate_op op;
	const char *option;		/* "--hist": for the messages */
	char *field;			/* the value's; NULL for --count */
	char **keys;			/* --by, --count=KEYS */
	int nr_keys;
	struct aggregate_lhist lh;
	size_t top;			/* 0: all */
	int json;			/* bpftrace -f json's output */
	char *latency[2];		/* --latency START,END; NULL: none */
	char *match[2];			/* --match's fields; NULL: common_pid */
	/* Told of STARTs dropped past the pending bound; NULL: not told. */
	void (*warn)(const char *msg);
};

/*
 * Sets o from the aggregation option called option ("--sum") with its
 * argument arg (FIELD; FIELD,MIN,MAX,STEP for --lhist; KEYS or NULL for
 * --count; KEYS for --by; START,END or EVENT for --latency; FIELD or
 * START_FIELD,END_FIELD for --match).  0, or -EINVAL with the reason in
 * err.
 */
int report_agg_set(struct report_agg_opts *o, const char *option,
		   const char *arg, struct strbuf *err);

/*
 * After the options: --latency's default value (--hist latency) and what
 * goes with it checked.  0, or -EINVAL with err set.
 */
int report_agg_finish(struct report_agg_opts *o, struct strbuf *err);

/*
 * The first event of tep (by id) that name names, as -e and --latency
 * name one (NAME, SYSTEM:NAME, SYSTEM/NAME); NULL if none.
 */
struct tep_event *report_agg_find_event(struct tep_handle *tep,
					const char *name);

/*
 * Sets seen[0] (seen[1]) where tep holds --latency's START (END) event;
 * leaves them as they are otherwise.
 */
void report_agg_latency_seen(const struct report_agg_opts *o,
			     struct tep_handle *tep, int seen[2]);

void report_agg_opts_release(struct report_agg_opts *o);

/*
 * The options as a util/parse-options.h callback, opt->value the
 * struct report_agg_opts: --count[=KEYS], --sum FIELD ..., --by KEYS,
 * each named by its long name.
 */
int report_agg_opt(const struct option *opt, const char *arg, int unset);

#define OPT_AGGREGATE(l, v, a, h, f) \
	{ .type = OPTION_CALLBACK, .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .flags = PARSE_OPT_NONEG | (f), \
	  .callback = report_agg_opt }

/* The aggregation options of report and trace, one list, into v. */
#define OPT_AGGREGATIONS(v) \
	OPT_AGGREGATE("count", v, "KEYS", \
		      "count the events, by KEYS (as --by) if given", \
		      PARSE_OPT_OPTARG), \
	OPT_AGGREGATE("sum", v, "FIELD", "sum FIELD's values", 0), \
	OPT_AGGREGATE("min", v, "FIELD", "the least of FIELD's values", 0), \
	OPT_AGGREGATE("max", v, "FIELD", "the greatest of FIELD's values", \
		      0), \
	OPT_AGGREGATE("avg", v, "FIELD", "the average of FIELD's values", \
		      0), \
	OPT_AGGREGATE("hist", v, "FIELD", \
		      "FIELD's values in power-of-two buckets", 0), \
	OPT_AGGREGATE("lhist", v, "FIELD,MIN,MAX,STEP", \
		      "FIELD's values in linear buckets", 0), \
	OPT_AGGREGATE("by", v, "KEYS", \
		      "aggregate by KEYS: fields, comm, pid, cpu, event, kstack", \
		      0), \
	OPT_AGGREGATE("latency", v, "START,END|EVENT", \
		      "each END's ns since its START (EVENT: to EVENT__return; trace defines both on a function EVENT): --hist latency", \
		      0), \
	OPT_AGGREGATE("match", v, "FIELD[,FIELD]", \
		      "pair --latency's events by these fields, not by thread", \
		      0)

struct report_agg;

struct report_agg *report_agg_new(const struct report_agg_opts *o);

/*
 * One kept event of ev->td: its keys and value added.  With --latency, a
 * START is kept until its END (the latest START of a match value wins;
 * at most REPORT_AGG_PENDING wait, later new ones are dropped), an END
 * without a START and any other event are left out.  0, or -EINVAL with
 * err set where the event lacks a field named (the message lists the
 * fields it has) or a value field is a string.
 */
int report_agg_event(struct report_agg *ra, const struct tracedat_event *ev,
		     struct tep_event *event, struct strbuf *err);

/*
 * bpftrace's default map size (BPFTRACE_MAP_KEYS_MAX, 4096 in 0.17): its
 * @start map, full, takes no new key either, so that both drop the same
 * STARTs; and a START that never ends (a task that exits in the middle)
 * costs no more than that over a long trace.
 */
#define REPORT_AGG_PENDING	4096

/*
 * A kernel_stack record (record -T's ftrace:kernel_stack) of ev->td: the
 * kstack key of the event before it on its CPU, which report_agg_event()
 * held for it.  An event whose stack does not come (the next on its CPU
 * is no stack trace, or the end) goes in with an empty one.
 */
void report_agg_stack(struct report_agg *ra, const struct tracedat_event *ev,
		      struct tep_event *event);

/*
 * The table, as text or JSON, appended to out; the STARTs dropped, if
 * any, told to o->warn.
 */
void report_agg_print(struct report_agg *ra, struct strbuf *out);

/* The table, for what fills it otherwise (the kernel's hist triggers). */
struct aggregate *report_agg_table(struct report_agg *ra);

/* Empties the table (--interval prints it and starts again). */
void report_agg_clear(struct report_agg *ra);

void report_agg_free(struct report_agg *ra);

#endif
