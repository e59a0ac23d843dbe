// SPDX-License-Identifier: GPL-2.0
/*
 * report's output formats: trace-cmd report's text, JSON lines and
 * flamegraph.pl's folded stacks (and the flame graph drawn from them),
 * each an entry of report_formats[].
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/flamegraph.h"
#include "util/print.h"
#include "util/report-aggregate.h"
#include "util/report-format.h"
#include "util/unwind.h"
#include "util/usage.h"

struct fold_pending {
	struct strbuf stack;
	int frames;
};

struct report_output {
	const struct report_output_opts *o;
	const struct report_format *fmt;
	struct report *r;
	struct strbuf *out;
	struct print_ctx pc;
	int labels, width;		/* text: the label column */
	/* folded: to out (not with --flamegraph alone) */
	int print_stacks;
	/* probe --call-graph's stacks: the unwinder, the frames of one event */
	struct unwind *uw;
	struct unwind_stack stack;
	unsigned char *has_maps;	/* by file: PROCMAPS present */
	int warned_maps;
	/* --format folded: one "comm;outer;...;inner" per unwound event */
	char **folded;
	size_t nr_folded, alloc_folded;
	/* by source: the folded stack of its last event, until its -T stack */
	struct fold_pending *pending;
	int nr_pending;
	struct report_agg *agg;		/* --count, --hist...: the table */
};

/* msg to report_opts.warn, which prints it; then msg is empty. */
static void tell(struct report_output *ro, struct strbuf *msg)
{
	if (ro->r->o->warn)
		ro->r->o->warn(msg->buf);
	strbuf_reset(msg);
}

/* trace-cmd's label column: file names with several files, instance names. */
static int label_width(const struct report *r, int *labels)
{
	int i, b, w = 0, n;

	*labels = r->nr_files > 1;
	for (i = 0; i < r->nr_files; i++) {
		struct tracedat *td = r->files[i].td;

		if (r->nr_files > 1 && (n = strlen(r->files[i].base)) > w)
			w = n;
		for (b = 0; b < tracedat_nr_buffers(td); b++) {
			const char *name = tracedat_buffer_name(td, b);

			if (*name) {
				*labels = 1;
				if ((n = strlen(name)) > w)
					w = n;
			}
		}
	}
	return w;
}

static const char *label_of(const struct report *r,
			    const struct tracedat_event *ev)
{
	const char *name = tracedat_buffer_name(ev->td, ev->buffer);

	if (*name)
		return name;
	return r->nr_files > 1 ? r->sources[ev->source].file->base : "";
}

/*
 * "cpus=N" per file.  trace-cmd sizes its label column as it goes: all
 * file names first, then each file's instance names once that file's
 * line is out, so the widths of these lines can differ.
 */
static void print_header(const struct report *r, struct strbuf *out)
{
	int i, b, w = 0, n;

	for (i = 0; r->nr_files > 1 && i < r->nr_files; i++)
		if ((n = strlen(r->files[i].base)) > w)
			w = n;
	for (i = 0; i < r->nr_files; i++) {
		struct tracedat *td = r->files[i].td;

		if (r->nr_files > 1)
			strbuf_addf(out, "%*s: ", w, r->files[i].base);
		strbuf_addf(out, "cpus=%d\n", tracedat_info(td)->cpus);
		for (b = 1; b < tracedat_nr_buffers(td); b++)
			if ((n = strlen(tracedat_buffer_name(td, b))) > w)
				w = n;
	}
}

