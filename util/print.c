// SPDX-License-Identifier: GPL-2.0
/*
 * Event formatting.  The text line reproduces trace-cmd report's
 * (tracecmd/trace-read.c: trace_show_data): "%16s-%-5d [%03d]", the
 * timestamp as libtraceevent's "%6.1000d" (usecs, rounded) for
 * nanosecond clocks, the event name padded to 20, then the event's print
 * format.  The columns are built here instead of with four
 * tep_print_event() calls because that is most of the cost per event;
 * the info part is the compiled print format's (util/print-fmt) where
 * there is one, else libtraceevent's with its plugins.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/callgraph.h"
#include "util/json.h"
#include "util/print.h"
#include "util/print-fmt.h"
#include "util/tracedat-read.h"
#include "util/usage.h"

/*
 * What is known of one event id in one file: its event, the end of its
 * last fixed field (a record shorter than that cannot be printed), its
 * __data_loc fields, whose payloads are checked one by one, and its
 * compiled print format.
 */
struct print_event {
	struct tep_event *event;
	unsigned int min_size;
	struct tep_format_field **dyn;
	int nr_dyn;
	struct print_fmt *fmt;
	/* records still to compare with libtraceevent */
	int unchecked;
	/*
	 * " NAME=" of the first of probe --call-graph's capture fields,
	 * where the info text is cut; NULL: the event has none.
	 */
	char *capture;
	/* kmem's handler, written here (call_site_prefix()) once checked */
	struct tep_format_field *call_site;
	int handler_unchecked;
	struct json_event *json;	/* built on first JSON use */
	/* " NAME: " padded to 20 columns, with room for a fixed-size copy */
	char *name_col;
	size_t name_col_len;
};

/* What JSON output writes the same for every record of an event. */
struct json_event {
	char *head;		/* ,"system":..,"event":..,"fields":{ */
	int nr;
	struct json_key {
		struct tep_format_field *f;
		/* "name": with the comma before all but the first */
		char *key;
		unsigned int esize;	/* element size of an array */
	} *keys;
};

/*
 * The compiled formats follow libtraceevent 1.7; another version may
 * print some construct differently.  The first records of each event
 * are printed both ways, and on any difference the event keeps to the
 * library for the rest of the run.
 */
#define CHECKED_RECORDS	4

struct print_tep {
	struct tep_handle *tep;
	/* TRACEDAT_MAX_EVENT_ID slots, filled on first use */
	struct print_event **by_id;
	unsigned int common_size;	/* the end of the common fields */
	/* common_pid, read here rather than by tep_data_pid() */
	int pid_off, pid_size, swap;
};

void print_init(struct print_ctx *p, int raw, int latency)
{
	memset(p, 0, sizeof(*p));
	p->raw = raw;
	p->latency = latency;
	trace_seq_init(&p->seq);
	strbuf_init(&p->info, 256);
}

static void json_event_free(struct json_event *j)
{
	int i;

	if (!j)
		return;
	for (i = 0; i < j->nr; i++)
		free(j->keys[i].key);
	free(j->keys);
	free(j->head);
	free(j);
}

void print_release(struct print_ctx *p)
{
	int i, id;

	for (i = 0; i < p->nr_teps; i++) {
		for (id = 0; id < TRACEDAT_MAX_EVENT_ID; id++) {
			struct print_event *pe = p->teps[i].by_id[id];

			if (!pe)
				continue;
			print_fmt_free(pe->fmt);
			free(pe->dyn);
			free(pe->capture);
			json_event_free(pe->json);
			free(pe->name_col);
			free(pe);
		}
		free(p->teps[i].by_id);
	}
	free(p->teps);
	strbuf_release(&p->info);
	trace_seq_destroy(&p->seq);
}

static struct print_tep *tep_table(struct print_ctx *p, struct tep_handle *tep)
{
	struct print_tep *t;
	int i;

	if (p->last && p->last->tep == tep)
		return p->last;
	for (i = 0; i < p->nr_teps; i++)
		if (p->teps[i].tep == tep)
			return p->last = &p->teps[i];
	p->teps = xrealloc(p->teps, (p->nr_teps + 1) * sizeof(*p->teps));
	t = &p->teps[p->nr_teps++];
	memset(t, 0, sizeof(*t));
	t->tep = tep;
	t->by_id = xcalloc(TRACEDAT_MAX_EVENT_ID, sizeof(*t->by_id));
	return p->last = t;
}

/*
 * ftrace's own events end in an array the kernel fills only in part:
 * kernel_stack's caller[8] holds as many frames as the record has room
 * for.  Such a last field need only start inside the record.
 */
