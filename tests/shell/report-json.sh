#!/bin/bash
# description: report --format json: the members are those the manual's JSON OUTPUT lists, in its order
# Every member tracekit-report(1) names must turn up in real output, and
# no other: the sched fixtures (v6, v7, and both at once for "file"), the
# function and function_graph ones ("function", "graph"), a recording of
# a probe --call-graph ("callchain"), the
# v6 one with sched_switch's format renumbered (its records become
# unknown events, "event": null and "type"), and a buffer that a syscall
# storm overran, as trace-cmd extracts it ("missed_before").  The members
# of "fields" are those trace-cmd dumps in the event's format.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap instances "this tracefs has no instances"
need_cmd trace-cmd jq
need_cap uprobes "this kernel has no uprobe_events"
# The guest has neither the compiler nor Documentation/.
need_host_cmd gcc
data=$TRACEKIT_SRCDIR/tests/data
doc=$TRACEKIT_SRCDIR/Documentation/tracekit-report.txt

# The members the manual lists, in its order.
sed -n '/^JSON OUTPUT$/,/^ERRORS$/p' "$doc" | sed -n 's/^`\([a-z_]*\)`::$/\1/p' >"$TK_TMP/doc"
assert_eq "members in the manual" "$(wc -l <"$TK_TMP/doc")" 15

r() {
	"$TRACEKIT" report --format json "$@" >>"$TK_TMP/json" || fail "report --format json $* failed"
}
r "$data/report-sched-v7.dat"
r "$data/report-sched-v6.dat"
r "$data/report-sched-v7.dat" "$data/report-sched-v6.dat"
# The tracers' typed members, in files trace-cmd recorded.
for f in function fgraph; do
	gzip -dc "$data/report-ftrace-$f.dat.gz" >"$TK_TMP/$f.dat" || fail "no report-ftrace-$f fixture"
	r "$TK_TMP/$f.dat"
done

# The format's "ID: N" is text in a v6 file; the same length keeps every
# offset.
grep -c -a '^ID: 372$' "$data/report-sched-v6.dat" >/dev/null || fail "v6 fixture: no ID 372"
sed 's/^ID: 372$/ID: 379/' "$data/report-sched-v6.dat" >"$TK_TMP/unknown.dat"
r "$TK_TMP/unknown.dat"

# "callchain": a probe --call-graph recording of a small program.
gcc -g -O2 -o "$TK_TMP/cg" "$TRACEKIT_SRCDIR/tests/shell/unwind-target.c" || fail "gcc failed"
on_exit "'$TRACEKIT' probe -d 'probe_cg:*'"
"$TRACEKIT" probe -x "$TK_TMP/cg" --call-graph 'leaf id' >/dev/null || fail "probe --call-graph failed"
"$TRACEKIT" record -q -e probe_cg:leaf -o "$TK_TMP/cg.dat" -- "$TK_TMP/cg" 3 >/dev/null 2>&1 ||
	fail "record of the --call-graph probe failed"
r "$TK_TMP/cg.dat"

inst=tkjson_$$
mkdir "$TRACEFS/instances/$inst" || fail "cannot create an instance"
on_exit "rmdir '$TRACEFS/instances/$inst'"
echo 16 >"$TRACEFS/instances/$inst/buffer_size_kb"
echo 1 >"$TRACEFS/instances/$inst/events/raw_syscalls/enable"
for i in $(seq 300); do : </proc/self/stat; done
echo 0 >"$TRACEFS/instances/$inst/tracing_on"
echo 0 >"$TRACEFS/instances/$inst/events/raw_syscalls/enable"
trace-cmd extract -B "$inst" -o "$TK_TMP/lost.dat" >/dev/null 2>&1 || fail "trace-cmd extract failed"
trace-cmd report "$TK_TMP/lost.dat" 2>/dev/null | grep -q ' EVENTS DROPPED]$' ||
	fail "the overrun buffer lost nothing"
r "$TK_TMP/lost.dat"

jq -r 'keys_unsorted | join(" ")' "$TK_TMP/json" | sort -u >"$TK_TMP/shapes" ||
	fail "report output is not JSON"
tr ' ' '\n' <"$TK_TMP/shapes" | sort -u >"$TK_TMP/got"
sort -u "$TK_TMP/doc" | diff -u - "$TK_TMP/got" ||
	fail "members differ from the manual's (-: documented only, +: undocumented)"
# Each object's members come in the manual's order.
while read -r shape; do
	printf '%s\n' $shape | grep -Fxf - "$TK_TMP/doc" | tr '\n' ' ' |
		sed 's/ $//' | grep -qFx "$shape" || fail "members out of the manual's order: $shape"
done <"$TK_TMP/shapes"

# "fields": the format's fields but the common_ ones, as trace-cmd dumps them.
for ev in sched_switch sched_wakeup; do
	trace-cmd dump --events "$data/report-sched-v7.dat" 2>/dev/null |
		sed -n "/^name: $ev\$/,/^print fmt/p" |
		sed -n 's/^\tfield:.*[ *]\([a-z_0-9]*\)\(\[[0-9]*\]\)\?;.*/\1/p' |
		grep -v '^common_' | tr '\n' ' ' | sed 's/$/\n/' >"$TK_TMP/want"
	"$TRACEKIT" report --format json -e "sched:$ev" "$data/report-sched-v7.dat" |
		jq -r '.fields | keys_unsorted | join(" ")' | sort -u | sed 's/$/ /' >"$TK_TMP/got"
	diff -u "$TK_TMP/want" "$TK_TMP/got" || fail "$ev: fields differ from its format"
done
exit 0
