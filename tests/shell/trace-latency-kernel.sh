#!/bin/bash
# description: trace --latency in the kernel's synthetic events and in user space: the same histograms of the same sleeps; the synthetic event and its triggers gone at the end, and after SIGKILL by the next run
# Kprobes on do_nanosleep and its return, made by each `tracekit trace
# --latency do_nanosleep`, one pairing them in a synthetic event
# (--where kernel), one in user space, both watching every task while a
# held shell sleeps lengths that lie mid-bucket (12, 48 and 100 ms; the
# buckets: [8.4, 16.8), [33.6, 67.1) and [67.1, 134.2) ms in ns), and
# nothing else sleeps: the test waits with read -t, a select(2), not a
# nanosleep(2).  The two tables must hold the same counts.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap instances "this tracefs has no instances"
need_cap kprobes "this kernel has no kprobe_events"
need_cap hist_triggers "this kernel has no hist triggers"
need_cap synth_events "this kernel has no synthetic events"
t=$(cap tracefs)
mkfifo "$TK_TMP/go" "$TK_TMP/idle"
exec 7<>"$TK_TMP/idle"
nap() { read -r -t "$1" _ <&7; }	# a wait that is no nanosleep(2)

(read -r _ <"$TK_TMP/go"
 for s in 0.012 0.048 0.1 0.012 0.048 0.012; do sleep "$s"; done) &
work=$!
on_exit "kill $work"
pids=()
for where in kernel user; do
	"$TRACEKIT" trace -v --latency do_nanosleep --where $where \
		>"$TK_TMP/lat.$where" 2>"$TK_TMP/lat.$where.err" &
	pids+=($!)
	on_exit "kill $!"
done
for ((i = 0; i < 600; i++)); do
	n=0
	for p in "${pids[@]}"; do
		kill -0 $p 2>/dev/null ||
			{ cat "$TK_TMP"/lat.*.err; fail "a trace exited early"; }
		[ "$(cat "$t/instances/tracekit-$p/tracing_on" 2>/dev/null)" = 1 ] &&
			n=$((n + 1))
	done
	[ $n = ${#pids[@]} ] && break
	nap 0.1
done
[ $n = ${#pids[@]} ] || fail "the traces did not start in 60 s"
grep -q "^hist:.*onmatch" "$t"/events/tktrace_"${pids[0]}"/do_nanosleep__return/trigger ||
	fail "no onmatch() trigger on the kernel run's return probe"
echo >"$TK_TMP/go"
wait $work || fail "the sleeps failed"
nap 0.3
kill -INT "${pids[@]}"
for p in "${pids[@]}"; do
	wait $p || { cat "$TK_TMP"/lat.*.err; fail "trace $p failed"; }
done
grep -q "aggregating in the kernel" "$TK_TMP/lat.kernel.err" ||
	{ cat "$TK_TMP/lat.kernel.err"; fail "not aggregated in the kernel"; }
grep -q "aggregating in user space" "$TK_TMP/lat.user.err" ||
	{ cat "$TK_TMP/lat.user.err"; fail "not aggregated in user space"; }
# The test runner waits in usleep(20000)s, which land in [16M, 32M)
# for both, for as long as each runs: that bucket is left out, and the
# bars, which scale with the greatest bucket; the sleeps' own are known.
buckets() { grep '^\[' "$1" | grep -v '^\[16M, 32M)' | awk '{ print $1, $2, $3 }'; }
for want in '[8M, 16M) 3' '[32M, 64M) 2' '[64M, 128M) 1'; do
	buckets "$TK_TMP/lat.user" | grep -qxF "$want" ||
		{ cat "$TK_TMP/lat.user" "$TK_TMP/lat.user.err" "$TK_TMP/lat.kernel"; fail "user space: no '$want' for the sleeps"; }
done
diff <(buckets "$TK_TMP/lat.user") <(buckets "$TK_TMP/lat.kernel") ||
	{ cat "$TK_TMP/lat.kernel"; fail "the synthetic event's table differs from user space's"; }
! grep -q "tktrace_${pids[0]}_latency" "$t/synthetic_events" ||
	fail "the synthetic event is left"

# Killed by SIGKILL, a run leaves its synthetic event and triggers: the
# next removes them (and the probes they were on), and says so.
"$TRACEKIT" trace --latency do_nanosleep --where kernel >/dev/null 2>&1 &
p=$!
on_exit "kill $p"
for ((i = 0; i < 600; i++)); do
	[ "$(cat "$t/instances/tracekit-$p/tracing_on" 2>/dev/null)" = 1 ] && break
	nap 0.1
done
grep -q "tktrace_${p}_latency" "$t/synthetic_events" ||
	fail "no synthetic event made (test broken?)"
kill -KILL $p
wait $p 2>/dev/null
"$TRACEKIT" trace -e sched:sched_process_exit --duration 0.2 >/dev/null \
	2>"$TK_TMP/next.err" || { cat "$TK_TMP/next.err"; fail "the run after SIGKILL failed"; }
grep -q "removed the synthetic event of tracekit trace $p" "$TK_TMP/next.err" ||
	{ cat "$TK_TMP/next.err"; fail "the killed run's synthetic event not removed"; }
! grep "tktrace_${p}" "$t/synthetic_events" "$t/kprobe_events" ||
	{ cat "$TK_TMP/next.err" "$t/error_log"; fail "the killed run's synthetic event or probes are left"; }
exit 0
