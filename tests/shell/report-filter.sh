#!/bin/bash
# description: report: -F keeps exactly the events trace-cmd report -F keeps
# The oracle is trace-cmd's own filtering of the same file, not anything
# tracekit prints.  trace-cmd 3.1.6's -F crashes on files whose events are
# in an instance buffer (the committed fixtures, trace-cmd extract -B), so
# the file is a fresh `tracekit record`, whose events are the file's
# top-level buffer.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cap instances "this tracefs has no instances"
need_cmd trace-cmd

dat=$TK_TMP/f.dat
"$TRACEKIT" record -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_process_exec \
	-o "$dat" -- sh -c 'for i in 1 2 3 4 5 6; do /bin/true; sleep 0.01; done' \
	>"$TK_TMP/rec" 2>&1 || { cat "$TK_TMP/rec"; fail "record failed"; }

# keys: "PID [CPU] TS: EVENT" of each event line, so that the comparison
# holds where libtraceevent's plugins (which change the fields' text) are
# missing on one side, as in the VM.
keys() {
	sed -nE 's/^.*-([0-9]+) +\[([0-9]+)\] +([0-9.]+): +([a-z_]+):.*$/\1 [\2] \3: \4/p'
}

trace-cmd report -i "$dat" 2>/dev/null | keys >"$TK_TMP/all"
[ "$(grep -c ': sched_switch$' "$TK_TMP/all")" -gt 5 ] || fail "too few sched_switch events"
[ "$(grep -c ': sched_process_exec$' "$TK_TMP/all")" -gt 0 ] || fail "no sched_process_exec"

# check FILTER...: one -F per argument, on both sides.
check() {
	local f targs=() kargs=()
	for f in "$@"; do
		targs+=(-F "$f")
		kargs+=(-F "$f")
	done
	trace-cmd report "${targs[@]}" -i "$dat" 2>"$TK_TMP/terr" | keys >"$TK_TMP/want" ||
		{ cat "$TK_TMP/terr"; fail "trace-cmd report ${targs[*]}"; }
	"$TRACEKIT" report "${kargs[@]}" "$dat" | keys >"$TK_TMP/got" ||
		fail "tracekit report ${kargs[*]}"
	echo "-F $*: $(wc -l <"$TK_TMP/want") events"
	[ -s "$TK_TMP/want" ] || fail "trace-cmd kept nothing for $*: not a test"
	cmp -s "$TK_TMP/want" "$TK_TMP/all" && fail "trace-cmd kept everything for $*: not a test"
	cmp "$TK_TMP/want" "$TK_TMP/got" ||
		{ diff "$TK_TMP/want" "$TK_TMP/got" | head; fail "-F $* differs from trace-cmd"; }
}

check 'sched_switch: prev_pid != 0'
check 'sched_wakeup'
check 'sched_switch: prev_state == 1 || next_pid == 0'
check 'sched_switch: next_comm == "sh"'
check 'sched_wakeup: prio == 120 || comm == "true"'
check 'sched_switch: prev_pid != 0 && !(prev_state == 0)'
check 'sched/sched_s.*: prev_pid != 0'
check 'sched_switch: prev_pid != 0' 'sched_process_exec'

# A filter on which libtraceevent 1.7's parser frees a node twice, and
# trace-cmd report -F aborts: one line naming it, exit 1, no crash.
bad='sched_switch: prev_pid == 3 && next_pid == -4'
trc=$( (trace-cmd report -F "$bad" -i "$dat" >/dev/null 2>&1); echo $?) 2>/dev/null
"$TRACEKIT" report -F "$bad" "$dat" >"$TK_TMP/out" 2>"$TK_TMP/err"
rc=$?
cat "$TK_TMP/err"
if [ $trc -gt 128 ]; then
	assert_eq "exit status of -F '$bad'" $rc 1
	assert_eq "error lines" "$(wc -l <"$TK_TMP/err")" 1
	assert_grep "^tracekit report: -F '$bad': libtraceevent's filter parser crashes" "$TK_TMP/err"
else
	echo "note: trace-cmd report -F '$bad' exits $trc: the parser no longer dies on it"
	assert_eq "exit status of -F '$bad', as trace-cmd's" $rc $trc
fi
exit 0