static int open_ended(const struct tep_format_field *f)
{
	return !f->next && (f->event->flags & TEP_EVENT_FL_ISFTRACE) &&
	       (f->flags & TEP_FIELD_IS_ARRAY) &&
	       !(f->flags & TEP_FIELD_IS_DYNAMIC);
}

static void scan_fields(struct print_event *pe, struct tep_format_field *f)
{
	for (; f; f = f->next) {
		unsigned int end = (unsigned int)f->offset +
				   (unsigned int)f->size;

		if (open_ended(f))
			end = f->offset;
		if (f->offset < 0 || f->size < 0)
			end = ~0U;
		if (end > pe->min_size)
			pe->min_size = end;
		if (!pe->capture && callgraph_is_field(f->name)) {
			struct strbuf at = STRBUF_INIT;

			strbuf_addf(&at, " %s=", f->name);
			pe->capture = strbuf_detach(&at, NULL);
		}
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			pe->dyn = xrealloc(pe->dyn, (pe->nr_dyn + 1) *
					   sizeof(*pe->dyn));
			pe->dyn[pe->nr_dyn++] = f;
		}
	}
}

static void make_name_col(struct print_event *pe);

/* id: the merge's reading of common_type (tracedat_event.id) */
static struct print_event *event_of(struct print_ctx *p, struct tep_handle *tep,
				    struct tep_record *rec, int id)
{
	struct print_tep *t = tep_table(p, tep);
	struct print_event *pe;

	/*
	 * The common fields, from any event: where they end, where the pid
	 * is.
	 */
	if (!t->common_size) {
		struct tep_event *first = tep_get_first_event(tep);
		struct print_event common = { 0 };

		if (first) {
			struct tep_format_field *pid;

			scan_fields(&common, first->format.common_fields);
			pid = tep_find_common_field(first, "common_pid");
			if (pid) {
				t->pid_off = pid->offset;
				t->pid_size = pid->size;
			}
			t->swap = print_fmt_needs_swap(tep);
		}
		free(common.dyn);
		t->common_size = common.min_size ? common.min_size : ~0U;
	}
	if (rec->size < 0 || (unsigned int)rec->size < t->common_size)
		return NULL;
	if (id < 0 || id >= TRACEDAT_MAX_EVENT_ID)
		return NULL;
	pe = t->by_id[id];
	if (pe)
		return pe;
	pe = xcalloc(1, sizeof(*pe));
	pe->event = tep_find_event(tep, id);
	if (pe->event) {
		scan_fields(pe, pe->event->format.common_fields);
		scan_fields(pe, pe->event->format.fields);
		if (!p->no_compile)
			pe->fmt = print_fmt_compile(pe->event);
		pe->unchecked = CHECKED_RECORDS;
		if (!p->no_compile && pe->event->handler &&
		    !strcmp(pe->event->system, "kmem"))
			pe->call_site = tep_find_field(pe->event, "call_site");
		if (pe->call_site && (pe->call_site->size < 1 ||
				      pe->call_site->size > 8 ||
				      (pe->call_site->size &
				       (pe->call_site->size - 1))))
			pe->call_site = NULL;
		pe->handler_unchecked = CHECKED_RECORDS;
		make_name_col(pe);
	}
	return t->by_id[id] = pe;
}

int print_field_span(struct tep_handle *tep, const struct tep_format_field *f,
		     const struct tep_record *rec, unsigned int *off,
		     unsigned int *len)
{
	unsigned int loc;

	if ((unsigned int)f->offset + (unsigned int)f->size >
	    (unsigned int)rec->size || f->offset < 0 || f->size < 0)
		return -1;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		*off = f->offset;
		*len = f->size;
		return 0;
	}
	if (f->size < 4)
		return -1;
	loc = tep_read_number(tep, (char *)rec->data + f->offset, 4);
	*off = loc & 0xffff;
	*len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += f->offset + f->size;
	return *off + *len > (unsigned int)rec->size ? -1 : 0;
}

int print_record_check(struct print_ctx *p, const struct tracedat_event *ev)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_record *rec = ev->rec;
	struct print_event *pe = event_of(p, tep, rec, ev->id);
	unsigned int off, len;
	int i;

	if (!pe)
		return -EINVAL;
	if (!pe->event)
		return 0;
	if ((unsigned int)rec->size < pe->min_size)
		return -EINVAL;
	for (i = 0; i < pe->nr_dyn; i++)
		if (print_field_span(tep, pe->dyn[i], rec, &off, &len))
			return -EINVAL;
	return 0;
}

