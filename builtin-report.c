// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit report: print the events of trace.dat files (ours and
 * trace-cmd's, v6 and v7) as trace-cmd report's text, as JSON lines, or
 * as statistics.  Several files and all their buffers are merged by
 * timestamp.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/array.h"
#include "util/flamegraph.h"
#include "util/parse-options.h"
#include "util/print.h"
#include "util/report.h"
#include "util/strbuf.h"
#include "util/unwind.h"
#include "util/usage.h"

#define OUT_FLUSH	(256 * 1024)

enum report_format { FMT_TEXT, FMT_JSON, FMT_FOLDED };

struct report_cmd {
	struct opt_string_list inputs, events, filters, comms, pids;
	const char *cpu_list, *format, *flamegraph;
	int stat, raw, latency, no_plugins, list_events;
	enum report_format fmt;
	int print_stacks;		/* folded: to stdout (not with --flamegraph alone) */
	int *pid_list;			/* --pid, parsed */
	struct report session;
	struct strbuf out;
	struct strbuf err;		/* what the reader found wrong */
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
};

struct fold_pending {
	struct strbuf stack;
	int frames;
};

static const char *const report_usage[] = {
	"tracekit report [options] [FILE...]",
	NULL
};

static int flush_out(struct report_cmd *c)
{
	if (c->out.len && fwrite(c->out.buf, 1, c->out.len, stdout) != c->out.len)
		return error("write error on standard output: %s", strerror(errno));
	strbuf_reset(&c->out);
	return 0;
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

static const char *label_of(const struct report *r, const struct tracedat_event *ev)
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

/*
 * The counters of each CPUSTAT block: events the kernel did not keep,
 * "none" where every counter is 0 (or the file has no statistics).
 * Indented under their heading as the event counts are, so that no
 * line reads as one of the "per cpu:" lines ("  CPU N: N events").
 */
static void print_losses(struct strbuf *out, const char *stats)
{
	static const char *const what[] = {
		[REPORT_LOSS_OVERRUN] = "events lost",
		[REPORT_LOSS_COMMIT_OVERRUN] = "events lost due to commit overrun",
		[REPORT_LOSS_DROPPED] = "events dropped",
	};
	struct report_loss l;
	int n = 0;

	report_loss_init(&l, stats);
	for (; report_loss_next(&l); n++)
		strbuf_addf(out, "    %s%sCPU %d: %lld %s\n", l.buffer,
			    *l.buffer ? " " : "", l.cpu, l.count, what[l.kind]);
	if (!n)
		strbuf_addstr(out, "    none\n");
}

static void print_file_stat(struct strbuf *o, const struct report_file *f)
{
	const struct tracedat_info *in = tracedat_info(f->td);
	struct tep_handle *tep = tracedat_tep(f->td);
	int b, id;

	strbuf_addf(o, "file: %s\n", tracedat_path(f->td));
	strbuf_addf(o, "  version %d, %s endian, long %d, page %u bytes, %llu bytes\n",
		    in->version, in->big_endian ? "big" : "little", in->long_size,
		    in->page_size, (unsigned long long)in->file_size);
	strbuf_addf(o, "  compression: %s %s\n", in->compression,
		    in->compression_version);
	strbuf_addf(o, "  cpus: %d, clock: %s\n", in->cpus, *in->clock ? in->clock : "-");
	if (*in->uname)
		strbuf_addf(o, "  uname: %s\n", in->uname);
	if (*in->tracer_version)
		strbuf_addf(o, "  written by: %s\n", in->tracer_version);
	for (b = 0; b < tracedat_nr_buffers(f->td); b++)
		strbuf_addf(o, "  buffer %s: %d cpus, %llu bytes of ring buffer data\n",
			    *tracedat_buffer_name(f->td, b) ?
			    tracedat_buffer_name(f->td, b) : "(top)",
			    tracedat_buffer_nr_cpus(f->td, b),
			    (unsigned long long)tracedat_buffer_data_size(f->td, b));
	strbuf_addstr(o, "  events:\n");
	for (id = 0; id < TRACEDAT_MAX_EVENT_ID; id++) {
		struct tep_event *ev;

		if (!f->per_event[id])
			continue;
		ev = tep_find_event(tep, id);
		strbuf_addf(o, "    %10llu  %s:%s\n", f->per_event[id],
			    ev ? ev->system : "?", ev ? ev->name : "?");
	}
	strbuf_addstr(o, "  lost (kernel buffer statistics):\n");
	print_losses(o, in->cpustats);
}

static void print_stat(const struct report *r, struct strbuf *o)
{
	int i;

	for (i = 0; i < r->nr_files; i++)
		print_file_stat(o, &r->files[i]);
	strbuf_addstr(o, "per cpu:\n");
	for (i = 0; i < r->nr_sources; i++) {
		const struct report_source *s = &r->sources[i];
		const char *name = tracedat_buffer_name(s->file->td, s->buffer);

		strbuf_addf(o, "  %s%s%s%sCPU %d: %llu events", r->nr_files > 1 ? s->file->base : "",
			    r->nr_files > 1 ? " " : "", name, *name ? " " : "", s->cpu, s->events);
		if (s->missed)
			strbuf_addf(o, ", %llu events lost", s->missed);
		if (s->missed_unknown)
			strbuf_addf(o, ", %d pages with lost events", s->missed_unknown);
		strbuf_addch(o, '\n');
	}
	strbuf_addf(o, "total: %llu events", r->total);
	if (r->total)
		strbuf_addf(o, ", %llu.%06llu .. %llu.%06llu (%llu.%09llu s)",
			    r->first_ts / 1000000000, r->first_ts % 1000000000 / 1000,
			    r->last_ts / 1000000000, r->last_ts % 1000000000 / 1000,
			    (r->last_ts - r->first_ts) / 1000000000,
			    (r->last_ts - r->first_ts) % 1000000000);
	strbuf_addch(o, '\n');
}

/* Every event whose format a file holds, as SYSTEM:EVENT. */
static int print_events(struct report_cmd *c)
{
	const struct report *r = &c->session;
	int i, j;

	for (i = 0; i < r->nr_files; i++) {
		struct tep_event **evs;

		tracedat_parse_formats(r->files[i].td);
		if (tracedat_late_error(r->files[i].td, &c->err))
			return error("%s", c->err.buf);
		evs = tep_list_events(tracedat_tep(r->files[i].td), TEP_EVENT_SORT_SYSTEM);

		for (j = 0; evs && evs[j]; j++)
			printf("%s:%s\n", evs[j]->system, evs[j]->name);
	}
	return 0;
}

static void warn(const char *msg)
{
	warning("%s", msg);
}

/* The unwinder, fed with the maps of every file that has them. */
static void unwind_setup(struct report_cmd *c)
{
	struct report *r = &c->session;
	struct strbuf err = STRBUF_INIT;
	int i;

	c->uw = unwind_new();
	c->has_maps = xcalloc(r->nr_files ? r->nr_files : 1, 1);
	for (i = 0; i < r->nr_files; i++)
		unwind_add_build_ids(c->uw, tracedat_build_ids(r->files[i].td));
	for (i = 0; i < r->nr_files; i++) {
		const char *text = tracedat_procmaps(r->files[i].td);

		c->has_maps[i] = !!*text;
		if (unwind_add_procmaps(c->uw, i, text, &err)) {
			warning("%s: %s: no call stacks from it", tracedat_path(r->files[i].td),
				err.buf);
			c->has_maps[i] = 0;
			strbuf_reset(&err);
		}
	}
	if (unwind_mismatches(c->uw, &err))
		warning_lines(err.buf);
	strbuf_release(&err);
}

/* The user stack of ev into c->stack: the number of frames, 0 for none. */
static int unwind_event(struct report_cmd *c, struct print_ctx *pc,
			const struct tracedat_event *ev)
{
	struct report *r = &c->session;
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_event *event = print_event_of(pc, ev);
	int file = r->sources[ev->source].file - r->files;

	c->stack.nr = 0;
	if (!event || !unwind_event_has_stack(c->uw, event))
		return 0;
	if (!c->has_maps[file]) {
		if (!c->warned_maps++)
			warning("%s: %s:%s has call stacks but the file keeps no maps of the "
				"processes (record with --proc-map)", tracedat_path(ev->td),
				event->system, event->name);
		return 0;
	}
	return unwind_record(c->uw, file, event, ev->rec, tep_data_pid(tep, ev->rec),
			     &c->stack);
}

static void fold_flush(struct report_cmd *c, struct fold_pending *p)
{
	if (p->frames) {
		if (c->nr_folded == c->alloc_folded) {
			c->alloc_folded = c->alloc_folded ? 2 * c->alloc_folded : 256;
			c->folded = xrealloc(c->folded, c->alloc_folded * sizeof(*c->folded));
		}
		c->folded[c->nr_folded++] = strbuf_detach(&p->stack, NULL);
	}
	strbuf_reset(&p->stack);
	p->frames = 0;
}

/*
 * The kernel writes an event's stack trace (-T) as an event of its own
 * right after it on the same CPU: an event's folded user stack waits in
 * its source's slot for the kernel frames, which go inside it (the user
 * frames are the outer ones), and any other event ends it.
 */
static void fold_event(struct report_cmd *c, struct print_ctx *pc,
		       const struct tracedat_event *ev)
{
	struct fold_pending *p = &c->pending[ev->source];
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_event *event = print_event_of(pc, ev);
	/* Before the handler, as the text names the task before the info. */
	const char *comm = tep_data_comm_from_pid(tep, tep_data_pid(tep, ev->rec));

	print_run_handler(pc, ev);
	if (event && print_is_kernel_stack(event)) {
		/* Named as trace-cmd names the stack trace's own line. */
		if (!p->frames) {
			strbuf_reset(&p->stack);
			strbuf_addstr(&p->stack, comm);
		}
		p->frames += print_kernel_stack_folded(&p->stack, tep, event, ev->rec);
		fold_flush(c, p);
		return;
	}
	fold_flush(c, p);
	if (unwind_event(c, pc, ev)) {
		print_callchain_folded(&p->stack, comm, &c->stack);
		p->frames = c->stack.nr;
	} else {
		strbuf_addstr(&p->stack, comm);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * flamegraph.pl's input: "STACK COUNT" per distinct stack, sorted; and
 * the same stacks drawn into --flamegraph's SVG.
 */
static int print_folded(struct report_cmd *c)
{
	struct report *r = &c->session;
	struct flamegraph *fg = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t i, j;
	int s, ret = 0;

	for (s = 0; s < r->nr_sources; s++)
		fold_flush(c, &c->pending[s]);
	/* No stacks: c->folded is NULL, which qsort() must not get (UBSan). */
	if (c->nr_folded)
		qsort(c->folded, c->nr_folded, sizeof(*c->folded), cmp_str);
	if (c->flamegraph)
		fg = flamegraph_new();
	for (i = 0; i < c->nr_folded; i = j) {
		for (j = i + 1; j < c->nr_folded && !strcmp(c->folded[i], c->folded[j]); j++)
			;
		if (c->print_stacks)
			strbuf_addf(&c->out, "%s %zu\n", c->folded[i], j - i);
		if (fg)
			flamegraph_add(fg, c->folded[i], j - i);
	}
	if (fg && flamegraph_write(fg, c->flamegraph, "Flame Graph", &err))
		ret = error("%s", err.buf);
	flamegraph_free(fg);
	strbuf_release(&err);
	return ret;
}

/* After the event's line: its frames, beneath it or in its JSON object. */
static void add_stack(struct report_cmd *c)
{
	if (c->fmt == FMT_JSON) {
		/* print_json() ended the object with "}\n". */
		strbuf_setlen(&c->out, c->out.len - 2);
		strbuf_addstr(&c->out, ",\"callchain\":");
		print_callchain_json(&c->out, &c->stack);
		strbuf_addstr(&c->out, "}\n");
	} else {
		print_callchain_text(&c->out, &c->stack);
	}
}

static int run(struct report_cmd *c)
{
	struct report *r = &c->session;
	struct tracedat_event ev;
	struct print_ctx pc;
	int labels, width, ret, i;

	print_init(&pc, c->raw, c->latency);
	pc.hide_capture = !c->raw;
	unwind_setup(c);
	width = label_width(r, &labels);
	ret = report_start(r, &c->err);
	/* report_start() made the sources. */
	c->pending = xcalloc(r->nr_sources ? r->nr_sources : 1, sizeof(*c->pending));
	for (i = 0; i < r->nr_sources; i++)
		strbuf_init(&c->pending[i].stack, 0);
	if (!ret && c->fmt == FMT_TEXT && !c->stat)
		print_header(r, &c->out);
	while (!ret && (ret = report_next(r, &ev, &c->err)) > 0) {
		ret = 0;
		if (print_record_check(&pc, &ev)) {
			ret = error("%s: offset %llu: cpu %d: event of %d bytes does not fit its format",
				    tracedat_path(ev.td), ev.rec->offset, ev.rec->cpu,
				    ev.rec->size);
			break;
		}
		if (!report_keep(r, &ev) || c->stat)
			continue;
		if (c->fmt == FMT_FOLDED) {
			fold_event(c, &pc, &ev);
			continue;
		}
		if (!c->raw && report_fold_graph(r, &ev, &c->err) < 0) {
			ret = -1;
			break;
		}
		if (c->fmt == FMT_JSON)
			print_json(&pc, &c->out, &ev, tracedat_buffer_name(ev.td, ev.buffer),
				   r->nr_files > 1 ? r->sources[ev.source].file->base : NULL,
				   c->raw ? NULL : &r->sources[ev.source].file->ftrace);
		else
			print_text(&pc, &c->out, &ev, labels ? label_of(r, &ev) : NULL, width);
		if (unwind_event(c, &pc, &ev))
			add_stack(c);
		if (c->out.len > OUT_FLUSH && flush_out(c))
			ret = -1;
	}
	if (c->err.len)
		error("%s", c->err.buf);
	if (!ret && c->stat)
		print_stat(r, &c->out);
	if (!ret && c->fmt == FMT_FOLDED)
		ret = print_folded(c);
	if (!ret)
		ret = flush_out(c);
	print_release(&pc);
	for (i = 0; i < r->nr_sources; i++)
		strbuf_release(&c->pending[i].stack);
	free(c->pending);
	return ret;
}

int cmd_report(int argc, const char **argv)
{
	struct report_cmd c = { .format = "text", .err = STRBUF_INIT };
	struct report_opts ro;
	int i, ret = 0;
	const struct option options[] = {
		OPT_STRING_LIST('i', "input", &c.inputs, "FILE",
				"trace.dat file to read (repeatable; default tracekit.dat)"),
		OPT_STRING(0, "cpu", &c.cpu_list, "LIST",
			   "only events of these CPUs, e.g. 0,2-3"),
		OPT_STRING_LIST('e', "event", &c.events, "GLOB",
				"only events matching SYSTEM:EVENT, EVENT or SYSTEM (fnmatch)"),
		OPT_STRING_LIST('F', "filter", &c.filters, "FILTER",
				"libtraceevent filter, e.g. 'sched_switch: prev_pid != 0'"),
		OPT_STRING_LIST(0, "comm", &c.comms, "COMM",
				"only events of tasks with this name"),
		OPT_STRING_LIST(0, "pid", &c.pids, "PID", "only events of this pid"),
		OPT_STRING(0, "format", &c.format, "text|json|folded",
			   "text (as trace-cmd report), one JSON object per line, or the "
			   "call stacks folded for flamegraph.pl"),
		OPT_STRING(0, "flamegraph", &c.flamegraph, "FILE",
			   "write the call stacks as an interactive SVG flame graph to FILE"),
		OPT_BOOL(0, "stat", &c.stat,
			 "counts per event and CPU, lost events, time span, file info"),
		OPT_BOOL('R', "raw", &c.raw, "print fields as name=value, not the print format"),
		OPT_BOOL('l', "latency", &c.latency,
			 "latency format: irqs-off, need-resched, preempt columns"),
		OPT_BOOL('N', "no-plugins", &c.no_plugins,
			 "print formats only: no libtraceevent plugins (trace-cmd -N)"),
		/* What -e can select, for the completion script. */
		OPT_HIDDEN_BOOL(0, "list-events", &c.list_events,
				"print the events of the files"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, report_usage, 0);
	for (i = 0; i < argc; i++)
		opt_string_list_append(&c.inputs, argv[i]);
	if (!c.inputs.nr)
		opt_string_list_append(&c.inputs, "tracekit.dat");
	if (!strcmp(c.format, "json"))
		c.fmt = FMT_JSON;
	else if (!strcmp(c.format, "folded"))
		c.fmt = FMT_FOLDED;
	else if (strcmp(c.format, "text"))
		die_code(TK_EXIT_USAGE, "--format: '%s' is none of text, json, folded", c.format);
	c.print_stacks = c.fmt == FMT_FOLDED;
	if (c.flamegraph) {
		/* The SVG alone, or with the folded stacks it draws. */
		if (c.fmt == FMT_JSON || c.stat)
			die_code(TK_EXIT_USAGE, "--flamegraph: not with %s",
				 c.stat ? "--stat" : "--format json");
		c.fmt = FMT_FOLDED;
	}
	c.pid_list = xcalloc(c.pids.nr + 1, sizeof(*c.pid_list));
	for (i = 0; i < c.pids.nr; i++) {
		char *end;

		c.pid_list[i] = strtol(c.pids.items[i], &end, 10);
		if (end == c.pids.items[i] || *end)
			die_code(TK_EXIT_USAGE, "--pid: '%s' is not a number", c.pids.items[i]);
	}
	ro = (struct report_opts){
		.inputs = c.inputs.items, .nr_inputs = c.inputs.nr,
		.events = c.events.items, .nr_events = c.events.nr,
		.filters = c.filters.items, .nr_filters = c.filters.nr,
		.comms = c.comms.items, .nr_comms = c.comms.nr,
		.pids = c.pid_list, .nr_pids = c.pids.nr,
		.cpus = c.cpu_list, .stat = c.stat, .no_plugins = c.no_plugins,
		.warn = warn,
	};
	if (report_init(&c.session, &ro, &c.err)) {
		error("%s", c.err.buf);
		ret = TK_EXIT_USAGE;
		goto out;
	}
	strbuf_init(&c.out, OUT_FLUSH + 4096);
	ret = report_open(&c.session, &c.err);
	if (ret)
		error("%s", c.err.buf);
	else if (c.list_events)
		ret = print_events(&c);
	else
		ret = run(&c);
	ret = ret ? TK_EXIT_FAIL : TK_EXIT_OK;
out:
	report_release(&c.session);
	unwind_free(c.uw);
	unwind_stack_release(&c.stack);
	free(c.has_maps);
	release_array(c.folded, c.nr_folded, free_ptr);
	free(c.pid_list);
	strbuf_release(&c.out);
	strbuf_release(&c.err);
	opt_string_list_clear(&c.inputs);
	opt_string_list_clear(&c.events);
	opt_string_list_clear(&c.filters);
	opt_string_list_clear(&c.comms);
	opt_string_list_clear(&c.pids);
	return ret;
}
