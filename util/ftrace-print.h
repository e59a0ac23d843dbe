/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_FTRACE_PRINT_H
#define TK_FTRACE_PRINT_H

#include <traceevent/event-parse.h>

/*
 * The text of the function and function_graph tracers' events as
 * trace-cmd report prints them: libtracecmd registers handlers of its
 * own for ftrace:function ("func <-- parent") and the funcgraph events,
 * which it folds into the tracer's graph.  An entry whose next event in
 * the file is its own exit, on the same CPU and task, is a leaf printed
 * with the exit's duration ("  2.363 us   |      func();"), and that
 * exit is not printed; any other entry opens a nest ("func() {") that
 * its exit closes ("+ 23.845 us  |    }").  trace-cmd -N does none of it,
 * and a libtraceevent plugin that handles one of these events (its
 * function plugin does) takes precedence.
 */
struct ftrace_print {
	struct tep_format_field *fn_ip, *fn_parent;
	struct tep_event *entry, *exit;
	struct tep_format_field *ent_func, *ent_depth;
	struct tep_format_field *ret_func, *ret_depth, *calltime, *rettime;
	unsigned int exit_min;	/* an exit record shorter misses a field */
	/* Set by the caller while the entry it belongs to is printed. */
	const struct tep_record *leaf_entry, *leaf_exit;
};

/* Registers the handlers on tep where no plugin has one; fp lives as long. */
void ftrace_print_register(struct ftrace_print *fp, struct tep_handle *tep);

/* 1 when rec is a funcgraph_entry that fp folds. */
int ftrace_print_is_entry(const struct ftrace_print *fp, struct tep_handle *tep,
			  const struct tep_record *rec);

/* 1 when next is the exit of the entry rec: the two print as one leaf. */
int ftrace_print_is_leaf(const struct ftrace_print *fp, struct tep_handle *tep,
			 const struct tep_record *rec, const struct tep_record *next);

#endif