/* tep_data_pid(), for a record event_of() has seen */
static int pid_of(struct print_ctx *p, struct tep_handle *tep,
		  struct tep_record *rec)
{
	struct print_tep *t = tep_table(p, tep);

	if (t->pid_size)
		return (int)print_fmt_read_number((char *)rec->data +
						  t->pid_off, t->pid_size,
						  t->swap);
	return tep_data_pid(tep, rec);
}

static void tep_info(struct print_ctx *p, struct tep_handle *tep,
		     struct tep_record *rec)
{
	struct trace_seq *s = &p->seq;

	trace_seq_reset(s);
	tep_print_event(tep, s, rec, "%s",
			p->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	trace_seq_terminate(s);
	/*
	 * Plugins' handlers register comms (sched_switch's does), even over
	 * old ones.
	 */
	p->comm = NULL;
}

/*
 * The capture fields come after the user's (probe_events_call_graph()),
 * so the info text of an event with them ends at the first.  Only
 * such events are searched: a strstr() of every line was 3% of
 * `report` on a file of 301 event types (perf record).
 */
static void cut_capture(struct print_ctx *p, struct print_event *pe,
			struct strbuf *out, size_t start)
{
	char *at;

	if (p->hide_capture && pe && pe->capture && out->len > start &&
	    (at = strstr(out->buf + start, pe->capture)))
		strbuf_setlen(out, at - out->buf);
}

/*
 * The print format's part of the info text (libtraceevent's
 * pretty_print()): compiled, or the library's with the event's handler
 * held off, as the caller ran it.
 */
static void add_pretty(struct print_ctx *p, struct strbuf *out,
		       struct tep_handle *tep, struct print_event *pe,
		       struct tep_record *rec, int handled)
{
	struct trace_seq *s = &p->seq;
	size_t start = out->len;
	int compiled = pe && pe->fmt && !p->raw &&
		       !print_fmt_info(pe->fmt, out, rec);

	if (compiled && !pe->unchecked)
		return;
	if (handled)
		pe->event->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_info(p, tep, rec);
	if (handled)
		pe->event->flags &= ~TEP_EVENT_FL_NOHANDLE;
	if (compiled) {
		pe->unchecked--;
		if (s->len == out->len - start &&
		    !memcmp(s->buffer, out->buf + start, s->len))
			return;
		print_fmt_free(pe->fmt);
		pe->fmt = NULL;
		p->formats_dropped++;
		strbuf_setlen(out, start);
	}
	strbuf_add(out, s->buffer, s->len);
}

/*
 * libtraceevent's kmem plugin (plugin_kmem.c, call_site_handler())
 * prints "(FUNC+0xOFF) " of the call_site field, where kallsyms has its
 * function, before the format of kmalloc, kfree, kmem_cache_alloc and
 * the like, and returns 1.  Run for each record, its trace_seq_printf()
 * and two lookups made `report` 4% slower on a file of 600,000 records
 * where 131,000 are these (task-clock, best of 10: 334.7 ms against
 * 321.2 ms), so the prefix is written here; the first records of each
 * event are compared with the handler's own text, and on any difference
 * the handler is kept.
 */
static void call_site_prefix(struct print_ctx *p, struct strbuf *out,
			     struct tep_handle *tep, struct print_event *pe,
			     struct tep_record *rec)
{
	const struct tep_format_field *f = pe->call_site;
	unsigned long long val, start;
	const char *name;
	char buf[16], *end = buf + sizeof(buf), *o = end;
	unsigned int off;

	val = print_fmt_read_number((char *)rec->data + f->offset, f->size,
				    tep_table(p, tep)->swap);
	if (!tep_find_function_info(tep, val, &name, &start, NULL))
		return;
	/* "+0x%x" of an int */
	off = (unsigned int)(val - start);
	do
		*--o = "0123456789abcdef"[off & 15];
	while (off >>= 4);
	strbuf_addch(out, '(');
	strbuf_addstr(out, name);
	strbuf_addstr(out, "+0x");
	strbuf_add(out, o, end - o);
	strbuf_addstr(out, ") ");
}

/*
 * The plugin handler's part of the info text: 1 when the print format
 * follows, -1 when the handler printed all.
 */
static int add_handled(struct print_ctx *p, struct strbuf *out,
		       struct tep_handle *tep, struct print_event *pe,
		       struct tep_record *rec)
{
	struct tep_event *ev = pe->event;
	struct trace_seq *s = &p->seq;
	size_t start = out->len;
	int ret = 1;

