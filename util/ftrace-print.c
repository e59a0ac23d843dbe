// SPDX-License-Identifier: GPL-2.0
/*
 * The tracers' text, column for column as libtracecmd 3.1 writes it
 * (lib/trace-cmd/trace-ftrace.c): its handlers are what trace-cmd report
 * prints for these events wherever the plugins are not installed, as in
 * the VM guest, and for the graph events everywhere.
 */
#include <string.h>

#include "util/ftrace-print.h"

#define GRAPH_INDENT	2

static unsigned long long field_val(const struct tep_format_field *f,
				    const struct tep_record *rec)
{
	return tep_read_number(f->event->tep, (char *)rec->data + f->offset,
			       f->size);
}

static void put_func(struct trace_seq *s, struct tep_handle *tep,
		     unsigned long long addr, const char *unknown_fmt)
{
	const char *name = tep_find_function(tep, addr);

	if (name)
		trace_seq_puts(s, name);
	else
		trace_seq_printf(s, unknown_fmt, addr);
}

/* "vfs_open <-- path_openat"; an unknown ip is "0x..." with no arrow */
static int function_handler(struct trace_seq *s, struct tep_record *rec,
			    struct tep_event *ev, void *ctx)
{
	struct ftrace_print *fp = ctx;
	unsigned long long addr = field_val(fp->fn_ip, rec);
	const char *name;

	name = tep_find_function(ev->tep, addr);
	if (name)
		trace_seq_printf(s, "%s <-- ", name);
	else
		trace_seq_printf(s, "0x%llx", addr);
	put_func(s, ev->tep, field_val(fp->fn_parent, rec), "0x%llx");
	return 0;
}

/* The duration's mark: over 10 us "+", 100 us "!", 1 ms "#", 1 s "$". */
static void put_overhead(struct trace_seq *s, unsigned long long ns)
{
	const char *mark = "  ";

	if (ns > 1000000000ULL)
		mark = "$ ";
	else if (ns > 1000000ULL)
		mark = "# ";
	else if (ns > 100000ULL)
		mark = "! ";
	else if (ns > 10000ULL)
		mark = "+ ";
	trace_seq_puts(s, mark);
}

/* "%lu.%03lu us " padded to the column, then "|  "; 7 digits lose the ns. */
static void put_duration(struct trace_seq *s, unsigned long long ns)
{
	char num[40];
	int len = snprintf(num, sizeof(num), "%llu", ns / 1000);

	if (len < 7)
		len += snprintf(num + len, sizeof(num) - len, ".%03llu", ns % 1000);
	trace_seq_printf(s, "%s us %*s|  ", num, len < 7 ? 7 - len : 0, "");
}

static void put_indent(struct trace_seq *s, long long depth)
{
	long long i;

	for (i = 0; i < depth * GRAPH_INDENT; i++)
		trace_seq_putc(s, ' ');
}

static int entry_handler(struct trace_seq *s, struct tep_record *rec,
			 struct tep_event *ev, void *ctx)
{
	struct ftrace_print *fp = ctx;
	long long depth = (int)field_val(fp->ent_depth, rec);
	unsigned long long func = field_val(fp->ent_func, rec);

	(void)ev;
	if (fp->leaf_entry == rec && fp->leaf_exit) {
		unsigned long long ns = field_val(fp->rettime, fp->leaf_exit) -
					field_val(fp->calltime, fp->leaf_exit);

		put_overhead(s, ns);
		put_duration(s, ns);
		put_indent(s, depth);
		put_func(s, fp->entry->tep, func, "%llx");
		trace_seq_puts(s, "();");
		return 0;
	}
	trace_seq_puts(s, "  ");
	trace_seq_puts(s, "           |  ");
	put_indent(s, depth);
	put_func(s, fp->entry->tep, func, "%llx");
	trace_seq_puts(s, "() {");
	return 0;
}

static int exit_handler(struct trace_seq *s, struct tep_record *rec,
			struct tep_event *ev, void *ctx)
{
	struct ftrace_print *fp = ctx;
	unsigned long long ns =
		field_val(fp->rettime, rec) - field_val(fp->calltime, rec);

	(void)ev;
	put_overhead(s, ns);
	put_duration(s, ns);
	put_indent(s, (int)field_val(fp->ret_depth, rec));
	trace_seq_putc(s, '}');
	return 0;
}

