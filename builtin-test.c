// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit test: built-in self tests in the manner of `perf test`.
 *
 * C suites (tests/tests.h) and shell tests (tests/shell/NAME.sh) are numbered
 * in one list.  Each runs in a forked child in its own process group, with
 * its output captured; tracefs is compared before and after, and a test
 * that leaves it changed fails even if it claimed success.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "tests/runner.h"
#include "tests/tests.h"
#include "util/parse-options.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
#include "util/usage.h"

#ifndef TRACEKIT_SRCDIR
#define TRACEKIT_SRCDIR "."
#endif

struct test_entry {
	char *desc;
	int (*func)(void);
	char *script;		/* shell test path, or NULL for a C suite */
	int host_tracefs;	/* may touch the host's tracefs */
	int timeout;		/* seconds, or 0 for --timeout's */
};

struct test_list {
	struct test_entry *v;
	int nr, alloc;
};

static void add_test(struct test_list *l, const char *desc, int (*func)(void),
		     const char *script, int host_tracefs, int timeout)
{
	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 32;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->nr].desc = xstrdup(desc);
	l->v[l->nr].func = func;
	l->v[l->nr].script = script ? xstrdup(script) : NULL;
	l->v[l->nr].host_tracefs = host_tracefs;
	l->v[l->nr].timeout = timeout;
	l->nr++;
}

static void add_shell_tests(struct test_list *l)
{
	struct test_script *v;
	int nr = test_scripts_find(&v), i;

	for (i = 0; i < nr; i++)
		add_test(l, v[i].desc, NULL, v[i].path, v[i].host_tracefs,
			 v[i].timeout);
	test_scripts_free(v, nr);
}

static void free_tests(struct test_list *l)
{
	int i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].desc);
		free(l->v[i].script);
	}
	free(l->v);
}

static void collect_tests(struct test_list *l)
{
#define TK_ADD_SUITE(name, desc) add_test(l, desc, test__##name, NULL, 1, 0);
#define TK_ADD_FIXTURE(name, desc) add_test(l, desc, test__##name, NULL, 0, 0);
	/*
	 * The framework's self-test wants a list with known outcomes only;
	 * they never touch tracefs, so the run leaves it alone too.
	 */
	if (getenv("TRACEKIT_TEST_FIXTURES")) {
		TK_TEST_FIXTURES(TK_ADD_FIXTURE)
		return;
	}
	TK_TEST_SUITES(TK_ADD_SUITE)
#undef TK_ADD_FIXTURE
#undef TK_ADD_SUITE
	add_shell_tests(l);
}

/*
 * Tests of concurrent `tracekit test` runs on one machine would see each
 * other's probes and instances as residue: tests that may touch the host
 * tracefs take this lock for their duration.
 */
#define TRACEFS_LOCK "/run/lock/tracekit-test.lock"