	if (pe->call_site && !pe->handler_unchecked) {
		call_site_prefix(p, out, tep, pe, rec);
		return 1;
	}
	trace_seq_reset(s);
	if (!ev->handler(s, rec, ev, ev->context))
		ret = -1;
	p->comm = NULL;
	if (pe->call_site) {
		pe->handler_unchecked--;
		call_site_prefix(p, out, tep, pe, rec);
		if (ret < 0 || out->len - start != s->len ||
		    memcmp(out->buf + start, s->buffer, s->len)) {
			pe->call_site = NULL;
			p->formats_dropped++;
		}
		strbuf_setlen(out, start);
	}
	strbuf_add(out, s->buffer, s->len);
	return ret;
}

/*
 * libtraceevent 1.7's print_event_info(): a plugin's handler prints,
 * and where it returns non-zero (kmem's call_site prefix) the print
 * format follows.  The handler is run here, once, so that the format
 * part can be the compiled one: kmem's kmalloc, kfree and
 * kmem_cache_* were 131,000 of the 190,000 records of a 600,000-event
 * file that went through tep_print_event() whole.
 */
static void add_info_full(struct print_ctx *p, struct strbuf *out,
			  struct tep_handle *tep, struct print_event *pe,
			  struct tep_record *rec)
{
	struct tep_event *ev = pe ? pe->event : NULL;
	size_t start = out->len;
	int handled = 0;

	if (ev && ev->handler && !p->raw &&
	    !(ev->flags & (TEP_EVENT_FL_NOHANDLE | TEP_EVENT_FL_PRINTRAW)))
		handled = add_handled(p, out, tep, pe, rec);
	if (handled >= 0)
		add_pretty(p, out, tep, pe, rec, handled);
	if (out->len > start && out->buf[out->len - 1] == '\n')
		strbuf_setlen(out, out->len - 1);
}

/* The event's info text, without the newline some formats end with. */
static void add_info(struct print_ctx *p, struct strbuf *out,
		     struct tep_handle *tep, struct print_event *pe,
		     struct tep_record *rec)
{
	size_t start = out->len;

