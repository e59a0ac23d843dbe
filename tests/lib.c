// SPDX-License-Identifier: GPL-2.0
#include <execinfo.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "arch/arch.h"
#include "tests/lib.h"
#include "tests/tests.h"
#include "util/array.h"
#include "util/tracefs.h"
#include "util/usage.h"

int test_run(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "+ %s\n", cmd.buf);
	ret = system(cmd.buf);
	strbuf_release(&cmd);
	return ret;
}

int test_run_capture(const char *cmd, struct strbuf *out)
{
	char buf[4096];
	size_t n;
	FILE *fp = popen(cmd, "r");

	if (!fp)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(out, buf, n);
	return pclose(fp);
}

int test_have_cmd(const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	int found;

	strbuf_addf(&sb, "command -v %s >/dev/null 2>&1", cmd);
	found = system(sb.buf) == 0;
	strbuf_release(&sb);
	return found;
}

/*
 * Inside the VM the guest carries only the tools the harness ships, and
 * never a compiler: a test that needs CMD there skips for "!in_vm".  On
 * the host the project installs them (scripts/deps.sh), so one missing
 * is a failure.
 */
int test_need_host_cmd(const char *cmd)
{
	if (test_have_cmd(cmd))
		return TEST_OK;
	if (getenv("TRACEKIT_IN_VM"))
		return test_skip_cap("!in_vm", "%s is not in the VM guest", cmd);
	fprintf(stderr, "FAILED: %s is not installed (scripts/deps.sh installs it)\n", cmd);
	return TEST_FAIL;
}

int test_need_uprobe_target(void)
{
	if (geteuid() != 0)
		return test_skip_cap("root", "needs root");
	if (!tk_features()->uprobe_events)
		return test_skip_cap("uprobes", "no uprobe_events");
	return test_need_host_cmd("cc");
}

uint64_t test_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* The end of [stack] from maps, which the copy of the stack must not pass. */
static uint64_t stack_end(const char *procmaps)
{
	const char *l = strstr(procmaps, " [stack]\n");
	unsigned long long start, end;

	while (l && l > procmaps && l[-1] != '\n')
		l--;
	return l && sscanf(l, "%llx %llx", &start, &end) == 2 ? end : 0;
}

/*
 * The stack as it is, ASan's redzones in it too (as the kernel copies
 * it): byte by byte, which no compiler turns into a memcpy() call that
 * ASan would check.
 */
