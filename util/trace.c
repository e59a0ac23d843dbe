// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit trace: probes defined for the run, the recording's live view
 * (util/record.h) turned into report's output as the pages come, and
 * the leftovers of a run killed by SIGKILL removed.
 *
 * The live view decodes the pages with a trace.dat of no events that
 * the recording writes before tracing starts, opened as report opens a
 * file: the events print through report's own code, the same bytes as
 * `tracekit report` of the file -o writes.  Two things a file has that
 * the view gets otherwise:
 *  - Order.  report merges the CPUs by time; live, a CPU read a moment
 *    ago may still produce an event earlier than one read since on
 *    another.  An event read in one round was written before that
 *    round's reads ended, so each round prints only up to the latest
 *    event of the round before (tracedat_merge_hold()), and an event
 *    prints within two rounds of being written.
 *  - Task names.  A file keeps saved_cmdlines as it is at the end; the
 *    view names a task at its first event (name_task()).  A task
 *    renamed after its first event keeps that name here.
 *
 * An aggregation is the kernel's where it can be (choose_where()): hist
 * triggers on the events (util/trace-hist.h), which are left disabled,
 * so that the live view reads nothing, or with --latency on a synthetic
 * event (util/trace-synth.h); their tables are read back into report's
 * at each --interval and at the end.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/array.h"
#include "util/probe-file.h"
#include "util/report.h"
#include "util/trace-hist.h"
#include "util/trace-synth.h"
#include "util/trace.h"
#include "util/tracefs.h"
#include "util/tracefs-restore.h"
#include "util/usage.h"

/* How often the live view reads the ring buffers, in ms. */
#define TRACE_PERIOD_MS		50
/* The kernel's PID_MAX_LIMIT on 64-bit machines. */
#define TRACE_MAX_PID		(4 * 1024 * 1024)
/*
 * A task gone before its first event was read: saved_cmdlines is read
 * up to this many times, this far apart, for its name, waiting no more
 * than TRACE_NAME_BUDGET_US in a round (name_task()).
 */
#define TRACE_NAME_TRIES	4
#define TRACE_NAME_WAIT_US	5000
#define TRACE_NAME_BUDGET_US	10000
/* Output is handed to o->write at the latest at this size. */
#define TRACE_FLUSH		(64 * 1024)

struct trace {
	const struct trace_opts *o;
	struct report_opts ropts;
	struct report r;
	int opened;
	const char *inputs[1];
	char path[64];
	struct report_output_opts oo;
	struct report_output *ro;
	struct strbuf out;
	/* The kernel's aggregation: a hist trigger per event. */
	int kernel;
	struct trace_hist **hists;
	int nr_hists, alloc_hists;
	/* --latency's synthetic event, and the table's options on it */
	struct trace_synth *synth;
	struct report_agg_opts synth_agg;
	/* by pid: named at its first event (name_task()) */
	unsigned char *named;
	int wait_left;			/* name_task()'s, in this round */
	/* the time of the latest event of the previous round */
	uint64_t until;
	double next_interval;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int flush(struct trace *t, struct strbuf *err)
{
	int ret = 0;

	if (t->out.len)
		ret = t->o->write(t->o->data, &t->out, err);
	strbuf_reset(&t->out);
	return ret;
}

/* ---- the live view ---- */

/* --latency's events are among those traced. */
static int check_latency(struct trace *t, struct strbuf *err)
{
	struct tracedat *td = t->r.files[0].td;
	int seen[2] = { 0, 0 }, i;

	tracedat_parse_formats(td);
	report_agg_latency_seen(t->o->agg, tracedat_tep(td), seen);
	for (i = 0; i < 2; i++)
		if (!seen[i]) {
			strbuf_addf(err, "--latency: '%s' is none of the events traced",
				    t->o->agg->latency[i]);
			return -EINVAL;
		}
	return 0;
}

/* The kernel's table: a hist trigger on each event traced. */
static int start_hists(struct trace *t, const struct record_live_start *st,
		       struct strbuf *err)
{
	int i, ret;

