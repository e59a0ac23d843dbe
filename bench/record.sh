#!/bin/bash
# bench/record.sh [TRACEKIT]: tracekit record against trace-cmd extract on
# the same workload (dd bs=1: two syscalls per byte, plus its context
# switches), the same events (sched, raw_syscalls), the same per-CPU buffer
# size, both filtered to the workload's pid, dd pinned to CPU 1 in both
# runs (migrations change how well the pages compress).  Prints recorder
# CPU time per million events, events lost, bytes per event, and our/peer
# ratios.  Our CPU time is the whole `tracekit record` process (instance
# and buffer setup, kallsyms, reading, compressing); the peer's is the
# `trace-cmd extract` plus the making of its instance by this script (a
# `sh -c` of the writes, timed: the kernel allocating the buffer's pages
# and patching the tracepoints in is work trace-cmd record would do, and
# extract removing the instance is counted already).
# bench/record-vm.sh measures in the VM guest against trace-cmd record.
# BENCH_BUF_KB (default 4096) sets the buffer; a large one (102400) lets
# the peer keep every event, for a like-for-like bytes per event.
# BENCH_RUNS (default 5) runs of each, alternating; the median is shown.
set -eu
TRACEKIT=${1:-./tracekit}
BYTES=${BENCH_BYTES:-300000}
BUF_KB=${BENCH_BUF_KB:-4096}
RUNS=${BENCH_RUNS:-5}
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$T" ] || { echo "bench/record.sh: tracefs is not mounted" >&2; exit 3; }
command -v trace-cmd >/dev/null || { echo "bench/record.sh: needs trace-cmd" >&2; exit 3; }
TMP=$(mktemp -d /tmp/tkbench.XXXXXX)
PEER=tkbench-peer-$$
# BENCH_KEEP=DIR keeps both files there for a look with trace-cmd dump.
cleanup() {
	[ -d "$T/instances/$PEER" ] && rmdir "$T/instances/$PEER"
	[ -n "${BENCH_KEEP:-}" ] && cp "$TMP"/*.dat "$BENCH_KEEP"/ 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

workload() {
	taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count="$BYTES" 2>/dev/null
}

# CPU seconds (user+sys) of a command, from /usr/bin/time.
cpu_of() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S' -o "$out.time" "$@"
	awk '{ printf "%.3f", $1 + $2 }' "$out.time"
}

report_events() {
	trace-cmd report -i "$1" 2>/dev/null | grep -c -E '^ *.*-[0-9]+ +\[[0-9]+\] '
}

# ours RUN: record -P the workload's pid, which waits on a fifo first.
ours() {
	local o=$TMP/ours.$1
	rm -f "$TMP/go"
	mkfifo "$TMP/go"
	( read -r _ <"$TMP/go"; exec taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count="$BYTES" 2>/dev/null ) &
	local wpid=$!
	( sleep 1; echo go >"$TMP/go" ) &
	cpu_of "$o" "$TRACEKIT" record -q -b "$BUF_KB" -e sched -e raw_syscalls \
		-P "$wpid" -o "$o.dat" 2>"$o.log" >"$o.cpu"
	wait
	echo "$(cat "$o.cpu") $(report_events "$o.dat") \
$(sed -nE 's/^tracekit record: [0-9]+ events \(([0-9]+) lost\).*/\1/p' "$o.log") $(stat -c %s "$o.dat")"
}

# peer RUN: the same events into an instance, then trace-cmd extract.
peer() {
	local o=$TMP/peer.$1 I=$T/instances/$PEER lost=0 s
	# Timed: trace-cmd record would make the instance itself, as our
	# record does (the buffer's pages, the tracepoints patched in).
	cpu_of "$o.setup" sh -c 'mkdir "$1" && echo 0 >"$1/tracing_on" &&
		echo "$2" >"$1/buffer_size_kb" &&
		echo 1 >"$1/events/sched/enable" &&
		echo 1 >"$1/events/raw_syscalls/enable" &&
		echo 1 >"$1/options/event-fork"' sh "$I" "$BUF_KB" >"$o.setup.cpu"
	(
		echo "$BASHPID" >"$I/set_event_pid"
		echo 1 >"$I/tracing_on"
		workload
	)
	echo 0 >"$I/tracing_on"
	for s in "$I"/per_cpu/cpu*/stats; do
		lost=$((lost + $(awk -F': *' '$1 == "overrun" || $1 == "dropped events" ||
			$1 == "commit overrun" { n += $2 } END { print n + 0 }' "$s")))
	done
	cpu_of "$o" sh -c 'exec trace-cmd extract -B "$1" -o "$2" >/dev/null 2>&1' \
		sh "$PEER" "$o.dat" >"$o.cpu"
	# extract removes the instance (disabling the events, freeing the buffer).
	[ -d "$I" ] && rmdir "$I"
	echo "$(awk -v a="$(cat "$o.setup.cpu")" -v b="$(cat "$o.cpu")" 'BEGIN { printf "%.3f", a + b }') \
$(report_events "$o.dat") $lost $(stat -c %s "$o.dat") $(cat "$o.setup.cpu")"
}

# Runs alternate, so that a busy spell of the machine hits both; the
# table is each side's median run by CPU per event.
for ((run = 1; run <= RUNS; run++)); do
	echo "$run $(ours "$run")" >>"$TMP/ours.runs"
	echo "$run $(peer "$run")" >>"$TMP/peer.runs"
done

median() {
	awk '{ print ($3 ? $2 / ($3 / 1e6) : 0), $0 }' "$1" | sort -g |
		awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }' | cut -d' ' -f3-
}
read -r ours_cpu ours_events ours_lost ours_size <<<"$(median "$TMP/ours.runs")"
read -r peer_cpu peer_events peer_lost peer_size peer_setup <<<"$(median "$TMP/peer.runs")"
paste -d' ' "$TMP/ours.runs" "$TMP/peer.runs" | awk '{
	printf "run %d: cpu per Mevent ours/peer %.2f\n", $1,
		($3 && $8 && $7) ? ($2 / $3) / ($7 / $8) : 0 }'

awk -v oc="$ours_cpu" -v oe="$ours_events" -v ol="$ours_lost" -v os="$ours_size" \
    -v pc="$peer_cpu" -v psu="$peer_setup" -v pe="$peer_events" -v pl="$peer_lost" -v ps="$peer_size" \
    -v kb="$BUF_KB" -v runs="$RUNS" 'BEGIN {
	ocpm = oe ? oc / (oe / 1e6) : 0; pcpm = pe ? pc / (pe / 1e6) : 0
	obpe = oe ? os / oe : 0; pbpe = pe ? ps / pe : 0
	printf "buffer %d KB/CPU, events sched + raw_syscalls, workload dd bs=1; median of %d runs\n", kb, runs
	printf "%-22s %10s %10s %12s %12s %10s\n", "", "events", "lost", "cpu s", "cpu s/Mev", "B/event"
	printf "%-22s %10d %10d %12.3f %12.3f %10.2f\n", "tracekit record", oe, ol, oc, ocpm, obpe
	printf "%-22s %10d %10d %12.3f %12.3f %10.2f\n", "trace-cmd extract", pe, pl, pc, pcpm, pbpe
	printf "(its cpu s: %.3f making the instance, %.3f extract)\n", psu, pc - psu
	printf "ratio ours/peer: cpu per Mevent %.2f, bytes per event %.2f\n",
		pcpm ? ocpm / pcpm : 0, pbpe ? obpe / pbpe : 0
}'
