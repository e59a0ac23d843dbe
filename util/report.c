// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/report.h"
#include "util/usage.h"

#define MAX_CPU		4096	/* as util/tracedat-read.c accepts */

static int parse_cpu_list(struct report *r, struct strbuf *err)
{
	const char *p = r->o->cpus;
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
	strbuf_addf(err, "--cpu: bad CPU list '%s' (want e.g. 0,2-3)",
		    r->o->cpus);
	return -EINVAL;
}

int report_init(struct report *r, const struct report_opts *o,
		struct strbuf *err)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->merge = tracedat_merge_new();
	return o->cpus ? parse_cpu_list(r, err) : 0;
}

static int event_selected(const struct report *r, const struct tep_event *ev)
{
	char full[512];
	int i;

	snprintf(full, sizeof(full), "%s:%s", ev->system, ev->name);
	for (i = 0; i < r->o->nr_events; i++) {
		const char *g = r->o->events[i];

		if (!fnmatch(g, full, 0) || !fnmatch(g, ev->name, 0) ||
		    !fnmatch(g, ev->system, 0))
			return 1;
		/* trace-cmd spells it system/event */
		if (strchr(g, '/')) {
			char alt[512];

			snprintf(alt, sizeof(alt), "%s/%s", ev->system,
				 ev->name);
			if (!fnmatch(g, alt, 0))
				return 1;
		}
	}
	return 0;
}

static void warn_file(const struct report_opts *o, const char *path,
		      const char *what)
{
	struct strbuf msg = STRBUF_INIT;

	strbuf_addf(&msg, "%s: %s", path, what);
	o->warn(msg.buf);
	strbuf_release(&msg);
}

/*
 * A file of every format the kernel has holds some that libtraceevent
 * cannot parse (xen's, maple_tree's on 6.1): trace-cmd is silent about
 * them, so a warning waits for the first event of its format to be
 * printed, where the output differs from a whole format's.  A format
 * whose id is unreadable is told at once.  Formats are parsed as their
 * events come (tracedat_parse_pending()): the ones found bad since the
 * last call are taken in.
 */
static void setup_bad_formats(struct report_file *f,
			      const struct report_opts *o, const char *path)
{
	const struct tracedat_bad_format *bad;
	int i, n = tracedat_bad_formats(f->td, &bad);

	for (i = f->nr_bad_seen; i < n && o->warn; i++) {
		if (bad[i].id < 0) {
			warn_file(o, path, bad[i].what);
			continue;
		}
		if (!f->unwarned)
			f->unwarned = xcalloc(TRACEDAT_MAX_EVENT_ID, 1);
		f->unwarned[bad[i].id] = 1;
	}
	f->nr_bad_seen = n;
}

static void warn_bad_format(const struct report *r, struct report_file *f,
			    int id)
{
	const struct tracedat_bad_format *bad;
	int i, n = tracedat_bad_formats(f->td, &bad);

	f->unwarned[id] = 0;
	for (i = 0; i < n; i++)
		if (bad[i].id == id)
			warn_file(r->o, tracedat_path(f->td), bad[i].what);
}

/*
 * Whether libtraceevent parses str without dying, tried in a child first:
 * its filter parser frees a node twice on some errors ("a == 3 && b ==
 * -4" aborts libtraceevent 1.7, and trace-cmd report -F with it).  A
 * child that cannot be made leaves the parse unguarded.
 */
