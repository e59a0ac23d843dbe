// SPDX-License-Identifier: GPL-2.0
/*
 * util/trace-hist.c without a kernel: the triggers' text, and the `hist`
 * files Debian's 6.1 kernel printed in the VM for a known workload
 * (tests/data/hist-6.1-*.txt, with the events' formats, made by
 * tests/vm/mk-hist-fixtures.sh) read back into tables.  The expected
 * tables come from the workload (three dd: 512 bytes 3 times, 4096
 * twice, 1 five times, each then writing its 31-byte summary "N+0
 * records in\nN+0 records out\n" to stderr) added with aggregate_add(),
 * or from the kernel's own totals in the same file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tests/tests.h"
#include "util/aggregate.h"
#include "util/report-aggregate.h"
#include "util/strbuf.h"
#include "util/trace-hist.h"

#define DD_FILTER	"comm == \"dd\""

/* One dd's writes: COUNT writes of BS bytes to fd 1. */
static const struct { int bs, count; } dd_runs[] = {
	{ 512, 3 }, { 4096, 2 }, { 1, 5 },
};
#define NR_DD	(sizeof(dd_runs) / sizeof(dd_runs[0]))

static char *fixture(const char *name)
{
	struct strbuf rel = STRBUF_INIT, text = STRBUF_INIT;
	char *path;
	long n;

	strbuf_addf(&rel, "tests/data/%s", name);
	path = test_source_path(rel.buf);
	n = strbuf_read_file(&text, path, 0);
	if (n < 0)
		fprintf(stderr, "cannot read fixture %s: %s\n", path,
			strerror(-n));
	free(path);
	strbuf_release(&rel);
	if (n < 0) {
		strbuf_release(&text);
		return NULL;
	}
	return strbuf_detach(&text, NULL);
}

/* A tep with the one format the VM's tracefs gave for the event. */
static struct tep_handle *fixture_tep(const char *system, const char *event)
{
	struct strbuf name = STRBUF_INIT;
	struct tep_handle *tep = tep_alloc();
	char *fmt;

	strbuf_addf(&name, "hist-6.1-%s.format", event);
	fmt = fixture(name.buf);
	if (!fmt || tep_parse_event(tep, fmt, strlen(fmt), system)) {
		fprintf(stderr, "%s does not parse\n", name.buf);
		tep_free(tep);
		tep = NULL;
	}
	free(fmt);
	strbuf_release(&name);
	return tep;
}

/* o from the options as report's command line gives them. */
static int set_opts(struct report_agg_opts *o, const char *option,
		    const char *arg, const char *by)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = report_agg_set(o, option, arg, &err);
	if (!ret && by)
		ret = report_agg_set(o, "--by", by, &err);
	if (ret)
		fprintf(stderr, "%s %s --by %s: %s\n", option, arg, by,
			err.buf);
	strbuf_release(&err);
	return ret;
}

/*
 * The table of o from the fixture's text, printed; the return of
 * trace_hist_parse(), its message in err.
 */
static int fold_fixture(struct tep_handle *tep, const char *system,
			const char *event, const char *filter,
			const struct report_agg_opts *o, const char *text,
			struct strbuf *out, struct strbuf *err)
{
	struct aggregate *a = aggregate_new(o->op, o->nr_keys, &o->lh);
	struct trace_hist *h;
	int ret;

	ret = trace_hist_new(tep, NULL, system, event, filter, o, &h, err);
	if (!ret) {
		ret = trace_hist_parse(h, text, a, err);
		aggregate_print_text(a, 0, out);
	}
	trace_hist_free(h);
	aggregate_free(a);
	return ret;
}

/* The workload's writes as report_agg_event() adds them: keys comm, size. */
static void dd_expected(struct aggregate *a)
{
	struct aggregate_key k[2] = { { "dd", 0 }, { NULL, 0 } };
	char summary[64];
	size_t i;
	int n;

	for (i = 0; i < NR_DD; i++) {
		k[1].num = dd_runs[i].bs;
		for (n = 0; n < dd_runs[i].count; n++)
			aggregate_add(a, k, dd_runs[i].bs);
		n = snprintf(summary, sizeof(summary),
			     "%d+0 records in\n%d+0 records out\n",
			     dd_runs[i].count, dd_runs[i].count);
		k[1].num = n;
		aggregate_add(a, k, n);
	}
}

