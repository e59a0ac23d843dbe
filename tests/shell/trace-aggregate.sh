#!/bin/bash
# description: trace: --count, --sum, --min, --max, --avg, --hist, --lhist, --by (kstack too), --top, --latency, --interval, JSON live, as bpftrace 0.17 prints the same maps of the same run
# report-aggregate.sh's program, held until every tracer watches it:
# bpftrace, one run per map, and one `tracekit trace -P PID` per table,
# each defining its own probe.  Each table must equal what bpftrace
# printed at SIGINT, byte for byte, its "Attaching" line left out.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/bpftrace.sh"
. "$(dirname "$0")/lib/record.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc bpftrace
bin=$TK_TMP/aggtarget
gcc -O1 -g -o "$bin" "$(dirname "$0")/report-aggregate-target.c" ||
	fail "gcc failed"

# NAME|BPFTRACE-OPTION|PROBE|MAP ASSIGNMENT|TRACE SPEC|TRACE OPTIONS
maps=(
	'count||take|@[(int64)arg0] = count()|take v|--count=v'
	'count2||take|@[(int64)arg0, comm] = count()|take v|--count --by v,comm'
	'hist||take|@ = hist((int64)arg0)|take v|--hist v'
	'lhist||take|@ = lhist((int64)arg0, 0, 100, 7)|take v|--lhist v,0,100,7'
	'sum||take|@[(int64)arg0] = sum((int64)arg0)|take v|--sum v --by v'
	'min||small|@[comm] = min((int64)arg0)|small v|--min v --by comm'
	'max||take|@ = max((int64)arg0)|take v|--max v'
	'avg||take|@[(int64)arg0] = avg((int64)arg0)|take v|--avg v --by v'
	'jhist|-f json|take|@[(int64)arg0] = hist((int64)arg0)|take v|--hist v --by v --format json'
	'jcount|-f json|take|@[(int64)arg0, comm] = count()|take v|--count=v,comm --format json'
)
# The workload, held until the tracers watch: its pid is known first.
mkfifo "$TK_TMP/go"
(read -r _ <"$TK_TMP/go"; exec "$bin") &
work=$!
on_exit "kill $work"
for m in "${maps[@]}"; do
	IFS='|' read -r name fopt fn prog spec opts <<<"$m"
	# shellcheck disable=SC2086
	bpftrace_start "$name" $fopt -e "uprobe:$bin:$fn { $prog; }"
done
bpftrace_wait
tpids=()
for m in "${maps[@]}"; do
	IFS='|' read -r name fopt fn prog spec opts <<<"$m"
	# shellcheck disable=SC2086
	"$TRACEKIT" trace -x "$bin" "$spec" $opts -P $work >"$TK_TMP/got.$name" \
		2>"$TK_TMP/got.$name.err" &
	tpids+=($!)
	on_exit "kill $!"
done
for p in "${tpids[@]}"; do
	wait_tracing "$p" 60 $work
