/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TESTS_RUNNER_H
#define TK_TESTS_RUNNER_H

#include "util/strbuf.h"

/*
 * What `tracekit test` knows of the tests besides running them: where
 * the shell tests are and what their headers say, the tracefs state a
 * test must leave as it found it, and the capabilities a skip may claim.
 * The suites' side of the skip contract is test_skip_cap() (tests.h).
 */

/*
 * The numbered list of `tracekit test`: the C suites of tests/tests.h, then
 * the shell tests.
 */
struct test_entry {
	char *desc;
	int (*func)(void);
	/* the shell test's path, or NULL for a C suite */
	char *script;
	int host_tracefs;	/* may touch the host's tracefs */
	int timeout;		/* seconds, or 0 for --timeout's */
};

struct test_list {
	struct test_entry *v;
	int nr, alloc;
};

/* The suites and shell tests (the fixtures only, for the self-test). */
void test_list_collect(struct test_list *l);
void test_list_free(struct test_list *l);
/*
 * Whether test t, numbered num, is one of those argv names (a number, or
 * a substring of its description or script path); all are without argv.
 */
int test_selected(const struct test_entry *t, int num, int argc,
		  const char **argv);

/* The running binary's path, or NULL; free() it. */
char *test_self_path(void);

struct test_script {
	char *path;
	char *desc;		/* "# description:", else the file name */
	int host_tracefs;	/* 0 for "# tracefs: untouched" */
	int timeout;		/* "# timeout: SEC", or 0 */
};

/*
 * The shell tests (tests/shell/NAME.sh, or $TRACEKIT_SHELL_TESTS), sorted
 * by name; returns their count, *v to be freed with test_scripts_free().
 */
int test_scripts_find(struct test_script **v);
void test_scripts_free(struct test_script *v, int nr);

/*
 * The tracefs settings, dynamic events and instances a test could leave
 * behind, as text to compare before and after it; empty without root
 * or tracefs.
 */
void test_tracefs_snapshot(struct strbuf *snap);
/* "tracefs residue: SECTION changed", the first section that differs. */
void test_tracefs_residue(const char *before, const char *after,
			  struct strbuf *why);

/*
 * What this machine offers, as the KEY=VALUE lines of --caps; a value is
 * absent when empty or 0.
 */
void test_caps_text(struct strbuf *sb);
/*
 * The skip ledger: a skip must name a capability (CAP, or !CAP for one
 * the test must not have) that caps bear out, else it is counted as a
 * failure, so that no silent skip lands.  Returns 1 when the claim
 * holds; otherwise 0 and appends "; why" to why.
 */
int test_skip_claim_holds(const char *caps, const char *cap,
			  struct strbuf *why);

#endif
