/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACE_H
#define TK_TRACE_H

#include "util/probe-add.h"
#include "util/record.h"
#include "util/report-aggregate.h"
#include "util/report-format.h"
#include "util/strbuf.h"

/*
 * `tracekit trace`: probes defined for the run alone, their events and
 * tracepoints recorded in a private instance (util/record.h's live
 * view), each event printed as `tracekit report` prints it from a file
 * or added to an aggregation table, and everything undone at the end.
 */

/* --where: where the aggregation is done. */
enum trace_where {
	TRACE_WHERE_AUTO,	/* the kernel where it can */
	TRACE_WHERE_KERNEL,	/* hist triggers, or an error saying why not */
	TRACE_WHERE_USER,	/* every event read and added up here */
};

struct trace_opts {
	/* The probes: target, --call-graph, -v; group and undo are ours. */
	struct probe_add_opts probe;
	const char *const *specs;
	int nr_specs;
	/*
	 * The recording: -e events, -o output, -P, COMMAND, --duration...;
	 * events and live are ours.
	 */
	struct record_opts rec;
	const struct report_format *format;	/* text or json */
	const struct report_agg_opts *agg;	/* NULL: print the events */
	/* print and clear the table every interval s; 0: never */
	double interval;
	enum trace_where where;
	/* The output as it comes; 0, or a negative errno with err set. */
	int (*write)(void *data, const struct strbuf *out,
		     struct strbuf *err);
	/* A warning (a leftover of a killed run removed); may be NULL. */
	void (*warn)(const char *msg, void *data);
	/* With -v, what was chosen and why; may be NULL. */
	void (*note)(const char *msg, void *data);
	void *data;
};

/*
 * The group of this process's probes, "tktrace_PID": a run killed by
 * SIGKILL leaves its probes, which the next run removes by that name.
 */
#define TRACE_GROUP_PREFIX	"tktrace_"

/*
 * Runs until COMMAND ends, -P's process ends, --duration passes or a
 * signal (SIGINT, SIGTERM, SIGHUP) comes.  said gets what defining the
 * probes has to say (util/probe-add.h).  0, or a negative errno with
 * the reason in err (or last in said, for the probes).
 */
int trace_run(const struct trace_opts *o, struct probe_output *said,
	      struct record_result *res, struct strbuf *err);

#endif