__attribute__((no_sanitize("address"))) static void
copy_raw(unsigned char *dst, const volatile unsigned char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

/*
 * The registers at one instruction, then the stack above them and
 * backtrace() from the same function: bt[1] on are the callers' return
 * addresses, which the offline unwind from regs must find as its frames
 * 1 on.
 */
static __attribute__((noinline)) void take(struct test_snapshot *s,
					   uint64_t top)
{
#if defined(__x86_64__)
	asm volatile("lea 0(%%rip), %%rax\n\t"
		     "mov %%rax, 0(%0)\n\t"
		     "mov %%rsp, 8(%0)\n\t"
		     "mov %%rbp, 16(%0)\n\t"
		     "mov %%rbx, 24(%0)\n\t"
		     "mov %%r12, 32(%0)\n\t"
		     "mov %%r13, 40(%0)\n\t"
		     "mov %%r14, 48(%0)\n\t"
		     "mov %%r15, 56(%0)\n\t"
		     : : "r"(s->regs) : "rax", "memory");
#endif
	s->len = sizeof(s->stack);
	if (top > s->regs[1] && top - s->regs[1] < s->len)
		s->len = top - s->regs[1];
	copy_raw(s->stack,
		 (const volatile unsigned char *)(uintptr_t)s->regs[1], s->len);
	s->nr_bt = backtrace(s->bt, TEST_SNAPSHOT_BT);
}

static volatile int sink;

/* Not a tail call: the store after it keeps each level's frame. */
static __attribute__((noinline)) void descend(struct test_snapshot *s,
					      uint64_t top, int left)
{
	if (left)
		descend(s, top, left - 1);
	else
		take(s, top);
	sink++;
}

void test_snapshot_take(struct test_snapshot *s, struct strbuf *procmaps)
{
	test_self_procmaps(procmaps);
	descend(s, stack_end(procmaps->buf), TEST_SNAPSHOT_DEPTH);
}

uintptr_t test_snapshot_fn(void)
{
	return (uintptr_t)take;
}

void test_self_procmaps(struct strbuf *out)
{
	char line[PATH_MAX + 128], name[PATH_MAX];
	struct strbuf body = STRBUF_INIT;
	unsigned long long start, end;
	int nr = 0;
	FILE *fp = fopen("/proc/self/maps", "re");

	while (fp && fgets(line, sizeof(line), fp)) {
		name[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %*x %*s %*d %4095s", &start, &end, name) == 3 &&
		    name[0]) {
			strbuf_addf(&body, "%llx %llx %s\n", start, end, name);
			nr++;
		}
	}
	if (fp)
		fclose(fp);
	strbuf_addf(out, "%x %x /proc/self/exe\n", TEST_SNAPSHOT_PID, nr);
	strbuf_add(out, body.buf, body.len);
	strbuf_release(&body);
}

void test_capture_format(struct strbuf *out, size_t stack_len)
{
	const struct arch_unwind_reg *regs;
	int i, nr, off = TEST_SNAPSHOT_HEAD;
	size_t done, n;

	strbuf_addf(out, "name: cg\nID: %d\nformat:\n"
		    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		    "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n",
		    TEST_SNAPSHOT_EVENT);
	regs = ARCH_NATIVE->unwind_regs;
	nr = ARCH_NATIVE->nr_unwind_regs;
	for (i = 0; i < nr; i++, off += 8)
		strbuf_addf(out, "\tfield:u64 %s%s;\toffset:%d;\tsize:8;\tsigned:0;\n",
			    CALLGRAPH_PREFIX, regs[i].kname, off);
	for (done = 0, i = 0; done < stack_len; done += n, i++) {
		n = stack_len - done < 512 ? stack_len - done : 512;
		strbuf_addf(out, "\tfield:u64 %s%d[%zu];\toffset:%d;\tsize:%zu;\tsigned:0;\n",
			    CALLGRAPH_STACK, i, n / 8, off, n);
		off += n;
	}
	strbuf_addstr(out, "\nprint fmt: \"(%lx)\", REC->__probe_ip\n");
}

size_t test_lay_out(unsigned char *buf, const struct test_snapshot *s)
{
	size_t stack_len = s->len;

	uint16_t type = TEST_SNAPSHOT_EVENT;
	int32_t pid = TEST_SNAPSHOT_PID;

	memset(buf, 0, TEST_SNAPSHOT_HEAD);
	memcpy(buf, &type, 2);
	memcpy(buf + 4, &pid, 4);
	memcpy(buf + 8, &s->regs[0], 8);
	memcpy(buf + TEST_SNAPSHOT_HEAD, s->regs, sizeof(s->regs));
	memcpy(buf + TEST_SNAPSHOT_HEAD + sizeof(s->regs), s->stack, stack_len);
	return TEST_SNAPSHOT_HEAD + sizeof(s->regs) + stack_len;
}

uint8_t *test_read_gz(const char *name, size_t *len)
{
	char *path = test_source_path(name);
	gzFile gz = gzopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, alloc = 0;
	int got = 0;

	free(path);
	if (!gz)
		return NULL;
	do {
		grow_array(buf, n, alloc, 1 << 20);
		got = gzread(gz, buf + n, alloc - n);
		if (got > 0)
			n += got;
	} while (got > 0);
	if (got < 0 || gzclose(gz) != Z_OK || !n) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}
