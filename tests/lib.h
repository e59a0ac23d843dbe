/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TESTS_LIB_H
#define TK_TESTS_LIB_H

#include <stdint.h>

#include "util/strbuf.h"

/*
 * Helpers the C suites share.  Commands run through /bin/sh; what they
 * print goes to the suite's captured output, which `tracekit test -v`
 * shows, so a failure carries the command that failed.
 */

/* Runs the formatted command after printing it as "+ CMD" on stderr;
 * returns system()'s status (0 when it exited 0). */
int test_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs cmd with its stdout appended to out; returns pclose()'s status. */
int test_run_capture(const char *cmd, struct strbuf *out);

/* 1 when CMD is on PATH. */
int test_have_cmd(const char *cmd);

/*
 * TEST_OK when CMD is on PATH; in the VM guest (which carries no
 * compiler) a skip for "!in_vm"; on the host, where scripts/deps.sh
 * installs it, TEST_FAIL.
 */
int test_need_host_cmd(const char *cmd);

/*
 * TEST_OK when this machine can run a program compiled here with a
 * uprobe on it (root, uprobe_events, a compiler), else the skip or the
 * failure test_need_host_cmd() gives for the compiler.
 */
int test_need_uprobe_target(void);

/*
 * xorshift64 (Marsaglia): the suites draw their random samples from a
 * fixed seed, so a failure replays exactly.  *state must not be 0.
 */
uint64_t test_rand(uint64_t *state);

#endif
