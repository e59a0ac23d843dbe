/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PRINT_H
#define TK_PRINT_H

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "util/ftrace-print.h"
#include "util/strbuf.h"
#include "util/tracedat-merge.h"
#include "util/unwind.h"

/*
 * Formats decoded events into a strbuf (the caller writes it out):
 * trace-cmd report's text line, or one JSON object per line.
 */

struct print_tep;

/* The task column ("%16s-%-5d") kept in print_ctx, when it fits. */
#define TASK_COL_ROOM	32

struct print_ctx {
	/* print fmt ignored: field=value (trace-cmd -R) */
	int raw;
	int latency;		/* latency columns (trace-cmd -l) */
	/* Every info text through tep_print_event(): the reference output. */
	int no_compile;
	/*
	 * Leave out probe --call-graph's capture fields (callgraph.h) of
	 * info and JSON.
	 */
	int hide_capture;
	/* Compiled formats found to print otherwise than libtraceevent. */
	int formats_dropped;
	struct trace_seq seq;
	struct strbuf info;
	/* Per file: what is known of each event id (util/print.c). */
	struct print_tep *teps, *last;
	int nr_teps;
	struct tep_handle *comm_tep;
	int comm_pid;
	const char *comm;
	/*
	 * "%16s-%-5d" of comm and pid, padded for a fixed-size copy; 0: too
	 * long
	 */
	char task_col[TASK_COL_ROOM + 16];
	size_t task_col_len;
};

void print_init(struct print_ctx *p, int raw, int latency);
void print_release(struct print_ctx *p);

/*
 * 0 when every field the event's format names lies inside the record
 * (static fields and __data_loc payloads), else -EINVAL: libtraceevent
 * trusts the format, so a corrupt record must not reach it.
 */
int print_record_check(struct print_ctx *p, const struct tracedat_event *ev);

/*
 * Where field f's bytes lie in rec (a __data_loc field's payload, its
 * relative form included): 0, or -1 when they are not all inside it.
 */
int print_field_span(struct tep_handle *tep, const struct tep_format_field *f,
		     const struct tep_record *rec, unsigned int *off,
		     unsigned int *len);

/*
 * label: NULL for no label column, else printed as "%*s: " (or blank
 * "%*s  " when label is "") in front of the line, as trace-cmd does for
 * instances and multiple input files.
 */
void print_text(struct print_ctx *p, struct strbuf *out,
		const struct tracedat_event *ev, const char *label, int width);

/*
 * {"ts_ns":..,"cpu":..,"pid":..,"comm":..,"system":..,"event":..,"fields":{..},
 * "info":..}, and with fp (NULL: none) the tracers' events typed:
 * "function":{"func":..,"parent":..} or "graph":{"kind":..,"depth":..,
 * "func":..,"duration_ns":..} (Documentation/tracekit-report.txt).
 * The object is left open, for the caller's members (the call chain):
 * the caller ends it, with "}\n".
 */
void print_json(struct print_ctx *p, struct strbuf *out,
		const struct tracedat_event *ev, const char *buffer,
		const char *file, const struct ftrace_print *fp);

/*
 * An unwound user stack: "=> func+0x1a (libc.so.6) file.c:123" lines
 * ("=> func (dso) file.c:12 (inlined)" for an inlined function), a JSON
 * array of {"ip","sym","dso","srcline"[,"inlined":true]}, or the frame
 * names outer first, ';'-separated, as flamegraph.pl's folded input.
 */
void print_callchain_text(struct strbuf *out, const struct unwind_stack *st);
void print_callchain_json(struct strbuf *out, const struct unwind_stack *st);
void print_callchain_folded(struct strbuf *out, const char *comm,
			    const struct unwind_stack *st);

/*
 * tep_find_event_by_record(), from the table the printing keeps by
 * event id: the merge read common_type (tracedat_event.id) already.
 */
struct tep_event *print_event_of(struct print_ctx *p,
				 const struct tracedat_event *ev);

/*
 * Runs the libtraceevent plugin handler of rec's event, if it has one,
 * for its effects only: sched_switch's registers the tasks' names, which
 * trace-cmd report's text (and ours) shows for the events after it, so
 * output that prints no info (folded stacks) must run it to name the
 * same tasks.
 */
void print_run_handler(struct print_ctx *p, const struct tracedat_event *ev);

/*
 * 1 for ftrace:kernel_stack, the kernel's stack trace after an event
 * (record -T).
 */
int print_is_kernel_stack(const struct tep_event *event);

/*
 * The frames of a kernel_stack record, innermost first, into addr: their
 * number, at most max.  Callers read at most PRINT_MAX_KSTACK frames (a
 * 16 KB kernel stack has room for fewer calls): a deeper trace is cut.
 */
#define PRINT_MAX_KSTACK	512
int print_kernel_stack_frames(struct tep_handle *tep, struct tep_event *event,
			      const struct tep_record *rec,
			      unsigned long long *addr, int max);

/*
 * Appends the frames of a kernel_stack record to a folded stack, outer
 * first, each ";FUNC_[k]" (flamegraph.pl's mark of a kernel frame; the
 * address as 0xADDR_[k] where the file's kallsyms has no symbol).  The
 * number of frames.
 */
int print_kernel_stack_folded(struct strbuf *out, struct tep_handle *tep,
			      struct tep_event *event,
			      const struct tep_record *rec);

#endif