static int lock_tracefs(void)
{
	int fd;

	/* A test that runs `tracekit test` itself already holds it. */
	if (getenv("TRACEKIT_TEST_LOCK_HELD"))
		return -1;
	fd = open(TRACEFS_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	return fd;
}

/* ---- running one test ---- */

static volatile sig_atomic_t interrupted;
static volatile pid_t running_child;

static void forward_signal(int sig)
{
	interrupted = 1;
	if (running_child > 0)
		kill(-running_child, sig);
}

static void run_in_child(const struct test_entry *t, int out_fd)
{
	int ret;

	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	close(out_fd);
	if (t->script) {
		execl("/bin/bash", "bash", t->script, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", t->script, strerror(errno));
		_exit(1);
	}
	ret = t->func();
	fflush(stdout);
	fflush(stderr);
	_exit(ret == TEST_OK ? 0 : ret == TEST_SKIP ? 2 : 1);
}

enum outcome { OUT_OK, OUT_FAIL, OUT_SKIP };

struct run_opts {
	int verbose;
	int timeout;
	char *tmpdir;
	const char *caps;	/* test_caps_text(), for the skip ledger */
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int wait_with_timeout(pid_t pid, int timeout, int *timed_out)
{
	double deadline = now_sec() + timeout, killed_at = 0;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (!killed_at && now_sec() > deadline) {
			*timed_out = 1;
			/* TERM first so the test's traps can restore tracefs. */
			kill(-pid, SIGTERM);
			killed_at = now_sec();
		} else if (killed_at && now_sec() > killed_at + 10) {
			kill(-pid, SIGKILL);
		}
		usleep(20000);
	}
}

/*
 * Runs test t; on OUT_SKIP, cap holds the capability the skip names (a
 * skip whose claim the caps do not bear out is OUT_FAIL).
 */
static enum outcome run_test(const struct test_entry *t, int num,
			     const struct run_opts *o, struct strbuf *why,
			     struct strbuf *cap, double *secs)
{
	struct strbuf out_path = STRBUF_INIT, skip_path = STRBUF_INIT;
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct strbuf output = STRBUF_INIT;
	enum outcome res;
	int fd, status, timed_out = 0, lock_fd = -1;
	int limit = t->timeout ? t->timeout : o->timeout;
	double started;
	pid_t pid;

	*secs = 0;
	strbuf_addf(&out_path, "%s/out-%d", o->tmpdir, num);
	strbuf_addf(&skip_path, "%s/skip-%d", o->tmpdir, num);
	fd = open(out_path.buf, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		strbuf_addf(why, "cannot create %s: %s", out_path.buf, strerror(errno));
		res = OUT_FAIL;
		goto out;
	}
	setenv("TRACEKIT_SKIP_FILE", skip_path.buf, 1);
	if (t->host_tracefs) {
		lock_fd = lock_tracefs();
		test_tracefs_snapshot(&before);
	}
	fflush(stdout);
	fflush(stderr);
	started = now_sec();
	pid = fork();
	if (pid < 0)
		die_code(TK_EXIT_ENV, "fork: %s", strerror(errno));
	if (!pid) {
		setpgid(0, 0);
		if (lock_fd >= 0)
			setenv("TRACEKIT_TEST_LOCK_HELD", "1", 1);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		run_in_child(t, fd);
	}
	setpgid(pid, pid);
	running_child = pid;
	close(fd);
	status = wait_with_timeout(pid, limit, &timed_out);
	*secs = now_sec() - started;
	running_child = 0;
	if (t->host_tracefs) {
		test_tracefs_snapshot(&after);
		if (lock_fd >= 0)
			close(lock_fd);
	}

	if (timed_out) {
		strbuf_addf(why, "timed out after %d s", limit);
		res = OUT_FAIL;
	} else if (status < 0 || WIFSIGNALED(status)) {
		strbuf_addf(why, "killed by signal %d",
			    status < 0 ? 0 : WTERMSIG(status));
		res = OUT_FAIL;
	} else if (WEXITSTATUS(status) == 0) {
		res = OUT_OK;
	} else if (WEXITSTATUS(status) == 2) {
		struct strbuf reason = STRBUF_INIT;
		size_t nl;

		strbuf_read_file(&reason, skip_path.buf, 0);
		strbuf_rtrim(&reason);
		nl = strcspn(reason.buf, "\n");
		strbuf_add(cap, reason.buf, nl);
		strbuf_addstr(why, reason.buf[nl] ? reason.buf + nl + 1 : "no reason given");
		strbuf_release(&reason);
		res = test_skip_claim_holds(o->caps, cap->buf, why) ?
		      OUT_SKIP : OUT_FAIL;
	} else {
		res = OUT_FAIL;
	}
	if (strcmp(before.buf, after.buf)) {
		if (why->len)
			strbuf_addstr(why, "; ");
		test_tracefs_residue(before.buf, after.buf, why);
		res = OUT_FAIL;
	}
	if (o->verbose) {
		strbuf_read_file(&output, out_path.buf, 0);
		printf("--- start ---\n%s%s---- end (%.1f s) ----\n", output.buf,
		       output.len && output.buf[output.len - 1] != '\n' ? "\n" : "",
		       *secs);
	}
	unlink(out_path.buf);
	unlink(skip_path.buf);
out:
	strbuf_release(&out_path);
	strbuf_release(&skip_path);
	strbuf_release(&before);
	strbuf_release(&after);
	strbuf_release(&output);
	return res;
}

static int selected(const struct test_entry *t, int num, int argc,
		    const char **argv)
{
	int i;

	if (!argc)
		return 1;
	for (i = 0; i < argc; i++) {
		char *end;
		long n = strtol(argv[i], &end, 10);

		if (*argv[i] && !*end) {
			if (n == num)
				return 1;
			continue;
		}
		if (strcasestr(t->desc, argv[i]))
			return 1;
		if (t->script && strcasestr(t->script, argv[i]))
			return 1;
	}
	return 0;
}

/*
 * At boot the kernel's ring buffers are minimal; the first event enabled
 * expands them, for good: buffer_size_kb reads "7 (expanded: 1408)"
 * before and "1408" after, until the next boot.  Whichever test enabled
 * the first event (its own or trace-cmd's) would see that as its residue,
 * so a run that may touch tracefs does it once, first, and says so
 * under -v.  It writes the size the kernel would expand to, which
 * buffer_size_kb then shows rounded to whole pages ("1410" on 6.1 and
 * 6.18): the buffers are marked expanded, so no event changes it after.
 */
static void expand_ring_buffers(int verbose)
{
	struct strbuf val = STRBUF_INIT, now = STRBUF_INIT;
	const char *p;
	char size[32];
	int lock_fd;

	if (!tk_tracefs_dir() || geteuid() != 0)
		return;
	lock_fd = lock_tracefs();
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
			printf("tracekit test: ring buffers expanded once for this boot "
			       "(the first enabled event would, for good): "
			       "buffer_size_kb \"%s\" -> \"%s\"\n",
			       val.buf, now.buf);
	}
	if (lock_fd >= 0)
		close(lock_fd);
	strbuf_release(&val);
	strbuf_release(&now);
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

/* A test's number and wall time, for the slowest list of a run. */
struct timing {
	int num;
	double secs;
};

static int cmp_slower(const void *a, const void *b)
{
	const struct timing *x = a, *y = b;

	if (x->secs != y->secs)
		return x->secs < y->secs ? 1 : -1;
	return x->num - y->num;
}

/*
 * The ten slowest of a run of several tests, so that a suite growing past
 * its CI budget shows where the time went without -v.
 */
static void print_slowest(struct timing *v, int nr,
			  const struct test_list *tests)
{
	int i;

	if (nr < 2)
		return;
	qsort(v, nr, sizeof(*v), cmp_slower);
	printf("slowest tests (wall time):\n");
	for (i = 0; i < nr && i < 10; i++)
		printf("  %7.1f s %3d: %s\n", v[i].secs, v[i].num,
		       tests->v[v[i].num - 1].desc);
}

static const char *const test_usage[] = {
	"tracekit test [-v] [--timeout SEC] [NUMBER | SUBSTRING]...",
	"tracekit test --list [NUMBER | SUBSTRING]...",
	"tracekit test --caps",
	NULL
};

int cmd_test(int argc, const char **argv)
{
	struct test_list tests = { 0 };
	struct run_opts o = { .timeout = 900 };
	struct strbuf cap_lines = STRBUF_INIT;
	struct ledger ledger = { 0 };
	struct timing *timings;
	int list = 0, caps = 0, i, n = 0, touches_tracefs = 0;
	int passed = 0, failed = 0, skipped = 0;
	char tmpl[] = "/tmp/tracekit-test.XXXXXX";
	char *self;
	struct sigaction sa;
	const struct option options[] = {
		OPT_INCR('v', "verbose", &o.verbose,
			 "show the output of each test (failure detail)"),
		OPT_BOOL('l', "list", &list, "list the tests with their numbers"),
		OPT_INTEGER('t', "timeout", &o.timeout, "SEC",
			    "fail a test that runs longer (default 900)"),
		OPT_BOOL(0, "caps", &caps,
			 "print what this host offers (root, tracefs, probes) as KEY=VALUE"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, test_usage, 0);
	test_caps_text(&cap_lines);
	if (caps) {
		fputs(cap_lines.buf, stdout);
		strbuf_release(&cap_lines);
		return TK_EXIT_OK;
	}
	o.caps = cap_lines.buf;
	if (o.timeout <= 0)
		die_code(TK_EXIT_USAGE, "--timeout must be positive");
	collect_tests(&tests);
	if (list) {
		for (i = 0; i < tests.nr; i++)
			if (selected(&tests.v[i], i + 1, argc, argv))
				printf("%3d: %s\n", i + 1, tests.v[i].desc);
		free_tests(&tests);
		strbuf_release(&cap_lines);
		return TK_EXIT_OK;
	}
	if (!mkdtemp(tmpl))
		die_code(TK_EXIT_ENV, "cannot create a temporary directory: %s",
			 strerror(errno));
	o.tmpdir = tmpl;
	self = test_self_path();
	/* Shell tests run the binary that runs them (ASan build included). */
	if (self)
		setenv("TRACEKIT", self, 0);
	free(self);
	setenv("TRACEKIT_SRCDIR", TRACEKIT_SRCDIR, 0);
#ifdef TRACEKIT_SANITIZE
	/* A file, so each suppression is visible and as narrow as it can be. */
	if (!getenv("LSAN_OPTIONS")) {
		char *supp = test_source_path("tests/lsan.supp");
		struct strbuf opt = STRBUF_INIT;

		strbuf_addf(&opt, "suppressions=%s", supp);
		setenv("LSAN_OPTIONS", opt.buf, 1);
		strbuf_release(&opt);
		free(supp);
	}
#endif
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	for (i = 0; i < tests.nr; i++)
		touches_tracefs |= selected(&tests.v[i], i + 1, argc, argv) &&
				   tests.v[i].host_tracefs;
	if (touches_tracefs)
		expand_ring_buffers(o.verbose);
	timings = xmalloc((tests.nr ? tests.nr : 1) * sizeof(*timings));
	for (i = 0; i < tests.nr && !interrupted; i++) {
		struct strbuf why = STRBUF_INIT, cap = STRBUF_INIT;
		const struct test_entry *t = &tests.v[i];
		enum outcome r;

		if (!selected(t, i + 1, argc, argv))
			continue;
		printf("%3d: %-60s:%s", i + 1, t->desc, o.verbose ? "\n" : " ");
		fflush(stdout);
		timings[n].num = i + 1;
		r = run_test(t, i + 1, &o, &why, &cap, &timings[n].secs);
		n++;
		if (o.verbose)
			printf("%3d: %-60s: ", i + 1, t->desc);
		switch (r) {
		case OUT_OK:
			passed++;
			printf("Ok\n");
			break;
		case OUT_SKIP:
			skipped++;
			ledger_add(&ledger, cap.buf, i + 1);
			printf("Skip (%s: %s)\n", cap.buf, why.buf);
			break;
		case OUT_FAIL:
			failed++;
			printf("FAILED!%s%s%s\n", why.len ? " (" : "", why.buf,
			       why.len ? ")" : "");
			break;
		}
		fflush(stdout);
		strbuf_release(&why);
		strbuf_release(&cap);
	}
	rmdir(tmpl);
	if (!n && argc) {
		error("no test matches '%s'", argv[0]);
		free(timings);
		free_tests(&tests);
		strbuf_release(&cap_lines);
		return TK_EXIT_USAGE;
	}
	if (interrupted)
		printf("interrupted\n");
	print_slowest(timings, n, &tests);
	free(timings);
	free_tests(&tests);
	ledger_print_free(&ledger);
	strbuf_release(&cap_lines);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed || interrupted ? TK_EXIT_FAIL : TK_EXIT_OK;
}
