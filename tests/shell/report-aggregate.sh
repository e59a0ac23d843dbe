#!/bin/bash
# description: report: --count, --sum, --min, --max, --avg, --hist, --lhist, --by, --top, JSON as bpftrace 0.17 prints the same maps
# A program calls take(v) with known values; bpftrace, one run per map,
# and `tracekit record` of a uprobe with v watch the same run.  Each
# table of `tracekit report` must equal what bpftrace printed at SIGINT,
# byte for byte, its "Attaching" line left out.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/bpftrace.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc bpftrace
bin=$TK_TMP/aggtarget
gcc -O1 -g -o "$bin" "$(dirname "$0")/report-aggregate-target.c" ||
	fail "gcc failed"
on_exit "'$TRACEKIT' probe -d 'probe_aggtarget:*'"
"$TRACEKIT" probe -x "$bin" -a 'take v' -a 'small v' >"$TK_TMP/probe" 2>&1 ||
	{ cat "$TK_TMP/probe"; fail "probe -a failed"; }

# NAME|BPFTRACE-OPTION|PROBE|MAP ASSIGNMENT|REPORT OPTIONS ("-e small" too)
maps=(
	'count||take|@[(int64)arg0] = count()|-e take --count=v'
	'count2||take|@[(int64)arg0, comm] = count()|-e take --count --by v,comm'
	'hist||take|@ = hist((int64)arg0)|-e take --hist v'
	'histk||take|@[(int64)arg0] = hist((int64)arg0)|-e take --hist v --by v'
	'lhist||take|@ = lhist((int64)arg0, 0, 100, 7)|-e take --lhist v,0,100,7'
	'sum||take|@[(int64)arg0] = sum((int64)arg0)|-e take --sum v --by v'
	'min||small|@[comm] = min((int64)arg0)|-e small --min v --by comm'
	'max||take|@ = max((int64)arg0)|-e take --max v'
	'avg||take|@[(int64)arg0] = avg((int64)arg0)|-e take --avg v --by v'
	'jhist|-f json|take|@[(int64)arg0] = hist((int64)arg0)|-e take --hist v --by v --format json'
	'jlhist|-f json|take|@[comm] = lhist((int64)arg0, 0, 100, 7)|-e take --lhist v,0,100,7 --by comm --format json'
	'jcount|-f json|take|@[(int64)arg0, comm] = count()|-e take --count=v,comm --format json'
	'javg|-f json|take|@ = avg((int64)arg0)|-e take --avg v --format json'
	'jsum|-f json|take|@ = sum((int64)arg0)|-e take --sum v --format json'
)
for m in "${maps[@]}"; do
	IFS='|' read -r name fopt fn prog opts <<<"$m"
	# shellcheck disable=SC2086
	bpftrace_start "$name" $fopt -e "uprobe:$bin:$fn { $prog; }"
done
bpftrace_wait

"$TRACEKIT" record -e 'probe_aggtarget:*' -o "$TK_TMP/agg.dat" -- "$bin" \
	>"$TK_TMP/record" 2>&1 || { cat "$TK_TMP/record"; fail "record failed"; }
bpftrace_stop "${BT_PIDS[@]}"

check() {	# NAME REPORT-OPTIONS... : the report against want.NAME
	local name=$1
	shift
	"$TRACEKIT" report "$@" "$TK_TMP/agg.dat" >"$TK_TMP/got.$name" 2>&1 ||
		{ cat "$TK_TMP/got.$name"; fail "report $* failed"; }
	if ! cmp -s "$TK_TMP/want.$name" "$TK_TMP/got.$name"; then
		diff -u "$TK_TMP/want.$name" "$TK_TMP/got.$name" | head -40
		fail "report $* differs from bpftrace's $name"
	fi
}
for m in "${maps[@]}"; do
	IFS='|' read -r name fopt fn prog opts <<<"$m"
	grep -vE '^Attaching |"attached_probes"' "$TK_TMP/bt.$name" \
		>"$TK_TMP/want.$name"
	# shellcheck disable=SC2086
	check "$name" $opts
done

# --top N: the last N entries, as bpftrace's print(@, N) keeps them.
{ head -n 2 "$TK_TMP/want.count"; tail -n 3 "$TK_TMP/want.count"; } \
	>"$TK_TMP/want.top"
check top -e take --count=v --top 3
{ head -n 2 "$TK_TMP/want.jcount"
  sed 's/{"@": {.*, \("[^"]*": [0-9]*\)}}}$/{"@": {\1}}}/' "$TK_TMP/want.jcount" |
	tail -n +3; } >"$TK_TMP/want.jtop"
check jtop -e take --count=v,comm --top 1 --format json