static int filter_parses(struct tep_handle *tep, const char *str)
{
	int status, fd;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		/* Its dying words are libc's or a sanitizer's, not ours. */
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		tep_filter_add_filter_str(tep_filter_alloc(tep), str);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

static int setup_file(struct report *r, struct report_file *f, const char *path,
		      struct strbuf *err)
{
	const struct report_opts *o = r->o;
	struct tep_handle *tep;
	int i, n, ret;

	ret = tracedat_open(path, o->no_plugins ? TRACEDAT_NO_PLUGINS : 0,
			    &f->td, err);
	if (ret)
		return ret;
	f->base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	/* -e and -F look events up by name. */
	if (o->nr_events || o->nr_filters)
		tracedat_parse_formats(f->td);
	setup_bad_formats(f, o, path);
	tep = tracedat_tep(f->td);
	n = tep_get_events_count(tep);
	for (i = 0; i < 2; i++) {
		const char *name = i ? "user_stack" : "kernel_stack";
		struct tep_event *ev = tep_find_event_by_name(tep, "ftrace",
							      name);

		f->stack_ids[i] = ev ? ev->id : -1;
	}
	if (o->nr_events) {
		int any = 0;

		f->allowed = xcalloc(TRACEDAT_MAX_EVENT_ID, 1);
		for (i = 0; i < n; i++) {
			struct tep_event *ev = tep_get_event(tep, i);

			if (ev->id >= 0 && ev->id < TRACEDAT_MAX_EVENT_ID &&
			    event_selected(r, ev))
				any = f->allowed[ev->id] = 1;
		}
		if (!any && o->warn) {
			struct strbuf msg = STRBUF_INIT;

			strbuf_addf(&msg, "%s: no event matches -e", path);
			o->warn(msg.buf);
			strbuf_release(&msg);
		}
	}
	if (o->nr_filters) {
		f->filter = tep_filter_alloc(tep);
		for (i = 0; i < o->nr_filters; i++) {
			enum tep_errno e;
			char msg[256];

			if (!filter_parses(tep, o->filters[i])) {
				strbuf_addf(err, "-F '%s': libtraceevent's filter parser crashes on this filter (a negative number after && or ||?)",
					    o->filters[i]);
				return -EINVAL;
			}
			e = tep_filter_add_filter_str(f->filter, o->filters[i]);
			if (e < 0) {
				tep_filter_strerror(f->filter, e, msg,
						    sizeof(msg));
				strbuf_addf(err, "-F '%s': %s", o->filters[i],
					    msg);
				return -EINVAL;
			}
		}
	}
	if (o->stat)
		f->per_event = xcalloc(TRACEDAT_MAX_EVENT_ID,
				       sizeof(*f->per_event));
	/* trace-cmd report -N leaves out its own handlers with the plugins. */
	if (!o->no_plugins)
		ftrace_print_register(&f->ftrace, tep);
	return 0;
}

int report_open(struct report *r, struct strbuf *err)
{
	int i, ret = 0;

	r->files = xcalloc(r->o->nr_inputs, sizeof(*r->files));
	for (i = 0; i < r->o->nr_inputs && !ret; i++) {
		ret = setup_file(r, &r->files[i], r->o->inputs[i], err);
		r->nr_files = i + 1;
	}
	return ret;
}

/* The merge numbers streams in add order: keep ours alike. */
static void add_source(struct report *r, struct report_file *f, int buffer,
		       int cpu)
{
	struct report_source *s;

	r->sources = xrealloc(r->sources, (r->nr_sources + 1) * sizeof(*s));
	s = &r->sources[r->nr_sources++];
	memset(s, 0, sizeof(*s));
	s->file = f;
	s->buffer = buffer;
	s->cpu = cpu;
}

int report_start(struct report *r, struct strbuf *err)
{
	int i, b, c, ret;

	for (i = 0; i < r->nr_files; i++) {
		struct tracedat *td = r->files[i].td;

		for (b = 0; b < tracedat_nr_buffers(td); b++)
			for (c = 0; c < tracedat_buffer_nr_cpus(td, b); c++) {
				int cpu = tracedat_buffer_cpu(td, b, c);

				if (r->cpus && !r->cpus[cpu])
					continue;
				add_source(r, &r->files[i], b, cpu);
				ret = tracedat_merge_add(r->merge, td, b, c,
							 err);
				if (ret)
					return ret;
			}
	}
	return 0;
}

void report_start_live(struct report *r)
{
	struct tracedat *td = r->files[0].td;
	int c;

	for (c = 0; c < tracedat_buffer_nr_cpus(td, 0); c++) {
		add_source(r, &r->files[0], 0, tracedat_buffer_cpu(td, 0, c));
		tracedat_merge_add_live(r->merge, td, c);
	}
}

int report_next(struct report *r, struct tracedat_event *ev,
		struct strbuf *err)
{
	int i, ret;

	for (i = 0; i < r->nr_files; i++) {
		ret = tracedat_late_error(r->files[i].td, err);
		if (ret)
			return ret;
	}
	if (r->has_pending) {
		r->has_pending = 0;
		*ev = r->pending;
		return 1;
	}
	return tracedat_merge_next(r->merge, ev, err);
}

int report_fold_graph(struct report *r, struct tracedat_event *ev,
		      struct strbuf *err)
{
	struct ftrace_print *fp = &r->sources[ev->source].file->ftrace;
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tracedat_event next;
	int ret;

	fp->leaf_entry = fp->leaf_exit = NULL;
	if (!ftrace_print_is_entry(fp, ev->id))
		return 0;
	/* Reading on may reuse the stream's buffer under the entry. */
	if ((size_t)ev->rec->size > r->entry_alloc) {
		r->entry_alloc = ev->rec->size;
		r->entry_data = xrealloc(r->entry_data, r->entry_alloc);
	}
	memcpy(r->entry_data, ev->rec->data, ev->rec->size);
	r->entry = *ev->rec;
	r->entry.data = r->entry_data;
	ev->rec = &r->entry;
	ret = tracedat_merge_next(r->merge, &next, err);
	if (ret <= 0)
		return ret;
	if (next.td == ev->td && next.buffer == ev->buffer &&
	    ftrace_print_is_leaf(fp, tep, ev->rec, next.rec)) {
		fp->leaf_entry = ev->rec;
		fp->leaf_exit = next.rec;
		return 1;
	}
	r->pending = next;
	r->has_pending = 1;
	return 0;
}

/* -e, --pid, --comm */
static int selected(const struct report *r, const struct report_file *f,
		    const struct tracedat_event *ev)
{
	const struct report_opts *o = r->o;
	struct tep_handle *tep = tracedat_tep(f->td);
	struct tep_record *rec = ev->rec;
	int i, id = ev->id, pid, hit = 0;

	if (f->allowed) {
		if (id < 0 || id >= TRACEDAT_MAX_EVENT_ID || !f->allowed[id])
			return 0;
	}
	if (!o->nr_pids && !o->nr_comms)
		return 1;
	pid = tep_data_pid(tep, rec);
	for (i = 0; i < o->nr_pids && !hit; i++)
		hit = o->pids[i] == pid;
	for (i = 0; i < o->nr_comms && !hit; i++)
		hit = !strcmp(o->comms[i], tep_data_comm_from_pid(tep, pid));
	return hit;
}

/* -F */
static int filter_passes(const struct report_file *f, struct tep_record *rec)
{
	int ret;

	if (!f->filter)
		return 1;
	ret = tep_filter_match(f->filter, rec);
	return ret == FILTER_MATCH || ret == FILTER_NONE;
}

static void count_event(struct report *r, const struct tracedat_event *ev)
{
	struct report_source *s = &r->sources[ev->source];
	struct report_file *f = s->file;

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
	if (ev->id >= 0 && ev->id < TRACEDAT_MAX_EVENT_ID)
		f->per_event[ev->id]++;
}

static int is_stack_trace(const struct report_file *f, int id)
{
	return id >= 0 && (id == f->stack_ids[0] || id == f->stack_ids[1]);
}

int report_keep(struct report *r, const struct tracedat_event *ev)
{
	struct report_source *s = &r->sources[ev->source];
	struct report_file *f = s->file;
	const struct tracedat_bad_format *bad;
	int keep;

	/*
	 * The kernel writes an event's stack trace (-T) as an event of its
	 * own right after it on the same CPU.  Selected with -e, --pid or
	 * --comm, it goes where its event goes.  -F follows trace-cmd report
	 * (libtracecmd's tracecmd_filter_match()): once an event on the CPU
	 * has passed the filter, every later stack trace there passes too,
	 * those of the events it filters out included.
	 */
	if (is_stack_trace(f, ev->id)) {
		keep = (s->last_selected || selected(r, f, ev)) &&
		       (s->filter_passed || filter_passes(f, ev->rec));
	} else {
		s->last_selected = selected(r, f, ev);
		keep = filter_passes(f, ev->rec);
		if (keep)
			s->filter_passed = 1;
		keep = keep && s->last_selected;
	}
	if (!keep)
		return 0;
	if (f->nr_bad_seen != tracedat_bad_formats(f->td, &bad))
		setup_bad_formats(f, r->o, tracedat_path(f->td));
	if (f->unwarned && ev->id >= 0 && ev->id < TRACEDAT_MAX_EVENT_ID &&
	    f->unwarned[ev->id])
		warn_bad_format(r, f, ev->id);
	if (r->o->stat)
		count_event(r, ev);
	return 1;
}

void report_release(struct report *r)
{
	int i;

	for (i = 0; i < r->nr_files; i++) {
		if (r->files[i].filter)
			tep_filter_free(r->files[i].filter);
		free(r->files[i].allowed);
		free(r->files[i].unwarned);
		free(r->files[i].per_event);
		tracedat_close(r->files[i].td);
	}
	tracedat_merge_free(r->merge);
	free(r->entry_data);
	free(r->files);
	free(r->sources);
	free(r->cpus);
	memset(r, 0, sizeof(*r));
}

void report_loss_init(struct report_loss *l, const char *cpustats)
{
	memset(l, 0, sizeof(*l));
	l->next = cpustats;
	l->cpu = -1;
}

/*
 * The CPUSTAT text holds, per CPU, a "CPU: N" line (after a "Buffer:
 * NAME" line in an instance's) and what per_cpu/cpuN/stats said
 * (tracing_stats_read() in kernel/trace/trace.c).
 */
int report_loss_next(struct report_loss *l)
{
	while (l->next && *l->next) {
		const char *p = l->next, *nl = strchr(p, '\n');
		long long v;
		int found = 1;

		l->next = nl ? nl + 1 : NULL;
		if (sscanf(p, "Buffer: %255s", l->buffer) == 1 ||
		    sscanf(p, "CPU: %d", &l->cpu) == 1)
			continue;
		if (sscanf(p, "overrun: %lld", &v) == 1 && v)
			l->kind = REPORT_LOSS_OVERRUN;
		else if (sscanf(p, "commit overrun: %lld", &v) == 1 && v)
			l->kind = REPORT_LOSS_COMMIT_OVERRUN;
		else if (sscanf(p, "dropped events: %lld", &v) == 1 && v)
			l->kind = REPORT_LOSS_DROPPED;
		else
			found = 0;
		if (found) {
			l->count = v;
			return 1;
		}
	}
	return 0;
}