/* The trigger text, as the fixture script wrote it and the kernel took. */
static int test_command(struct tep_handle *tep)
{
	struct report_agg_opts o;
	struct strbuf err = STRBUF_INIT;
	struct trace_hist *h;

	TEST_ASSERT_VAL("opts", !set_opts(&o, "--sum", "count", "comm,count"));
	TEST_ASSERT_EQUAL("new", trace_hist_new(tep, NULL, "syscalls",
						"sys_enter_write", DD_FILTER,
						&o, &h, &err), 0);
	TEST_ASSERT_STR("sum by comm,count", trace_hist_command(h),
			"hist:keys=common_pid.execname,count:vals=count if comm == \"dd\"");
	trace_hist_free(h);
	report_agg_opts_release(&o);

	/* pid and comm are one key; the value of hist() is one too. */
	TEST_ASSERT_VAL("opts", !set_opts(&o, "--hist", "count", "pid,comm"));
	TEST_ASSERT_EQUAL("new", trace_hist_new(tep, NULL, "syscalls",
						"sys_enter_write", NULL, &o,
						&h, &err), 0);
	TEST_ASSERT_STR("hist by pid,comm", trace_hist_command(h),
			"hist:keys=common_pid.execname,count");
	trace_hist_free(h);
	report_agg_opts_release(&o);

	/* No key: the kernel needs one all the same. */
	TEST_ASSERT_VAL("opts", !set_opts(&o, "--count", NULL, "event"));
	TEST_ASSERT_EQUAL("new", trace_hist_new(tep, NULL, "syscalls",
						"sys_enter_write", NULL, &o,
						&h, &err), 0);
	TEST_ASSERT_STR("count by event", trace_hist_command(h),
			"hist:keys=common_pid");
	trace_hist_free(h);
	report_agg_opts_release(&o);
	strbuf_release(&err);
	return TEST_OK;
}

/* What the kernel cannot give, and what the event lacks. */
static int test_refused(struct tep_handle *tep)
{
	struct report_agg_opts o;
	struct strbuf err = STRBUF_INIT;
	struct trace_hist *h;

	TEST_ASSERT_VAL("opts", !set_opts(&o, "--lhist", "count,0,100,10",
					  "fd,cpu,pid"));
	TEST_ASSERT_EQUAL("4 keys with the value",
			  trace_hist_supported(&o, &err), -EOPNOTSUPP);
	TEST_ASSERT_VAL("says why", strstr(err.buf, "3 keys at most"));
	report_agg_opts_release(&o);
	strbuf_reset(&err);

	TEST_ASSERT_VAL("opts", !set_opts(&o, "--max", "count", "fd,cpu"));
	TEST_ASSERT_EQUAL("max: 3 keys", trace_hist_supported(&o, &err), 0);
	report_agg_opts_release(&o);

	TEST_ASSERT_VAL("opts", !set_opts(&o, "--count", "nosuch", NULL));
	TEST_ASSERT_EQUAL("no such field",
			  trace_hist_new(tep, NULL, "syscalls",
					 "sys_enter_write", NULL, &o, &h,
					 &err), -EINVAL);
	TEST_ASSERT_VAL("lists the fields",
			strstr(err.buf, "has no field 'nosuch' (its fields:") &&
			strstr(err.buf, " count"));
	report_agg_opts_release(&o);
	strbuf_release(&err);
	return TEST_OK;
}

