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
#include "util/parse-options.h"
#include "util/report.h"
#include "util/report-aggregate.h"
#include "util/report-format.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define OUT_FLUSH	(256 * 1024)

struct report_cmd {
	struct opt_string_list inputs, events, filters, comms, pids;
	const char *cpu_list, *format, *flamegraph, *sysroot;
	int stat, raw, latency, no_plugins, list_events;
	const struct report_format *fmt;
	int *pid_list;			/* --pid, parsed */
	struct report_agg_opts agg;	/* --count, --hist... */
	unsigned long top;
	struct report session;
	struct strbuf out;
	struct strbuf err;		/* what the reader found wrong */
};

static const char *const report_usage[] = {
	"tracekit report [options] [FILE...]",
	NULL
};

static int flush_out(struct report_cmd *c)
{
	if (c->out.len &&
	    fwrite(c->out.buf, 1, c->out.len, stdout) != c->out.len)
		return error("write error on standard output: %s",
			     strerror(errno));
	strbuf_reset(&c->out);
	return 0;
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
		[REPORT_LOSS_COMMIT_OVERRUN] =
			"events lost due to commit overrun",
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
		    in->version, in->big_endian ? "big" : "little",
		    in->long_size, in->page_size,
		    (unsigned long long)in->file_size);
	strbuf_addf(o, "  compression: %s %s\n", in->compression,
		    in->compression_version);
	strbuf_addf(o, "  cpus: %d, clock: %s\n", in->cpus,
		    *in->clock ? in->clock : "-");
	if (*in->uname)
		strbuf_addf(o, "  uname: %s\n", in->uname);
	if (*in->tracer_version)
		strbuf_addf(o, "  written by: %s\n", in->tracer_version);
	for (b = 0; b < tracedat_nr_buffers(f->td); b++)
		strbuf_addf(o, "  buffer %s: %d cpus, %llu bytes of ring buffer data\n",
			    *tracedat_buffer_name(f->td, b) ?
			    tracedat_buffer_name(f->td, b) : "(top)",
			    tracedat_buffer_nr_cpus(f->td, b),
			    (unsigned long long)
			    tracedat_buffer_data_size(f->td, b));
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

		strbuf_addf(o, "  %s%s%s%sCPU %d: %llu events",
			    r->nr_files > 1 ? s->file->base : "",
			    r->nr_files > 1 ? " " : "", name, *name ? " " : "",
			    s->cpu, s->events);
		if (s->missed)
			strbuf_addf(o, ", %llu events lost", s->missed);
		if (s->missed_unknown)
			strbuf_addf(o, ", %d pages with lost events",
				    s->missed_unknown);
		strbuf_addch(o, '\n');
	}
	strbuf_addf(o, "total: %llu events", r->total);
	if (r->total)
		strbuf_addf(o, ", %llu.%06llu .. %llu.%06llu (%llu.%09llu s)",
			    r->first_ts / 1000000000,
			    r->first_ts % 1000000000 / 1000,
			    r->last_ts / 1000000000,
			    r->last_ts % 1000000000 / 1000,
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
		evs = tep_list_events(tracedat_tep(r->files[i].td),
				      TEP_EVENT_SORT_SYSTEM);

		for (j = 0; evs && evs[j]; j++)
			printf("%s:%s\n", evs[j]->system, evs[j]->name);
	}
	return 0;
}

/* A warning may hold several lines (one per changed file): each is one. */
static void warn(const char *msg)
{
	warning_lines(msg);
}

/* What goes with an aggregation, and what needs one. */
static void check_agg(struct report_cmd *c)
{
	const char *with = c->stat ? "--stat" :
			   c->flamegraph ? "--flamegraph" :
			   !strcmp(c->fmt->name, "folded") ? "--format folded" :
			   NULL;

	if (report_agg_finish(&c->agg, &c->err))
		die_code(TK_EXIT_USAGE, "%s", c->err.buf);
	c->agg.warn = warn;
	if (!c->agg.option) {
		if (c->agg.nr_keys || c->top)
			die_code(TK_EXIT_USAGE, "%s: needs an aggregation (--count, --sum, --hist, --lhist, --min, --max or --avg)",
				 c->top ? "--top" : "--by");
		return;
	}
	if (with)
		die_code(TK_EXIT_USAGE, "%s: not with %s", c->agg.option,
			 with);
	c->agg.json = !strcmp(c->fmt->name, "json");
	c->agg.top = c->top;
}

/* --latency's events, each in one file at least (all formats parsed). */
static int check_latency(struct report_cmd *c)
{
	int seen[2] = { 0, 0 }, i;
	struct tracedat *td;

	for (i = 0; i < c->session.nr_files; i++) {
		td = c->session.files[i].td;
		tracedat_parse_formats(td);
		if (tracedat_late_error(td, &c->err))
			return error("%s", c->err.buf);
		report_agg_latency_seen(&c->agg, tracedat_tep(td), seen);
	}
	for (i = 0; i < 2; i++)
		if (!seen[i])
			return error("--latency: no file has the event '%s'",
				     c->agg.latency[i]);
	return 0;
}

