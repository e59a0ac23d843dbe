// SPDX-License-Identifier: GPL-2.0
/*
 * The stack_trace table parser, fed tables the Debian 6.1 kernel printed
 * in the VM (tests/data/stack_trace-6.1-*.txt, captured with cat), and
 * malformed variants of them; THREAD_SIZE as found on this kernel; and
 * the members of stack --json, against its manual.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tests.h"
#include "util/stack-tracer.h"
#include "util/strbuf.h"

/* Parses tests/data/NAME, a table the kernel printed, into st. */
static int parse_fixture(const char *name, struct stack_trace *st)
{
	struct strbuf rel = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	char *path;
	long ret;

	strbuf_addf(&rel, "tests/data/%s", name);
	path = test_source_path(rel.buf);
	ret = strbuf_read_file(&text, path, 0);
	if (ret < 0)
		fprintf(stderr, "cannot read fixture %s: %s\n", path, strerror(-ret));
	else if ((ret = stack_trace_parse(text.buf, st, &err)))
		fprintf(stderr, "%s: %s\n", path, err.buf);
	free(path);
	strbuf_release(&rel);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret < 0 ? -1 : 0;
}

/* The kernel's invariants: depth falls, each size is the step to the next. */
static int check_invariants(const struct stack_trace *st)
{
	unsigned long sum = 0;
	int i;

	TEST_ASSERT_EQUAL("rows as announced by the header", st->nr, st->header_entries);
	for (i = 0; i < st->nr; i++) {
		const struct stack_entry *e = &st->v[i];
		unsigned long next = i + 1 < st->nr ? st->v[i + 1].depth : 0;

		TEST_ASSERT_EQUAL("index", e->index, i);
		TEST_ASSERT_VAL("depth strictly decreasing", e->depth > next);
		TEST_ASSERT_EQUAL("size is the step to the next depth", e->size,
				  e->depth - next);
		TEST_ASSERT_VAL("every frame has a symbol", e->symbol && e->length);
		sum += e->size;
	}
	TEST_ASSERT_EQUAL("sizes sum to the deepest depth", sum, st->v[0].depth);
	return TEST_OK;
}

static int full_stack(void)
{
	struct stack_trace st;
	const struct stack_entry *e;

	TEST_ASSERT_VAL("fixture", !parse_fixture("stack_trace-6.1-execve.txt", &st));
	TEST_ASSERT_EQUAL("entries", st.nr, 16);
	TEST_ASSERT_VAL("no disabled note while a maximum is shown", !st.disabled_note);
	if (check_invariants(&st) != TEST_OK)
		return TEST_FAIL;
	/* stack_max_size read 2280 when this table was captured. */
	TEST_ASSERT_EQUAL("deepest", st.v[0].depth, 2280);
	e = &st.v[12];
	TEST_ASSERT_STR("symbol with a compiler suffix", e->symbol,
			"do_execveat_common.isra.0");
	TEST_ASSERT_EQUAL("offset", e->offset, 0x1ad);
	TEST_ASSERT_EQUAL("length", e->length, 0x220);
	TEST_ASSERT_VAL("vmlinux has no module", !e->module);
	TEST_ASSERT_STR("location kept as printed", e->location,
			"do_execveat_common.isra.0+0x1ad/0x220");
	TEST_ASSERT_STR("outermost frame", st.v[15].symbol,
			"entry_SYSCALL_64_after_hwframe");
	stack_trace_release(&st);
	return TEST_OK;
}

