/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TESTS_H
#define TK_TESTS_H

#include <stdio.h>

/*
 * C test suites, compiled into the binary and run by `tracekit test`, each
 * in a forked child with stdout/stderr captured (shown with -v).  A suite
 * returns TEST_OK, TEST_FAIL, or test_skip_cap("CAP", "reason") when the
 * machine lacks capability CAP of `tracekit test --caps`: never TEST_OK
 * without having checked something.  The runner checks the claim.
 */
enum test_result {
	TEST_OK = 0,
	TEST_FAIL = -1,
	TEST_SKIP = -2,
};

struct test_suite {
	const char *desc;
	int (*func)(void);
};

/*
 * Records the reason shown as "Skip (CAP: reason)"; returns TEST_SKIP.
 * CAP is a --caps key this machine lacks, or "!KEY" for one it must not
 * have; a skip whose CAP --caps does not bear out counts as a failure.
 */
int test_skip_cap(const char *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A skip that names no capability: the runner counts it as a failure. */
#define test_skip(...) test_skip_cap("", __VA_ARGS__)

/* REL ("tests/data/NAME") beside the binary, else in the source tree; free() it. */
char *test_source_path(const char *rel);

#define TEST_ASSERT_VAL(text, cond)					\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "FAILED %s:%d: %s\n",		\
				__FILE__, __LINE__, text);		\
			return TEST_FAIL;				\
		}							\
	} while (0)

#define TEST_ASSERT_EQUAL(text, val, expected)				\
	do {								\
		long long v_ = (long long)(val);			\
		long long e_ = (long long)(expected);			\
		if (v_ != e_) {						\
			fprintf(stderr, "FAILED %s:%d: %s (%lld != %lld)\n", \
				__FILE__, __LINE__, text, v_, e_);	\
			return TEST_FAIL;				\
		}							\
	} while (0)

#define TEST_ASSERT_STR(text, val, expected)				\
	do {								\
		const char *v_ = (val), *e_ = (expected);		\
		if (!v_ || strcmp(v_, e_)) {				\
			fprintf(stderr, "FAILED %s:%d: %s (\"%s\" != \"%s\")\n", \
				__FILE__, __LINE__, text, v_ ? v_ : "(null)", e_); \
			return TEST_FAIL;				\
		}							\
	} while (0)

/*
 * The registry: one line per suite, X(function suffix, description).
 * Order is the numbering shown by `tracekit test --list`.
 */
#define TK_TEST_SUITES(X)						\
	X(parse_options, "option parser")				\
	X(strbuf, "strbuf")						\
	X(hostcap, "host capabilities")					\
	X(tracefs_restore, "tracefs restore-on-exit registry")	\
	X(probe_file, "probe definitions: add with rollback, list, delete") \
	X(json, "json: strings are valid UTF-8 JSON whatever the bytes; the writer") \
	X(run_command, "run-command: exec errno, gate, signals of the child, PATH lookup") \
	X(record_tracedat_write, "record: trace.dat v7 writer, as trace-cmd dump reads it") \
	X(record_uprobe, "record: uprobe with string and array arguments") \
	X(record_parse_cpus, "record: --cpus list parser") \
	X(probe_spec, "probe: spec parser, fetcharg text, DWARF of this binary") \
	X(probe_sdt, "probe: SDT notes, x86-64 and arm64 argument grammars, semaphores") \
	X(stack_tracer, "stack tracer: stack_trace parser (6.1 captures), THREAD_SIZE") \
	X(ubifs, "ubifs: verify mkfs.ubifs images, reject bad input") \
	X(ubifs_tamper, "ubifs: every flipped byte is detected and located") \
	X(ubifs_keyring, "ubifs: HMAC key from the kernel keyring") \
	X(ubifs_journal, "ubifs: indexed journal lookup answers as the linear rule") \
	X(report_tracecmd, "report: same text as trace-cmd report (v7, v6, uprobe, lost, merge)") \
	X(print_fmt, "report: compiled print formats print as libtraceevent does") \
	X(page_walk, "report: ring-buffer pages walked as libtraceevent's kbuffer walks them") \
	X(tracedat_read, "report: formats libtraceevent dies on are cut before their print fmt; fuzz inputs") \
	X(unwind, "unwind: a snapshot of this process unwinds as backtrace() walks it; mutated, it never crashes") \
	X(flamegraph, "flamegraph: the SVG's frames, widths and escaped names, as Chromium parses them") \
	X(aggregate, "aggregate: buckets, order, text and JSON as bpftrace 0.17 prints its maps") \
	X(trace_hist, "trace-hist: hist trigger texts, 6.1's hist files read into tables") \
	X(trace_hist_kernel, "trace-hist: the kernel's tables equal report's of a recording of the same events") \
	/* end of list: add suites above this line */

/* Fixture suites for the framework's own self-test, only listed when
 * TRACEKIT_TEST_FIXTURES=1 (tests/shell/test-framework.sh). */
#define TK_TEST_FIXTURES(X)						\
	X(fixture_pass, "fixture: passes")				\
	X(fixture_fail, "fixture: fails")				\
	X(fixture_skip, "fixture: skips")				\
	X(fixture_skip_nocap, "fixture: skips, naming no capability")	\
	X(fixture_skip_wrong_cap, "fixture: skips, naming a capability not missing") \
	X(fixture_crash, "fixture: crashes")

#define TK_DECLARE_SUITE(name, desc) int test__##name(void);
TK_TEST_SUITES(TK_DECLARE_SUITE)
TK_TEST_FIXTURES(TK_DECLARE_SUITE)
#undef TK_DECLARE_SUITE

#endif
