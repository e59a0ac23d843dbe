#!/bin/bash
# description: record: kallsyms stored only when the trace names kernel code (a %ps field, a trace_marker write, -T); trace-cmd report equals ours either way
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cmd trace-cmd

# Symbols stored in FILE, as trace-cmd dump reads them.
symbols() {
	trace-cmd dump --kallsyms -i "$1" 2>/dev/null | grep -c -E '^[0-9a-f]{8,16} [A-Za-z] '
}

# FILE: trace-cmd report and ours print the same.
same_report() {
	trace-cmd report -i "$1" >"$TK_TMP/tc.txt" 2>/dev/null || fail "trace-cmd report $1 failed"
	"$TRACEKIT" report "$1" >"$TK_TMP/tk.txt" || fail "tracekit report $1 failed"
	diff -u "$TK_TMP/tc.txt" "$TK_TMP/tk.txt" || fail "$1: our report differs from trace-cmd's"
}

# sched_switch prints no symbol: no kallsyms, nothing missing from the report.
"$TRACEKIT" record -q -e sched:sched_switch -o "$TK_TMP/sw.dat" -- sleep 0.1 ||
	fail "record -e sched:sched_switch failed"
assert_eq "symbols stored for sched_switch" "$(symbols "$TK_TMP/sw.dat")" 0
trace-cmd report -i "$TK_TMP/sw.dat" 2>/dev/null | grep -q ' sched_switch: ' ||
	fail "no sched_switch recorded"
same_report "$TK_TMP/sw.dat"

# sleep arms an hrtimer: hrtimer_start prints function=%ps, which trace-cmd
# names from the stored kallsyms.
"$TRACEKIT" record -q -e timer:hrtimer_start -o "$TK_TMP/hr.dat" -- sleep 0.1 ||
	fail "record -e timer:hrtimer_start failed"
[ "$(symbols "$TK_TMP/hr.dat")" -gt 1000 ] || fail "no kallsyms with hrtimer_start events"
trace-cmd report -i "$TK_TMP/hr.dat" 2>/dev/null | grep -q ' function=hrtimer_wakeup[ /]' ||
	fail "trace-cmd report does not name hrtimer_start's function"
same_report "$TK_TMP/hr.dat"

# The same event enabled, none recorded: a sleeping process armed its
# timer before the recording.
sleep 100 &
sleeper=$!
on_exit "kill $sleeper"
sleep 0.1
"$TRACEKIT" record -q -e timer:hrtimer_start -P "$sleeper" --duration 0.3 -o "$TK_TMP/none.dat" ||
	fail "record -P of a sleeping process failed"
trace-cmd report -i "$TK_TMP/none.dat" 2>/dev/null | grep ' hrtimer_start: ' &&
	fail "hrtimer_start events from a sleeping process"
assert_eq "symbols stored without hrtimer_start events" "$(symbols "$TK_TMP/none.dat")" 0

# A write to the instance's trace_marker is a print event: "%ps: %s".
# The command's parent is the recorder, its instance tracekit-PID.
"$TRACEKIT" record -q -e sched:sched_switch -o "$TK_TMP/mk.dat" -- sh -c \
	"echo tk-marker >$TRACEFS/instances/tracekit-\$PPID/trace_marker" ||
	fail "record with a trace_marker write failed"
[ "$(symbols "$TK_TMP/mk.dat")" -gt 1000 ] || fail "no kallsyms with a trace_marker write"
trace-cmd report -i "$TK_TMP/mk.dat" 2>/dev/null | grep -q 'tracing_mark_write: tk-marker$' ||
	fail "trace-cmd report does not show the marker as tracing_mark_write"
same_report "$TK_TMP/mk.dat"

# -T: kernel stacks need the symbols whatever the events.
"$TRACEKIT" record -q -e sched:sched_switch -T -o "$TK_TMP/st.dat" -- sleep 0.1 2>"$TK_TMP/log" ||
	fail "record -T failed"
[ "$(symbols "$TK_TMP/st.dat")" -gt 1000 ] || fail "no kallsyms with -T"
same_report "$TK_TMP/st.dat"
echo ok