static int module_frames(void)
{
	struct stack_trace st;

	TEST_ASSERT_VAL("fixture", !parse_fixture("stack_trace-6.1-tktest.txt", &st));
	TEST_ASSERT_EQUAL("entries", st.nr, 7);
	if (check_invariants(&st) != TEST_OK)
		return TEST_FAIL;
	TEST_ASSERT_STR("filtered function first", st.v[0].symbol, "tktest_poke");
	TEST_ASSERT_STR("its module", st.v[0].module, "tktest");
	TEST_ASSERT_EQUAL("fentry offset", st.v[0].offset, 5);
	TEST_ASSERT_STR(".cold part", st.v[1].symbol, "tktest_write.cold");
	TEST_ASSERT_STR("module of .cold", st.v[1].module, "tktest");
	TEST_ASSERT_VAL("caller in vmlinux", !st.v[2].module);
	TEST_ASSERT_STR("caller", st.v[2].symbol, "proc_reg_write");
	stack_trace_release(&st);
	return TEST_OK;
}

/*
 * After a reset with the tracer off the kernel prints the note and the old
 * rows.
 */
static int after_reset(void)
{
	struct stack_trace st;

	TEST_ASSERT_VAL("fixture", !parse_fixture("stack_trace-6.1-reset.txt", &st));
	TEST_ASSERT_VAL("disabled note seen", st.disabled_note);
	TEST_ASSERT_EQUAL("stale rows still listed", st.nr, 16);
	stack_trace_release(&st);
	return TEST_OK;
}

static const char header[] =
	"        Depth    Size   Location    (1 entries)\n"
	"        -----    ----   --------\n";

static int parse_one(const char *row, struct stack_trace *st,
		     struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret;

	strbuf_addf(&text, "%s%s\n", header, row);
	strbuf_reset(err);
	ret = stack_trace_parse(text.buf, st, err);
	strbuf_release(&text);
	return ret;
}

static int other_locations(void)
{
	struct strbuf err = STRBUF_INIT;
	struct stack_trace st;

	TEST_ASSERT_EQUAL("bare address", parse_one("  0)      176     176   0xffffffffc0a01234",
						    &st, &err), 0);
	TEST_ASSERT_VAL("no symbol", !st.v[0].symbol);
	TEST_ASSERT_VAL("address", st.v[0].address == 0xffffffffc0a01234ULL);
	stack_trace_release(&st);
	TEST_ASSERT_EQUAL("module with build id",
			  parse_one("  0)      176     176   f+0x1/0x2 [mod 0123abcdef]", &st, &err), 0);
	TEST_ASSERT_STR("module name without the build id", st.v[0].module, "mod");
	stack_trace_release(&st);
	return TEST_OK;
}

static int expect_error(const char *text, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct stack_trace st;

	TEST_ASSERT_EQUAL(text, stack_trace_parse(text, &st, &err), -EINVAL);
	if (!strstr(err.buf, want)) {
		fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err.buf, want);
		return TEST_FAIL;
	}
	TEST_ASSERT_EQUAL("nothing kept on error", st.nr, 0);
	strbuf_release(&err);
	return TEST_OK;
}

static int malformed(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "", "line 0: truncated" },
		{ "Depth Size Location\n", "line 1: expected the \"Depth" },
		{ "        Depth    Size   Location    (1 entries)\n", "truncated" },
		{ "        Depth    Size   Location    (1 entries)\nxx\n", "line 2" },
		{ "        Depth    Size   Location    (1 entries)\n"
		  "        -----    ----   --------\n"
		  "  0)     2280      48\n", "line 3: expected \"N) DEPTH" },
		{ "        Depth    Size   Location    (1 entries)\n"
		  "        -----    ----   --------\n"
		  "  0)     2280      48   f+0x5\n", "line 3" },
		{ "        Depth    Size   Location    (1 entries)\n"
		  "        -----    ----   --------\n"
		  "  0)     2280      48   f+0x5/0x40 [mod\n", "line 3" },
		{ "        Depth    Size   Location    (2 entries)\n"
		  "        -----    ----   --------\n"
		  "  0)     2280      48   f+0x5/0x40\n"
		  "  2)     2232     248   g+0x5/0x40\n", "line 4: entry out of sequence" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (expect_error(cases[i].text, cases[i].want) != TEST_OK)
			return TEST_FAIL;
	return TEST_OK;
}