	for (i = 0; i < st->nr_events; i++) {
		const struct record_live_event *e = &st->events[i];

		grow_array(t->hists, t->nr_hists, t->alloc_hists, 8);
		ret = trace_hist_start(st->instance, e->system, e->name,
				       e->filter, t->o->agg,
				       &t->hists[t->nr_hists], err);
		if (ret)
			return ret;
		t->nr_hists++;
	}
	return 0;
}

/*
 * --latency's, in the kernel: the synthetic event from START to END,
 * and the table a hist trigger on it, of its field latency.
 */
static int start_synth(struct trace *t, const struct record_live_start *st,
		       struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT;
	int ret;

	strbuf_addf(&name, TRACE_GROUP_PREFIX "%d_latency", (int)getpid());
	ret = trace_synth_start(tracedat_tep(t->r.files[0].td), name.buf,
				t->o->agg, &t->synth, err);
	t->synth_agg = *t->o->agg;
	t->synth_agg.latency[0] = t->synth_agg.latency[1] = NULL;
	t->synth_agg.match[0] = t->synth_agg.match[1] = NULL;
	if (!ret) {
		grow_array(t->hists, t->nr_hists, t->alloc_hists, 8);
		ret = trace_hist_start(st->instance, "synthetic", name.buf,
				       NULL, &t->synth_agg, &t->hists[0], err);
	}
	if (!ret) {
		struct strbuf file = STRBUF_INIT, undo = STRBUF_INIT;

		t->nr_hists++;
		strbuf_addf(&file, "events/synthetic/%s/trigger", name.buf);
		tk_tracefs_path(&path, st->instance, file.buf);
		strbuf_addf(&undo, "!%s", trace_hist_command(t->hists[0]));
		trace_synth_keep(t->synth, path.buf, undo.buf);
		strbuf_release(&file);
		strbuf_release(&undo);
	}
	strbuf_release(&name);
	strbuf_release(&path);
	return ret;
}

static int live_start(void *data, const struct record_live_start *st,
		      struct strbuf *err)
{
	struct trace *t = data;
	int ret;

	snprintf(t->path, sizeof(t->path), "/proc/self/fd/%d", st->fd);
	t->inputs[0] = t->path;
	t->ropts.inputs = t->inputs;
	t->ropts.nr_inputs = 1;
	ret = report_init(&t->r, &t->ropts, err);
	t->opened = 1;
	if (!ret)
		ret = report_open(&t->r, err);
	if (ret)
		return ret;
	if (t->o->agg && t->o->agg->latency[0]) {
		ret = check_latency(t, err);
		if (ret)
			return ret;
	}
	if (t->kernel)
		ret = t->o->agg->latency[0] ? start_synth(t, st, err) :
		      start_hists(t, st, err);
	if (ret)
		return ret;
	report_start_live(&t->r);
	t->ro = report_output_new(&t->r, &t->oo, &t->out);
	report_output_begin(t->ro);
	t->next_interval = now_s() + t->o->interval;
	return flush(t, err);
}

static int live_pages(void *data, int idx, const void *buf, size_t len,
		      struct strbuf *err)
{
	struct trace *t = data;

	return tracedat_merge_feed(t->r.merge, idx, buf, len, err);
}

/*
 * A task's name at its first event: its name now, as the kernel will
 * have saved it at the end, else (it is gone) what saved_cmdlines holds.
 * What the file of no events said of that pid may be another task's
 * that had the pid before.  A task reaped since may not be in
 * saved_cmdlines yet: the kernel saves its name as it leaves its CPU for
 * the last time, which can come after its parent reaped it; it is looked
 * for again a few times, within the round's budget of waiting.  Unknown,
 * it prints as report prints a task the file does not name.
 */
static void name_task(struct trace *t, const struct tracedat_event *ev)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	char *line, *save = NULL, *comm = NULL;
	int pid, try;

	/* common_pid, inside any record the kernel writes */
	if (ev->rec->size < 8)
		return;
	pid = tep_data_pid(tep, ev->rec);
	if (pid <= 0 || pid >= TRACE_MAX_PID ||
	    t->named[pid / 8] & (1u << (pid % 8)))
		return;
	strbuf_addf(&path, "/proc/%d/comm", pid);
	if (strbuf_read_file(&sb, path.buf, 64) > 0) {
		strbuf_rtrim(&sb);
		comm = sb.buf;
	}
	for (try = 0; !comm && try < TRACE_NAME_TRIES; try++) {
		if (try && t->wait_left < TRACE_NAME_WAIT_US)
			break;
		if (try) {
			usleep(TRACE_NAME_WAIT_US);
			t->wait_left -= TRACE_NAME_WAIT_US;
		}
		strbuf_reset(&sb);
		if (tk_tracefs_read(NULL, "saved_cmdlines", &sb) <= 0)
			continue;
		for (line = strtok_r(sb.buf, "\n", &save); line && !comm;
		     line = strtok_r(NULL, "\n", &save)) {
			char *end;

			if (strtol(line, &end, 10) == pid && *end == ' ')
				comm = end + 1;
		}
	}
	if (comm)
		tep_override_comm(tep, comm, pid);
	t->named[pid / 8] |= 1u << (pid % 8);
	strbuf_release(&sb);
	strbuf_release(&path);
}

/*
 * The triggers removed, before the instance they are in; then the
 * synthetic event's, which the table's trigger was on.
 */
