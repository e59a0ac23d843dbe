// SPDX-License-Identifier: GPL-2.0
/*
 * record: the session (checks, signal routing, the order of setup, the
 * COMMAND, the wait loop, the wrap-up); the parts are in record-int.h.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/array.h"
#include "util/parse-options.h"
#include "util/record-int.h"
#include "util/tracedat-write.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"
#include "util/usage.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void record_error(struct record *rec, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&rec->msgs.lock);
	va_start(ap, fmt);
	strbuf_vaddf(rec->msgs.sb, fmt, ap);
	va_end(ap);
	strbuf_addch(rec->msgs.sb, '\n');
	pthread_mutex_unlock(&rec->msgs.lock);
}

void record_warn(struct record *rec, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!rec->hooks->warn)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rec->hooks->warn(sb.buf, rec->hooks->data);
	strbuf_release(&sb);
}

static int open_pidfd(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

static void report_status(struct record *rec, double start, uint64_t *lost)
{
	struct record_status st = { 0 };
	int *cpu = xcalloc(rec->setup.nr_cpus, sizeof(*cpu));
	int i;

	for (i = 0; i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];
		struct cpu_stats s = { 0 };

		record_read_stats(r, &s, NULL);
		st.events += (s.read - r->base.read) + s.entries;
		lost[i] = record_stats_lost(&s, &r->base);
		st.bytes_in += __atomic_load_n(&r->bytes_in, __ATOMIC_RELAXED);
		st.bytes_out += __atomic_load_n(&r->comp.bytes_out,
						__ATOMIC_RELAXED);
		cpu[i] = r->cpu;
	}
	st.elapsed = now_s() - start;
	st.nr_cpus = rec->setup.nr_cpus;
	st.cpu = cpu;
	st.lost = lost;
	rec->hooks->status(&st, rec->hooks->data);
	free(cpu);
}

/* Waits for the end of the recording; returns the stopping signal or 0. */
static int wait_for_end(struct record *rec, int sfd, int pidfd,
			struct record_result *res)
{
	const struct record_opts *o = rec->o;
	double start = now_s(), next = start + 1, round = start;
	uint64_t *lost = xcalloc(rec->setup.nr_cpus, sizeof(*lost));
	/*
	 * The live view also wakes when a ring buffer is buffer_percent
	 * full: a burst would fill it before the period is up.
	 */
	int nfds = 3 + (o->live ? rec->setup.nr_cpus : 0), sig = 0, i;
	struct pollfd *pfd = xcalloc(nfds, sizeof(*pfd));

	for (;;) {
		double t = now_s(), until = 0;
		int timeout = -1;

		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = rec->threads.fail_fd,
					  .events = POLLIN };
		/* poll() passes over a negative fd */
		pfd[2] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		for (i = 3; i < nfds; i++)
			pfd[i] = (struct pollfd){
				.fd = rec->setup.cpus[i - 3].fd,
				.events = POLLIN };

		if (o->duration > 0 && t >= start + o->duration)
			break;
		if (o->live && t >= round) {
			if (record_live_read(rec, 0))
				break;
			round = t + o->live->period_ms / 1000.0;
			continue;
		}
		if (rec->hooks->status && t >= next) {
			report_status(rec, start, lost);
			next = t + 1;
			continue;
		}
		/*
		 * The status deadline counts only with a status line: without
		 * one it is never moved on, and once past it would make the
		 * timeout negative, which poll() takes as "forever".
		 */
		if (rec->hooks->status)
			until = next;
		if (o->duration > 0 && (!until || start + o->duration < until))
			until = start + o->duration;
		if (o->live && (!until || round < until))
			until = round;
		if (until)
			timeout = (int)((until - t) * 1000) + 1;
		if (poll(pfd, nfds, timeout) <= 0)
			continue;
		for (i = 3; i < nfds; i++)
			if (pfd[i].revents & POLLIN)
				round = t;
		if (pfd[1].revents & POLLIN)
			break;
		if (pfd[2].revents & POLLIN)
			break;
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			int status;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo != SIGCHLD) {
				sig = si.ssi_signo;
				break;
			}
			if (rec->setup.proc_map ?
				    record_procmap_reap(rec, &status) :
				    command_exited(&rec->wait.cmd, &status)) {
				res->child_status = status;
				break;
			}
		}
	}
	if (rec->hooks->status)
		report_status(rec, start, lost);
	free(lost);
	free(pfd);
	return sig;
}

