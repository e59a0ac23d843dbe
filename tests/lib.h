/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TESTS_LIB_H
#define TK_TESTS_LIB_H

#include <stdint.h>

#include "util/callgraph.h"
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

/* The file at NAME under the source tree, gunzip'ed (*len bytes), or NULL. */
uint8_t *test_read_gz(const char *name, size_t *len);

/*
 * A snapshot of this process as probe --call-graph takes one at a uprobe
 * (the registers of arch_unwind_regs() at one instruction, the stack
 * above them), with backtrace() from the same function as the oracle;
 * for tests/unwind.c and tests/fuzz/unwind.c.  x86-64 only: the
 * registers are read with its instructions.
 */
#define TEST_SNAPSHOT_EVENT	77
#define TEST_SNAPSHOT_PID	4242
/* levels of recursion above the snapshot */
#define TEST_SNAPSHOT_DEPTH	10
#define TEST_SNAPSHOT_BT	128
/* struct trace_entry (8 bytes) and the uprobe's __probe_ip. */
#define TEST_SNAPSHOT_HEAD	16
#define TEST_SNAPSHOT_MAX \
	(TEST_SNAPSHOT_HEAD + 8 * 8 + CALLGRAPH_DEF_STACK)

struct test_snapshot {
	uint64_t regs[8];	/* in arch_unwind_regs() order */
	unsigned char stack[CALLGRAPH_DEF_STACK];
	size_t len;
	void *bt[TEST_SNAPSHOT_BT];
	int nr_bt;
};

/*
 * Takes s, TEST_SNAPSHOT_DEPTH calls deep; procmaps gets this process's maps.
 */
void test_snapshot_take(struct test_snapshot *s, struct strbuf *procmaps);

/* The address of the function that takes the snapshot (s->regs[0] is in it). */
uintptr_t test_snapshot_fn(void);

/*
 * The named maps of this process, as record --proc-map stores them (pid
 * TEST_SNAPSHOT_PID).
 */
void test_self_procmaps(struct strbuf *out);

/* The format the kernel gives a probe with only the capture arguments. */
void test_capture_format(struct strbuf *out, size_t stack_len);

/*
 * The record of s: header, registers, stack; its size (<= TEST_SNAPSHOT_MAX).
 */
size_t test_lay_out(unsigned char *buf, const struct test_snapshot *s);

#endif
