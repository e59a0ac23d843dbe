// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit report: print the events of trace.dat files (ours and
 * trace-cmd's, v6 and v7) as trace-cmd report's text, as JSON lines, or
 * as statistics.  Several files and all their buffers are merged by
 * timestamp.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/parse-options.h"
#include "util/print.h"
#include "util/strbuf.h"
#include "util/tracedat-merge.h"
#include "util/tracedat-read.h"
#include "util/usage.h"

#define MAX_CPU		4096	/* as util/tracedat-read.c accepts */
#define OUT_FLUSH	(256 * 1024)

enum report_format { FMT_TEXT, FMT_JSON };

struct report_file {
	struct tracedat *td;
	const char *base;		/* basename, the label with several files */
	unsigned char *allowed;		/* by event id, NULL = all (-e) */
	struct tep_event_filter *filter;	/* -F */
	unsigned long long *per_event;	/* --stat counts by event id */
};

struct source {
	struct report_file *file;
	int buffer, cpu;
	unsigned long long events, missed;
	int missed_unknown;
};

struct report {
	struct opt_string_list inputs, events, filters, comms, pids;
	const char *cpu_list, *format;
	int stat, raw, latency, no_plugins;
	enum report_format fmt;
	unsigned char *cpus;		/* by cpu, NULL = all */
	int *pid_list;			/* --pid, parsed */
	struct report_file *files;
	int nr_files;
	struct source *sources;
	int nr_sources;
	struct strbuf out;
	struct strbuf err;		/* what the reader found wrong */
	unsigned long long total, first_ts, last_ts;
};

static const char *const report_usage[] = {
	"tracekit report [options] [FILE...]",
	NULL
};

static int parse_cpu_list(struct report *r)
{
	const char *p = r->cpu_list;
	char *end;
	long a, b;

	r->cpus = xcalloc(MAX_CPU, 1);
	while (*p) {
		errno = 0;
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a >= MAX_CPU || errno)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= MAX_CPU)
				goto bad;
		}
		for (; a <= b; a++)
			r->cpus[a] = 1;
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	return 0;
bad:
	return error("--cpu: bad CPU list '%s' (want e.g. 0,2-3)", r->cpu_list);
}

static int event_selected(const struct report *r, const struct tep_event *ev)
{
	char full[512];
	int i;

	snprintf(full, sizeof(full), "%s:%s", ev->system, ev->name);
	for (i = 0; i < r->events.nr; i++) {
		const char *g = r->events.items[i];

		if (!fnmatch(g, full, 0) || !fnmatch(g, ev->name, 0) ||
		    !fnmatch(g, ev->system, 0))
			return 1;
		/* trace-cmd spells it system/event */
		if (strchr(g, '/')) {
			char alt[512];

			snprintf(alt, sizeof(alt), "%s/%s", ev->system, ev->name);
			if (!fnmatch(g, alt, 0))
				return 1;
		}
	}
	return 0;
}

static int setup_file(struct report *r, struct report_file *f, const char *path)
{
	struct tep_handle *tep;
	int i, n;

	if (tracedat_open(path, r->no_plugins ? TRACEDAT_NO_PLUGINS : 0, &f->td,
			  &r->err))
		return error("%s", r->err.buf);
	f->base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	tep = tracedat_tep(f->td);
	n = tep_get_events_count(tep);
	if (r->events.nr) {
		int any = 0;

		f->allowed = xcalloc(TRACEDAT_MAX_EVENT_ID, 1);
		for (i = 0; i < n; i++) {
			struct tep_event *ev = tep_get_event(tep, i);

			if (ev->id >= 0 && ev->id < TRACEDAT_MAX_EVENT_ID && event_selected(r, ev))
				any = f->allowed[ev->id] = 1;
		}
		if (!any)
			warning("%s: no event matches -e", path);
	}
	if (r->filters.nr) {
		f->filter = tep_filter_alloc(tep);
		for (i = 0; i < r->filters.nr; i++) {
			enum tep_errno e = tep_filter_add_filter_str(f->filter,
								     r->filters.items[i]);
			char msg[256];

			if (e < 0) {
				tep_filter_strerror(f->filter, e, msg, sizeof(msg));
				return error("-F '%s': %s", r->filters.items[i], msg);
			}
		}
	}
	if (r->stat)
		f->per_event = xcalloc(TRACEDAT_MAX_EVENT_ID, sizeof(*f->per_event));
	return 0;
}

static int add_streams(struct report *r, struct tracedat_merge *m)
{
	int i, b, c;

	for (i = 0; i < r->nr_files; i++) {
		struct tracedat *td = r->files[i].td;

		for (b = 0; b < tracedat_nr_buffers(td); b++)
			for (c = 0; c < tracedat_buffer_nr_cpus(td, b); c++) {
				int cpu = tracedat_buffer_cpu(td, b, c);
				struct source *s;

				if (r->cpus && !r->cpus[cpu])
					continue;
				/* The merge numbers streams in add order: keep ours alike. */
				r->sources = xrealloc(r->sources,
						      (r->nr_sources + 1) * sizeof(*s));
				s = &r->sources[r->nr_sources++];
				memset(s, 0, sizeof(*s));
				s->file = &r->files[i];
				s->buffer = b;
				s->cpu = cpu;
				if (tracedat_merge_add(m, td, b, c, &r->err))
					return -1;
			}
	}
	return 0;
}

