#!/bin/bash
# description: trace: events printed live as report and trace-cmd report print the -o file, losses inline, within 0.2 s; probes and instance gone at every end, SIGKILL's by the next run
# A uprobe on trace-target.c's take() and the target's write(2)s, traced
# with `tracekit trace -- COMMAND` while -o writes the same events to a
# file: what trace printed must be, byte for byte, what `tracekit
# report` and trace-cmd report print of the file.  Then how each way
# of ending a run leaves tracefs.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc trace-cmd
bin=$TK_TMP/tracetarget
gcc -O1 -g -o "$bin" "$(dirname "$0")/trace-target.c" || fail "gcc failed"
ev=syscalls:sys_enter_write
[ -d "$(cap tracefs)/events/syscalls/sys_enter_write" ] ||
	ev=raw_syscalls:sys_enter

# What no run may leave: a tktrace_PID probe or a tracekit-PID instance
# whose process is gone (another tracekit may be running meanwhile);
# and the probes that were there before are still there.
clean() {	# WHEN
	local t n
	t=$(cap tracefs)
	for n in $(sed -n 's/^[pr]:tktrace_\([0-9]*\)\/.*/\1/p' "$t/uprobe_events") \
		 $(ls "$t/instances" | sed -n 's/^tracekit-//p'); do
		kill -0 "$n" 2>/dev/null ||
			fail "$1: left: $(grep "tktrace_$n" "$t/uprobe_events") $(ls "$t/instances" | grep "tracekit-$n")"
	done
	grep -q '^p:probe_tracetarget/take ' "$t/uprobe_events" ||
		fail "$1: the probe defined before trace is gone"
}
on_exit "'$TRACEKIT' probe -d 'probe_tracetarget:*'"
"$TRACEKIT" probe -x "$bin" -a take >/dev/null 2>&1 || fail "probe -a failed"

# 1. The same bytes as report and trace-cmd report of -o, text and JSON.
for fmt in text json; do
	"$TRACEKIT" trace -x "$bin" 'take v' -e "$ev" --format $fmt \
		-o "$TK_TMP/live.$fmt.dat" -- "$bin" burst 3000 \
		>"$TK_TMP/live.$fmt" 2>"$TK_TMP/live.$fmt.err" ||
		{ cat "$TK_TMP/live.$fmt.err"; fail "trace --format $fmt failed"; }
	[ "$(grep -c ' take:\|"take"' "$TK_TMP/live.$fmt")" = 3000 ] ||
		fail "$fmt: $(grep -c ' take:\|"take"' "$TK_TMP/live.$fmt") take events printed, not 3000"
	"$TRACEKIT" report --format $fmt "$TK_TMP/live.$fmt.dat" \
		>"$TK_TMP/rep.$fmt" || 
		fail "report of the -o file failed"
	cmp "$TK_TMP/live.$fmt" "$TK_TMP/rep.$fmt" ||
		{ diff "$TK_TMP/live.$fmt" "$TK_TMP/rep.$fmt" | head; fail "$fmt: trace's output differs from report's of -o"; }
	clean "--format $fmt"
done
trace-cmd report -i "$TK_TMP/live.text.dat" >"$TK_TMP/tc.text" 2>/dev/null ||
	fail "trace-cmd report of the -o file failed"
cmp "$TK_TMP/tc.text" "$TK_TMP/live.text" ||
	{ diff "$TK_TMP/tc.text" "$TK_TMP/live.text" | head
	  fail "trace's text is not trace-cmd report's of -o"; }

# Lost events: a 4 KB ring buffer cannot hold a burst of write(2)s
# (a uprobe's trap is slow enough for the reads to keep up); the losses
# are printed where report prints them, and counted at the end.
"$TRACEKIT" trace -e "$ev" -b 4 -o "$TK_TMP/lost.dat" -- \
	"$bin" burst 200000 >"$TK_TMP/lost.text" 2>"$TK_TMP/lost.err" ||
	{ cat "$TK_TMP/lost.err"; fail "trace -b 4 failed"; }
grep -q '^CPU:[0-9]* \[[0-9]* EVENTS DROPPED\]$' "$TK_TMP/lost.text" ||
	fail "-b 4: no events dropped in 200,000 (test broken?)"
