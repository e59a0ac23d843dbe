#!/bin/bash
# description: record: sched events match a trace-cmd extract of a peer instance
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cmd trace-cmd

# A second instance with the same events sees the same events on every
# CPU; it starts before and stops after ours, so on each CPU our events
# must be an unbroken run of the peer's.
peer=tktest-peer-$$
mkdir "$TRACEFS/instances/$peer" || fail "cannot create an instance"
on_exit "rmdir $TRACEFS/instances/$peer"
echo 0 >"$TRACEFS/instances/$peer/tracing_on"
echo 1 >"$TRACEFS/instances/$peer/events/sched/sched_switch/enable"
echo 1 >"$TRACEFS/instances/$peer/events/sched/sched_wakeup/enable"
echo 1 >"$TRACEFS/instances/$peer/tracing_on"

( for i in $(seq 40); do sleep 0.01; done ) &
load=$!
on_exit "kill $load"
"$TRACEKIT" record -q -e sched:sched_switch -e sched:sched_wakeup --duration 0.6 \
	-o "$TK_TMP/ours.dat" >"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record failed"; }
echo 0 >"$TRACEFS/instances/$peer/tracing_on"
wait $load
trace-cmd extract -B "$peer" -o "$TK_TMP/peer.dat" >/dev/null 2>&1 ||
	fail "trace-cmd extract failed"
cat "$TK_TMP/log"

trace-cmd dump --summary -i "$TK_TMP/ours.dat" >"$TK_TMP/sum" 2>&1
assert_grep '^[[:space:]]+7[[:space:]]+\[Version\]' "$TK_TMP/sum"
assert_grep '^[[:space:]]+zstd[[:space:]]+\[Compression algorithm\]' "$TK_TMP/sum"

# Each instance's probe reads prev_state from the task as it runs, so an
# exiting task is X in one and Z in the other when its parent reaps it in
# between (seen in the guest): the exit states compare as one.
exit_state() { sed -E 's/ prev_state=[XZ] / prev_state=X|Z /'; }
report_lines "$TK_TMP/ours.dat" | exit_state >"$TK_TMP/ours"
report_lines "$TK_TMP/peer.dat" | exit_state >"$TK_TMP/peer"
n=$(wc -l <"$TK_TMP/ours")
[ "$n" -gt 20 ] || fail "only $n events recorded"
assert_eq "events in summary vs trace-cmd report" "$(summary_events "$TK_TMP/log")" "$n"
assert_eq "lost events" "$(summary_lost "$TK_TMP/log")" 0
for cpu in $(cut -d' ' -f1 "$TK_TMP/ours" | sort -u); do
	grep "^$cpu " "$TK_TMP/ours" >"$TK_TMP/ours.$cpu"
	grep "^$cpu " "$TK_TMP/peer" >"$TK_TMP/peer.$cpu"
	if ! is_run_modulo_nesting "$TK_TMP/ours.$cpu" "$TK_TMP/peer.$cpu"; then
		# Where the two part: our events against the peer's from our first.
		grep -n -F -x -A "$(($(wc -l <"$TK_TMP/ours.$cpu") - 1))" -m 1 -- \
			"$(head -n 1 "$TK_TMP/ours.$cpu")" "$TK_TMP/peer.$cpu" |
			sed 's/^[0-9]*[:-]//' | diff "$TK_TMP/ours.$cpu" - | head -n 20
		fail "cpu $cpu: our $(wc -l <"$TK_TMP/ours.$cpu") events are not a run of the peer's $(wc -l <"$TK_TMP/peer.$cpu")"
	fi
done
grep -q 'sched_switch' "$TK_TMP/ours" || fail "no sched_switch"
grep -q 'sched_wakeup' "$TK_TMP/ours" || fail "no sched_wakeup"
exit 0
