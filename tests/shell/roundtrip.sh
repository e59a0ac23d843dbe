#!/bin/bash
# description: record -> report round trip: tracekit report equals trace-cmd report of our file
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"

need_tracefs
need_cmd trace-cmd

out=$TK_TMP/rt.dat
"$TRACEKIT" record -e sched:sched_switch -e sched:sched_wakeup \
	-e 'syscalls:sys_enter_openat' -o "$out" -- \
	sh -c 'for i in 1 2 3 4 5; do cat /etc/hostname >/dev/null; sleep 0.02; done' \
	>"$TK_TMP/rec.log" 2>&1 || { cat "$TK_TMP/rec.log"; fail "record failed"; }
n=$(summary_events "$TK_TMP/rec.log")
[ -n "$n" ] && [ "$n" -gt 0 ] || { cat "$TK_TMP/rec.log"; fail "no events recorded"; }

# Byte for byte: the header line, comm-pid, [cpu], timestamps, fields.
trace-cmd report -i "$out" >"$TK_TMP/peer.txt" 2>"$TK_TMP/peer.err" ||
	fail "trace-cmd report refused our file: $(head -n 3 "$TK_TMP/peer.err")"
"$TRACEKIT" report -i "$out" >"$TK_TMP/ours.txt" 2>"$TK_TMP/ours.err" ||
	fail "tracekit report refused our file: $(cat "$TK_TMP/ours.err")"
if ! cmp -s "$TK_TMP/peer.txt" "$TK_TMP/ours.txt"; then
	diff "$TK_TMP/peer.txt" "$TK_TMP/ours.txt" | head -n 20
	fail "tracekit report differs from trace-cmd report"
fi
assert_eq "events in the report = events record counted" "$(events_of "$out")" "$n"
assert_grep 'sys_enter_openat' "$TK_TMP/ours.txt"

# JSON carries every event too, one object per line.
"$TRACEKIT" report -i "$out" --format json >"$TK_TMP/ours.json" ||
	fail "report --format json failed"
assert_eq "JSON objects" "$(grep -c '^{' "$TK_TMP/ours.json")" "$n"
exit 0