done
echo >"$TK_TMP/go"
wait $work || fail "the workload failed"
for ((j = 0; j < ${#tpids[@]}; j++)); do
	wait "${tpids[j]}" ||
		{ cat "$TK_TMP/got.${maps[j]%%|*}.err"; fail "trace ${maps[j]%%|*} failed"; }
done
bpftrace_stop "${BT_PIDS[@]}"
for m in "${maps[@]}"; do
	name=${m%%|*}
	grep -vE '^Attaching |"attached_probes"' "$TK_TMP/bt.$name" \
		>"$TK_TMP/want.$name"
	if ! cmp -s "$TK_TMP/want.$name" "$TK_TMP/got.$name"; then
		diff -u "$TK_TMP/want.$name" "$TK_TMP/got.$name" | head -40
		fail "trace ${m##*|} differs from bpftrace's $name"
	fi
done

# --top N: the last N entries, as bpftrace's print(@, N) keeps them.
"$TRACEKIT" trace -x "$bin" 'take v' --count=v --top 3 -- "$bin" \
	>"$TK_TMP/got.top" 2>&1 || { cat "$TK_TMP/got.top"; fail "--top failed"; }
{ head -n 2 "$TK_TMP/want.count"; tail -n 3 "$TK_TMP/want.count"; } |
	cmp -s - "$TK_TMP/got.top" ||
	{ cat "$TK_TMP/got.top"; fail "--top 3 is not the last 3 of bpftrace's count"; }

# --latency FUNC: report-latency-target.c's threads sleep mid-bucket
# lengths in nap(); bpftrace pairs its uprobe and uretprobe per thread,
# trace -c follows the threads of the held program.  bpftrace's text
# ends with an empty line for its empty @start map.
lat=$TK_TMP/lattarget
gcc -O1 -g -pthread -o "$lat" "$(dirname "$0")/report-latency-target.c" ||
	fail "gcc failed"
rm -f "$TK_TMP/go"
mkfifo "$TK_TMP/go"
(read -r _ <"$TK_TMP/go"; exec "$lat") &
work=$!
on_exit "kill $work"
BT_PIDS=()
BT_NAMES=()
bpftrace_start lat -e "uprobe:$lat:nap { @start[tid] = nsecs; }
	uretprobe:$lat:nap /@start[tid]/ { @[tid] = hist(nsecs - @start[tid]); delete(@start[tid]); }"
"$TRACEKIT" trace -x "$lat" --latency nap --by pid -P $work -c \
	>"$TK_TMP/got.lat" 2>"$TK_TMP/got.lat.err" &
tk=$!
on_exit "kill $tk"
bpftrace_wait
wait_tracing $tk 60 $work
echo >"$TK_TMP/go"
wait $work || fail "the latency workload failed"
wait $tk || { cat "$TK_TMP/got.lat.err"; fail "trace --latency failed"; }
bpftrace_stop "${BT_PIDS[@]}"
grep -v '^Attaching ' "$TK_TMP/bt.lat" | sed '$d' >"$TK_TMP/want.lat"
cmp -s "$TK_TMP/want.lat" "$TK_TMP/got.lat" ||
	{ diff -u "$TK_TMP/want.lat" "$TK_TMP/got.lat" | head -30; fail "trace --latency differs from bpftrace's"; }

# --by kstack: the kernel's stack trace after each event (the
# instance's stacktrace option), keyed as bpftrace keys kstack; the
# innermost frame is each tracer's own (ftrace_syscall_enter here,
# perf_syscall_enter in bpftrace's) and is left out of the comparison,
# the rest (functions and offsets) must be the same.
rm -f "$TK_TMP/go"
mkfifo "$TK_TMP/go"
(read -r _ <"$TK_TMP/go"; exec perl -e 'getppid() for 1..7') &
work=$!
on_exit "kill $work"
BT_PIDS=()
BT_NAMES=()
bpftrace_start kstack -e "tracepoint:syscalls:sys_enter_getppid /pid == $work/ {
	@[kstack, comm] = count(); }"
bpftrace_wait
"$TRACEKIT" trace -e syscalls:sys_enter_getppid --count --by kstack,comm \
	-P $work >"$TK_TMP/got.kstack" 2>"$TK_TMP/got.kstack.err" &
tk=$!
on_exit "kill $tk"
wait_tracing $tk 60 $work
echo >"$TK_TMP/go"
wait $work || fail "perl failed"
wait $tk || { cat "$TK_TMP/got.kstack.err"; fail "trace --by kstack failed"; }
bpftrace_stop "${BT_PIDS[@]}"
inner() { sed '/^@\[$/{n;d}' "$1"; }	# FILE: each key's first frame left out
grep -v '^Attaching ' "$TK_TMP/bt.kstack" >"$TK_TMP/want.kstack"
grep -q '^, perl\]: 7$' "$TK_TMP/want.kstack" ||
	{ cat "$TK_TMP/want.kstack"; fail "bpftrace saw no 7 calls (test broken?)"; }
diff <(inner "$TK_TMP/want.kstack") <(inner "$TK_TMP/got.kstack") ||
	fail "trace --by kstack differs from bpftrace's kstack"

# --interval: each table printed and emptied; their sum is the whole.
"$TRACEKIT" trace -x "$bin" take --count --interval 0.05 -- \
	sh -c "sleep 0.2; $bin; sleep 0.2; $bin; sleep 0.2" >"$TK_TMP/int" \
	2>"$TK_TMP/int.err" || { cat "$TK_TMP/int.err"; fail "--interval failed"; }
total=$(sed -n 's/^@: //p' "$TK_TMP/int" | awk '{ s += $1 } END { print s }')
tables=$(grep -c '^@: ' "$TK_TMP/int")
want=$(sed -n 's/^@\[[-0-9]*\]: //p' "$TK_TMP/want.count" |
	awk '{ s += $1 } END { print s }')
[ "$total" = $((2 * want)) ] ||
	fail "--interval: the tables count $total calls, the runs made $((2 * want))"
[ "$tables" -ge 2 ] || fail "--interval 0.05: the runs 0.2 s apart counted in $tables table"
exit 0
