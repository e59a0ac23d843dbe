#!/bin/bash
# description: report: -e, --cpu, --pid, --comm, -R, -l, --stat, --format json, several files
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

data=$(cd "$(dirname "$0")/../data" && pwd)
v7=$data/report-sched-v7.dat
v6=$data/report-sched-v6.dat
[ -r "$v7" ] || fail "committed fixtures missing in $data"
# The oracles (-F has its own test, report-filter.sh, against trace-cmd's).
need_cmd jq trace-cmd
set -e
r() { "$TRACEKIT" report "$@"; }

r "$v7" >"$TK_TMP/all"
total=$(grep -c ': sched_' "$TK_TMP/all")
[ "$total" -gt 10 ] || fail "fixture has only $total events"

# count PATTERN FILE
count() { grep -c -E -- "$1" "$2" || true; }

r -e sched_switch "$v7" >"$TK_TMP/e"
assert_eq "-e sched_switch" "$(count ': sched_switch: ' "$TK_TMP/e")" \
	"$(count ': sched_switch: ' "$TK_TMP/all")"
assert_eq "-e leaves nothing else" "$(count ': sched_wakeup: ' "$TK_TMP/e")" 0
r -e 'sched:*' "$v7" >"$TK_TMP/e"
cmp "$TK_TMP/all" "$TK_TMP/e" || fail "-e 'sched:*' should keep everything"
r -e sched/sched_wakeup "$v7" >"$TK_TMP/e"
assert_eq "-e system/event" "$(count ': sched_' "$TK_TMP/e")" \
	"$(count ': sched_wakeup: ' "$TK_TMP/all")"

r --cpu 1 "$v7" >"$TK_TMP/c"
assert_eq "--cpu 1" "$(count ': sched_' "$TK_TMP/c")" "$(count '\[001\]' "$TK_TMP/all")"
assert_eq "--cpu 1 only" "$(count '\[000\]' "$TK_TMP/c")" 0
r --cpu 0-1 "$v7" | cmp - "$TK_TMP/all" || fail "--cpu 0-1 should keep everything"

# The comm-pid column: "COMM-PID [CPU]".
line=$(grep -m1 ': sched_' "$TK_TMP/all" | sed 's/^[^:]*: *//')
pid=$(echo "$line" | sed -E 's/^.*-([0-9]+) +\[.*$/\1/')
comm=$(echo "$line" | sed -E 's/^(.*)-[0-9]+ +\[.*$/\1/')
r --pid "$pid" "$v7" >"$TK_TMP/p"
assert_eq "--pid $pid" "$(count ': sched_' "$TK_TMP/p")" "$(count "-$pid +\[" "$TK_TMP/all")"
[ "$(count ': sched_' "$TK_TMP/p")" -gt 0 ] || fail "--pid kept nothing"
if [ "$comm" != "<...>" ]; then
	r --comm "$comm" "$v7" >"$TK_TMP/m"
	[ "$(count ': sched_' "$TK_TMP/m")" -gt 0 ] || fail "--comm $comm kept nothing"
	assert_eq "--comm only $comm" "$(grep ': sched_' "$TK_TMP/m" | grep -vc -- " $comm-" || true)" 0
fi

# --stat: the counts are those of the text.
r --stat "$v7" >"$TK_TMP/s"
assert_grep "^total: $total events" "$TK_TMP/s"
assert_grep "^ +$(count ': sched_switch: ' "$TK_TMP/all")  sched:sched_switch$" "$TK_TMP/s"
assert_grep 'compression: zstd' "$TK_TMP/s"
r --stat "$v6" >"$TK_TMP/s6"
assert_grep 'version 6,' "$TK_TMP/s6"
assert_grep "^total: $total events" "$TK_TMP/s6"

# --stat's lost events: the counters trace-cmd report --stat shows from
# the same file's CPU statistics, the non-zero ones, or "none".
# same_losses FILE
same_losses() {
	trace-cmd report --stat -i "$1" >"$TK_TMP/tc.stat" 2>/dev/null ||
		fail "$1: trace-cmd report --stat failed"
	awk '
		$1 == "Buffer:" { b = $2 " " }
		$1 == "CPU:" { cpu = $2 }
		$1 == "overrun:" && $2 { print "    " b "CPU " cpu ": " $2 " events lost"; n++ }
		$1 == "commit" && $3 {
			print "    " b "CPU " cpu ": " $3 " events lost due to commit overrun"; n++ }
		$1 == "dropped" && $3 { print "    " b "CPU " cpu ": " $3 " events dropped"; n++ }
		END { if (!n) print "    none" }' "$TK_TMP/tc.stat" >"$TK_TMP/lost.want"
	r --stat "$1" | sed -n '/^  lost (kernel buffer statistics):$/,/^per cpu:$/p' |
		sed '1d;$d' >"$TK_TMP/lost.got"
	diff -u "$TK_TMP/lost.want" "$TK_TMP/lost.got" || fail "$1: --stat lost events differ"
}
same_losses "$v7"
same_losses "$v6"
assert_eq "nothing lost" "$(cat "$TK_TMP/lost.want")" "    none"
# The v6 fixture's statistics with counters that are not 0: the "0" of
# the top buffer's CPU 0 "overrun: 0" (at 3241), of its CPU 1 "dropped
# events: 0" (3484) and of the instance's CPU 0 "commit overrun: 0"
# (3586) made 7, 3 and 5 in place.
cp "$v6" "$TK_TMP/lost.dat"
for p in 3241:7 3484:3 3586:5; do
	printf '%s' "${p#*:}" | dd of="$TK_TMP/lost.dat" bs=1 seek="${p%:*}" conv=notrunc status=none
done
same_losses "$TK_TMP/lost.dat"
assert_eq "lost lines" "$(wc -l <"$TK_TMP/lost.want")" 3

# JSON: one object per event, typed fields.
r --format json "$v7" >"$TK_TMP/j"
assert_eq "json lines" "$(wc -l <"$TK_TMP/j")" "$total"
assert_grep '"event":"sched_switch","fields":\{"prev_comm":"[^"]*","prev_pid":[0-9]+,' "$TK_TMP/j"
assert_eq "json parses, pids are numbers" \
	"$(jq -r 'select(.event=="sched_switch") | .fields.next_pid | type' "$TK_TMP/j" | sort -u)" number
# Files, not <(...): the VM guest has no /dev/fd.
jq -r .ts_ns "$TK_TMP/j" >"$TK_TMP/ts"
sort -n "$TK_TMP/ts" | cmp -s - "$TK_TMP/ts" || fail "json ts_ns out of order"
[ "$(wc -l <"$TK_TMP/ts")" = "$total" ] || fail "json: $(wc -l <"$TK_TMP/ts") ts_ns for $total events"

# Several files: merged by time, each event twice.
r "$v7" "$v6" >"$TK_TMP/two"
assert_eq "two files" "$(count ': sched_' "$TK_TMP/two")" $((2 * total))

# The same options give the same bytes as trace-cmd.
for o in "-R" "-l"; do
	# shellcheck disable=SC2086
	trace-cmd report $o -i "$v7" >"$TK_TMP/want" 2>/dev/null
	# shellcheck disable=SC2086
	r $o "$v7" >"$TK_TMP/got"
	cmp "$TK_TMP/want" "$TK_TMP/got" || { diff "$TK_TMP/want" "$TK_TMP/got" | head; fail "$o differs from trace-cmd"; }
done
trace-cmd report -i "$v7" -i "$v6" >"$TK_TMP/want" 2>/dev/null
cmp "$TK_TMP/want" "$TK_TMP/two" || fail "two files differ from trace-cmd"
exit 0
