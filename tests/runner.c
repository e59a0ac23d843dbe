// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/arch.h"
#include "tests/runner.h"
#include "tests/tests.h"
#include "util/array.h"
#include "util/probe-btf.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
#include "util/usage.h"

#ifndef TRACEKIT_SRCDIR
#define TRACEKIT_SRCDIR "."
#endif

/*
 * The skip file holds "CAP\nREASON": the --caps capability whose absence
 * (or, as "!CAP", whose presence) the skip claims, then the reason.  An
 * empty CAP claims nothing, and the runner fails such a skip.  The runner
 * names the file in $TRACEKIT_SKIP_FILE, for the shell tests too.
 */
int test_skip_cap(const char *cap, const char *fmt, ...)
{
	const char *skip_file = getenv("TRACEKIT_SKIP_FILE");
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

char *test_self_path(void)
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
	char *path = test_self_path();
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
		grow_array(*names, nr, alloc, 16);
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

int test_scripts_find(struct test_script **v)
{
	char *dir = shell_tests_dir();
	char **names;
	int nr = sorted_dir_names(dir, ".sh", &names), i;

	*v = nr ? xmalloc(nr * sizeof(**v)) : NULL;
	for (i = 0; i < nr; i++) {
		struct strbuf path = STRBUF_INIT;
		struct test_script *t = &(*v)[i];

		strbuf_addf(&path, "%s/%s", dir, names[i]);
		t->desc = script_header(path.buf, names[i], &t->host_tracefs,
					&t->timeout);
		t->path = strbuf_detach(&path, NULL);
	}
	free_names(names, nr);
	free(dir);
	return nr;
}

void test_scripts_free(struct test_script *v, int nr)
{
	while (nr--) {
		free(v[nr].path);
		free(v[nr].desc);
	}
	free(v);
}

static const char *const watched_files[] = {
	"tracing_on", "current_tracer", "set_event", "set_event_pid",
	"uprobe_events", "kprobe_events", "trace_clock", "buffer_size_kb",
	"trace_options", "stack_trace_filter", "tracing_cpumask",
};

void test_tracefs_snapshot(struct strbuf *snap)
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
			strbuf_addf(snap, "%s:\n%s\n", watched_files[k],
				    val.buf);
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

void test_tracefs_residue(const char *before, const char *after,
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

void test_caps_text(struct strbuf *sb)
{
	const struct tk_features *f = tk_features();
	const struct tk_feature *ft;
	const char *dir = tk_tracefs_dir();
	struct strbuf why = STRBUF_INIT;
	const struct arch *a;

	strbuf_addf(sb, "root=%d\n", geteuid() == 0);
	strbuf_addf(sb, "tracefs=%s\n", dir ? dir : "");
	strbuf_addf(sb, "tracefs_writable=%d\n", dir && access(dir, W_OK) == 0);
	for (ft = tk_feature_table; ft->name; ft++)
		if (ft->cap)
			strbuf_addf(sb, "%s=%d\n", ft->cap, ft->get(f));
	/* Not tracefs: the kernel's own types, CONFIG_DEBUG_INFO_BTF. */
	strbuf_addf(sb, "btf=%d\n", access(PROBE_BTF_VMLINUX, R_OK) == 0);
	strbuf_addf(sb, "in_vm=%d\n", getenv("TRACEKIT_IN_VM") != NULL);
	/* What probe translates for by default (uname's name if none). */
	a = arch_of_kernel(&why);
	strbuf_addf(sb, "arch=%s\n", a ? a->name : why.buf);
	strbuf_release(&why);
	/* The machine this build's code is, for tests of its own code. */
	for (a = arch_next(NULL); a; a = arch_next(a))
		strbuf_addf(sb, "build_%s=%d\n", a->name, a == ARCH_NATIVE);
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

int test_skip_claim_holds(const char *caps, const char *cap,
			  struct strbuf *why)
{
	int negated = cap[0] == '!';
	int have = cap_present(caps, cap + negated);

	if (!*cap)
		strbuf_addstr(why, "; skip names no capability");
	else if (have < 0)
		strbuf_addf(why, "; skip names '%s', which --caps does not "
			    "report", cap);
	else if (have != negated)
		strbuf_addf(why, "; skip needs %s, but --caps has %s %s", cap,
			    cap + negated, have ? "present" : "absent");
	else
		return 1;
	return 0;
}

static void add_test(struct test_list *l, const char *desc, int (*func)(void),
		     const char *script, int host_tracefs, int timeout)
{
	grow_array(l->v, l->nr, l->alloc, 32);
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

void test_list_free(struct test_list *l)
{
	int i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].desc);
		free(l->v[i].script);
	}
	free(l->v);
}

void test_list_collect(struct test_list *l)
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

int test_selected(const struct test_entry *t, int num, int argc,
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