	add_info_full(p, out, tep, pe, rec);
	cut_capture(p, pe, out, start);
}

/*
 * The columns before the info text are written in place, into room
 * reserved once per line: at a million lines a second, the checks of
 * a dozen separate appends are a tenth of the time.
 */
static char *put_padded(char *o, const char *str, size_t len, int width,
			int left)
{
	size_t pad = (size_t)width > len ? width - len : 0;

	if (!left)
		for (; pad; pad--)
			*o++ = ' ';
	memcpy(o, str, len);
	o += len;
	for (; pad; pad--)
		*o++ = ' ';
	return o;
}

/* The decimal digits of u, written backwards to end at end. */
static char *digits_before(char *end, unsigned long long u)
{
	do
		*--end = '0' + u % 10;
	while (u /= 10);
	return end;
}

static char *put_uint(char *o, unsigned long long u)
{
	char buf[24], *end = buf + sizeof(buf), *p = digits_before(end, u);

	memcpy(o, p, end - p);
	return o + (end - p);
}

/*
 * printf("%*lld"), "%-*lld" or "%0*lld", for widths up to 16; callers
 * have PRINT_DIGITS_COPY bytes of room past the digits.
 */
static char *put_int(char *o, long long v, int width, int left, int zero)
{
	char buf[2 * PRINT_DIGITS_COPY], *end = buf + PRINT_DIGITS_COPY;
	char *p = digits_before(end, v < 0 ? -(unsigned long long)v :
					      (unsigned long long)v);
	int len, pad;

	while (zero && end - p < width - (v < 0))
		*--p = '0';
	if (v < 0)
		*--p = '-';
	len = end - p;
	pad = width > len ? width - len : 0;
	for (; !left && pad; pad--)
		*o++ = ' ';
	o = print_move_digits(o, p, end);
	for (; pad; pad--)
		*o++ = ' ';
	return o;
}

/* "%16s-%-5d" */
static char *put_task(char *o, const char *comm, size_t len, int pid)
{
	o = put_padded(o, comm, len, 16, 0);
	*o++ = '-';
	return put_int(o, pid, 5, 1, 0);
}

/*
 * Consecutive records mostly share a task: skip the cmdline bsearch,
 * and keep the task column as printed.
 */
static const char *comm_of(struct print_ctx *p, struct tep_handle *tep, int pid)
{
	size_t len;

	if (p->comm_tep != tep || p->comm_pid != pid || !p->comm) {
		p->comm = tep_data_comm_from_pid(tep, pid);
		p->comm_tep = tep;
		p->comm_pid = pid;
		len = strlen(p->comm);
		/* 16 columns of comm, '-', and a pid of at most 11 */
		p->task_col_len = len <= TASK_COL_ROOM - 13 ?
			put_task(p->task_col, p->comm, len, pid) -
			p->task_col : 0;
	}
	return p->comm;
}

/* " %s: " and the name padded to 20 columns */
static char *put_name_col(char *o, const char *name, size_t len)
{
	*o++ = ' ';
	o = put_padded(o, name, len, 0, 1);
	*o++ = ':';
	*o++ = ' ';
	return put_padded(o, "", 0, len < 20 ? 20 - len : 0, 0);
}

/* The name column of an event, kept padded for a fixed-size copy. */
#define NAME_COL_PAD	32

static void make_name_col(struct print_event *pe)
{
	size_t len = strlen(pe->event->name);

	/* put_name_col() writes at most len + 23 bytes */
	pe->name_col = xcalloc(1, len + 24 + NAME_COL_PAD);
	pe->name_col_len = put_name_col(pe->name_col, pe->event->name, len) -
			   pe->name_col;
}

/* " %5llu.%06llu:" of the usecs, as libtraceevent's "%6.1000d" does. */
static char *put_usecs(char *o, unsigned long long ts)
{
	unsigned long long us = (ts + 500) / 1000;

	*o++ = ' ';
	/* libtraceevent prints small values without the dot. */
	if (us > 1000000) {
		o = put_int(o, us / 1000000, 5, 0, 0);
		*o++ = '.';
		o = put_int(o, us % 1000000, 6, 0, 1);
	} else {
		o = put_int(o, us, 12, 0, 0);
	}
	*o++ = ':';
	return o;
}

#define put_lit(o, s) \
	((char *)memcpy((o), (s), sizeof(s) - 1) + sizeof(s) - 1)

/* Room for everything put_*() write into; the strings are measured. */
#define COLUMNS_ROOM	128

void print_text(struct print_ctx *p, struct strbuf *out,
		const struct tracedat_event *ev, const char *label, int width)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_record *rec = ev->rec;
	struct print_event *pe = event_of(p, tep, rec, ev->id);
	const char *name = pe && pe->event ? pe->event->name : "(NULL)";
	size_t name_len, comm_len;
	size_t label_len = label ? strlen(label) : 0;
	const char *comm;
	char *o;
	int pid;

	/* "%*s: ", or "%*s  " for an empty label */
	if (label) {
		o = strbuf_room(out, label_len + width + 2);
		o = put_padded(o, label, label_len, width, 0);
		*o++ = *label ? ':' : ' ';
		*o++ = ' ';
		strbuf_setend(out, o);
	}
	if (rec->missed_events > 0)
		strbuf_addf(out, "CPU:%d [%lld EVENTS DROPPED]\n", rec->cpu,
			    rec->missed_events);
	else if (rec->missed_events < 0)
		strbuf_addf(out, "CPU:%d [EVENTS DROPPED]\n", rec->cpu);
	pid = pid_of(p, tep, rec);
	comm = comm_of(p, tep, pid);
	if (p->latency) {
		strbuf_addf(out, "%8.8s-%-5d %3d", comm, pid, rec->cpu);
		trace_seq_reset(&p->seq);
		tep_print_event(tep, &p->seq, rec, "%s", TEP_PRINT_LATENCY);
		strbuf_add(out, p->seq.buffer, p->seq.len);
	} else {
		/* "%16s-%-5d [%03d]", the task kept as printed where it fits */
		if (p->task_col_len) {
			o = strbuf_room(out,
					sizeof(p->task_col) + COLUMNS_ROOM);
			memcpy(o, p->task_col, sizeof(p->task_col));
			o += p->task_col_len;
		} else {
			comm_len = strlen(comm);
			o = put_task(strbuf_room(out, comm_len + COLUMNS_ROOM),
				     comm, comm_len, pid);
		}
		*o++ = ' ';
		*o++ = '[';
		o = put_int(o, rec->cpu, 3, 0, 1);
		*o++ = ']';
		strbuf_setend(out, o);
	}
	if (tracedat_info(ev->td)->in_usecs) {
		strbuf_setend(out, put_usecs(strbuf_room(out, COLUMNS_ROOM),
					     rec->ts));
	} else {
		trace_seq_reset(&p->seq);
		tep_print_event(tep, &p->seq, rec, "%12d:", TEP_PRINT_TIME);
		strbuf_add(out, p->seq.buffer, p->seq.len);
	}
	/* " %s: " and the name padded to 20 */
	if (pe && pe->event) {
		o = strbuf_room(out, pe->name_col_len + NAME_COL_PAD);
		if (pe->name_col_len <= NAME_COL_PAD)
			memcpy(o, pe->name_col, NAME_COL_PAD);
		else
			memcpy(o, pe->name_col, pe->name_col_len);
		strbuf_setend(out, o + pe->name_col_len);
	} else {
		name_len = strlen(name);
		o = strbuf_room(out, name_len + COLUMNS_ROOM);
		strbuf_setend(out, put_name_col(o, name, name_len));
	}
	add_info(p, out, tep, pe, rec);
	strbuf_addch(out, '\n');
}

