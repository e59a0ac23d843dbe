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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "tests/run.h"
#include "tests/runner.h"
#include "tests/tests.h"
#include "util/parse-options.h"
#include "util/strbuf.h"
#include "util/usage.h"

#ifndef TRACEKIT_SRCDIR
#define TRACEKIT_SRCDIR "."
#endif

static const char *const test_usage[] = {
	"tracekit test [-v] [-j N] [--timeout SEC] [NUMBER | SUBSTRING]...",
	"tracekit test --list [NUMBER | SUBSTRING]...",
	"tracekit test --caps",
	NULL
};

int cmd_test(int argc, const char **argv)
{
	struct test_list tests = { 0 };
	struct test_run_opts o = { .timeout = 900, .jobs = 1 };
	struct strbuf cap_lines = STRBUF_INIT;
	struct test_run *run;
	int list = 0, caps = 0, i, failed;
	char tmpl[] = "/tmp/tracekit-test.XXXXXX";
	char *self;
	const struct option options[] = {
		OPT_INCR('v', "verbose", &o.verbose,
			 "show the output of each test (failure detail)"),
		OPT_BOOL('l', "list", &list,
			 "list the tests with their numbers"),
		OPT_INTEGER('t', "timeout", &o.timeout, "SEC",
			    "fail a test that runs longer (default 900)"),
		OPT_INTEGER('j', "jobs", &o.jobs, "N",
			    "run up to N tests at once, one of them touching tracefs"),
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
	if (o.jobs < 1 || o.jobs > TEST_RUN_MAX_JOBS)
		die_code(TK_EXIT_USAGE, "--jobs must be from 1 to %d",
			 TEST_RUN_MAX_JOBS);
	test_list_collect(&tests);
	if (list) {
		for (i = 0; i < tests.nr; i++)
			if (test_selected(&tests.v[i], i + 1, argc, argv))
				printf("%3d: %s\n", i + 1, tests.v[i].desc);
		test_list_free(&tests);
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
	test_run_catch_signals();

	run = test_run_select(&tests, argc, argv);
	test_run_tests(run, &o);
	rmdir(tmpl);
	if (!test_run_count(run) && argc) {
		error("no test matches '%s'", argv[0]);
		test_run_free(run);
		test_list_free(&tests);
		strbuf_release(&cap_lines);
		return TK_EXIT_USAGE;
	}
	failed = test_run_summary(run);
	test_run_free(run);
	test_list_free(&tests);
	strbuf_release(&cap_lines);
	return failed ? TK_EXIT_FAIL : TK_EXIT_OK;
}
