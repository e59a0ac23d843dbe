// SPDX-License-Identifier: GPL-2.0
/*
 * util/unwind on this very process.  A snapshot of the registers and the
 * stack, taken as probe --call-graph takes them (arch_unwind_regs(), the
 * stack from %sp), is laid out as a record of the event format the kernel
 * gives such a probe; unwound offline with the maps of /proc/self/maps,
 * it must give the return addresses that glibc's backtrace() finds from
 * the same function, frame for frame.  Then the snapshot is mutated at
 * random (stack words, registers, record sizes): the unwinder must end
 * every stack within its frame limit, never crash (ASan: make check
 * SANITIZE=1), and mark the stacks it could not finish [unknown].
 */
#include <execinfo.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "tests/tests.h"
#include "util/fetcharg.h"
#include "util/strbuf.h"
#include "util/unwind.h"

#define EVENT_ID	77
#define PID		4242
#define DEPTH		10
#define MUTATIONS	100000
#define MAX_BT		128
/* struct trace_entry (8 bytes) and the uprobe's __probe_ip. */
#define HEAD_SIZE	16

struct snapshot {
	uint64_t regs[8];	/* in arch_unwind_regs() order */
	unsigned char stack[FETCH_CG_DEF_STACK];
	size_t len;
	void *bt[MAX_BT];
	int nr_bt;
};

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
__attribute__((no_sanitize("address")))
static void copy_raw(unsigned char *dst, const volatile unsigned char *src, size_t n)
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
static __attribute__((noinline)) void take(struct snapshot *s, uint64_t top)
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
	copy_raw(s->stack, (const volatile unsigned char *)(uintptr_t)s->regs[1], s->len);
	s->nr_bt = backtrace(s->bt, MAX_BT);
}

static volatile int sink;

/* Not a tail call: the store after it keeps each level's frame. */
static __attribute__((noinline)) void descend(struct snapshot *s, uint64_t top, int left)
{
	if (left)
		descend(s, top, left - 1);
	else
		take(s, top);
	sink++;
}

/* The named maps of this process, as record --proc-map stores them. */
static void self_procmaps(struct strbuf *out)
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
	strbuf_addf(out, "%x %x /proc/self/exe\n", PID, nr);
	strbuf_add(out, body.buf, body.len);
	strbuf_release(&body);
}

/* The format the kernel gives a probe with only the capture arguments. */
static void capture_format(struct strbuf *out, size_t stack_len)
{
	const struct arch_unwind_reg *regs;
	int i, nr, off = HEAD_SIZE;
	size_t done, n;

	strbuf_addf(out, "name: cg\nID: %d\nformat:\n"
		    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		    "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n",
		    EVENT_ID);
	regs = arch_unwind_regs(&nr);
	for (i = 0; i < nr; i++, off += 8)
		strbuf_addf(out, "\tfield:u64 %s%s;\toffset:%d;\tsize:8;\tsigned:0;\n",
			    FETCH_CG_PREFIX, regs[i].kname, off);
	for (done = 0, i = 0; done < stack_len; done += n, i++) {
		n = stack_len - done < 512 ? stack_len - done : 512;
		strbuf_addf(out, "\tfield:u64 %s%d[%zu];\toffset:%d;\tsize:%zu;\tsigned:0;\n",
			    FETCH_CG_STACK, i, n / 8, off, n);
		off += n;
	}
	strbuf_addstr(out, "\nprint fmt: \"(%lx)\", REC->__probe_ip\n");
}

/* The record of s: header, registers, stack; its size. */
static size_t lay_out(unsigned char *buf, const struct snapshot *s, size_t stack_len)
{
	uint16_t type = EVENT_ID;
	int32_t pid = PID;

	memset(buf, 0, HEAD_SIZE);
	memcpy(buf, &type, 2);
	memcpy(buf + 4, &pid, 4);
	memcpy(buf + 8, &s->regs[0], 8);
	memcpy(buf + HEAD_SIZE, s->regs, sizeof(s->regs));
	memcpy(buf + HEAD_SIZE + sizeof(s->regs), s->stack, stack_len);
	return HEAD_SIZE + sizeof(s->regs) + stack_len;
}

/*
 * bt[k] is the return address into take() from backtrace() (ASan's
 * interceptor of backtrace() adds a frame of its own before it); the
 * callers follow, which the offline frames 1 on must equal.
 */