static void release_hists(struct trace *t)
{
	int i;

	for (i = 0; i < t->nr_hists; i++)
		trace_hist_free(t->hists[i]);
	free(t->hists);
	t->hists = NULL;
	t->nr_hists = t->alloc_hists = 0;
	trace_synth_free(t->synth);
	t->synth = NULL;
}

/*
 * The kernel's tables read into the one printed, then (clear, for
 * --interval) emptied.  A full table is a warning: what it dropped is
 * in none of its entries.
 */
static int fold_kernel(struct trace *t, int clear, struct strbuf *err)
{
	struct aggregate *table = report_output_table(t->ro);
	struct strbuf why = STRBUF_INIT;
	int i, ret = 0;

	for (i = 0; i < t->nr_hists && !ret; i++) {
		ret = trace_hist_read(t->hists[i], table, &why);
		if (ret == -ENOSPC) {
			if (t->o->warn)
				t->o->warn(why.buf, t->o->data);
			ret = 0;
		}
		if (ret)
			strbuf_addstr(err, why.buf);
		else if (clear)
			ret = trace_hist_clear(t->hists[i]);
		strbuf_reset(&why);
	}
	strbuf_release(&why);
	return ret;
}

static int live_round(void *data, int last, struct strbuf *err)
{
	struct trace *t = data;
	struct tracedat_event ev;
	int ret;

	t->wait_left = TRACE_NAME_BUDGET_US;
	tracedat_merge_hold(t->r.merge, last ? UINT64_MAX : t->until);
	t->until = tracedat_merge_fed_ts(t->r.merge);
	while ((ret = report_next(&t->r, &ev, err)) > 0) {
		name_task(t, &ev);
		ret = report_output_event(t->ro, &ev, err);
		if (!ret && t->out.len > TRACE_FLUSH)
			ret = flush(t, err);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (t->o->interval > 0 && !last && now_s() >= t->next_interval) {
		ret = fold_kernel(t, 1, err);
		if (ret)
			return ret;
		report_output_interval(t->ro);
		t->next_interval += t->o->interval;
	}
	if (last) {
		ret = fold_kernel(t, 0, err);
		if (ret)
			return ret;
		release_hists(t);
		ret = report_output_end(t->ro, err);
		if (ret)
			return ret;
	}
	return flush(t, err);
}

/* ---- leftovers ---- */

/* 1 for the group of a tracekit trace whose process is gone. */
static int group_is_stale(const char *group)
{
	size_t n = strlen(TRACE_GROUP_PREFIX);
	char *end;
	long pid;

	if (strncmp(group, TRACE_GROUP_PREFIX, n))
		return 0;
	errno = 0;
	pid = strtol(group + n, &end, 10);
	if (errno || end == group + n || *end || pid <= 0 || pid > INT_MAX)
		return 0;
	/* EPERM: alive, someone else's. */
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* A warning for each line of lines, fmt's %.*s the line. */
static void warn_lines(const struct trace_opts *o, const struct strbuf *lines,
		       const char *fmt)
{
	struct strbuf msg = STRBUF_INIT;
	const char *p, *nl;

	for (p = lines->buf; o->warn && (nl = strchr(p, '\n')); p = nl + 1) {
		strbuf_reset(&msg);
		strbuf_addf(&msg, fmt, (int)(nl - p), p);
		o->warn(msg.buf, o->data);
	}
	strbuf_release(&msg);
}

/*
 * A run killed by SIGKILL left --latency's synthetic event and its
 * triggers (the one in the instance too, which holds the event busy
 * even once the instance is gone), its instance (events enabled in it)
 * and its probes: in that order they can go, each busy until what is
 * before it is gone.
 */
static void remove_leftovers(const struct trace_opts *o)
{
	struct strbuf msg = STRBUF_INIT, done = STRBUF_INIT;
	struct probe_defs defs = { 0 };
	int i;

	if (trace_synth_remove_stale(&done) > 0)
		warn_lines(o, &done, "removed %.*s: it is gone");
	strbuf_reset(&done);
	if (tk_instance_remove_stale("tracekit-", &done) > 0)
		warn_lines(o, &done, "removed instance %.*s: its recorder is gone");
	if (probe_defs_read(&defs))
		goto out;
	for (i = 0; i < defs.nr; i++) {
		const char *group = defs.v[i].group;

		if ((i && !strcmp(group, defs.v[i - 1].group)) ||
		    !group_is_stale(group))
			continue;
		strbuf_reset(&msg);
		strbuf_addf(&msg, "%s:*", group);
		strbuf_reset(&done);
		if (probe_defs_del(msg.buf, &done, &done) <= 0)
			continue;
		strbuf_reset(&msg);
		strbuf_addf(&msg, "removed the probes of %s: its tracekit trace is gone",
			    group);
		if (o->warn)
			o->warn(msg.buf, o->data);
	}
out:
	probe_defs_release(&defs);
	strbuf_release(&msg);
	strbuf_release(&done);
}

/* ---- the run ---- */

/*
 * 0 when the kernel's hist triggers can aggregate what o asks, else
 * -EOPNOTSUPP with why (-ENODEV: the kernel has none).
 */
static int kernel_can(const struct trace_opts *o, struct strbuf *why)
{
	const char *user =
		!o->agg ? "--where: there is no aggregation to make" :
		o->agg->latency[0] && (o->rec.pid || o->rec.argv) ?
			"--latency's synthetic event sees every task (its triggers are the top level's), not -P's or COMMAND's" :
		o->rec.output ? "-o writes the events, which a hist trigger keeps to itself" :
		o->probe.call_graph ? "--call-graph's stacks are unwound in user space" :
		o->rec.stacktrace ? "the kstack key is read from the stack traces the ring buffer holds" :
		NULL;

	if (user) {
		strbuf_addstr(why, user);
		return -EOPNOTSUPP;
	}
	if (!tk_features()->hist_triggers) {
		strbuf_addstr(why, "this kernel has no hist triggers (CONFIG_HIST_TRIGGERS)");
		return -ENODEV;
	}
	if (o->agg->latency[0] && !tk_features()->synth_events) {
		strbuf_addstr(why, "this kernel has no synthetic events, which --latency needs");
		return -ENODEV;
	}
	return trace_hist_supported(o->agg, why);
}

/* --where: 1 for the kernel, 0 for user space, or kernel_can()'s error. */
static int choose_where(const struct trace_opts *o, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, msg = STRBUF_INIT;
	int ret = o->where == TRACE_WHERE_USER ? -EOPNOTSUPP :
		  kernel_can(o, &why);

	if (ret && o->where == TRACE_WHERE_KERNEL) {
		strbuf_addf(err, "--where kernel: %s", why.buf);
	} else if (o->agg && o->note) {
		if (!ret)
			strbuf_addstr(&msg, "aggregating in the kernel, with hist triggers\n");
		else if (o->where == TRACE_WHERE_USER)
			strbuf_addstr(&msg, "aggregating in user space (--where user)\n");
		else
			strbuf_addf(&msg, "aggregating in user space: %s\n",
				    why.buf);
		o->note(msg.buf, o->data);
	}
	strbuf_release(&why);
	strbuf_release(&msg);
	return ret && o->where == TRACE_WHERE_KERNEL ? ret : !ret;
}

static void show_warning(const char *msg, void *data)
{
	const struct trace_opts *o = data;

	if (o->warn)
		o->warn(msg, o->data);
}

int trace_run(const struct trace_opts *o, struct probe_output *said,
	      struct record_result *res, struct strbuf *err)
{
	struct trace t = { .o = o, .out = STRBUF_INIT };
	struct record_live live = {
		.period_ms = TRACE_PERIOD_MS, .start = live_start,
		.pages = live_pages, .round = live_round, .data = &t,
	};
	const struct record_hooks hooks = {
		.warn = show_warning, .data = (void *)o,
	};
	struct probe_add_opts po = o->probe;
	struct record_opts ro = o->rec;
	struct record_event *events;
	char group[32];
	int i, ret = 0;

	memset(res, 0, sizeof(*res));
	res->child_status = -1;
	ret = choose_where(o, err);
	if (ret < 0)
		return ret;
	t.kernel = ret;
	ret = 0;
	t.named = xcalloc(TRACE_MAX_PID / 8, 1);
	t.oo.format = o->format;
	t.oo.agg = o->agg;
	tk_restore_install();
	remove_leftovers(o);
	snprintf(group, sizeof(group), TRACE_GROUP_PREFIX "%d", (int)getpid());
	po.group = group;
	po.undo = 1;
	if (o->nr_specs)
		ret = probe_add(&po, o->specs, o->nr_specs, said);
	if (ret)
		goto out;
	events = xcalloc(o->rec.nr_events + said->nr_events, sizeof(*events));
	for (i = 0; i < o->rec.nr_events; i++)
		events[i] = o->rec.events[i];
	for (i = 0; i < said->nr_events; i++)
		events[o->rec.nr_events + i].spec = said->events[i];
	ro.events = events;
	ro.nr_events = o->rec.nr_events + said->nr_events;
	live.events_off = t.kernel;
	ro.live = &live;
	ret = record_run(&ro, &hooks, res, err);
	free(events);
out:
	release_hists(&t);
	tk_restore_run();
	report_output_free(t.ro);
	if (t.opened)
		report_release(&t.r);
	strbuf_release(&t.out);
	free(t.named);
	return ret;
}