/* ---- the live view ---- */

/* record_live's file of no events, in memory, given to its start(). */
static int start_live(struct record *rec)
{
	const struct record_live *live = rec->o->live;
	struct strbuf err = STRBUF_INIT;
	struct record_live_start st = {
		.fd = memfd_create("tracekit-live", MFD_CLOEXEC),
		.instance = rec->setup.inst,
		.nr_events = rec->setup.nr_events,
	};
	struct record_live_event *evs = xcalloc(st.nr_events + 1,
						 sizeof(*evs));
	int i, ret;

	if (st.fd < 0) {
		ret = -errno;
		record_error(rec, "memfd_create: %s", strerror(errno));
		free(evs);
		return ret;
	}
	for (i = 0; i < st.nr_events; i++) {
		evs[i].system = rec->setup.events[i].system;
		evs[i].name = rec->setup.events[i].name;
		evs[i].filter = rec->setup.events[i].filter;
	}
	st.events = evs;
	ret = record_write_snapshot(rec, st.fd);
	if (!ret) {
		ret = live->start(live->data, &st, &err);
		if (ret)
			record_error(rec, "%s", err.buf);
	}
	close(st.fd);
	free(evs);
	strbuf_release(&err);
	return ret;
}

/* Without a file, the counts the trailer would have read. */
static void finish_live(struct record *rec, struct record_result *res)
{
	int i;

	for (i = 0; i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];
		struct cpu_stats st = { 0 };

		if (!record_read_stats(r, &st, NULL)) {
			res->events += st.read - r->base.read;
			res->lost += record_stats_lost(&st, &r->base);
		}
		res->bytes_in += r->bytes_in;
	}
}

/* ---- the session ---- */

static void release(struct record *rec)
{
	int i;

	for (i = 0; i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];

		if (r->comp.scratch >= 0)
			close(r->comp.scratch);
		if (r->comp.scratch_old >= 0)
			close(r->comp.scratch_old);
		/* record_live's, when the recording failed before its end */
		free(r->live);
	}
	free(rec->setup.cpus);
	while (rec->threads.free) {
		struct chunk *c = rec->threads.free;

		rec->threads.free = c->next;
		free(c);
	}
	for (i = 0; i < rec->setup.nr_events; i++) {
		free(rec->setup.events[i].system);
		free(rec->setup.events[i].name);
		strbuf_release(&rec->setup.events[i].format);
	}
	free(rec->setup.events);
	free(rec->setup.ksym_ids);
	record_procmap_release(rec);
	strbuf_release(&rec->setup.signed_fields);
	if (rec->out.fd >= 0)
		close(rec->out.fd);
	if (rec->out.tmp)
		unlink(rec->out.tmp);
	free(rec->out.tmp);
	free(rec->out.dir);
	tracedat_write_free(rec->out.w);
	child_process_clear(&rec->wait.cmd);
	if (rec->threads.stop_fd >= 0)
		close(rec->threads.stop_fd);
	if (rec->threads.fail_fd >= 0)
		close(rec->threads.fail_fd);
	pthread_mutex_destroy(&rec->threads.lock);
	pthread_mutex_destroy(&rec->msgs.lock);
	pthread_cond_destroy(&rec->threads.queued);
	pthread_cond_destroy(&rec->threads.freed);
}

int record_run(const struct record_opts *o, const struct record_hooks *hooks,
	       struct record_result *res, struct strbuf *errbuf)
{
	static const struct record_hooks no_hooks;
	struct record rec = {
		.o = o, .hooks = hooks ? hooks : &no_hooks,
		.setup.signed_fields = STRBUF_INIT,
		.threads.stop_fd = -1, .threads.fail_fd = -1,
		.out.fd = -1,
		.wait.cmd = CHILD_PROCESS_INIT, .wait.cmd_status = -1,
		.msgs.sb = errbuf,
	};
	struct strbuf err = STRBUF_INIT;
	sigset_t mask, oldmask;
	pthread_condattr_t monotonic;
	int sfd = -1, pidfd = -1, blocked = 0, tracing = 0, ret;

