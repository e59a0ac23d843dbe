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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/strbuf.h"
#include "util/unwind.h"

#define MUTATIONS	100000

/*
 * bt[k] is the return address into take() from backtrace() (ASan's
 * interceptor of backtrace() adds a frame of its own before it); the
 * callers follow, which the offline frames 1 on must equal.
 */
static int check_stack(const struct unwind_stack *all,
		       const struct test_snapshot *s)
{
	static struct unwind_frame frames[UNWIND_MAX_FRAMES + 1];
	struct unwind_stack real = { .v = frames }, *st = &real;
	uintptr_t fn = test_snapshot_fn();
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
	TEST_ASSERT_VAL("the recursion's frames are unwound", known >= TEST_SNAPSHOT_DEPTH + 2);
	TEST_ASSERT_EQUAL("frame 0 is the snapshot's pc", st->v[0].ip, s->regs[0]);
	for (i = 1; i < known; i++) {
		int b = k + i;

		if (b >= s->nr_bt || st->v[i].ip != (uintptr_t)s->bt[b])
			fprintf(stderr, "frame %d: offline %#llx (%s), backtrace() %p\n", i,
				(unsigned long long)st->v[i].ip,
				st->v[i].sym ? st->v[i].sym : "?", b < s->nr_bt ? s->bt[b] : NULL);
		TEST_ASSERT_VAL("offline frame equals backtrace()'s",
				b < s->nr_bt &&
					st->v[i].ip == (uintptr_t)s->bt[b]);
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
		size_t at =
			TEST_SNAPSHOT_HEAD +
			(size_t)rand_r(seed) % (size - TEST_SNAPSHOT_HEAD - 8);
		uint64_t v = ((uint64_t)rand_r(seed) << 33) ^
			     ((uint64_t)rand_r(seed) << 2);

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
	static struct test_snapshot s;
	static unsigned char buf[TEST_SNAPSHOT_MAX], work[sizeof(buf)];
	struct unwind_stack st = { 0 };
	struct tep_record rec = { 0 };
	struct tep_handle *tep;
	struct tep_event *event;
	struct unwind *u;
	unsigned int seed = 1;
	size_t size;
	int i, ret = TEST_FAIL, unknown = 0;

#if !defined(__x86_64__)
	return test_skip_cap("build_x86_64",
			     "the snapshot is taken with x86-64 instructions");
#endif
	test_snapshot_take(&s, &maps);
	test_capture_format(&fmt, s.len);
	tep = tep_alloc();
	tep_set_long_size(tep, sizeof(long));
	if (tep_parse_event(tep, fmt.buf, fmt.len, "tktest")) {
		fprintf(stderr, "libtraceevent refuses the format:\n%s", fmt.buf);
		goto out;
	}
	event = tep_find_event(tep, TEST_SNAPSHOT_EVENT);
	u = unwind_new();
	if (!event || unwind_add_procmaps(u, 0, maps.buf, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		goto out_u;
	}
	if (!unwind_event_has_stack(u, event)) {
		fprintf(stderr, "no capture fields in:\n%s", fmt.buf);
		goto out_u;
	}
	size = test_lay_out(buf, &s);
	rec.data = buf;
	rec.size = size;
	if (unwind_record(u, 0, event, &rec, TEST_SNAPSHOT_PID, &st) <= 0 ||
	    check_stack(&st, &s))
		goto out_u;
	if (unwind_record(u, 0, event, &rec, TEST_SNAPSHOT_PID + 1, &st)) {
		fprintf(stderr, "a pid without maps unwound\n");
		goto out_u;
	}
	for (i = 0; i < MUTATIONS; i++) {
		memcpy(work, buf, size);
		rec.data = work;
		rec.size = mutate(work, size, &seed);
		if (unwind_record(u, 0, event, &rec, TEST_SNAPSHOT_PID, &st) >
		    UNWIND_MAX_FRAMES + 1) {
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