static int wanted(struct report *r, struct report_file *f, struct tep_record *rec)
{
	struct tep_handle *tep = tracedat_tep(f->td);
	int i, id, pid;

	if (f->allowed) {
		id = tep_data_type(tep, rec);
		if (id < 0 || id >= TRACEDAT_MAX_EVENT_ID || !f->allowed[id])
			return 0;
	}
	if (r->pids.nr || r->comms.nr) {
		int hit = 0;

		pid = tep_data_pid(tep, rec);
		for (i = 0; i < r->pids.nr && !hit; i++)
			hit = r->pid_list[i] == pid;
		for (i = 0; i < r->comms.nr && !hit; i++)
			hit = !strcmp(r->comms.items[i], tep_data_comm_from_pid(tep, pid));
		if (!hit)
			return 0;
	}
	if (f->filter) {
		int ret = tep_filter_match(f->filter, rec);

		if (ret != FILTER_MATCH && ret != FILTER_NONE)
			return 0;
	}
	return 1;
}

static int flush_out(struct report *r)
{
	if (r->out.len && fwrite(r->out.buf, 1, r->out.len, stdout) != r->out.len)
		return error("write error on standard output: %s", strerror(errno));
	strbuf_reset(&r->out);
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
static void print_header(struct report *r)
{
	int i, b, w = 0, n;

	for (i = 0; r->nr_files > 1 && i < r->nr_files; i++)
		if ((n = strlen(r->files[i].base)) > w)
			w = n;
	for (i = 0; i < r->nr_files; i++) {
		struct tracedat *td = r->files[i].td;

		if (r->nr_files > 1)
			strbuf_addf(&r->out, "%*s: ", w, r->files[i].base);
		strbuf_addf(&r->out, "cpus=%d\n", tracedat_info(td)->cpus);
		for (b = 1; b < tracedat_nr_buffers(td); b++)
			if ((n = strlen(tracedat_buffer_name(td, b))) > w)
				w = n;
	}
}

static void count_event(struct report *r, const struct tracedat_event *ev)
{
	struct source *s = &r->sources[ev->source];
	struct report_file *f = s->file;
	int id;

	if (!r->total || ev->rec->ts < r->first_ts)
		r->first_ts = ev->rec->ts;
	if (ev->rec->ts > r->last_ts)
		r->last_ts = ev->rec->ts;
	r->total++;
	s->events++;
	if (ev->rec->missed_events > 0)
		s->missed += ev->rec->missed_events;
	else if (ev->rec->missed_events < 0)
		s->missed_unknown++;
	id = tep_data_type(tracedat_tep(f->td), ev->rec);
	if (id >= 0 && id < TRACEDAT_MAX_EVENT_ID)
		f->per_event[id]++;
}

/* "overrun: N" of each CPUSTAT block: events the kernel overwrote. */
static void print_overruns(struct strbuf *out, const char *stats)
{
	const char *p = stats, *buf = "";
	char name[256];
	int cpu = -1;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		long long v;

		if (sscanf(p, "Buffer: %255s", name) == 1)
			buf = name;
		else if (sscanf(p, "CPU: %d", &cpu) == 1)
			;
		else if (sscanf(p, "overrun: %lld", &v) == 1 && v)
			strbuf_addf(out, "  %s%sCPU %d: %lld events lost\n", buf,
				    *buf ? " " : "", cpu, v);
		else if (sscanf(p, "commit overrun: %lld", &v) == 1 && v)
			strbuf_addf(out, "  %s%sCPU %d: %lld events lost due to commit overrun\n",
				    buf, *buf ? " " : "", cpu, v);
		else if (sscanf(p, "dropped events: %lld", &v) == 1 && v)
			strbuf_addf(out, "  %s%sCPU %d: %lld events dropped\n", buf,
				    *buf ? " " : "", cpu, v);
		p = nl ? nl + 1 : NULL;
	}
}

