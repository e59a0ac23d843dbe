#!/bin/bash
# description: unwind: the stacks of threads (each with its own stack and maps entry) equal their backtrace()
# Four threads and main call the probed leaf(), which prints its own
# backtrace() with the thread's id; record stores each thread's maps (its
# ptrace follows the clones), and report must unwind every event, on the
# thread's stack down to clone3, as backtrace() walked it.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_unwind
need_host_cmd gcc
bin=$TK_TMP/unwind_thr
cat >"$TK_TMP/thr.c" <<'C'
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
volatile int sink;

__attribute__((noinline)) void leaf(int id)
{
	void *bt[64];
	int n = backtrace(bt, 64), i;

	pthread_mutex_lock(&out);
	printf("BT %d", id);
	for (i = 1; i < n; i++)
		printf(" %lu", (unsigned long)bt[i]);
	printf("\n");
	pthread_mutex_unlock(&out);
}

static void *run(void *arg)
{
	int i;

	for (i = 0; i < 25; i++)
		leaf((int)(long)arg * 100 + i);
	sink++;
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	long i;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, run, (void *)(i + 1));
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	run(0);
	return 0;
}
C
gcc -g -O2 -fomit-frame-pointer -pthread -o "$bin" "$TK_TMP/thr.c" || fail "gcc failed"
on_exit "'$TRACEKIT' probe -d 'probe_unwind_thr:*'"
"$TRACEKIT" probe -x "$bin" --call-graph 'leaf id' >/dev/null || fail "probe failed"
"$TRACEKIT" record -q -e probe_unwind_thr:leaf -o "$TK_TMP/thr.dat" -- "$bin" \
	>"$TK_TMP/out" 2>/dev/null || fail "record failed"
"$TRACEKIT" probe -d 'probe_unwind_thr:*' >/dev/null || fail "probe -d failed"
sed -n 's/^BT //p' "$TK_TMP/out" | sort >"$TK_TMP/want"
"$TRACEKIT" report -i "$TK_TMP/thr.dat" --format json |
	jq -r '(.callchain | map(select(.inlined | not))) as $c |
		"\(.fields.id) " + ([$c[1:][] | .ip | tostring] | join(" "))' | sort >"$TK_TMP/got"
assert_eq "events" "$(wc -l <"$TK_TMP/got")" 125
assert_eq "pids" "$("$TRACEKIT" report -i "$TK_TMP/thr.dat" --format json | jq .pid | sort -u | wc -l)" 5
diff -u "$TK_TMP/want" "$TK_TMP/got" | head -20
match=$(comm -12 "$TK_TMP/want" "$TK_TMP/got" | wc -l)
echo "$match of 125 events of 5 threads unwound as backtrace() walked them"
assert_eq "stacks equal to backtrace()" "$match" 125
