// SPDX-License-Identifier: GPL-2.0
/*
 * Running the selected tests of `tracekit test`: each in a forked child in
 * its own process group with its output captured, up to --jobs at once,
 * those that may touch the host's tracefs one at a time under a lock and
 * compared before and after; results shown in the tests' order, then the
 * summary of the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/run.h"
#include "tests/runner.h"
#include "tests/tests.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
#include "util/usage.h"

enum outcome { OUT_OK, OUT_FAIL, OUT_SKIP };

/* A selected test: where it is in its run, and what it came to. */
struct result {
	const struct test_entry *t;
	int num;		/* the test's number */
	int started, done, header_shown;
	enum outcome r;
	double secs;
	struct strbuf why, cap, output;
};

/* A running test. */
struct job {
	struct result *res;
	pid_t pid;		/* 0: the slot is free */
	int timed_out, limit;
	double started, killed_at;
	struct strbuf before;	/* tracefs, for a host_tracefs test */
	struct strbuf out_path, skip_path;
};

static volatile sig_atomic_t interrupted;
static volatile pid_t job_pids[TEST_RUN_MAX_JOBS];
static volatile pid_t lock_waiter;

static void forward_signal(int sig)
{
	int i;

	interrupted = 1;
	for (i = 0; i < TEST_RUN_MAX_JOBS; i++)
		if (job_pids[i] > 0)
			kill(-job_pids[i], sig);
	if (lock_waiter > 0)
		kill(lock_waiter, SIGKILL);
}