/* The unwinder, fed with the maps of every file that has them. */
static void unwind_setup(struct report_output *ro)
{
	struct report *r = ro->r;
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	const char *line, *nl;
	int i;

	ro->uw = unwind_new();
	unwind_set_sysroot(ro->uw, r->o->sysroot);
	ro->has_maps = xcalloc(r->nr_files ? r->nr_files : 1, 1);
	for (i = 0; i < r->nr_files; i++)
		unwind_add_build_ids(ro->uw,
				     tracedat_build_ids(r->files[i].td));
	for (i = 0; i < r->nr_files; i++) {
		const char *text = tracedat_procmaps(r->files[i].td);

		ro->has_maps[i] = !!*text;
		if (unwind_add_procmaps(ro->uw, i, text, &err)) {
			strbuf_addf(&msg, "%s: %s: no call stacks from it",
				    tracedat_path(r->files[i].td), err.buf);
			tell(ro, &msg);
			ro->has_maps[i] = 0;
			strbuf_reset(&err);
		}
	}
	unwind_mismatches(ro->uw, &err);
	for (line = err.buf; *line; line = *nl ? nl + 1 : nl) {
		nl = strchrnul(line, '\n');
		strbuf_add(&msg, line, nl - line);
		tell(ro, &msg);
	}
	strbuf_release(&err);
	strbuf_release(&msg);
}

/* The user stack of ev into ro->stack: the number of frames, 0 for none. */
static int unwind_event(struct report_output *ro,
			const struct tracedat_event *ev)
{
	struct report *r = ro->r;
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_event *event = print_event_of(&ro->pc, ev);
	int file = r->sources[ev->source].file - r->files;
	struct strbuf msg = STRBUF_INIT;

	ro->stack.nr = 0;
	if (!event || !unwind_event_has_stack(ro->uw, event))
		return 0;
	if (!ro->has_maps[file]) {
		if (!ro->warned_maps++) {
			strbuf_addf(&msg, "%s: %s:%s has call stacks but the file keeps no maps of the processes (record with --proc-map)",
				    tracedat_path(ev->td), event->system,
				    event->name);
			tell(ro, &msg);
			strbuf_release(&msg);
		}
		return 0;
	}
	return unwind_record(ro->uw, file, event, ev->rec,
			     tep_data_pid(tep, ev->rec), &ro->stack);
}

/*
 * Text and JSON: a function_graph entry followed by its exit is one
 * leaf (report_fold_graph()), unless -R prints the records as they are.
 */
static int graph_fold(struct report_output *ro, struct tracedat_event *ev,
		      struct strbuf *err)
{
	int ret = ro->o->raw ? 0 : report_fold_graph(ro->r, ev, err);

	return ret < 0 ? ret : 0;
}

static void text_begin(struct report_output *ro)
{
	ro->width = label_width(ro->r, &ro->labels);
	if (!ro->o->stat)
		print_header(ro->r, ro->out);
}

/* The event's line, and its frames beneath it. */
static int text_event(struct report_output *ro, struct tracedat_event *ev,
		      struct strbuf *err)
{
	int ret = graph_fold(ro, ev, err);

	if (ret)
		return ret;
	print_text(&ro->pc, ro->out, ev,
		   ro->labels ? label_of(ro->r, ev) : NULL, ro->width);
	if (unwind_event(ro, ev))
		print_callchain_text(ro->out, &ro->stack);
	return 0;
}

/* The event's object, its frames as a member of it. */
static int json_event(struct report_output *ro, struct tracedat_event *ev,
		      struct strbuf *err)
{
	struct report_source *s = &ro->r->sources[ev->source];
	int ret = graph_fold(ro, ev, err);

	if (ret)
		return ret;
	print_json(&ro->pc, ro->out, ev,
		   tracedat_buffer_name(ev->td, ev->buffer),
		   ro->r->nr_files > 1 ? s->file->base : NULL,
		   ro->o->raw ? NULL : &s->file->ftrace);
	if (unwind_event(ro, ev)) {
		strbuf_addstr(ro->out, ",\"callchain\":");
		print_callchain_json(ro->out, &ro->stack);
	}
	strbuf_addstr(ro->out, "}\n");
	return 0;
}

static void fold_flush(struct report_output *ro, struct fold_pending *p)
{
	if (p->frames) {
		grow_array(ro->folded, ro->nr_folded, ro->alloc_folded, 256);
		ro->folded[ro->nr_folded++] = strbuf_detach(&p->stack, NULL);
	}
	strbuf_reset(&p->stack);
	p->frames = 0;
}

static void fold_begin(struct report_output *ro)
{
	int i;

	ro->nr_pending = ro->r->nr_sources;
	ro->pending = xcalloc(ro->nr_pending ? ro->nr_pending : 1,
			      sizeof(*ro->pending));
	for (i = 0; i < ro->nr_pending; i++)
		strbuf_init(&ro->pending[i].stack, 0);
}

