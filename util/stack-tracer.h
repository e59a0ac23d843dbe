/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_STACK_TRACER_H
#define TK_STACK_TRACER_H

#include "util/strbuf.h"

/*
 * The kernel's stack tracer (kernel/trace/trace_stack.c): at every traced
 * function call it measures how deep the current task's stack is and keeps
 * the deepest stack seen.  Its interface is a sysctl and three tracefs
 * files:
 *
 *   /proc/sys/kernel/stack_tracer_enabled  0 or not (any int is kept)
 *   stack_max_size      the maximum in bytes; writing 0 resets it
 *   stack_trace         the Depth/Size/Location table of that maximum
 *   stack_trace_filter  ftrace filter: the functions whose calls are checked
 *
 * Every change goes through the tracefs restore registry.
 */

#define STACK_TRACER_SYSCTL "/proc/sys/kernel/stack_tracer_enabled"

/* One row of stack_trace: "%3ld) %8d   %5d   %pS". */
struct stack_entry {
	unsigned int index;
	unsigned long depth;	/* bytes from the top of the stack */
	unsigned long size;	/* bytes of this frame (depth - next depth) */
	char *location;		/* as printed: "sym+0xoff/0xlen [mod]" */
	char *symbol;		/* NULL when the kernel printed an address */
	unsigned long offset;	/* into symbol */
	unsigned long length;	/* of symbol */
	unsigned long long address; /* when symbol is NULL */
	char *module;		/* NULL for vmlinux */
};

struct stack_trace {
	int header_entries;	/* "(N entries)" in the header */
	int disabled_note;	/* the "# Stack tracer disabled" block */
	struct stack_entry *v;
	int nr, alloc;
};

/*
 * Parses the text of stack_trace.  On a malformed line returns -EINVAL
 * with err naming the line number and what was expected.
 */
int stack_trace_parse(const char *text, struct stack_trace *st,
		      struct strbuf *err);
void stack_trace_release(struct stack_trace *st);

/*
 * 0 when the stack tracer can be driven; otherwise -ENODEV (tracefs not
 * mounted, or the kernel was built without CONFIG_STACK_TRACER) or
 * -EACCES/-EPERM (not permitted), with why set to a one-line explanation.
 */
int stack_tracer_check(struct strbuf *why);

/* The sysctl's value (nonzero = running); 0 or -errno. */
int stack_tracer_enabled(int *val);
/* stack_max_size; 0 or -errno. */
int stack_tracer_max_size(unsigned long *bytes);
/* Reads and parses stack_trace; 0, -errno, or -EINVAL with err set. */
int stack_tracer_read(struct stack_trace *st, struct strbuf *err);

/*
 * The functions in stack_trace_filter, one per element, as the kernel
 * lists them ("func" or "func [module]"); none when all are checked.
 */
struct stack_filter {
	char **v;
	int nr, alloc;
};
int stack_tracer_filter(struct stack_filter *f);
void stack_filter_release(struct stack_filter *f);

/*
 * Changes, each registered with the restore registry before it is made.
 * With keep, the undo is dropped once the change succeeded (a deliberate
 * --start); without, it is replayed at exit, on error and on signals.
 * Each returns 0, or -errno with "writing FILE: why" in err.
 */
int stack_tracer_set_enabled(int on, int keep, struct strbuf *err);
int stack_tracer_reset(struct strbuf *err);
/*
 * Sets the filter to the functions of args, each a name, an ftrace glob
 * or a comma-separated list of them (--filter's arguments); nr = 0
 * checks all functions again.  All or nothing: the kernel applies the
 * names before a refused one (and an O_TRUNC write that fails leaves
 * "all functions"), so on failure the previous filter is written back.
 * A refused name is the caller's input at fault: -EINVAL, with
 * "--filter NAME: why" in err.
 */
int stack_tracer_set_filter(const char *const *args, int nr, int keep,
			    struct strbuf *err);

/*
 * The kernel's THREAD_SIZE in bytes (x86-64: from BTF, the kernel config
 * or the default; arm64: the config or the default), 0 when unknown for
 * this architecture; source says where the value comes from.
 */
unsigned long stack_tracer_thread_size(const char **source);

/* What the kernel reports, read while the tracer cannot change it. */
struct stack_report {
	int enabled;
	struct stack_filter filter;
	unsigned long max;
	struct stack_trace trace;
	unsigned long thread_size;
	const char *thread_size_source;
};

/*
 * Reads the state, the maximum and the table of that maximum.  0, or
 * -errno with "reading FILE: why" in err (-EINVAL and "stack_trace: line
 * N: ..." for a table it cannot parse); r is released on failure.
 */
int stack_report_read(struct stack_report *r, struct strbuf *err);
void stack_report_release(struct stack_report *r);

/*
 * r as the one JSON object of `stack --json`, appended to out, the
 * members tracekit-stack(1) lists under JSON OUTPUT; exit_status (a
 * COMMAND's) is left out when NULL.
 */
void stack_report_json(const struct stack_report *r, const int *exit_status,
		       struct strbuf *out);

/* `tracekit stack -- COMMAND`: the deepest stack the command reached. */
struct stack_measure {
	struct stack_report report;
	/* the command's exit code; 128 + N for signal N */
	int status;
	int not_run;		/* on failure: the command could not be run */
};

/*
 * Sets the filter (when nr_filter), resets the maximum, starts the
 * tracer, runs argv with SIGINT and SIGQUIT left to it, stops the tracer
 * and reads the report; then puts the enabled state and the filter back
 * (tk_restore_run()), so that a caller whose reader goes away while it
 * prints (SIGPIPE) cannot leave them changed.  0, or -errno with err
 * set; not_run then tells "cannot run 'COMMAND': why" (exec failed, or
 * the command is not there, found before the tracer is touched) from a
 * failure of the tracer.
 */
int stack_measure_command(const char *const *argv, const char *const *filter,
			  int nr_filter, struct stack_measure *m,
			  struct strbuf *err);

#endif
