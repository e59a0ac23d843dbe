#!/bin/bash
# bench/record.sh [TRACEKIT]: tracekit record against trace-cmd extract on
# the same workload (dd bs=1: two syscalls per byte, plus its context
# switches), the same events (sched, raw_syscalls), the same per-CPU buffer
# size, both filtered to the workload's pid, dd pinned to CPU 1 in both
# runs (migrations change how well the pages compress).  Prints recorder
# CPU time per million events, events lost, bytes per event, and our/peer
# ratios.  Our CPU time is the whole `tracekit record` process (instance
# and buffer setup, kallsyms, reading, compressing); the peer's is the
# `trace-cmd extract` alone, its instance being set up by this script.
# BENCH_BUF_KB (default 4096) sets the buffer; a large one (102400) lets
# the peer keep every event, for a like-for-like bytes per event.
set -eu
TRACEKIT=${1:-./tracekit}
BYTES=${BENCH_BYTES:-300000}
BUF_KB=${BENCH_BUF_KB:-4096}
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

# --- ours: record -P the workload's pid, which waits on a fifo first ---
mkfifo "$TMP/go"
( read -r _ <"$TMP/go"; exec taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count="$BYTES" 2>/dev/null ) &
wpid=$!
( sleep 1; echo go >"$TMP/go" ) &
ours_cpu=$(cpu_of "$TMP/ours" "$TRACEKIT" record -q -b "$BUF_KB" -e sched -e raw_syscalls \
	-P "$wpid" -o "$TMP/ours.dat" 2>"$TMP/ours.log")
wait
ours_events=$(report_events "$TMP/ours.dat")
ours_lost=$(sed -nE 's/^tracekit record: [0-9]+ events \(([0-9]+) lost\).*/\1/p' "$TMP/ours.log")
ours_size=$(stat -c %s "$TMP/ours.dat")

# --- peer: the same events into an instance, then trace-cmd extract ---
mkdir "$T/instances/$PEER"
I=$T/instances/$PEER
echo 0 >"$I/tracing_on"
echo "$BUF_KB" >"$I/buffer_size_kb"
echo 1 >"$I/events/sched/enable"
echo 1 >"$I/events/raw_syscalls/enable"
echo 1 >"$I/options/event-fork"
(
	echo "$BASHPID" >"$I/set_event_pid"
	echo 1 >"$I/tracing_on"
	workload
)
echo 0 >"$I/tracing_on"
peer_lost=0
for s in "$I"/per_cpu/cpu*/stats; do
	peer_lost=$((peer_lost + $(awk -F': *' '$1 == "overrun" || $1 == "dropped events" ||
		$1 == "commit overrun" { n += $2 } END { print n + 0 }' "$s")))
done
peer_cpu=$(cpu_of "$TMP/peer" sh -c 'exec trace-cmd extract -B "$1" -o "$2" >/dev/null 2>&1' \
	sh "$PEER" "$TMP/peer.dat")
peer_events=$(report_events "$TMP/peer.dat")
peer_size=$(stat -c %s "$TMP/peer.dat")

awk -v oc="$ours_cpu" -v oe="$ours_events" -v ol="$ours_lost" -v os="$ours_size" \
    -v pc="$peer_cpu" -v pe="$peer_events" -v pl="$peer_lost" -v ps="$peer_size" \
    -v kb="$BUF_KB" 'BEGIN {
	ocpm = oe ? oc / (oe / 1e6) : 0; pcpm = pe ? pc / (pe / 1e6) : 0
	obpe = oe ? os / oe : 0; pbpe = pe ? ps / pe : 0
	printf "buffer %d KB/CPU, events sched + raw_syscalls, workload dd bs=1\n", kb
	printf "%-22s %10s %10s %12s %12s %10s\n", "", "events", "lost", "cpu s", "cpu s/Mev", "B/event"
	printf "%-22s %10d %10d %12.3f %12.3f %10.2f\n", "tracekit record", oe, ol, oc, ocpm, obpe
	printf "%-22s %10d %10d %12.3f %12.3f %10.2f\n", "trace-cmd extract", pe, pl, pc, pcpm, pbpe
	printf "ratio ours/peer: cpu per Mevent %.2f, bytes per event %.2f\n",
		pcpm ? ocpm / pcpm : 0, pbpe ? obpe / pbpe : 0
}'
