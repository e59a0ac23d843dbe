/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_REPORT_FORMAT_H
#define TK_REPORT_FORMAT_H

#include "util/report.h"
#include "util/strbuf.h"
#include "util/tracedat-merge.h"

/*
 * The output formats of `tracekit report`, one table: what each writes
 * before the first event, for each event the session keeps and at the
 * end of the run, into a strbuf the caller writes out.  Text and JSON
 * print each event as it comes, with the user stack probe --call-graph
 * captured beneath it or in its object; the folded stacks are collected
 * and printed, or drawn as --flamegraph's SVG, at the end.  A new format
 * is one entry of the table.
 */

struct report_output;
struct report_agg_opts;

struct report_format {
	const char *name;		/* --format's argument */
	/* what it prints, for --format's help */
	const char *help;
	/* Allowed with --flamegraph, which then draws the folded stacks. */
	int flamegraph;
	/* Before the first event (NULL: nothing). */
	void (*begin)(struct report_output *ro);
	/* One event kept; 0, or a negative errno with the reason in err. */
	int (*event)(struct report_output *ro, struct tracedat_event *ev,
		     struct strbuf *err);
	/*
	 * After the last event (NULL: nothing); 0, or a negative errno with
	 * err set.
	 */
	int (*end)(struct report_output *ro, struct strbuf *err);
};

/* The formats, in the order --format's help names them; NULL-ended. */
extern const struct report_format *const report_formats[];

/* The format called name, or NULL. */
const struct report_format *report_format_find(const char *name);

/* Appends the names of the formats to out, separated by sep; out->buf. */
const char *report_format_names(struct strbuf *out, const char *sep);

/* Appends the help of the formats to out, as a list in words; out->buf. */
const char *report_format_help(struct strbuf *out);

struct report_output_opts {
	const struct report_format *format;
	int raw, latency;		/* trace-cmd's -R and -l */
	int stat;			/* events are counted, not printed */
	/*
	 * The path of the flame graph's SVG, NULL for none: the folded
	 * stacks are then collected whatever the format, and printed too
	 * when the format is the folded one.
	 */
	const char *flamegraph;
	/*
	 * The aggregation options, NULL for none: the kept events then go
	 * into its table, printed at the end, whatever the format.
	 */
	const struct report_agg_opts *agg;
};

/*
 * The output of the opened session r into out: sets up the unwinder
 * with the maps of every file, warning through r's report_opts.warn of
 * the files whose maps it cannot use.  o must outlive the output.
 */
struct report_output *report_output_new(struct report *r,
					 const struct report_output_opts *o,
					 struct strbuf *out);

/* After report_start(): what the format writes before the events. */
void report_output_begin(struct report_output *ro);

/*
 * One event of report_next(): checked to fit its format, then, when
 * the session keeps it (report_keep()), handed to the format.  0, or a
 * negative errno with the reason in err: -EINVAL where the record does
 * not fit its format, tracedat's where the file is corrupt.
 */
int report_output_event(struct report_output *ro, struct tracedat_event *ev,
			struct strbuf *err);

/* After the last event: 0, or a negative errno with the reason in err. */
int report_output_end(struct report_output *ro, struct strbuf *err);

/* The aggregation's table, NULL without one. */
struct aggregate *report_output_table(struct report_output *ro);

/*
 * tracekit trace --interval: the aggregation's table as it is, as
 * bpftrace's print() prints it, then emptied; nothing without an
 * aggregation.
 */
void report_output_interval(struct report_output *ro);

void report_output_free(struct report_output *ro);

#endif