/*
 * The kernel writes an event's stack trace (-T) as an event of its own
 * right after it on the same CPU: an event's folded user stack waits in
 * its source's slot for the kernel frames, which go inside it (the user
 * frames are the outer ones), and any other event ends it.
 */
static int fold_event(struct report_output *ro, struct tracedat_event *ev,
		      struct strbuf *err)
{
	struct fold_pending *p = &ro->pending[ev->source];
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_event *event = print_event_of(&ro->pc, ev);
	/* Before the handler, as the text names the task before the info. */
	const char *comm = tep_data_comm_from_pid(tep,
						  tep_data_pid(tep, ev->rec));

	print_run_handler(&ro->pc, ev);
	if (event && print_is_kernel_stack(event)) {
		/* Named as trace-cmd names the stack trace's own line. */
		if (!p->frames) {
			strbuf_reset(&p->stack);
			strbuf_addstr(&p->stack, comm);
		}
		p->frames += print_kernel_stack_folded(&p->stack, tep, event,
						       ev->rec);
		fold_flush(ro, p);
		return 0;
	}
	fold_flush(ro, p);
	if (unwind_event(ro, ev)) {
		print_callchain_folded(&p->stack, comm, &ro->stack);
		p->frames = ro->stack.nr;
	} else {
		strbuf_addstr(&p->stack, comm);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * flamegraph.pl's input: "STACK COUNT" per distinct stack, sorted; and
 * the same stacks drawn into --flamegraph's SVG.
 */
static int print_folded(struct report_output *ro, struct strbuf *err)
{
	struct flamegraph *fg = NULL;
	size_t i, j;
	int s, ret = 0;

	for (s = 0; s < ro->nr_pending; s++)
		fold_flush(ro, &ro->pending[s]);
	/* No stacks: ro->folded is NULL, which qsort() must not get (UBSan). */
	if (ro->nr_folded)
		qsort(ro->folded, ro->nr_folded, sizeof(*ro->folded), cmp_str);
	if (ro->o->flamegraph)
		fg = flamegraph_new();
	for (i = 0; i < ro->nr_folded; i = j) {
		for (j = i + 1; j < ro->nr_folded &&
		     !strcmp(ro->folded[i], ro->folded[j]); j++)
			;
		if (ro->print_stacks)
			strbuf_addf(ro->out, "%s %zu\n", ro->folded[i], j - i);
		if (fg)
			flamegraph_add(fg, ro->folded[i], j - i);
	}
	if (fg)
		ret = flamegraph_write(fg, ro->o->flamegraph, "Flame Graph",
				       err);
	flamegraph_free(fg);
	return ret;
}

/*
 * Aggregation: each kept event into the table, but the stack traces
 * that follow an event (record -T), which are no events of their own.
 */
static int agg_event(struct report_output *ro, struct tracedat_event *ev,
		     struct strbuf *err)
{
	const struct report_file *f = ro->r->sources[ev->source].file;
	struct tep_event *event = print_event_of(&ro->pc, ev);

	/* Before the keys: sched_switch's names the tasks, as for the text. */
	print_run_handler(&ro->pc, ev);
	if (event && ev->id == f->stack_ids[0])
		report_agg_stack(ro->agg, ev, event);
	if (!event || ev->id == f->stack_ids[0] || ev->id == f->stack_ids[1])
		return 0;
	return report_agg_event(ro->agg, ev, event, err);
}

static int agg_end(struct report_output *ro, struct strbuf *err)
{
	report_agg_print(ro->agg, ro->out);
	return 0;
}

static const struct report_format fmt_text = {
	.name = "text", .help = "text (as trace-cmd report)", .flamegraph = 1,
	.begin = text_begin, .event = text_event,
};

static const struct report_format fmt_json = {
	.name = "json", .help = "one JSON object per line",
	.event = json_event,
};

static const struct report_format fmt_folded = {
	.name = "folded", .help = "the call stacks folded for flamegraph.pl",
	.flamegraph = 1,
	.begin = fold_begin, .event = fold_event, .end = print_folded,
};

/* Not one of --format's: the aggregation options choose it. */
static const struct report_format fmt_aggregate = {
	.name = "aggregate", .help = "the aggregation table",
	.event = agg_event, .end = agg_end,
};

const struct report_format *const report_formats[] = {
	&fmt_text, &fmt_json, &fmt_folded, NULL
};

const struct report_format *report_format_find(const char *name)
{
	int i;

	for (i = 0; report_formats[i]; i++)
		if (!strcmp(report_formats[i]->name, name))
			return report_formats[i];
	return NULL;
}

const char *report_format_names(struct strbuf *out, const char *sep)
{
	int i;

	for (i = 0; report_formats[i]; i++)
		strbuf_addf(out, "%s%s", i ? sep : "", report_formats[i]->name);
	return out->buf;
}

/* "A, B, or C": the last one after "or", with a comma from three on. */
const char *report_format_help(struct strbuf *out)
{
	int i;

	for (i = 0; report_formats[i]; i++) {
		if (i && !report_formats[i + 1])
			strbuf_addstr(out, i > 1 ? ", or " : " or ");
		else if (i)
			strbuf_addstr(out, ", ");
		strbuf_addstr(out, report_formats[i]->help);
	}
	return out->buf;
}

struct report_output *report_output_new(struct report *r,
					 const struct report_output_opts *o,
					 struct strbuf *out)
{
	struct report_output *ro = xcalloc(1, sizeof(*ro));

	ro->o = o;
	ro->r = r;
	ro->out = out;
	/* The folded stacks are what the flame graph draws. */
	ro->fmt = o->agg ? &fmt_aggregate :
		  o->flamegraph ? &fmt_folded : o->format;
	if (o->agg)
		ro->agg = report_agg_new(o->agg);
	ro->print_stacks = o->format == &fmt_folded;
	print_init(&ro->pc, o->raw, o->latency);
	ro->pc.hide_capture = !o->raw;
	unwind_setup(ro);
	return ro;
}

void report_output_begin(struct report_output *ro)
{
	if (ro->fmt->begin)
		ro->fmt->begin(ro);
}

int report_output_event(struct report_output *ro, struct tracedat_event *ev,
			struct strbuf *err)
{
	if (print_record_check(&ro->pc, ev)) {
		strbuf_addf(err, "%s: offset %llu: cpu %d: event of %d bytes does not fit its format",
			    tracedat_path(ev->td), ev->rec->offset,
			    ev->rec->cpu, ev->rec->size);
		return -EINVAL;
	}
	if (!report_keep(ro->r, ev) || ro->o->stat)
		return 0;
	return ro->fmt->event(ro, ev, err);
}

int report_output_end(struct report_output *ro, struct strbuf *err)
{
	return ro->fmt->end ? ro->fmt->end(ro, err) : 0;
}

struct aggregate *report_output_table(struct report_output *ro)
{
	return ro->agg ? report_agg_table(ro->agg) : NULL;
}

/*
 * As bpftrace's print(@) in an interval probe prints the map: without
 * the two blank lines of its exit, and an empty map as one.
 */
void report_output_interval(struct report_output *ro)
{
	struct strbuf sb = STRBUF_INIT;
	size_t skip;

	if (!ro->agg)
		return;
	report_agg_print(ro->agg, &sb);
	skip = strspn(sb.buf, "\n");
	if (skip == sb.len)
		strbuf_addch(ro->out, '\n');
	else
		strbuf_add(ro->out, sb.buf + skip, sb.len - skip);
	report_agg_clear(ro->agg);
	strbuf_release(&sb);
}

void report_output_free(struct report_output *ro)
{
	int i;

	if (!ro)
		return;
	print_release(&ro->pc);
	unwind_free(ro->uw);
	unwind_stack_release(&ro->stack);
	free(ro->has_maps);
	release_array(ro->folded, ro->nr_folded, free_ptr);
	for (i = 0; i < ro->nr_pending; i++)
		strbuf_release(&ro->pending[i].stack);
	free(ro->pending);
	report_agg_free(ro->agg);
	free(ro);
}