/*
 * The members tracekit-stack(1) lists under JSON OUTPUT: "`name`::" at
 * the top level (depth 1), "`name`:::" in each entry (depth 2), in order,
 * as "1 name\n" lines.
 */
static int doc_members(struct strbuf *doc)
{
	struct strbuf text = STRBUF_INIT;
	char *path = test_source_path("Documentation/tracekit-stack.txt");
	const char *p;
	long ret = strbuf_read_file(&text, path, 0);
	int in = 0;

	if (ret < 0)
		fprintf(stderr, "cannot read %s: %s\n", path, strerror(-ret));
	for (p = ret < 0 ? "" : text.buf; *p; p += strcspn(p, "\n") + !!p[strcspn(p, "\n")]) {
		size_t n = strcspn(p, "\n"), k;

		while (n && (*p == '\t' || *p == ' '))
			p++, n--;
		if (n == 11 && !strncmp(p, "JSON OUTPUT", 11))
			in = 1;
		else if (in && n == 8 && !strncmp(p, "EXAMPLES", 8))
			break;
		if (!in || *p != '`')
			continue;
		k = strcspn(p + 1, "`");
		if (n == k + 4 && !strncmp(p + k + 2, "::", 2))
			strbuf_addf(doc, "1 %.*s\n", (int)k, p + 1);
		else if (n == k + 5 && !strncmp(p + k + 2, ":::", 3))
			strbuf_addf(doc, "2 %.*s\n", (int)k, p + 1);
	}
	free(path);
	strbuf_release(&text);
	return ret < 0 ? -1 : 0;
}

/* The members of json by object depth, as doc_members() has them. */
static void json_members(const char *json, struct strbuf *out)
{
	const char *p = json, *end;
	int depth = 0;

	for (; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}')
			depth--;
		if (*p != '"')
			continue;
		for (end = p + 1; *end && *end != '"'; end++)
			if (*end == '\\' && end[1])
				end++;
		if (*end && end[1] == ':')
			strbuf_addf(out, "%d %.*s\n", depth, (int)(end - p - 1), p + 1);
		p = *end ? end : end - 1;
	}
}

/*
 * Each member of got, in its order, is one of want, after the one before
 * it, the first member of its depth starting an object again; and each
 * of want is somewhere in got.
 */
static int same_members(const char *want, const char *got)
{
	const char *g, *w, *last = want;
	char line[64], depth[3] = "? ";
	size_t n;

	for (g = got; *g; g += n + 1) {
		n = strcspn(g, "\n");
		snprintf(line, sizeof(line), "%.*s\n", (int)n, g);
		depth[0] = *g;
		w = strstr(want, line);
		if (w && w == strstr(want, depth))
			last = w;
		if (!w || w < last) {
			fprintf(stderr, "member %.*s: %s\n", (int)n, g,
				w ? "out of the manual's order" : "not in the manual");
			return -1;
		}
		last = w;
	}
	for (w = want; *w; w += n + 1) {
		n = strcspn(w, "\n");
		snprintf(line, sizeof(line), "%.*s\n", (int)n, w);
		if (!strstr(got, line)) {
			fprintf(stderr, "member %.*s: in the manual, not in the output\n", (int)n, w);
			return -1;
		}
	}
	return 0;
}

/*
 * stack --json, of a table the kernel printed with module frames and of
 * a frame the kernel printed as an address, with and without a COMMAND's
 * exit status: every member the manual lists turns up, and no other.
 */
