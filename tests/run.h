/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TESTS_RUN_H
#define TK_TESTS_RUN_H

#include "tests/runner.h"

/*
 * Running the tests `tracekit test` selected: up to --jobs at once, one
 * at a time of those that may touch the host's tracefs (a lock shared
 * with other runs on the machine), each failed past its time limit or
 * when it leaves tracefs changed, a skip failed unless the capabilities
 * bear it out; results print as they come, in the tests' order.
 */

#define TEST_RUN_MAX_JOBS 16

struct test_run_opts {
	int verbose;
	int timeout;
	int jobs;
	char *tmpdir;
	const char *caps;	/* test_caps_text(), for the skip ledger */
};

/* The selected tests of a list and what each came to. */
struct test_run;

/* SIGINT and SIGTERM go to the running tests and end the run. */
void test_run_catch_signals(void);
/* The tests of l that argv selects (test_selected()); l outlives it. */
struct test_run *test_run_select(const struct test_list *l, int argc,
				 const char **argv);
int test_run_count(const struct test_run *run);
void test_run_tests(struct test_run *run, const struct test_run_opts *o);
/*
 * Prints what the run came to ("interrupted", the slowest tests, the skip
 * ledger, the counts); returns nonzero when a test failed or the run was
 * interrupted.
 */
int test_run_summary(const struct test_run *run);
void test_run_free(struct test_run *run);

#endif
