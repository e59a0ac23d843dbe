#!/bin/bash
# description: report: --format folded of -T kernel stacks equals trace-cmd report's stacks folded by awk; a --call-graph uprobe with -T folds as one user+kernel stack of known counts
# The oracle of the kernel frames is trace-cmd report on the same file:
# the "=> FUNC (ADDR)" lines after each kernel_stack event, innermost
# first, folded here by awk into "COMM;OUTER_[k];...;INNER_[k]" and
# counted.  The user frames of the uprobe come from the workload, whose
# calls the test chooses (flame-target.c).
. "$(dirname "$0")/lib/common.sh"
need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc
need_cmd trace-cmd

# tc_folded DAT [USER-AWK]: trace-cmd's kernel stacks of DAT folded, one
# line per event ("COMM;...;FRAME_[k]"); USER-AWK, given the number of
# the event (1, 2, ...) in $n, may set u to user frames put between the
# comm and the kernel frames.
tc_folded() {
	trace-cmd report -i "$1" 2>/dev/null | awk "
	function out() {
		if (nf) { s = comm u; for (i = nf; i >= 1; i--) s = s \";\" f[i]; print s }
		nf = 0 }
	/^[[:space:]]*=> / { f[++nf] = (NF == 3 ? \$2 : \"0x\" \$2) \"_[k]\"; next }
	{ out() }
	/ kernel_stack: / { match(\$0, /^ *.*-[0-9]+ +\\[/); c = substr(\$0, 1, RLENGTH)
		sub(/^ */, \"\", c); sub(/-[0-9]+ +\\[\$/, \"\", c); comm = c; next }
	/^ *.*-[0-9]+ +\\[[0-9]+\\] / { n++; u = \"\"; ${2:-} }
	END { out() }" | sort | uniq -c | awk '{ c = $1; sub(/^ *[0-9]+ /, ""); print $0, c }'
}

# A system-wide recording of sched_switch with the kernel's stack after
# each event.
"$TRACEKIT" record -q -T -e sched:sched_switch -b 4096 -o "$TK_TMP/sw.dat" \
	-- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done' >"$TK_TMP/log" 2>&1 ||
	{ cat "$TK_TMP/log"; fail "record -T failed"; }
grep -q 'stack traces unavailable' "$TK_TMP/log" &&
	{ cat "$TK_TMP/log"; fail "record -T got no stacks"; }
tc_folded "$TK_TMP/sw.dat" | LC_ALL=C sort >"$TK_TMP/sw.want"
"$TRACEKIT" report --format folded "$TK_TMP/sw.dat" | LC_ALL=C sort >"$TK_TMP/sw.got" ||
	fail "report --format folded failed"
assert_grep '^sleep;.*;__schedule_\[k\];.* [0-9]+$' "$TK_TMP/sw.got"
diff -u "$TK_TMP/sw.want" "$TK_TMP/sw.got" || fail "folded kernel stacks differ from trace-cmd's"
echo "sched_switch: $(wc -l <"$TK_TMP/sw.got") distinct kernel stacks of" \
	"$(awk '{ n += $NF } END { print n }' "$TK_TMP/sw.got") events agree with trace-cmd"
# --comm keeps the stacks of the events it keeps, and only those.
"$TRACEKIT" report --format folded --comm sleep "$TK_TMP/sw.dat" |
	LC_ALL=C sort >"$TK_TMP/sleep.got"
grep '^sleep;' "$TK_TMP/sw.want" | diff -u - "$TK_TMP/sleep.got" ||
	fail "--comm sleep: other stacks"

# One stack per uprobe event: the unwound user frames outside, the
# kernel's inside.  flame-target 7 5 3: target() from from_a() 7 times,
# from from_b() 5, from from_c() through from_b() 3, in that order.
bin=$TK_TMP/flame_kstack
gcc -g -O2 -fomit-frame-pointer -o "$bin" "$(dirname "$0")/flame-target.c" || fail "gcc failed"
on_exit "'$TRACEKIT' probe -d 'probe_flame_kstack:*'"
"$TRACEKIT" probe -x "$bin" --call-graph target >/dev/null || fail "probe --call-graph failed"
"$TRACEKIT" record -q -T -e probe_flame_kstack:target -o "$TK_TMP/u.dat" -- "$bin" 7 5 3 \
	>"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record -T of the uprobe failed"; }
tc_folded "$TK_TMP/u.dat" \
	'u = ";main;" (n <= 7 ? "from_a" : n <= 12 ? "from_b" : "from_b;from_c") ";target"' |
	LC_ALL=C sort >"$TK_TMP/u.want"
# The frames outside main() (libc's start) are the unwinder's, which
# tests/shell/unwind-callgraph.sh checks against backtrace().
"$TRACEKIT" report --format folded "$TK_TMP/u.dat" >"$TK_TMP/u.raw" || fail "report failed"
cat "$TK_TMP/u.raw"
sed 's/^flame_kstack;_start;[^ ]*;main;/flame_kstack;main;/' "$TK_TMP/u.raw" |
	LC_ALL=C sort >"$TK_TMP/u.got"
assert_eq "uprobe stacks" "$(wc -l <"$TK_TMP/u.want")" 3
assert_grep ';main;from_a;target;[^ ]*uprobe[^ ]*_\[k\] 7$' "$TK_TMP/u.got"
diff -u "$TK_TMP/u.want" "$TK_TMP/u.got" || fail "user+kernel folded stacks differ"