/* sum and avg by comm and size: the first table of the write file. */
static int test_sum_avg(struct tep_handle *tep, const char *text)
{
	static const enum aggregate_op ops[] = { AGGREGATE_SUM,
						 AGGREGATE_AVG };
	static const char *const names[] = { "--sum", "--avg" };
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	struct report_agg_opts o;
	struct aggregate *a;
	size_t i;

	for (i = 0; i < 2; i++) {
		TEST_ASSERT_VAL("opts", !set_opts(&o, names[i], "count",
						  "comm,count"));
		strbuf_reset(&got);
		strbuf_reset(&want);
		TEST_ASSERT_EQUAL("parse", fold_fixture(tep, "syscalls",
							"sys_enter_write",
							DD_FILTER, &o, text,
							&got, &err), 0);
		a = aggregate_new(ops[i], 2, NULL);
		dd_expected(a);
		aggregate_print_text(a, 0, &want);
		aggregate_free(a);
		TEST_ASSERT_STR(names[i], got.buf, want.buf);
		report_agg_opts_release(&o);
	}
	strbuf_release(&got);
	strbuf_release(&want);
	strbuf_release(&err);
	return TEST_OK;
}

/*
 * The second table, by CPU and fd: the workload's bytes on fd 1 and its
 * summaries on fd 2, on whichever CPU the guest ran dd (one of its two).
 */
static int test_cpu_fd(struct tep_handle *tep, const char *text)
{
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	struct aggregate_key k[2] = { { 0 } };
	struct report_agg_opts o;
	struct aggregate *a;
	int cpu, found = 0;
	size_t i;

	TEST_ASSERT_VAL("opts", !set_opts(&o, "--sum", "count", "cpu,fd"));
	TEST_ASSERT_EQUAL("parse", fold_fixture(tep, "syscalls",
						"sys_enter_write", DD_FILTER,
						&o, text, &got, &err), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		a = aggregate_new(AGGREGATE_SUM, 2, NULL);
		k[0].num = cpu;
		for (i = 0; i < NR_DD; i++) {
			k[1].num = 1;
			aggregate_add(a, k, dd_runs[i].bs * dd_runs[i].count);
			k[1].num = 2;
			aggregate_add(a, k, 31);
		}
		strbuf_reset(&want);
		aggregate_print_text(a, 0, &want);
		aggregate_free(a);
		found |= !strcmp(got.buf, want.buf);
	}
	if (!found)
		fprintf(stderr, "by cpu,fd:%s", got.buf);
	TEST_ASSERT_VAL("sum by cpu,fd", found);
	report_agg_opts_release(&o);
	strbuf_release(&got);
	strbuf_release(&want);
	strbuf_release(&err);
	return TEST_OK;
}

/* The third table overflowed: said, with the size, and no entry lost. */
static int test_dropped(struct tep_handle *tep, const char *text)
{
	struct strbuf got = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
	struct report_agg_opts o;
	const char *p, *d = NULL;
	int entries = 0;

	for (p = text; (p = strstr(p, "Dropped: ")); p++)
		d = p + strlen("Dropped: ");
	TEST_ASSERT_VAL("the kernel's Dropped", d && atoi(d) > 0);
	strbuf_addf(&want, "(2048 entries of 2048): %d events dropped",
		    atoi(d));
	TEST_ASSERT_VAL("opts", !set_opts(&o, "--count", "count", NULL));
	TEST_ASSERT_EQUAL("dropped", fold_fixture(tep, "syscalls",
						  "sys_enter_write",
						  "comm == \"sh\"", &o, text,
						  &got, &err), -ENOSPC);
	if (!strstr(err.buf, want.buf))
		fprintf(stderr, "%s\n", err.buf);
	TEST_ASSERT_VAL("says dropped and the size", strstr(err.buf, want.buf));
	for (p = got.buf; (p = strstr(p, "\n@[")); p++)
		entries++;
	TEST_ASSERT_EQUAL("the kernel's Entries", entries, 2048);
	report_agg_opts_release(&o);
	strbuf_release(&got);
	strbuf_release(&err);
	strbuf_release(&want);
	return TEST_OK;
}

/* The kernel's "Hits" and "Entries" in the totals after the table. */
static int totals(const char *text, long *hits, long *entries)
{
	const char *p = strstr(text, "Totals:\n");

	return !p || sscanf(p, "Totals:\n Hits: %ld\n Entries: %ld", hits,
			    entries) != 2;
}