static void json_number(struct strbuf *out, struct tep_handle *tep,
			const void *p, unsigned int size, int is_signed)
{
	unsigned long long v;
	char *o;

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		strbuf_addstr(out, "null");
		return;
	}
	v = tep_read_number(tep, p, size);
	o = strbuf_room(out, COLUMNS_ROOM);
	if (!is_signed)
		o = put_uint(o, v);
	else
		o = put_int(o, size == 1 ? (signed char)v :
			       size == 2 ? (short)v :
			       size == 4 ? (int)v : (long long)v, 0, 0, 0);
	strbuf_setend(out, o);
}

/*
 * A dynamic array's element, which its format's size (that of the
 * __data_loc word) does not give: from the type name.
 */
static unsigned int element_size(const struct tep_format_field *f)
{
	unsigned int n;

	if (f->arraylen && f->size > 0 && f->size % f->arraylen == 0)
		return f->size / f->arraylen;
	n = tracedat_type_size(f->type, tep_get_long_size(f->event->tep));
	return n ? n : f->elementsize ? f->elementsize : 1;
}

static void json_field(struct strbuf *out, struct tep_handle *tep,
		       const struct json_key *k, const struct tep_record *rec)
{
	const struct tep_format_field *f = k->f;
	const char *data = rec->data;
	unsigned int off, len, esize = k->esize, i;
	int is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED);

	/* All the frames the record holds, more or fewer than declared. */
	if (open_ended(f) && f->offset >= 0 && f->offset <= rec->size) {
		off = f->offset;
		len = rec->size - off;
	} else if (print_field_span(tep, f, rec, &off, &len)) {
		strbuf_addstr(out, "null");
		return;
	}
	/*
	 * libtraceevent flags u8 and s8 arrays as strings too (a MAC, an
	 * IPv4 address, a probe's x8[6]), which would end at the first zero
	 * byte: only what the format declares as char is a string.
	 */
	if ((f->flags & TEP_FIELD_IS_STRING) && strstr(f->type, "char")) {
		json_add_string(out, data + off, len);
		return;
	}
	if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))) {
		json_number(out, tep, data + off, len, is_signed);
		return;
	}
	strbuf_addch(out, '[');
	for (i = 0; i + esize <= len; i += esize) {
		if (i)
			strbuf_addch(out, ',');
		json_number(out, tep, data + off + i, esize, is_signed);
	}
	strbuf_addch(out, ']');
}

static struct json_event *json_event_of(struct tep_event *event)
{
	struct json_event *j = xcalloc(1, sizeof(*j));
	struct strbuf sb = STRBUF_INIT;
	struct tep_format_field *f;
	int i;

	strbuf_addstr(&sb, ",\"system\":");
	json_add_string(&sb, event->system, strlen(event->system));
	strbuf_addstr(&sb, ",\"event\":");
	json_add_string(&sb, event->name, strlen(event->name));
	strbuf_addstr(&sb, ",\"fields\":{");
	j->head = strbuf_detach(&sb, NULL);
	for (f = event->format.fields; f; f = f->next)
		j->nr++;
	j->keys = xcalloc(j->nr ? j->nr : 1, sizeof(*j->keys));
	for (f = event->format.fields, i = 0; f; f = f->next, i++) {
		if (i)
			strbuf_addch(&sb, ',');
		json_add_key(&sb, f->name);
		j->keys[i].f = f;
		j->keys[i].key = strbuf_detach(&sb, NULL);
		j->keys[i].esize = element_size(f);
	}
	return j;
}