	memset(res, 0, sizeof(*res));
	res->child_status = -1;
	pthread_mutex_init(&rec.threads.lock, NULL);
	pthread_mutex_init(&rec.msgs.lock, NULL);
	pthread_cond_init(&rec.threads.queued, NULL);
	/* wait_check()'s deadline is on the monotonic clock. */
	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&rec.threads.freed, &monotonic);
	pthread_condattr_destroy(&monotonic);
	rec.threads.tail = &rec.threads.head;
	if (o->output || !o->live)
		rec.out.path = (char *)(o->output ? o->output : "trace.dat");

	if (!tk_tracefs_dir()) {
		record_error(&rec, "tracefs is not mounted");
		ret = -ENODEV;
		goto out;
	}
	if (!o->nr_events && !o->tracer) {
		record_error(&rec, "nothing to record: give -e EVENT or -p TRACER");
		ret = -EINVAL;
		goto out;
	}
	/*
	 * Watched from now: a pid that exits while the metadata are written
	 * (seconds at -z 19) is gone by the time tracing starts, and
	 * pidfd_open() of it then fails; the recording never ended.
	 */
	if (o->pid > 0) {
		pidfd = open_pidfd(o->pid);
		if (pidfd < 0 && errno == ESRCH) {
			record_error(&rec, "-P %d: no such process", o->pid);
			ret = -ESRCH;
			goto out;
		}
		if (pidfd < 0)
			record_warn(&rec, "-P %d: its exit cannot be watched (pidfd_open: %s): "
				    "stop with Ctrl-C or --duration", o->pid, strerror(errno));
	}
	/*
	 * Signals are events of the main loop, not deaths, from the start: a
	 * handler that restored tracefs while our trace_pipe_raw files are
	 * open could not remove the instance.  One that comes during setup
	 * ends the recording as soon as it starts.
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &mask, &oldmask);
	blocked = 1;
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	rec.threads.stop_fd = eventfd(0, EFD_CLOEXEC);
	rec.threads.fail_fd = eventfd(0, EFD_CLOEXEC);
	if (sfd < 0 || rec.threads.stop_fd < 0 || rec.threads.fail_fd < 0) {
		ret = -errno;
		record_error(&rec, "signalfd/eventfd: %s", strerror(errno));
		goto out;
	}
	ret = rec.out.path ? record_open_output(&rec) : 0;
	if (ret)
		goto out;
	tk_restore_install();
	ret = record_setup_tracefs(&rec);
	if (ret)
		goto out;
	rec.setup.psize = record_subbuf_size(&rec);
	rec.setup.chunk_size = (size_t)rec.setup.psize * CHUNK_PAGES;
	/* -m keeps whole halves of max_kb: a chunk must fit in one. */
	if (o->max_kb && o->max_kb * 1024 / 2 < rec.setup.chunk_size)
		rec.setup.chunk_size = o->max_kb * 1024 / 2 < rec.setup.psize ?
				       rec.setup.psize : o->max_kb * 1024 / 2 /
				       rec.setup.psize * rec.setup.psize;
	ret = rec.out.path ? record_write_metadata(&rec) : 0;
	if (ret)
		goto out;
	ret = record_open_readers(&rec);
	if (ret)
		goto out;

	if (o->argv) {
		/*
		 * Gated until the pid filter names it and tracing is on; in the
		 * child, the signals blocked here for the main loop are not.
		 */
		rec.wait.cmd.argv = o->argv;
		rec.wait.cmd.sigmask = &oldmask;
		rec.wait.cmd.gated = 1;
		ret = start_command(&rec.wait.cmd, &err);
		if (ret)
			record_error(&rec, "%s", err.buf);
		else
			ret = record_set_pid_filter(&rec, rec.wait.cmd.pid, 1);
		if (!ret && rec.setup.proc_map)
			ret = record_procmap_attach(&rec, rec.wait.cmd.pid,
						    1, 0);
	} else if (o->pid > 0) {
		ret = record_set_pid_filter(&rec, o->pid, o->children);
		if (!ret && rec.setup.proc_map)
			ret = record_procmap_attach(&rec, o->pid, o->children,
						    1);
	}
	/*
	 * After the pid filter: a hist trigger counts from the moment it
	 * is written, tracing_on or not (a soft-enabled event goes through
	 * a per-CPU scratch buffer, not the ring buffer), but only the
	 * tasks the filter names once there is one.
	 */
	if (!ret && o->live)
		ret = start_live(&rec);
	if (ret)
		goto out;
	ret = record_start_threads(&rec);
	if (ret) {
		record_error(&rec, "cannot start threads: %s", strerror(-ret));
		goto out;
	}
	ret = tk_tracefs_write(rec.setup.inst, "tracing_on", "1");
	tracing = !ret;
	if (ret) {
		record_error(&rec, "tracing_on: %s", strerror(-ret));
		goto out;
	}
	if (o->argv) {
		ret = release_command(&rec.wait.cmd);
		if (ret) {
			record_error(&rec, "%s: %s", o->argv[0], strerror(-ret));
			goto out;
		}
	}

	res->signal = wait_for_end(&rec, sfd, pidfd, res);
	tk_tracefs_write(rec.setup.inst, "tracing_on", "0");
	if (rec.setup.proc_map)
		record_procmap_finish(&rec);
	tracing = 0;
	if (o->live && !rec.threads.err)
		record_live_read(&rec, 1);
	record_stop_threads(&rec);
	if (rec.threads.err) {
		ret = rec.threads.err;
		goto out;
	}
	if (!rec.out.path) {
		finish_live(&rec, res);
		goto out;
	}
	ret = record_join_scratch(&rec);
	if (!ret)
		ret = record_write_trailer(&rec, res);
	if (!ret)
		ret = record_publish_output(&rec);
	if (!ret) {
		int i;

		for (i = 0; i < rec.setup.nr_cpus; i++) {
			res->bytes_in += rec.setup.cpus[i].bytes_in;
			res->bytes_out += rec.setup.cpus[i].comp.bytes_out;
		}
	}
