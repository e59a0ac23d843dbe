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
int stack_trace_parse(const char *text, struct stack_trace *st, struct strbuf *err);
void stack_trace_release(struct stack_trace *st);

/*
 * 0 when the stack tracer can be driven; otherwise -ENOENT (tracefs not
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
 */
int stack_tracer_set_enabled(int on, int keep);
int stack_tracer_reset(void);
/*
 * Sets the filter to funcs (names or ftrace globs); nr = 0
 * checks all functions again.  All or nothing: the kernel applies the
 * names before a refused one (and an O_TRUNC write that fails leaves
 * "all functions"), so on failure the previous filter is written back
 * and err names the refused function.
 */
int stack_tracer_set_filter(const char *const *funcs, int nr, int keep,
			    struct strbuf *err);

/*
 * The kernel's THREAD_SIZE in bytes (x86-64: from BTF, the kernel config
 * or the default), 0 when unknown for this architecture; source says
 * where the value comes from.
 */
unsigned long stack_tracer_thread_size(const char **source);

#endif
