// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit test: built-in self tests in the manner of `perf test`.
 *
 * C suites (tests/tests.h) and shell tests (tests/shell/NAME.sh) are numbered
 * in one list.  Each runs in a forked child in its own process group, with
 * its output captured; tracefs is compared before and after, and a test
 * that leaves it changed fails even if it claimed success.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
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

static const char *skip_file;

/*
 * The skip file holds "CAP\nREASON": the --caps capability whose absence
 * (or, as "!CAP", whose presence) the skip claims, then the reason.  An
 * empty CAP claims nothing, and the runner fails such a skip.
 */
int test_skip_cap(const char *cap, const char *fmt, ...)
{
	FILE *fp = skip_file ? fopen(skip_file, "we") : NULL;
	va_list ap;

	if (fp) {
		fprintf(fp, "%s\n", cap);
		va_start(ap, fmt);
		vfprintf(fp, fmt, ap);
		va_end(ap);
		fclose(fp);
	}
	return TEST_SKIP;
}

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

static char *self_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static char *exe_dir(void)
{
	char *path = self_path();
	char *slash = path ? strrchr(path, '/') : NULL;

	if (slash)
		*slash = '\0';
	return path;
}

/*
 * Test files live beside the binary (the VM's initramfs, an installed
 * tree) or in the source tree it was built from.
 */
char *test_source_path(const char *rel)
{
	char *dir = exe_dir();
	struct strbuf sb = STRBUF_INIT;
	struct stat st;

	if (dir) {
		strbuf_addf(&sb, "%s/%s", dir, rel);
		free(dir);
		if (!stat(sb.buf, &st))
			return strbuf_detach(&sb, NULL);
		strbuf_reset(&sb);
	}
	strbuf_addf(&sb, "%s/%s", TRACEKIT_SRCDIR, rel);
	return strbuf_detach(&sb, NULL);
}

static char *shell_tests_dir(void)
{
	const char *env = getenv("TRACEKIT_SHELL_TESTS");

	return env ? xstrdup(env) : test_source_path("tests/shell");
}

/*
 * Header lines near the top of a shell test: "# description: TEXT" names
 * it; "# tracefs: untouched" says it never touches the host's tracefs
 * (VM tests), so it neither waits for the tracefs lock nor is checked
 * for residue; "# timeout: SEC" is the time limit of a test that runs
 * others inside (the VM suite), which must outlast theirs.
 */
static char *script_header(const char *path, const char *fallback,
			   int *host_tracefs, int *timeout)
{
	FILE *fp = fopen(path, "re");
	char line[512], *desc = NULL;
	int n = 0;

	*host_tracefs = 1;
	*timeout = 0;
	while (fp && n++ < 10 && fgets(line, sizeof(line), fp)) {
		char *p;

		line[strcspn(line, "\n")] = '\0';
		if ((p = strstr(line, "# description:")) && !desc) {
			p += strlen("# description:");
			while (*p == ' ')
				p++;
			desc = xstrdup(p);
		} else if (strstr(line, "# tracefs: untouched")) {
			*host_tracefs = 0;
		} else if ((p = strstr(line, "# timeout:"))) {
			*timeout = atoi(p + strlen("# timeout:"));
		}
	}
	if (fp)
		fclose(fp);
	return desc ? desc : xstrdup(fallback);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The sorted names in dir that end in suffix (hidden entries skipped);
 * returns the count, *names to be freed with free_names().
 */
static int sorted_dir_names(const char *dir, const char *suffix, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t slen = strlen(suffix);
	int nr = 0, alloc = 0;

	*names = NULL;
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len <= slen ||
		    strcmp(de->d_name + len - slen, suffix))
			continue;
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			*names = xrealloc(*names, alloc * sizeof(**names));
		}
		(*names)[nr++] = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	if (nr)
		qsort(*names, nr, sizeof(**names), cmp_names);
	return nr;
}

static void free_names(char **names, int nr)
{
	while (nr--)
		free(names[nr]);
	free(names);
}