/*
 * String keys (%-50s, padded): sched_switch by prev_comm and next_pid.
 * Each key's count summed is the kernel's Hits, the keys its Entries,
 * and no comm keeps the padding.
 */
static int test_string_key(const char *text)
{
	struct tep_handle *tep = fixture_tep("sched", "sched_switch");
	struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
	struct report_agg_opts o;
	long hits, entries, sum = 0, n = 0, pid, c;
	char comm[64];
	const char *p;

	TEST_ASSERT_VAL("format", tep);
	TEST_ASSERT_VAL("totals", !totals(text, &hits, &entries));
	TEST_ASSERT_VAL("opts", !set_opts(&o, "--count", "prev_comm,next_pid",
					  NULL));
	TEST_ASSERT_EQUAL("parse", fold_fixture(tep, "sched", "sched_switch",
						NULL, &o, text, &got, &err),
			  0);
	for (p = got.buf; (p = strstr(p, "\n@[")); p++, n++) {
		TEST_ASSERT_VAL("entry", sscanf(p, "\n@[%63[^,], %ld]: %ld",
						comm, &pid, &c) == 3);
		TEST_ASSERT_VAL("no padding", comm[strlen(comm) - 1] != ' ');
		sum += c;
	}
	TEST_ASSERT_EQUAL("Hits", sum, hits);
	TEST_ASSERT_EQUAL("Entries", n, entries);
	TEST_ASSERT_VAL("swapper", strstr(got.buf, "\n@[swapper/0, "));
	report_agg_opts_release(&o);
	strbuf_release(&got);
	strbuf_release(&err);
	tep_free(tep);
	return TEST_OK;
}

/* A line that is not the kernel's, and a file without h's table. */
static int test_bad_text(struct tep_handle *tep, const char *text)
{
	struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
	struct report_agg_opts o;
	char *bad = strdup(text), *p = strstr(bad, "hitcount:          3");

	TEST_ASSERT_VAL("line", p);
	memcpy(p, "hitcount:         3x", 20);
	TEST_ASSERT_VAL("opts", !set_opts(&o, "--sum", "count", "comm,count"));
	TEST_ASSERT_EQUAL("bad line", fold_fixture(tep, "syscalls",
						   "sys_enter_write",
						   DD_FILTER, &o, bad, &got,
						   &err), -EINVAL);
	TEST_ASSERT_VAL("names the line", strstr(err.buf, "3x"));
	strbuf_reset(&err);
	TEST_ASSERT_EQUAL("another filter", fold_fixture(tep, "syscalls",
							 "sys_enter_write",
							 "comm == \"cat\"", &o,
							 text, &got, &err),
			  -EINVAL);
	TEST_ASSERT_VAL("no table", strstr(err.buf, "has no table of"));
	TEST_ASSERT_EQUAL("no filter", fold_fixture(tep, "syscalls",
						    "sys_enter_write", NULL,
						    &o, text, &got, &err),
			  -EINVAL);
	report_agg_opts_release(&o);
	free(bad);
	strbuf_release(&got);
	strbuf_release(&err);
	return TEST_OK;
}

int test__trace_hist(void)
{
	struct tep_handle *tep = fixture_tep("syscalls", "sys_enter_write");
	char *write = fixture("hist-6.1-write.txt");
	char *dropped = fixture("hist-6.1-dropped.txt");
	char *sw = fixture("hist-6.1-switch.txt");
	int ret = TEST_FAIL;

	if (tep && write && dropped && sw && !test_command(tep) &&
	    !test_refused(tep) && !test_sum_avg(tep, write) &&
	    !test_cpu_fd(tep, write) && !test_dropped(tep, write) &&
	    !test_dropped(tep, dropped) && !test_string_key(sw) &&
	    !test_bad_text(tep, write))
		ret = TEST_OK;
	tep_free(tep);
	free(write);
	free(dropped);
	free(sw);
	return ret;
}
