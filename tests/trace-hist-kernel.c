// SPDX-License-Identifier: GPL-2.0
/*
 * util/trace-hist.c against a kernel with hist triggers (the VM guest):
 * triggers on syscalls:sys_enter_write (and sys_enter_read, for tables
 * of two events) count what a few dd do while `tracekit record` records
 * the same events, and each table read back from the kernel must be,
 * byte for byte, what `tracekit report` prints from the recording with
 * the same options (report's user-space path, itself checked against
 * bpftrace 0.17 by tests/shell/report-aggregate.sh).  Then a table
 * fuller than the kernel's 2048 entries must be said so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/aggregate.h"
#include "util/report-aggregate.h"
#include "util/strbuf.h"
#include "util/trace-hist.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"

#define FILTER	"comm == \"dd\""

/* The workload: sizes below, in and above --lhist's range, on two fds. */
static const char workload[] =
	"sh -c 'exec 2>/dev/null; dd if=/dev/zero of=/dev/null bs=512 count=3; "
	"dd if=/dev/zero of=/dev/null bs=4096 count=2; "
	"dd if=/dev/zero of=/dev/null bs=1 count=5; "
	"dd if=/dev/zero of=/dev/null bs=6000 count=1'";

/* The events: the tables of both fold their two triggers into one. */
static const char *const events[] = { "sys_enter_write", "sys_enter_read" };

/*
 * One table: the aggregation as report's options, and as --by KEYS, of
 * sys_enter_write or of both events.
 */
static const struct kcase {
	const char *option, *arg, *by;
	int json, both;
} cases[] = {
	{ "--count", NULL, "comm,pid", 0, 0 },
	{ "--sum", "count", "pid", 0, 0 },
	{ "--hist", "count", "comm", 0, 0 },
	{ "--lhist", "count,0,5000,512", NULL, 0, 0 },
	{ "--avg", "count", "fd", 0, 0 },
	{ "--count", NULL, "cpu,event", 0, 0 },
	{ "--max", "count", "fd", 0, 0 },
	{ "--min", "count", "comm,fd", 1, 0 },
	{ "--hist", "count", "event,pid", 1, 0 },
	{ "--sum", "count", "event,comm", 0, 1 },
	{ "--lhist", "count,0,8192,1024", "event,cpu", 1, 1 },
};
#define NR_CASES	(sizeof(cases) / sizeof(cases[0]))

static int set_case(struct report_agg_opts *o, const struct kcase *c,
		    struct strbuf *err)
{
	memset(o, 0, sizeof(*o));
	o->json = c->json;
	if (report_agg_set(o, c->option, c->arg, err))
		return -1;
	return c->by ? report_agg_set(o, "--by", c->by, err) : 0;
}

/* The kernel's table of case c, printed, against report's of file. */
static int same_as_report(const char *self, const char *file,
			  const struct kcase *c, struct trace_hist **h,
			  const struct report_agg_opts *o)
{
	struct strbuf cmd = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
	struct aggregate *a = aggregate_new(o->op, o->nr_keys, &o->lh);
	int ret = TEST_FAIL, i;

	strbuf_addf(&cmd, "%s report %s %s%s%s%s%s%s %s", self,
		    c->both ? "" : "-e syscalls:sys_enter_write", c->option,
		    c->arg ? " " : "", c->arg ? c->arg : "",
		    c->by ? " --by " : "", c->by ? c->by : "",
		    c->json ? " --format json" : "", file);
	fprintf(stderr, "+ %s\n", cmd.buf);
	if (test_run_capture(cmd.buf, &want)) {
		fprintf(stderr, "FAILED: report\n");
		goto out;
	}
	for (i = 0; i <= c->both; i++) {
		if (trace_hist_read(h[i], a, &err)) {
			fprintf(stderr, "FAILED: %s\n", err.buf);
			goto out;
		}
	}
	if (c->json)
		aggregate_print_json(a, 0, &got);
	else
		aggregate_print_text(a, 0, &got);
	if (strcmp(got.buf, want.buf) || aggregate_size(a) == 0) {
		fprintf(stderr, "FAILED: the kernel's table of %s:\n%s\nreport's:\n%s\n",
			trace_hist_command(h[0]), got.buf, want.buf);
		goto out;
	}
	fprintf(stderr, "same table (%zu entries) for %s%s\n",
		aggregate_size(a), trace_hist_command(h[0]),
		c->both ? ", on both events" : "");
	ret = TEST_OK;
out:
	aggregate_free(a);
	strbuf_release(&cmd);
	strbuf_release(&want);
	strbuf_release(&got);
	strbuf_release(&err);
	return ret;
}