static void print_stat(struct report *r)
{
	struct strbuf *o = &r->out;
	int i, b, id;

	for (i = 0; i < r->nr_files; i++) {
		struct report_file *f = &r->files[i];
		const struct tracedat_info *in = tracedat_info(f->td);
		struct tep_handle *tep = tracedat_tep(f->td);

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
		print_overruns(o, in->cpustats);
	}
	strbuf_addstr(o, "per cpu:\n");
	for (i = 0; i < r->nr_sources; i++) {
		struct source *s = &r->sources[i];
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

static int run(struct report *r)
{
	struct tracedat_merge *m = tracedat_merge_new();
	struct tracedat_event ev;
	struct print_ctx pc;
	int labels, width, ret;

	print_init(&pc, r->raw, r->latency);
	width = label_width(r, &labels);
	ret = add_streams(r, m);
	if (!ret && r->fmt == FMT_TEXT && !r->stat)
		print_header(r);
	while (!ret && (ret = tracedat_merge_next(m, &ev, &r->err)) > 0) {
		struct report_file *f = r->sources[ev.source].file;
		struct tep_handle *tep = tracedat_tep(ev.td);

		ret = 0;
		if (print_record_check(&pc, tep, ev.rec)) {
			ret = error("%s: offset %llu: cpu %d: event of %d bytes does not fit its format",
				    tracedat_path(ev.td), ev.rec->offset, ev.rec->cpu,
				    ev.rec->size);
			break;
		}
		if (!wanted(r, f, ev.rec))
			continue;
		if (r->stat)
			count_event(r, &ev);
		else if (r->fmt == FMT_JSON)
			print_json(&pc, &r->out, &ev, tracedat_buffer_name(ev.td, ev.buffer),
				   r->nr_files > 1 ? f->base : NULL);
		else
			print_text(&pc, &r->out, &ev, labels ? label_of(r, &ev) : NULL, width);
		if (r->out.len > OUT_FLUSH && flush_out(r))
			ret = -1;
	}
	if (r->err.len)
		error("%s", r->err.buf);
	if (!ret && r->stat)
		print_stat(r);
	if (!ret)
		ret = flush_out(r);
	tracedat_merge_free(m);
	print_release(&pc);
	return ret;
}

int cmd_report(int argc, const char **argv)
{
	struct report r = { .format = "text", .err = STRBUF_INIT };
	int i, ret = 0;
	const struct option options[] = {
		OPT_STRING_LIST('i', "input", &r.inputs, "FILE",
				"trace.dat file to read (repeatable; default tracekit.dat)"),
		OPT_STRING(0, "cpu", &r.cpu_list, "LIST",
			   "only events of these CPUs, e.g. 0,2-3"),
		OPT_STRING_LIST('e', "event", &r.events, "GLOB",
				"only events matching SYSTEM:EVENT, EVENT or SYSTEM (fnmatch)"),
		OPT_STRING_LIST('F', "filter", &r.filters, "FILTER",
				"libtraceevent filter, e.g. 'sched_switch: prev_pid != 0'"),
		OPT_STRING_LIST(0, "comm", &r.comms, "COMM",
				"only events of tasks with this name"),
		OPT_STRING_LIST(0, "pid", &r.pids, "PID", "only events of this pid"),
		OPT_STRING(0, "format", &r.format, "text|json",
			   "text (as trace-cmd report) or one JSON object per line"),
		OPT_BOOL(0, "stat", &r.stat,
			 "counts per event and CPU, lost events, time span, file info"),
		OPT_BOOL('R', "raw", &r.raw, "print fields as name=value, not the print format"),
		OPT_BOOL('l', "latency", &r.latency,
			 "latency format: irqs-off, need-resched, preempt columns"),
		OPT_BOOL('N', "no-plugins", &r.no_plugins,
			 "print formats only: no libtraceevent plugins (trace-cmd -N)"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, report_usage, 0);
	for (i = 0; i < argc; i++)
		opt_string_list_append(&r.inputs, argv[i]);
	if (!r.inputs.nr)
		opt_string_list_append(&r.inputs, "tracekit.dat");
	if (!strcmp(r.format, "json"))
		r.fmt = FMT_JSON;
	else if (strcmp(r.format, "text"))
		die_code(TK_EXIT_USAGE, "--format: '%s' is neither text nor json", r.format);
	r.pid_list = xcalloc(r.pids.nr + 1, sizeof(*r.pid_list));
	for (i = 0; i < r.pids.nr; i++) {
		char *end;

		r.pid_list[i] = strtol(r.pids.items[i], &end, 10);
		if (end == r.pids.items[i] || *end)
			die_code(TK_EXIT_USAGE, "--pid: '%s' is not a number", r.pids.items[i]);
	}
	if (r.cpu_list && parse_cpu_list(&r))
		return TK_EXIT_USAGE;
	strbuf_init(&r.out, OUT_FLUSH + 4096);
	r.files = xcalloc(r.inputs.nr, sizeof(*r.files));
	for (i = 0; i < r.inputs.nr && !ret; i++) {
		ret = setup_file(&r, &r.files[i], r.inputs.items[i]);
		r.nr_files = i + 1;
	}
	if (!ret)
		ret = run(&r);
	for (i = 0; i < r.nr_files; i++) {
		if (r.files[i].filter)
			tep_filter_free(r.files[i].filter);
		free(r.files[i].allowed);
		free(r.files[i].per_event);
		tracedat_close(r.files[i].td);
	}
	free(r.files);
	free(r.sources);
	free(r.cpus);
	free(r.pid_list);
	strbuf_release(&r.out);
	strbuf_release(&r.err);
	opt_string_list_clear(&r.inputs);
	opt_string_list_clear(&r.events);
	opt_string_list_clear(&r.filters);
	opt_string_list_clear(&r.comms);
	opt_string_list_clear(&r.pids);
	return ret ? TK_EXIT_FAIL : TK_EXIT_OK;
}