grep -q 'warning: [0-9]* events lost' "$TK_TMP/lost.err" ||
	{ cat "$TK_TMP/lost.err"; fail "-b 4: the losses are not counted"; }
"$TRACEKIT" report "$TK_TMP/lost.dat" | cmp -s - "$TK_TMP/lost.text" ||
	fail "-b 4: trace's output differs from report's of -o"
clean "lost events"

# 2. Live: each event printed within 0.2 s of the call, on a machine
# where nothing else fills the ring buffer.
"$TRACEKIT" trace -x "$bin" 'take v' -- "$bin" slow 8 300 \
	2>"$TK_TMP/calls" | while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line"
	done >"$TK_TMP/seen"
clean "slow"
n=0
while read -r i t; do
	s=$(awk -v i="$i" '$0 ~ (" v=" i "$") { print $1; exit }' "$TK_TMP/seen")
	[ -n "$s" ] || fail "call $i was not printed"
	awk -v s="$s" -v t="$t" 'BEGIN { exit !(s - t < 0.2 && s >= t) }' ||
		fail "call $i at $t printed at $s: $(awk -v s="$s" -v t="$t" 'BEGIN { print s - t }') s later"
	n=$((n + 1))
done <"$TK_TMP/calls"
[ "$n" = 8 ] || fail "$n calls of 8 seen"

# 3. Every end leaves tracefs as it was: SIGINT, SIGTERM, SIGHUP,
# --duration, a closed standard output.
for sig in INT TERM HUP; do
	"$TRACEKIT" trace -x "$bin" 'take v' -- "$bin" slow 1000 10 \
		>"$TK_TMP/sig.out" 2>"$TK_TMP/sig.err" &
	p=$!
	wait_tracing $p 15
	sleep 0.3
	kill -$sig $p
	wait $p
	rc=$?
	[ $rc = 0 ] || { cat "$TK_TMP/sig.err"; fail "SIG$sig: exit $rc, not 0"; }
	grep -q ' take: ' "$TK_TMP/sig.out" || fail "SIG$sig: no event printed"
	clean "SIG$sig"
done
"$TRACEKIT" trace -e "$ev" --duration 0.5 >/dev/null 2>&1 ||
	fail "--duration failed"
clean "--duration"
"$TRACEKIT" trace -x "$bin" 'take v' -- "$bin" slow 100 10 2>/dev/null |
	head -n 2 >/dev/null
[ "${PIPESTATUS[0]}" = 0 ] || fail "a closed stdout: exit ${PIPESTATUS[0]}"
clean "closed stdout"

# 4. SIGKILL leaves the probes and the instance; the next run removes
# them, and says so.
"$TRACEKIT" trace -x "$bin" 'take v' -- "$bin" slow 1000 10 \
	>/dev/null 2>&1 &
p=$!
wait_tracing $p 15
on_exit "pkill -f '$bin slow'"
kill -KILL $p
wait $p 2>/dev/null
pkill -f "$bin slow"
grep -q "tktrace_$p" "$(cap tracefs)/uprobe_events" ||
	fail "SIGKILL: no probe of tktrace_$p left to clean (test broken?)"
"$TRACEKIT" trace -e "$ev" --duration 0.2 >/dev/null 2>"$TK_TMP/next.err" ||
	fail "the run after SIGKILL failed"
grep -q "removed instance tracekit-$p" "$TK_TMP/next.err" ||
	{ cat "$TK_TMP/next.err"; fail "the instance of the killed run was not removed"; }
grep -q "removed the probes of tktrace_$p" "$TK_TMP/next.err" ||
	{ cat "$TK_TMP/next.err"; fail "the probes of the killed run were not removed"; }
clean "after SIGKILL"

# 5. A field the event lacks: one line listing its fields, exit 1, clean.
"$TRACEKIT" trace -x "$bin" 'take v' --sum nosuch -- "$bin" burst 10 \
	>/dev/null 2>"$TK_TMP/bad.err" && fail "--sum nosuch succeeded"
grep -q "nosuch.*v" "$TK_TMP/bad.err" ||
	{ cat "$TK_TMP/bad.err"; fail "--sum nosuch: the fields are not listed"; }
clean "bad field"
exit 0