/* A field the handlers read: there, and a whole number of 1 to 8 bytes. */
static struct tep_format_field *number(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;

	if (!f || f->size < 1 || f->size > 8 ||
	    (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return NULL;
	return f;
}

static unsigned int fields_end(const struct tep_format_field *f)
{
	unsigned int end = 0;

	for (; f; f = f->next)
		if ((unsigned int)f->offset + (unsigned int)f->size > end)
			end = f->offset + f->size;
	return end;
}

static int unhandled(struct tep_event *ev)
{
	return ev && !ev->handler;
}

void ftrace_print_register(struct ftrace_print *fp, struct tep_handle *tep)
{
	struct tep_event *fn = tep_find_event_by_name(tep, "ftrace", "function");

	memset(fp, 0, sizeof(*fp));
	fp->fn_ip = number(fn, "ip");
	fp->fn_parent = number(fn, "parent_ip");
	if (unhandled(fn) && fp->fn_ip && fp->fn_parent)
		tep_register_event_handler(tep, fn->id, "ftrace", "function",
					   function_handler, fp);
	fp->entry = tep_find_event_by_name(tep, "ftrace", "funcgraph_entry");
	fp->exit = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit");
	fp->ent_func = number(fp->entry, "func");
	fp->ent_depth = number(fp->entry, "depth");
	fp->ret_func = number(fp->exit, "func");
	fp->ret_depth = number(fp->exit, "depth");
	fp->calltime = number(fp->exit, "calltime");
	fp->rettime = number(fp->exit, "rettime");
	/*
	 * Folding needs both halves; a half-known graph prints as its formats
	 * say.
	 */
	if (!unhandled(fp->entry) || !unhandled(fp->exit) || !fp->ent_func ||
	    !fp->ent_depth || !fp->ret_func || !fp->ret_depth ||
	    !fp->calltime || !fp->rettime) {
		fp->entry = fp->exit = NULL;
		return;
	}
	fp->exit_min = fields_end(fp->exit->format.common_fields);
	if (fields_end(fp->exit->format.fields) > fp->exit_min)
		fp->exit_min = fields_end(fp->exit->format.fields);
	tep_register_event_handler(tep, fp->entry->id, "ftrace", "funcgraph_entry",
				   entry_handler, fp);
	tep_register_event_handler(tep, fp->exit->id, "ftrace", "funcgraph_exit",
				   exit_handler, fp);
}

static int type_of(struct tep_handle *tep, const struct tep_record *rec)
{
	return tep_data_type(tep, (struct tep_record *)rec);
}

int ftrace_print_is_entry(const struct ftrace_print *fp, int id)
{
	return fp->entry && id == fp->entry->id;
}

int ftrace_print_is_leaf(const struct ftrace_print *fp, struct tep_handle *tep,
			 const struct tep_record *rec,
			 const struct tep_record *next)
{
	return fp->exit && next->cpu == rec->cpu && next->size >= 0 &&
	       (unsigned int)next->size >= fp->exit_min &&
	       type_of(tep, next) == fp->exit->id &&
	       tep_data_pid(tep, (struct tep_record *)next) ==
		       tep_data_pid(tep, (struct tep_record *)rec) &&
	       field_val(fp->ret_func, next) == field_val(fp->ent_func, rec);
}

void ftrace_print_call(const struct ftrace_print *fp, struct tep_handle *tep,
		       const struct tep_record *rec,
		       struct ftrace_print_call *call)
{
	int type = type_of(tep, rec);
	const struct tep_record *exit = rec;

	memset(call, 0, sizeof(*call));
	if (fp->fn_ip && fp->fn_parent && type == fp->fn_ip->event->id) {
		call->kind = FTRACE_PRINT_FUNCTION;
		call->func = field_val(fp->fn_ip, rec);
		call->parent = field_val(fp->fn_parent, rec);
		return;
	}
	if (!fp->entry)
		return;
	if (type == fp->entry->id) {
		call->kind = FTRACE_PRINT_ENTRY;
		call->func = field_val(fp->ent_func, rec);
		call->depth = (int)field_val(fp->ent_depth, rec);
		if (fp->leaf_entry != rec || !fp->leaf_exit)
			return;
		call->kind = FTRACE_PRINT_LEAF;
		exit = fp->leaf_exit;
	} else if (type == fp->exit->id) {
		call->kind = FTRACE_PRINT_EXIT;
		call->func = field_val(fp->ret_func, rec);
		call->depth = (int)field_val(fp->ret_depth, rec);
	} else {
		return;
	}
	call->duration_ns =
		field_val(fp->rettime, exit) - field_val(fp->calltime, exit);
}