static int check_stack(const struct unwind_stack *all, const struct snapshot *s)
{
	static struct unwind_frame frames[UNWIND_MAX_FRAMES + 1];
	struct unwind_stack real = { .v = frames }, *st = &real;
	uintptr_t fn = (uintptr_t)take;
	int i, k, known;

	/* backtrace() has no frames for inlined functions. */
	for (i = 0; i < all->nr && real.nr <= UNWIND_MAX_FRAMES; i++)
		if (!all->v[i].inlined)
			frames[real.nr++] = all->v[i];
	known = st->nr - (st->nr && st->v[st->nr - 1].unknown);

	for (k = 0; k < s->nr_bt; k++)
		if ((uintptr_t)s->bt[k] > fn && (uintptr_t)s->bt[k] < fn + 4096)
			break;
	fprintf(stderr, "offline: %d frames%s, backtrace(): %d from take()\n", known,
		known < st->nr ? " then [unknown]" : "", s->nr_bt - k);
	TEST_ASSERT_VAL("backtrace() went through take()", k < s->nr_bt);
	/* take(), then a frame per level of descend() */
	TEST_ASSERT_VAL("the recursion's frames are unwound", known >= DEPTH + 2);
	TEST_ASSERT_EQUAL("frame 0 is the snapshot's pc", st->v[0].ip, s->regs[0]);
	for (i = 1; i < known; i++) {
		int b = k + i;

		if (b >= s->nr_bt || st->v[i].ip != (uintptr_t)s->bt[b])
			fprintf(stderr, "frame %d: offline %#llx (%s), backtrace() %p\n", i,
				(unsigned long long)st->v[i].ip,
				st->v[i].sym ? st->v[i].sym : "?", b < s->nr_bt ? s->bt[b] : NULL);
		TEST_ASSERT_VAL("offline frame equals backtrace()'s",
				b < s->nr_bt && st->v[i].ip == (uintptr_t)s->bt[b]);
	}
	TEST_ASSERT_VAL("the frame of take() is named", st->v[0].sym &&
			strstr(st->v[0].sym, "take"));
	return TEST_OK;
}

/* Random words of the stack and registers; sometimes a record cut short. */
static size_t mutate(unsigned char *buf, size_t size, unsigned int *seed)
{
	int i, n = 1 + rand_r(seed) % 8;

	for (i = 0; i < n; i++) {
		size_t at = HEAD_SIZE + (size_t)rand_r(seed) % (size - HEAD_SIZE - 8);
		uint64_t v = ((uint64_t)rand_r(seed) << 33) ^ ((uint64_t)rand_r(seed) << 2);

		if (rand_r(seed) % 2)
			memcpy(buf + at, &v, 8);
		else
			buf[at] ^= 1u << (rand_r(seed) % 8);
	}
	return rand_r(seed) % 16 ? size : (size_t)rand_r(seed) % size;
}

int test__unwind(void)
{
	struct strbuf maps = STRBUF_INIT, fmt = STRBUF_INIT, err = STRBUF_INIT;
	static struct snapshot s;
	static unsigned char buf[HEAD_SIZE + sizeof(s.regs) + sizeof(s.stack)],
		work[sizeof(buf)];
	struct unwind_stack st = { 0 };
	struct tep_record rec = { 0 };
	struct tep_handle *tep;
	struct tep_event *event;
	struct unwind *u;
	unsigned int seed = 1;
	size_t size;
	int i, ret = TEST_FAIL, unknown = 0;

#if !defined(__x86_64__)
	return test_skip("the snapshot is taken with x86-64 instructions");
#endif
	self_procmaps(&maps);
	descend(&s, stack_end(maps.buf), DEPTH);
	capture_format(&fmt, s.len);
	tep = tep_alloc();
	tep_set_long_size(tep, sizeof(long));
	if (tep_parse_event(tep, fmt.buf, fmt.len, "tktest")) {
		fprintf(stderr, "libtraceevent refuses the format:\n%s", fmt.buf);
		goto out;
	}
	event = tep_find_event(tep, EVENT_ID);
	u = unwind_new();
	if (!event || unwind_add_procmaps(u, 0, maps.buf, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		goto out_u;
	}
	if (!unwind_event_has_stack(u, event)) {
		fprintf(stderr, "no capture fields in:\n%s", fmt.buf);
		goto out_u;
	}
	size = lay_out(buf, &s, s.len);
	rec.data = buf;
	rec.size = size;
	if (unwind_record(u, 0, event, &rec, PID, &st) <= 0 || check_stack(&st, &s))
		goto out_u;
	if (unwind_record(u, 0, event, &rec, PID + 1, &st)) {
		fprintf(stderr, "a pid without maps unwound\n");
		goto out_u;
	}
	for (i = 0; i < MUTATIONS; i++) {
		memcpy(work, buf, size);
		rec.data = work;
		rec.size = mutate(work, size, &seed);
		if (unwind_record(u, 0, event, &rec, PID, &st) > UNWIND_MAX_FRAMES + 1) {
			fprintf(stderr, "mutation %d: %d frames\n", i, st.nr);
			goto out_u;
		}
		unknown += st.nr && st.v[st.nr - 1].unknown;
	}
	fprintf(stderr, "%d mutated records unwound, %d ended in [unknown]\n", MUTATIONS, unknown);
	ret = unknown ? TEST_OK : TEST_FAIL;
out_u:
	unwind_free(u);
out:
	tep_free(tep);
	unwind_stack_release(&st);
	strbuf_release(&maps);
	strbuf_release(&fmt);
	strbuf_release(&err);
	return ret;
}