static int json_output(void)
{
	struct strbuf doc = STRBUF_INIT, json = STRBUF_INIT, got = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	char *filter[] = { "vfs_write" };
	struct stack_report r = {
		.enabled = 1, .filter = { .v = filter, .nr = 1 },
		.thread_size = 16384, .thread_size_source = "test",
	};
	struct stack_report none = { .thread_size_source = "test" };
	int status = 7, ret;

	TEST_ASSERT_EQUAL("the manual's members", doc_members(&doc), 0);
	TEST_ASSERT_VAL("the manual lists members", doc.len);
	TEST_ASSERT_EQUAL("parse", parse_fixture("stack_trace-6.1-tktest.txt", &r.trace), 0);
	r.max = r.trace.v[0].depth;
	stack_report_json(&r, &status, &json);
	stack_trace_release(&r.trace);
	TEST_ASSERT_EQUAL("bare address",
			  parse_one("  0)      176     176   0xffffffffc0a01234", &r.trace, &err), 0);
	r.max = 176;
	stack_report_json(&r, NULL, &json);
	stack_trace_release(&r.trace);
	stack_report_json(&none, NULL, &json);
	json_members(json.buf, &got);
	ret = same_members(doc.buf, got.buf);
	if (ret)
		fprintf(stderr, "%s", json.buf);
	strbuf_release(&doc);
	strbuf_release(&json);
	strbuf_release(&got);
	strbuf_release(&err);
	TEST_ASSERT_EQUAL("members as the manual lists them", ret, 0);
	return TEST_OK;
}

/* /proc/meminfo's KernelStack in kB, or -1. */
static long kernel_stack_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "KernelStack: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

#define STACK_TASKS 32

/*
 * What the kernel itself spends per task: KernelStack grows by
 * THREAD_SIZE for each task (a vmalloc'ed stack, or pages), so 32
 * children waiting on a pipe show it, whatever the machine; other tasks
 * coming and going move it by a task or two at most.
 */
static long measured_thread_size(void)
{
	pid_t pids[STACK_TASKS];
	long before = kernel_stack_kb(), after, per;
	int fds[2], i, n = 0;
	char c;

	if (before < 0 || pipe(fds))
		return -1;
	for (i = 0; i < STACK_TASKS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(fds[1]);
			_exit(read(fds[0], &c, 1) < 0);
		}
		n += pids[i] > 0;
	}
	after = kernel_stack_kb();
	close(fds[1]);
	close(fds[0]);
	for (i = 0; i < STACK_TASKS; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	if (n != STACK_TASKS || after < 0)
		return -1;
	/* The nearest power of two of the per-task kB. */
	per = (after - before) * 1024 / n;
	for (i = 12; i < 20; i++)
		if (per < 3L << (i - 1))
			return 1L << i;
	return per;
}

/* THREAD_SIZE as the kernel spends it, by the rule of its architecture. */
static int thread_size(void)
{
	const char *source;
	unsigned long ts = stack_tracer_thread_size(&source);
	long measured = measured_thread_size();
	struct utsname u;

	TEST_ASSERT_VAL("uname", uname(&u) == 0);
	fprintf(stderr, "THREAD_SIZE %lu (%s), KernelStack grows %ld bytes a task\n",
		ts, source, measured);
	if (strcmp(u.machine, "x86_64") && strcmp(u.machine, "aarch64")) {
		TEST_ASSERT_EQUAL("unknown off x86-64 and arm64", ts, 0);
		return TEST_OK;
	}
	TEST_ASSERT_VAL("KernelStack in /proc/meminfo", measured > 0);
	TEST_ASSERT_EQUAL("THREAD_SIZE as KernelStack grows", (long)ts, measured);
	if (!strcmp(u.machine, "x86_64") &&
	    access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		TEST_ASSERT_VAL("read from BTF", strstr(source, "BTF"));
	return TEST_OK;
}

int test__stack_tracer(void)
{
	if (full_stack() != TEST_OK || module_frames() != TEST_OK ||
	    after_reset() != TEST_OK || other_locations() != TEST_OK ||
	    malformed() != TEST_OK || thread_size() != TEST_OK ||
	    json_output() != TEST_OK)
		return TEST_FAIL;
	return TEST_OK;
}