/* A function's name, null where kallsyms has none. */
static void json_func(struct strbuf *out, struct tep_handle *tep,
		      unsigned long long addr)
{
	const char *name = tep_find_function(tep, addr);

	if (name)
		json_add_string(out, name, strlen(name));
	else
		strbuf_addstr(out, "null");
}

static void json_call(struct strbuf *out, struct tep_handle *tep,
		      const struct ftrace_print *fp,
		      const struct tep_record *rec)
{
	static const char *const kinds[] = {
		[FTRACE_PRINT_ENTRY] = "entry",
		[FTRACE_PRINT_LEAF] = "leaf",
		[FTRACE_PRINT_EXIT] = "exit",
	};
	struct ftrace_print_call call;

	ftrace_print_call(fp, tep, rec, &call);
	switch (call.kind) {
	case FTRACE_PRINT_OTHER:
		return;
	case FTRACE_PRINT_FUNCTION:
		strbuf_addstr(out, ",\"function\":{\"func\":");
		json_func(out, tep, call.func);
		strbuf_addstr(out, ",\"parent\":");
		json_func(out, tep, call.parent);
		strbuf_addch(out, '}');
		return;
	case FTRACE_PRINT_ENTRY:
	case FTRACE_PRINT_LEAF:
	case FTRACE_PRINT_EXIT:
		strbuf_addf(out, ",\"graph\":{\"kind\":\"%s\",\"depth\":%lld,\"func\":",
			    kinds[call.kind], call.depth);
		json_func(out, tep, call.func);
		if (call.kind != FTRACE_PRINT_ENTRY)
			strbuf_addf(out, ",\"duration_ns\":%llu",
				    call.duration_ns);
		strbuf_addch(out, '}');
		return;
	}
}

void print_json(struct print_ctx *p, struct strbuf *out,
		const struct tracedat_event *ev, const char *buffer,
		const char *file, const struct ftrace_print *fp)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_record *rec = ev->rec;
	struct print_event *pe = event_of(p, tep, rec, ev->id);
	struct tep_event *event = pe ? pe->event : NULL;
	struct json_event *j;
	const char *comm;
	int pid = pid_of(p, tep, rec), i;
	char *o;

	comm = comm_of(p, tep, pid);
	o = strbuf_room(out, COLUMNS_ROOM);
	o = put_lit(o, "{\"ts_ns\":");
	o = put_uint(o, rec->ts);
	o = put_lit(o, ",\"cpu\":");
	o = put_int(o, rec->cpu, 0, 0, 0);
	o = put_lit(o, ",\"pid\":");
	o = put_int(o, pid, 0, 0, 0);
	o = put_lit(o, ",\"comm\":");
	strbuf_setend(out, o);
	json_add_string(out, comm, strlen(comm));
	if (file) {
		strbuf_addstr(out, ",\"file\":");
		json_add_string(out, file, strlen(file));
	}
	if (buffer && *buffer) {
		strbuf_addstr(out, ",\"buffer\":");
		json_add_string(out, buffer, strlen(buffer));
	}
	if (rec->missed_events)
		strbuf_addf(out, ",\"missed_before\":%lld", rec->missed_events);
	if (!event) {
		strbuf_addf(out, ",\"event\":null,\"type\":%d",
			    tep_data_type(tep, rec));
		return;
	}
	if (!pe->json)
		pe->json = json_event_of(event);
	j = pe->json;
	strbuf_addstr(out, j->head);
	for (i = 0; i < j->nr; i++) {
		/* Never the first key: the kernel's __probe_ip is. */
		if (p->hide_capture && callgraph_is_field(j->keys[i].f->name))
			continue;
		strbuf_addstr(out, j->keys[i].key);
		json_field(out, tep, &j->keys[i], rec);
	}
	strbuf_addch(out, '}');
	if (fp)
		json_call(out, tep, fp, rec);
	strbuf_addstr(out, ",\"info\":");
	strbuf_reset(&p->info);
	add_info(p, &p->info, tep, pe, rec);
	json_add_string(out, p->info.buf, p->info.len);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void print_callchain_text(struct strbuf *out, const struct unwind_stack *st)
{
	int i;

	for (i = 0; i < st->nr; i++) {
		const struct unwind_frame *f = &st->v[i];

		if (f->unknown) {
			strbuf_addstr(out, "  => [unknown]\n");
			continue;
		}
		if (f->sym && f->inlined)
			strbuf_addf(out, "  => %s", f->sym);
		else if (f->sym)
			strbuf_addf(out, "  => %s+0x%llx", f->sym,
				    (unsigned long long)f->sym_off);
		else
			strbuf_addf(out, "  => 0x%llx",
				    (unsigned long long)f->ip);
		strbuf_addf(out, " (%s)", f->dso ? f->dso : "[unknown]");
		if (f->src)
			strbuf_addf(out, " %s:%d", base_name(f->src), f->line);
		if (f->inlined)
			strbuf_addstr(out, " (inlined)");
		strbuf_addch(out, '\n');
	}
}