static void run_in_child(const struct test_entry *t, int out_fd)
{
	int ret;

	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	close(out_fd);
	if (t->script) {
		execl("/bin/bash", "bash", t->script, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", t->script,
			strerror(errno));
		_exit(1);
	}
	ret = t->func();
	fflush(stdout);
	fflush(stderr);
	_exit(ret == TEST_OK ? 0 : ret == TEST_SKIP ? 2 : 1);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * At boot the kernel's ring buffers are minimal; the first event enabled
 * expands them, for good: buffer_size_kb reads "7 (expanded: 1408)"
 * before and "1408" after, until the next boot.  Whichever test enabled
 * the first event (its own or trace-cmd's) would see that as its residue,
 * so a run that may touch tracefs does it once, under the lock before
 * its first test that may, and says so under -v.  It writes the size the
 * kernel would expand to, which buffer_size_kb then shows rounded to
 * whole pages ("1410" on 6.1 and 6.18): the buffers are marked expanded,
 * so no event changes it after.
 */
static void expand_ring_buffers(int verbose)
{
	struct strbuf val = STRBUF_INIT, now = STRBUF_INIT;
	const char *p;
	char size[32];

	if (!tk_tracefs_dir() || geteuid() != 0)
		return;
	if (tk_tracefs_read(NULL, "buffer_size_kb", &val) >= 0 &&
	    (p = strstr(val.buf, "(expanded: "))) {
		snprintf(size, sizeof(size), "%lu",
			 strtoul(p + strlen("(expanded: "), NULL, 10));
		strbuf_rtrim(&val);
		if (tk_tracefs_write(NULL, "buffer_size_kb", size))
			error("cannot expand the ring buffers to %s KB", size);
		tk_tracefs_read(NULL, "buffer_size_kb", &now);
		strbuf_rtrim(&now);
		if (verbose)
			printf("tracekit test: ring buffers expanded once "
			       "for this boot "
			       "(the first enabled event would, for good): "
			       "buffer_size_kb \"%s\" -> \"%s\"\n",
			       val.buf, now.buf);
	}
	strbuf_release(&val);
	strbuf_release(&now);
}

/*
 * Tests of concurrent `tracekit test` runs on one machine would see each
 * other's probes and instances as residue: tests that may touch the host
 * tracefs take this lock for their duration.
 */
#define TRACEFS_LOCK "/run/lock/tracekit-test.lock"

/*
 * The host's tracefs, for one test at a time, taken without blocking the
 * run, so that the tests that leave tracefs alone go on while another
 * `tracekit test` holds it: a child waits in flock() on the runner's own
 * open file description, and the lock it takes is the runner's (flock(2)
 * locks belong to the description), held until the runner closes it.
 */
struct tracefs_lock {
	int fd;
	int held;
	int told;	/* "waiting" said once per run */
};

static int tracefs_lock_try(struct tracefs_lock *l)
{
	int status;

	if (l->held)
		return 1;
	if (getenv("TRACEKIT_TEST_LOCK_HELD")) {
		l->fd = -1;
		return l->held = 1;
	}
	if (lock_waiter > 0) {
		if (waitpid(lock_waiter, &status, WNOHANG) != lock_waiter)
			return 0;
		lock_waiter = 0;
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			return l->held = 1;
		close(l->fd);
		l->fd = -1;
		/* Killed (the run is interrupted), or flock() failed. */
		return l->held = WIFEXITED(status);
	}
	/* No /run/lock, or a lock that cannot be taken: run unlocked. */
	l->fd = open(TRACEFS_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (l->fd < 0)
		return l->held = 1;
	if (!flock(l->fd, LOCK_EX | LOCK_NB))
		return l->held = 1;
	if (!l->told++)
		fprintf(stderr, "tracekit test: waiting for %s: another run "
			"holds the host's tracefs\n", TRACEFS_LOCK);
	lock_waiter = fork();
	if (lock_waiter < 0)
		die_code(TK_EXIT_ENV, "fork: %s", strerror(errno));
	if (!lock_waiter) {
		while (flock(l->fd, LOCK_EX) < 0)
			if (errno != EINTR)
				_exit(1);
		_exit(0);
	}
	return 0;
}

static void tracefs_lock_release(struct tracefs_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	l->held = 0;
}

static void job_start(struct job *j, struct result *res,
		      const struct test_run_opts *o, int slot)
{
	int fd;

	j->res = res;
	j->timed_out = 0;
	j->killed_at = 0;
	j->limit = res->t->timeout ? res->t->timeout : o->timeout;
	strbuf_reset(&j->out_path);
	strbuf_reset(&j->skip_path);
	strbuf_addf(&j->out_path, "%s/out-%d", o->tmpdir, res->num);
	strbuf_addf(&j->skip_path, "%s/skip-%d", o->tmpdir, res->num);
	res->started = 1;
	fd = open(j->out_path.buf, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		strbuf_addf(&res->why, "cannot create %s: %s", j->out_path.buf,
			    strerror(errno));
		res->r = OUT_FAIL;
		res->done = 1;
		return;
	}
	strbuf_reset(&j->before);
	if (res->t->host_tracefs)
		test_tracefs_snapshot(&j->before);
	fflush(stdout);
	fflush(stderr);
	j->started = now_sec();
	j->pid = fork();
	if (j->pid < 0)
		die_code(TK_EXIT_ENV, "fork: %s", strerror(errno));
	if (!j->pid) {
		setpgid(0, 0);
		setenv("TRACEKIT_SKIP_FILE", j->skip_path.buf, 1);
		if (res->t->host_tracefs)
			setenv("TRACEKIT_TEST_LOCK_HELD", "1", 1);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		run_in_child(res->t, fd);
	}
	setpgid(j->pid, j->pid);
	job_pids[slot] = j->pid;
	close(fd);
}

/* Kills a job past its time: TERM first so its traps restore tracefs. */
static void job_watch(struct job *j)
{
	double now = now_sec();

	if (!j->killed_at && now > j->started + j->limit) {
		j->timed_out = 1;
		kill(-j->pid, SIGTERM);
		j->killed_at = now;
	} else if (j->killed_at && now > j->killed_at + 10) {
		kill(-j->pid, SIGKILL);
	}
}

/*
 * The outcome of a job that ended with status (-1: not waitable); on
 * OUT_SKIP, res->cap holds the capability the skip names (a skip whose
 * claim the caps do not bear out is OUT_FAIL).
 */
static void job_finish(struct job *j, int status, const struct test_run_opts *o)
{
	struct result *res = j->res;
	struct strbuf after = STRBUF_INIT;

	res->secs = now_sec() - j->started;
	if (res->t->host_tracefs)
		test_tracefs_snapshot(&after);
	if (j->timed_out) {
		strbuf_addf(&res->why, "timed out after %d s", j->limit);
		res->r = OUT_FAIL;
	} else if (status < 0 || WIFSIGNALED(status)) {
		strbuf_addf(&res->why, "killed by signal %d",
			    status < 0 ? 0 : WTERMSIG(status));
		res->r = OUT_FAIL;
	} else if (WEXITSTATUS(status) == 0) {
		res->r = OUT_OK;
	} else if (WEXITSTATUS(status) == 2) {
		struct strbuf reason = STRBUF_INIT;
		size_t nl;

		strbuf_read_file(&reason, j->skip_path.buf, 0);
		strbuf_rtrim(&reason);
		nl = strcspn(reason.buf, "\n");
		strbuf_add(&res->cap, reason.buf, nl);
		strbuf_addstr(&res->why, reason.buf[nl] ? reason.buf + nl + 1 :
			      "no reason given");
		strbuf_release(&reason);
		res->r = test_skip_claim_holds(o->caps, res->cap.buf,
					       &res->why) ? OUT_SKIP : OUT_FAIL;
	} else {
		res->r = OUT_FAIL;
	}
	if (strcmp(j->before.buf, after.buf)) {
		if (res->why.len)
			strbuf_addstr(&res->why, "; ");
		test_tracefs_residue(j->before.buf, after.buf, &res->why);
		res->r = OUT_FAIL;
	}
	if (o->verbose)
		strbuf_read_file(&res->output, j->out_path.buf, 0);
	unlink(j->out_path.buf);
	unlink(j->skip_path.buf);
	strbuf_release(&after);
	j->pid = 0;
	res->done = 1;
}

static void show_header(struct result *res, const struct test_run_opts *o)
{
	if (res->header_shown)
		return;
	printf("%3d: %-60s:%s", res->num, res->t->desc,
	       o->verbose ? "\n" : " ");
	fflush(stdout);
	res->header_shown = 1;
}

static void show_result(struct result *res, const struct test_run_opts *o)
{
	show_header(res, o);
	if (o->verbose) {
		struct strbuf *out = &res->output;

		printf("--- start ---\n%s%s---- end (%.1f s) ----\n", out->buf,
		       out->len && out->buf[out->len - 1] != '\n' ? "\n" : "",
		       res->secs);
		printf("%3d: %-60s: ", res->num, res->t->desc);
	}
	switch (res->r) {
	case OUT_OK:
		printf("Ok\n");
		break;
	case OUT_SKIP:
		printf("Skip (%s: %s)\n", res->cap.buf, res->why.buf);
		break;
	case OUT_FAIL:
		printf("FAILED!%s%s%s\n", res->why.len ? " (" : "",
		       res->why.buf, res->why.len ? ")" : "");
		break;
	}
	fflush(stdout);
}

static int starts_before(const struct result *a, const struct result *b)
{
	int la = a->t->host_tracefs ? 0 : a->t->timeout;
	int lb = b->t->host_tracefs ? 0 : b->t->timeout;

	return la > lb;
}

/*
 * Runs the selected tests, up to o->jobs at once and one at a time of
 * those that may touch the host's tracefs (its lock); results print in
 * the tests' order, and the first unfinished one's header as soon as it
 * runs, so that a hung test is named.
 */
static void run_tests(struct result *v, int nr, const struct test_run_opts *o)
{
	struct job jobs[TEST_RUN_MAX_JOBS];
	struct tracefs_lock lock = { .fd = -1 };
	struct result **order;
	int shown = 0, running = 0, host_running = 0, expanded = 0, i;

	/*
	 * With several at once, the untouched tests with a time limit of
	 * their own (the VM suites, which run longest) start first, longest
	 * limit first, so that the run does not end waiting for one of
	 * them started last; the others keep their order.
	 */
	order = xmalloc((nr ? nr : 1) * sizeof(*order));
	for (i = 0; i < nr; i++)
		order[i] = &v[i];
	if (o->jobs > 1)
		for (i = 1; i < nr; i++) {
			struct result *res = order[i];
			int k = i;

			while (k > 0 && starts_before(res, order[k - 1])) {
				order[k] = order[k - 1];
				k--;
			}
			order[k] = res;
		}
	for (i = 0; i < o->jobs; i++) {
		jobs[i].pid = 0;
		strbuf_init(&jobs[i].before, 0);
		strbuf_init(&jobs[i].out_path, 0);
		strbuf_init(&jobs[i].skip_path, 0);
	}
	while (shown < nr) {
		int k = 0, host_blocked = 0;

		/* Start the first tests that can start, in order. */
		for (i = 0; i < nr && running < o->jobs && !interrupted; i++) {
			struct result *res = order[i];

			if (res->started)
				continue;
			/* Those that touch tracefs start in their order. */
			if (res->t->host_tracefs &&
			    (host_blocked || host_running ||
			     !tracefs_lock_try(&lock))) {
				host_blocked = 1;
				continue;
			}
			if (res->t->host_tracefs && !expanded++)
				expand_ring_buffers(o->verbose);
			while (jobs[k].pid)
				k++;
			job_start(&jobs[k], res, o, k);
			if (res->done) {
				if (res->t->host_tracefs)
					tracefs_lock_release(&lock);
				continue;
			}
			running++;
			host_running += res->t->host_tracefs;
		}
		/* Show what is done, in order; name the next while it runs. */
		while (shown < nr && v[shown].done)
			show_result(&v[shown++], o);
		if (shown < nr && v[shown].started)
			show_header(&v[shown], o);
		if (shown == nr || (interrupted && !running))
			break;
		usleep(20000);
		for (k = 0; k < o->jobs; k++) {
			struct job *j = &jobs[k];
			pid_t r;
			int status;

			if (!j->pid)
				continue;
			r = waitpid(j->pid, &status, WNOHANG);
			if (r == 0) {
				job_watch(j);
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			job_pids[k] = 0;
			job_finish(j, r == j->pid ? status : -1, o);
			running--;
			if (j->res->t->host_tracefs) {
				host_running = 0;
				tracefs_lock_release(&lock);
			}
		}
	}
	if (lock_waiter > 0) {
		kill(lock_waiter, SIGKILL);
		waitpid(lock_waiter, NULL, 0);
		lock_waiter = 0;
	}
	tracefs_lock_release(&lock);
	free(order);
	for (i = 0; i < o->jobs; i++) {
		strbuf_release(&jobs[i].before);
		strbuf_release(&jobs[i].out_path);
		strbuf_release(&jobs[i].skip_path);
	}
}

/* The skip ledger's lines: a capability and the tests skipped for it. */
struct ledger {
	struct strbuf *cap, *tests;
	int nr;
};

static void ledger_add(struct ledger *l, const char *cap, int num)
{
	int i;

	for (i = 0; i < l->nr && strcmp(l->cap[i].buf, cap); i++)
		;
	if (i == l->nr) {
		l->cap = xrealloc(l->cap, (l->nr + 1) * sizeof(*l->cap));
		l->tests = xrealloc(l->tests, (l->nr + 1) * sizeof(*l->tests));
		strbuf_init(&l->cap[i], 0);
		strbuf_init(&l->tests[i], 0);
		strbuf_addstr(&l->cap[i], cap);
		l->nr++;
	}
	strbuf_addf(&l->tests[i], " %d", num);
}

static void ledger_print_free(struct ledger *l)
{
	int i;

	if (l->nr)
		printf("skip ledger (capability: tests skipped for it):\n");
	for (i = 0; i < l->nr; i++) {
		printf("  %s:%s\n", l->cap[i].buf, l->tests[i].buf);
		strbuf_release(&l->cap[i]);
		strbuf_release(&l->tests[i]);
	}
	free(l->cap);
	free(l->tests);
}

static int cmp_slower(const void *a, const void *b)
{
	const struct result *x = *(struct result *const *)a;
	const struct result *y = *(struct result *const *)b;

	if (x->secs != y->secs)
		return x->secs < y->secs ? 1 : -1;
	return x->num - y->num;
}

/*
 * The ten slowest of a run of several tests, so that a suite growing past
 * its CI budget shows where the time went without -v.
 */
static void print_slowest(struct result *v, int nr)
{
	struct result **order;
	int i, n = 0;

	order = xmalloc((nr ? nr : 1) * sizeof(*order));
	for (i = 0; i < nr; i++)
		if (v[i].done)
			order[n++] = &v[i];
	if (n > 1) {
		qsort(order, n, sizeof(*order), cmp_slower);
		printf("slowest tests (wall time):\n");
		for (i = 0; i < n && i < 10; i++)
			printf("  %7.1f s %3d: %s\n", order[i]->secs,
			       order[i]->num, order[i]->t->desc);
	}
	free(order);
}

/* The selected tests, in the list's order. */
struct test_run {
	struct result *v;
	int nr;
};

void test_run_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

struct test_run *test_run_select(const struct test_list *tests, int argc,
				 const char **argv)
{
	struct test_run *run = xcalloc(1, sizeof(*run));
	struct result *results;
	int i, n = 0;

	results = xcalloc(tests->nr ? tests->nr : 1, sizeof(*results));
	for (i = 0; i < tests->nr; i++) {
		struct result *res = &results[n];

		if (!test_selected(&tests->v[i], i + 1, argc, argv))
			continue;
		res->t = &tests->v[i];
		res->num = i + 1;
		strbuf_init(&res->why, 0);
		strbuf_init(&res->cap, 0);
		strbuf_init(&res->output, 0);
		n++;
	}
	run->v = results;
	run->nr = n;
	return run;
}

int test_run_count(const struct test_run *run)
{
	return run->nr;
}

void test_run_tests(struct test_run *run, const struct test_run_opts *o)
{
	run_tests(run->v, run->nr, o);
}

int test_run_summary(const struct test_run *run)
{
	struct ledger ledger = { 0 };
	int passed = 0, failed = 0, skipped = 0, i;

	for (i = 0; i < run->nr; i++) {
		struct result *res = &run->v[i];

		if (!res->done)
			continue;
		if (res->r == OUT_OK) {
			passed++;
		} else if (res->r == OUT_SKIP) {
			skipped++;
			ledger_add(&ledger, res->cap.buf, res->num);
		} else {
			failed++;
		}
	}
	if (interrupted)
		printf("interrupted\n");
	print_slowest(run->v, run->nr);
	ledger_print_free(&ledger);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed || interrupted;
}

void test_run_free(struct test_run *run)
{
	int i;

	if (!run)
		return;
	for (i = 0; i < run->nr; i++) {
		strbuf_release(&run->v[i].why);
		strbuf_release(&run->v[i].cap);
		strbuf_release(&run->v[i].output);
	}
	free(run->v);
	free(run);
}