static int run(struct report_cmd *c)
{
	struct report *r = &c->session;
	const struct report_output_opts oo = {
		.format = c->fmt, .raw = c->raw, .latency = c->latency,
		.stat = c->stat, .flamegraph = c->flamegraph,
		.agg = c->agg.option ? &c->agg : NULL,
	};
	struct report_output *ro;
	struct tracedat_event ev;
	int ret;

	ro = report_output_new(r, &oo, &c->out);
	ret = report_start(r, &c->err);
	if (!ret)
		report_output_begin(ro);
	while (!ret && (ret = report_next(r, &ev, &c->err)) > 0) {
		ret = report_output_event(ro, &ev, &c->err);
		if (!ret && c->out.len > OUT_FLUSH && flush_out(c))
			ret = -1;
	}
	if (c->err.len)
		error("%s", c->err.buf);
	if (!ret && c->stat)
		print_stat(r, &c->out);
	strbuf_reset(&c->err);
	if (!ret && report_output_end(ro, &c->err))
		ret = error("%s", c->err.buf);
	if (!ret)
		ret = flush_out(c);
	report_output_free(ro);
	return ret;
}

int cmd_report(int argc, const char **argv)
{
	struct report_cmd c = { .format = "text", .err = STRBUF_INIT };
	struct report_opts ro;
	/* --format's, from the table of formats */
	struct strbuf argh = STRBUF_INIT, help = STRBUF_INIT;
	struct strbuf names = STRBUF_INIT;
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
		OPT_STRING_LIST(0, "pid", &c.pids, "PID",
				"only events of this pid"),
		OPT_STRING(0, "format", &c.format,
			   report_format_names(&argh, "|"),
			   report_format_help(&help)),
		OPT_STRING(0, "flamegraph", &c.flamegraph, "FILE",
			   "write the call stacks as an interactive SVG flame graph to FILE"),
		OPT_BOOL(0, "stat", &c.stat,
			 "counts per event and CPU, lost events, time span, file info"),
		OPT_BOOL('R', "raw", &c.raw,
			 "print fields as name=value, not the print format"),
		OPT_BOOL('l', "latency-format", &c.latency,
			 "latency format: irqs-off, need-resched, preempt columns"),
		OPT_BOOL('N', "no-plugins", &c.no_plugins,
			 "print formats only: no libtraceevent plugins (trace-cmd -N)"),
		OPT_STRING(0, "sysroot", &c.sysroot, "DIR",
			   "read the recording machine's files for call stacks under DIR"),
		OPT_AGGREGATIONS(&c.agg),
		OPT_ULONG(0, "top", &c.top, "N",
			  "print the N greatest entries of the table only"),
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
	c.fmt = report_format_find(c.format);
	if (!c.fmt)
		die_code(TK_EXIT_USAGE, "--format: '%s' is none of %s",
			 c.format, report_format_names(&names, ", "));
	/* The SVG alone, or with the folded stacks it draws. */
	if (c.flamegraph && (c.stat || !c.fmt->flamegraph))
		die_code(TK_EXIT_USAGE, "--flamegraph: not with %s%s",
			 c.stat ? "--stat" : "--format ",
			 c.stat ? "" : c.fmt->name);
	check_agg(&c);
	c.pid_list = xcalloc(c.pids.nr + 1, sizeof(*c.pid_list));
	for (i = 0; i < c.pids.nr; i++) {
		char *end;

		c.pid_list[i] = strtol(c.pids.items[i], &end, 10);
		if (end == c.pids.items[i] || *end)
			die_code(TK_EXIT_USAGE, "--pid: '%s' is not a number",
				 c.pids.items[i]);
	}
	ro = (struct report_opts){
		.inputs = c.inputs.items, .nr_inputs = c.inputs.nr,
		.events = c.events.items, .nr_events = c.events.nr,
		.filters = c.filters.items, .nr_filters = c.filters.nr,
		.comms = c.comms.items, .nr_comms = c.comms.nr,
		.pids = c.pid_list, .nr_pids = c.pids.nr,
		.cpus = c.cpu_list, .stat = c.stat, .no_plugins = c.no_plugins,
		.sysroot = c.sysroot,
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
	else if (!c.agg.latency[0] || !(ret = check_latency(&c)))
		ret = run(&c);
	/*
	 * Not tk_exit_code(): whatever the errno, a file that cannot be read
	 * is a failure, as the manual's EXIT STATUS has it (never 3).
	 */
	ret = ret ? TK_EXIT_FAIL : TK_EXIT_OK;
out:
	report_release(&c.session);
	free(c.pid_list);
	report_agg_opts_release(&c.agg);
	strbuf_release(&c.out);
	strbuf_release(&c.err);
	strbuf_release(&argh);
	strbuf_release(&help);
	opt_string_list_clear(&c.inputs);
	opt_string_list_clear(&c.events);
	opt_string_list_clear(&c.filters);
	opt_string_list_clear(&c.comms);
	opt_string_list_clear(&c.pids);
	return ret;
}