static void json_opt_string(struct strbuf *out, const char *key, const char *s)
{
	strbuf_addf(out, ",\"%s\":", key);
	if (s)
		json_add_string(out, s, strlen(s));
	else
		strbuf_addstr(out, "null");
}

void print_callchain_json(struct strbuf *out, const struct unwind_stack *st)
{
	struct strbuf src = STRBUF_INIT;
	int i;

	strbuf_addch(out, '[');
	for (i = 0; i < st->nr; i++) {
		const struct unwind_frame *f = &st->v[i];

		strbuf_addf(out, "%s{\"ip\":%llu", i ? "," : "",
			    (unsigned long long)f->ip);
		json_opt_string(out, "sym", f->unknown ? "[unknown]" : f->sym);
		json_opt_string(out, "dso", f->dso);
		strbuf_reset(&src);
		if (f->src)
			strbuf_addf(&src, "%s:%d", f->src, f->line);
		json_opt_string(out, "srcline", f->src ? src.buf : NULL);
		if (f->inlined)
			strbuf_addstr(out, ",\"inlined\":true");
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, ']');
	strbuf_release(&src);
}

void print_callchain_folded(struct strbuf *out, const char *comm,
			    const struct unwind_stack *st)
{
	int i;

	strbuf_addstr(out, comm);
	for (i = st->nr - 1; i >= 0; i--) {
		const struct unwind_frame *f = &st->v[i];

		strbuf_addch(out, ';');
		if (f->sym && !f->unknown)
			strbuf_addstr(out, f->sym);
		else if (f->dso && !f->unknown)
			strbuf_addf(out, "[%s]", f->dso);
		else
			strbuf_addstr(out, "[unknown]");
	}
}

int print_is_kernel_stack(const struct tep_event *event)
{
	return (event->flags & TEP_EVENT_FL_ISFTRACE) &&
	       !strcmp(event->system, "ftrace") &&
	       !strcmp(event->name, "kernel_stack");
}

/*
 * The frames run from caller[] to the record's end, innermost first, as
 * many as the kernel had room for (not the 8 the format declares), up to
 * an address of all ones: libtraceevent's plugin_function reads them so
 * (trace_stack_handler()), and trace-cmd report prints them so.
 */
int print_kernel_stack_frames(struct tep_handle *tep, struct tep_event *event,
			      const struct tep_record *rec,
			      unsigned long long *addr, int max)
{
	struct tep_format_field *f = tep_find_field(event, "caller");
	unsigned int lsize = tep_get_long_size(tep), n;
	const char *data = rec->data;

	if (!f || f->offset < 0 || f->offset > rec->size)
		return 0;
	for (n = 0; (int)n < max &&
	     f->offset + (n + 1) * lsize <= (unsigned int)rec->size; n++) {
		addr[n] = tep_read_number(tep, data + f->offset + n * lsize,
					  lsize);
		if (addr[n] == (lsize == 8 ? ~0ULL : 0xffffffffULL))
			break;
	}
	return n;
}

int print_kernel_stack_folded(struct strbuf *out, struct tep_handle *tep,
			      struct tep_event *event,
			      const struct tep_record *rec)
{
	unsigned long long addr[PRINT_MAX_KSTACK];
	const char *name;
	int n = print_kernel_stack_frames(tep, event, rec, addr,
					  PRINT_MAX_KSTACK), i;

	for (i = n; i-- > 0;) {
		name = tep_find_function(tep, addr[i]);
		if (name)
			strbuf_addf(out, ";%s_[k]", name);
		else
			strbuf_addf(out, ";0x%llx_[k]", addr[i]);
	}
	return n;
}

struct tep_event *print_event_of(struct print_ctx *p,
				 const struct tracedat_event *ev)
{
	struct print_event *pe = event_of(p, tracedat_tep(ev->td), ev->rec,
					  ev->id);

	return pe ? pe->event : NULL;
}

void print_run_handler(struct print_ctx *p, const struct tracedat_event *ev)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct print_event *pe = event_of(p, tep, ev->rec, ev->id);

	if (pe && pe->event && pe->event->handler)
		tep_info(p, tep, ev->rec);
}