static int check_tables(const char *self, const char *dir)
{
	struct report_agg_opts o[NR_CASES];
	struct trace_hist *h[NR_CASES][2] = { { NULL } };
	struct strbuf err = STRBUF_INIT, file = STRBUF_INIT;
	size_t i, n = 0;
	int ret = TEST_FAIL, e;

	for (n = 0; n < NR_CASES; n++) {
		if (set_case(&o[n], &cases[n], &err))
			goto refused;
		for (e = 0; e <= cases[n].both; e++)
			if (trace_hist_start(NULL, "syscalls", events[e],
					     FILTER, &o[n], &h[n][e], &err))
				goto refused;
	}
	strbuf_addf(&file, "%s/t.dat", dir);
	if (test_run("%s record -q -e syscalls:%s -f '%s' -e syscalls:%s -f '%s' -o %s -- %s",
		     self, events[0], FILTER, events[1], FILTER, file.buf,
		     workload))
		goto out;
	for (i = 0; i < n; i++)
		if (same_as_report(self, file.buf, &cases[i], h[i], &o[i]))
			goto out;
	ret = TEST_OK;
	goto out;
refused:
	fprintf(stderr, "FAILED: %s %s: %s\n", cases[n].option,
		cases[n].by ? cases[n].by : "", err.buf);
	n++;
out:
	for (i = 0; i < n; i++) {
		for (e = 0; e < 2; e++)
			trace_hist_free(h[i][e]);
		report_agg_opts_release(&o[i]);
	}
	strbuf_release(&err);
	strbuf_release(&file);
	return ret;
}

/*
 * More sizes than the kernel's 2048 entries: the read says so.  The
 * writes come from a script of their own, which the kernel names by its
 * file's name (comm), so that the filter takes none of anyone else's.
 */
static int check_dropped(const char *dir)
{
	struct report_agg_opts o = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct trace_hist *h;
	struct aggregate *a;
	size_t full;
	int ret, clear;

	TEST_ASSERT_EQUAL("--count=count",
			  report_agg_set(&o, "--count", "count", &err), 0);
	/* One write of each length from 1 to 2100. */
	TEST_ASSERT_EQUAL("script", test_run("printf '%%s\\n' '#!/bin/sh' "
		"'s=; i=0; while [ $i -lt 2100 ]; do s=${s}x; "
		"echo -n \"$s\" >/dev/null; i=$((i + 1)); done' "
		">%s/tkloop && chmod +x %s/tkloop", dir, dir), 0);
	ret = trace_hist_start(NULL, "syscalls", "sys_enter_write",
			       "comm == \"tkloop\"", &o, &h, &err);
	if (ret)
		fprintf(stderr, "%s\n", err.buf);
	TEST_ASSERT_EQUAL("start", ret, 0);
	a = aggregate_new(o.op, o.nr_keys, NULL);
	ret = test_run("%s/tkloop", dir);
	if (!ret)
		ret = trace_hist_read(h, a, &err);
	fprintf(stderr, "%s\n", err.buf);
	full = aggregate_size(a);
	aggregate_free(a);
	/* Cleared, the kernel's table is empty and its Dropped 0 again. */
	a = aggregate_new(o.op, o.nr_keys, NULL);
	clear = trace_hist_clear(h);
	if (!clear)
		clear = trace_hist_read(h, a, &err);
	trace_hist_free(h);
	TEST_ASSERT_EQUAL("-ENOSPC", ret, -ENOSPC);
	TEST_ASSERT_VAL("says so", strstr(err.buf, "of 2048): ") &&
				   strstr(err.buf, " events dropped"));
	TEST_ASSERT_EQUAL("a full table", full, 2048);
	TEST_ASSERT_EQUAL("cleared", clear, 0);
	TEST_ASSERT_EQUAL("an empty table", aggregate_size(a), 0);
	aggregate_free(a);
	report_agg_opts_release(&o);
	strbuf_release(&err);
	return TEST_OK;
}

int test__trace_hist_kernel(void)
{
	char dir[] = "/tmp/tktest-hist.XXXXXX";
	char self[4096];
	ssize_t n;
	int ret;

	if (!tk_features()->tracefs)
		return test_skip_cap("tracefs", "tracefs is not mounted");
	if (geteuid())
		return test_skip_cap("root", "not root");
	if (!tk_features()->hist_triggers)
		return test_skip_cap("hist_triggers", "this kernel has no hist triggers");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	TEST_ASSERT_VAL("readlink", n > 0);
	self[n] = '\0';
	TEST_ASSERT_VAL("mkdtemp", mkdtemp(dir));
	tk_restore_install();
	ret = check_tables(self, dir);
	if (!ret)
		ret = check_dropped(dir);
	tk_restore_run();
	test_run("rm -rf %s", dir);
	return ret;
}