static void add_shell_tests(struct test_list *l)
{
	char *dir = shell_tests_dir();
	char **names;
	int nr = sorted_dir_names(dir, ".sh", &names), i;

	for (i = 0; i < nr; i++) {
		struct strbuf path = STRBUF_INIT;
		char *desc;
		int host_tracefs, timeout;

		strbuf_addf(&path, "%s/%s", dir, names[i]);
		desc = script_header(path.buf, names[i], &host_tracefs, &timeout);
		add_test(l, desc, NULL, path.buf, host_tracefs, timeout);
		free(desc);
		strbuf_release(&path);
	}
	free_names(names, nr);
	free(dir);
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

/* ---- tracefs residue detection ---- */

static const char *const watched_files[] = {
	"tracing_on", "current_tracer", "set_event", "set_event_pid",
	"uprobe_events", "kprobe_events", "trace_clock", "buffer_size_kb",
	"trace_options", "stack_trace_filter", "tracing_cpumask",
};

static void snapshot_tracefs(struct strbuf *snap)
{
	struct strbuf path = STRBUF_INIT;
	char **names;
	int nr, i;
	size_t k;

	strbuf_reset(snap);
	if (!tk_tracefs_dir() || geteuid() != 0)
		return;
	for (k = 0; k < sizeof(watched_files) / sizeof(watched_files[0]); k++) {
		struct strbuf val = STRBUF_INIT;

		if (tk_tracefs_read(NULL, watched_files[k], &val) >= 0)
			strbuf_addf(snap, "%s:\n%s\n", watched_files[k], val.buf);
		strbuf_release(&val);
	}
	strbuf_addstr(snap, "stack_tracer_enabled:\n");
	strbuf_read_file(snap, "/proc/sys/kernel/stack_tracer_enabled", 0);
	tk_tracefs_path(&path, NULL, "instances");
	nr = sorted_dir_names(path.buf, "", &names);
	strbuf_addstr(snap, "instances:\n");
	for (i = 0; i < nr; i++)
		strbuf_addf(snap, "%s\n", names[i]);
	free_names(names, nr);
	strbuf_release(&path);
}

/* Names the first section that differs, for the FAILED line. */
static void describe_residue(const char *before, const char *after,
			     struct strbuf *why)
{
	const char *b = before, *a = after;
	const char *section = "tracefs";

	while (*b && *a && *b == *a) {
		if (*b == '\n' && b[1] && strchr(b + 1, ':')) {
			const char *colon = strchr(b + 1, ':');
			const char *nl = strchr(b + 1, '\n');

			if (nl && colon < nl && colon[1] == '\n')
				section = b + 1;
		}
		a++;
		b++;
	}
	strbuf_addf(why, "tracefs residue: %.*s changed",
		    (int)strcspn(section, ":"), section);
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

/* ---- capabilities and the skip ledger ---- */

/*
 * What this machine offers, as the KEY=VALUE lines of --caps; a value is
 * absent when empty or 0.  The skip ledger checks each skip against it.
 */
static void caps_text(struct strbuf *sb)
{
	const struct tk_features *f = tk_features();
	const struct tk_feature *ft;
	const char *dir = tk_tracefs_dir();

	strbuf_addf(sb, "root=%d\n", geteuid() == 0);
	strbuf_addf(sb, "tracefs=%s\n", dir ? dir : "");
	strbuf_addf(sb, "tracefs_writable=%d\n", dir && access(dir, W_OK) == 0);
	for (ft = tk_feature_table; ft->name; ft++)
		if (ft->cap)
			strbuf_addf(sb, "%s=%d\n", ft->cap, ft->get(f));
	strbuf_addf(sb, "in_vm=%d\n", getenv("TRACEKIT_IN_VM") != NULL);
	/* A capability no machine has, for the framework's self-test. */
	if (getenv("TRACEKIT_TEST_FIXTURES"))
		strbuf_addstr(sb, "fixture=0\n");
}

/* 1 if caps has NAME present, 0 if absent, -1 if it has no NAME. */
static int cap_present(const char *caps, const char *name)
{
	size_t len = strlen(name);
	const char *p = caps;

	while (*p) {
		const char *nl = strchrnul(p, '\n');

		if (!strncmp(p, name, len) && p[len] == '=') {
			const char *v = p + len + 1;

			return v < nl && !(nl - v == 1 && *v == '0');
		}
		p = *nl ? nl + 1 : nl;
	}
	return -1;
}

/*
 * The skip ledger: a skip must name a capability (CAP, or !CAP for one
 * the test must not have) that this machine's caps bear out, else it is
 * counted as a failure, so that no silent skip lands.  Returns 1 when
 * the claim holds; otherwise says why in why.
 */
static int skip_claim_holds(const char *caps, const char *cap, struct strbuf *why)
{
	int negated = cap[0] == '!';
	int have = cap_present(caps, cap + negated);

	if (!*cap)
		strbuf_addstr(why, "; skip names no capability");
	else if (have < 0)
		strbuf_addf(why, "; skip names '%s', which --caps does not report", cap);
	else if (have != negated)
		strbuf_addf(why, "; skip needs %s, but --caps has %s %s", cap,
			    cap + negated, have ? "present" : "absent");
	else
		return 1;
	return 0;
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
	const char *caps;	/* caps_text(), for the skip ledger */
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
			     struct strbuf *cap)
{
	struct strbuf out_path = STRBUF_INIT, skip_path = STRBUF_INIT;
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct strbuf output = STRBUF_INIT;
	enum outcome res;
	int fd, status, timed_out = 0, lock_fd = -1;
	int limit = t->timeout ? t->timeout : o->timeout;
	double started;
	pid_t pid;

	strbuf_addf(&out_path, "%s/out-%d", o->tmpdir, num);
	strbuf_addf(&skip_path, "%s/skip-%d", o->tmpdir, num);
	fd = open(out_path.buf, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		strbuf_addf(why, "cannot create %s: %s", out_path.buf, strerror(errno));
		res = OUT_FAIL;
		goto out;
	}
	skip_file = skip_path.buf;
	setenv("TRACEKIT_SKIP_FILE", skip_path.buf, 1);
	if (t->host_tracefs) {
		lock_fd = lock_tracefs();
		snapshot_tracefs(&before);
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
	running_child = 0;
	if (t->host_tracefs) {
		snapshot_tracefs(&after);
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
		res = skip_claim_holds(o->caps, cap->buf, why) ? OUT_SKIP : OUT_FAIL;
	} else {
		res = OUT_FAIL;
	}
	if (strcmp(before.buf, after.buf)) {
		if (why->len)
			strbuf_addstr(why, "; ");
		describe_residue(before.buf, after.buf, why);
		res = OUT_FAIL;
	}
	if (o->verbose) {
		strbuf_read_file(&output, out_path.buf, 0);
		printf("--- start ---\n%s%s---- end (%.1f s) ----\n", output.buf,
		       output.len && output.buf[output.len - 1] != '\n' ? "\n" : "",
		       now_sec() - started);
	}
	unlink(out_path.buf);
	unlink(skip_path.buf);
out:
	skip_file = NULL;
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
	caps_text(&cap_lines);
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
	self = self_path();
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
	for (i = 0; i < tests.nr && !interrupted; i++) {
		struct strbuf why = STRBUF_INIT, cap = STRBUF_INIT;
		const struct test_entry *t = &tests.v[i];
		enum outcome r;

		if (!selected(t, i + 1, argc, argv))
			continue;
		n++;
		printf("%3d: %-60s:%s", i + 1, t->desc, o.verbose ? "\n" : " ");
		fflush(stdout);
		r = run_test(t, i + 1, &o, &why, &cap);
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
	free_tests(&tests);
	if (!n && argc) {
		error("no test matches '%s'", argv[0]);
		strbuf_release(&cap_lines);
		return TK_EXIT_USAGE;
	}
	if (interrupted)
		printf("interrupted\n");
	ledger_print_free(&ledger);
	strbuf_release(&cap_lines);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed || interrupted ? TK_EXIT_FAIL : TK_EXIT_OK;
}
