/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_REPORT_H
#define TK_REPORT_H

#include "util/ftrace-print.h"
#include "util/strbuf.h"
#include "util/tracedat-merge.h"
#include "util/tracedat-read.h"

/*
 * The session of `tracekit report`: opens the trace.dat files, selects
 * their CPUs and events, merges the selected per-CPU streams of every
 * file and buffer by time, keeps the events the filters keep and counts
 * them for --stat.  Turning events into text or JSON is util/print's,
 * the output formats util/report-format's.
 */

struct report_opts {
	const char *const *inputs;
	int nr_inputs;
	const char *const *events;	/* -e: fnmatch globs, none = all */
	int nr_events;
	const char *const *filters;	/* -F: libtraceevent filters */
	int nr_filters;
	const char *const *comms;	/* --comm and --pid: either matches */
	int nr_comms;
	const int *pids;
	int nr_pids;
	const char *cpus;		/* CPU list "0,2-3", NULL = all */
	int stat;			/* count what report_keep() keeps */
	int no_plugins;			/* no libtraceevent plugins */
	/* the recording machine's files for the unwinder; NULL: these */
	const char *sysroot;
	/* Told of what is odd but no failure; NULL: not told. */
	void (*warn)(const char *msg);
};

struct report_file {
	struct tracedat *td;
	/* basename, the label with several files */
	const char *base;
	unsigned char *allowed;	/* by event id, NULL = all (-e) */
	struct tep_event_filter *filter;	/* -F */
	/* with stat: counts by event id */
	unsigned long long *per_event;
	/* By event id: a format that did not parse, not yet warned of. */
	unsigned char *unwarned;
	int nr_bad_seen;		/* of tracedat_bad_formats() */
	/* ftrace:kernel_stack, user_stack; -1 */
	int stack_ids[2];
	/* the tracers' handlers, unless no_plugins */
	struct ftrace_print ftrace;
};

/* A merged stream: one CPU of one buffer of one file. */
struct report_source {
	struct report_file *file;
	int buffer, cpu;
	unsigned long long events, missed;	/* with stat */
	/* pages that lost an unknown number */
	int missed_unknown;
	int last_selected;		/* by -e/--pid/--comm: the last event
					 * that is no stack trace */
	int filter_passed;		/* by -F: any event so far */
};

struct report {
	const struct report_opts *o;
	unsigned char *cpus;		/* by cpu, NULL = all */
	struct report_file *files;	/* nr_files opened, in input order */
	int nr_files;
	/* indexed by tracedat_event.source */
	struct report_source *sources;
	int nr_sources;
	struct tracedat_merge *merge;
	/* With stat: events kept, and the first and last timestamp. */
	unsigned long long total, first_ts, last_ts;
	/* report_fold_graph(): the entry it copied, the event read after it. */
	struct tep_record entry;
	unsigned char *entry_data;
	size_t entry_alloc;
	struct tracedat_event pending;
	int has_pending;
};

/*
 * Takes o (which must outlive r) and parses its CPU list: 0, or -EINVAL
 * with "--cpu: bad CPU list ..." in err, an error in the command line.
 */
int report_init(struct report *r, const struct report_opts *o,
		struct strbuf *err);

/*
 * Opens the inputs in order and sets up their -e and -F selections.
 * A file where no event matches -e is a warning, not a failure.  0, or
 * a negative errno with the error of the first input that failed in err:
 * tracedat_open()'s, or -EINVAL for a -F filter that does not parse.
 */
int report_open(struct report *r, struct strbuf *err);

/*
 * Adds the selected CPU streams of every file and buffer to the merge,
 * in the order trace-cmd gives ties (file, buffer, CPU); 0 or the
 * negative errno of tracedat_merge_add() with err set.
 */
int report_start(struct report *r, struct strbuf *err);

/*
 * tracekit trace's instead: the CPUs of the one file opened, which has
 * no events, as live streams (util/tracedat-merge.h), the idx-th CPU's
 * the source idx, fed by the caller.  report_next() returns 0 when the
 * events fed so far are out.
 */
void report_start_live(struct report *r);

/*
 * The next event by time, of any stream: 1 with ev filled, 0 at the
 * end, a negative errno on a corrupt file (tracedat's, error in err),
 * among them kallsyms found corrupt while the events before were
 * printed (tracedat_late_error()): the caller drops what it has not
 * written of those.
 */
int report_next(struct report *r, struct tracedat_event *ev,
		struct strbuf *err);

/*
 * For text output: when ev is a funcgraph_entry, reads the event after
 * it to tell a leaf from a nest (util/ftrace-print.h), with ev->rec
 * then a copy of the entry.  1 when the next event is the entry's exit,
 * consumed and handed to the entry's printing until the next call; 0
 * when it is not (report_next() returns it next) or ev is no entry; a
 * negative errno on a corrupt file (tracedat's, error in err).
 */
int report_fold_graph(struct report *r, struct tracedat_event *ev,
		      struct strbuf *err);

/*
 * 1 when ev passes -e, --pid, --comm and -F (and is then counted, with
 * stat, and, the first time an event of a format that did not parse is
 * kept, told to o->warn), 0 when it is left out.  The record must have
 * been checked to fit its format first (print_record_check()): the
 * filters read fields.
 */
int report_keep(struct report *r, const struct tracedat_event *ev);

void report_release(struct report *r);

/*
 * The kernel's per-CPU ring buffer statistics a file keeps (the CPUSTAT
 * text of trace.dat), walked for the counters of lost events: each call
 * of report_loss_next() finds the next nonzero one.
 */
enum report_loss_kind {
	REPORT_LOSS_OVERRUN,		/* "overrun": overwritten */
	REPORT_LOSS_COMMIT_OVERRUN,	/* "commit overrun" */
	REPORT_LOSS_DROPPED,		/* "dropped events": buffer full */
};

struct report_loss {
	/* where the walk goes on, NULL at the end */
	const char *next;
	/* instance name, "" for the top level */
	char buffer[256];
	int cpu;			/* -1 before a "CPU:" line */
	enum report_loss_kind kind;
	long long count;
};

void report_loss_init(struct report_loss *l, const char *cpustats);
/* 1 with l's cpu, buffer, kind and count set, 0 at the end. */
int report_loss_next(struct report_loss *l);

#endif
