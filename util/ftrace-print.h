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

/* 1 when id (a record's event id) is the funcgraph_entry that fp folds. */
int ftrace_print_is_entry(const struct ftrace_print *fp, int id);

/* 1 when next is the exit of the entry rec: the two print as one leaf. */
int ftrace_print_is_leaf(const struct ftrace_print *fp, struct tep_handle *tep,
			 const struct tep_record *rec,
			 const struct tep_record *next);

/* What a record is to the tracers, for typed output (JSON). */
enum ftrace_print_kind {
	FTRACE_PRINT_OTHER,	/* no tracer's event, or one fp does not know */
	FTRACE_PRINT_FUNCTION,	/* ftrace:function: func called from parent */
	FTRACE_PRINT_ENTRY,	/* a funcgraph_entry that opens a nest */
	FTRACE_PRINT_LEAF,	/* a funcgraph_entry folded with its exit */
	FTRACE_PRINT_EXIT,	/* a funcgraph_exit that closes a nest */
};

struct ftrace_print_call {
	enum ftrace_print_kind kind;
	/* addresses; parent of FUNCTION only */
	unsigned long long func, parent;
	long long depth;			/* graph events */
	/* LEAF and EXIT: rettime - calltime */
	unsigned long long duration_ns;
};

/*
 * rec as the text prints it: an entry is a LEAF while it is
 * fp->leaf_entry (the caller folding it with fp->leaf_exit).  The
 * record must have been checked to fit its format.
 */
void ftrace_print_call(const struct ftrace_print *fp, struct tep_handle *tep,
		       const struct tep_record *rec,
		       struct ftrace_print_call *call);

#endif