out:
	if (tracing)
		tk_tracefs_write(rec.setup.inst, "tracing_on", "0");
	record_stop_threads(&rec);
	if (rec.setup.proc_map)
		record_procmap_finish(&rec);
	if (!rec.wait.cmd.pid && rec.wait.cmd_status != -1)
		res->child_status = rec.wait.cmd_status;
	if (rec.wait.cmd.pid > 0) {
		/* Stopped by a signal or an error: the command goes too. */
		kill(rec.wait.cmd.pid, res->signal ? res->signal : SIGTERM);
		finish_command(&rec.wait.cmd, &res->child_status);
	}
	record_close_readers(&rec);
	tk_restore_run();
	if (sfd >= 0)
		close(sfd);
	if (pidfd >= 0)
		close(pidfd);
	if (blocked) {
		struct timespec zero = { 0, 0 };

		/* A signal that came during the wrap-up has been answered. */
		while (sigtimedwait(&mask, NULL, &zero) > 0)
			;
		pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	}
	release(&rec);
	strbuf_release(&err);
	return ret;
}

/* ---- options shared by the commands that record ---- */

int record_opt_event(const struct option *opt, const char *arg, int unset)
{
	struct record_event_list *ev = opt->value;

	(void)unset;
	grow_array(ev->v, ev->nr, ev->alloc, 8);
	ev->v[ev->nr].spec = arg;
	ev->v[ev->nr].filter = NULL;
	ev->nr++;
	return 0;
}

int record_opt_filter(const struct option *opt, const char *arg, int unset)
{
	struct record_event_list *ev = opt->value;

	(void)unset;
	if (!ev->nr)
		return error("-f '%s': give it after the -e it filters", arg);
	if (ev->v[ev->nr - 1].filter)
		return error("-f '%s': -e %s already has a filter", arg,
			     ev->v[ev->nr - 1].spec);
	ev->v[ev->nr - 1].filter = arg;
	return 0;
}

int record_opt_duration(const struct option *opt, const char *arg, int unset)
{
	double *d = opt->value;
	char *end;

	(void)unset;
	*d = strtod(arg, &end);
	if (end == arg || *end || *d <= 0)
		return error("--%s %s: not a positive number of seconds",
			     opt->long_name, arg);
	return 0;
}
