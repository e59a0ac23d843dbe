#!/bin/bash
# bench/record-vm.sh [TRACEKIT]: tracekit record against trace-cmd record,
# both live readers, in the VM guest (tests/vm/run.sh: Debian's kernel
# under QEMU).  bench/record.sh measures the host, where the peer can only
# be trace-cmd extract; here both record while the workload runs.
# The workload (dd bs=1: two syscalls per byte) is the same for both, and
# so are the events (sched, raw_syscalls), the buffer (BENCH_BUF_KB per
# CPU, default 20480) and the pid filter (-P).  Each recorder starts, then
# the workload is let go; when it has exited the recorder gets SIGINT.
# The recorder's CPU time (user+sys, with its children: trace-cmd's
# per-CPU recorder processes) is bash's `time` of a block that starts the
# recorder and waits for it; the workload is not a child of that shell,
# so its CPU time is not counted with the recorder's.  Events are counted
# by trace-cmd report on both files.
# BENCH_RUNS (default 3) runs of each, alternating; the median per tool.
# The guest has BENCH_SMP CPUs, default 1: under TCG one host thread runs
# the vCPUs in turn, and a task's CPU time also counts the slices another
# busy vCPU ran meanwhile (a shell loop's CPU time is 1.6-1.9x while dd
# runs on the other vCPU).  Work done while the workload runs, as live
# compression is, would be charged up to twice; work deferred until it
# has exited, as trace-cmd record's compression is, would not.
# BENCH_ARCH=arm64: in the arm64 guest, with the arm64 build (default
# build/aarch64/tracekit, make CROSS_COMPILE=aarch64-linux-gnu-) and
# Debian's arm64 trace-cmd.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
ARCH=${BENCH_ARCH:-x86_64}
case $ARCH in
x86_64) TRACEKIT=$(realpath "${1:-$src/tracekit}")
	vm=(--bin trace-cmd) ;;
arm64)	TRACEKIT=$(realpath "${1:-$src/build/aarch64/tracekit}")
	vm=(--arch arm64 --suite-tools) ;;
*)	echo "bench/record-vm.sh: BENCH_ARCH is x86_64 or arm64" >&2; exit 2 ;;
esac
BYTES=${BENCH_BYTES:-40000}
BUF_KB=${BENCH_BUF_KB:-20480}
RUNS=${BENCH_RUNS:-3}
SMP=${BENCH_SMP:-1}
[ "$ARCH" = arm64 ] || command -v trace-cmd >/dev/null ||
	{ echo "bench/record-vm.sh: needs trace-cmd" >&2; exit 3; }
out=$(mktemp /tmp/tkbench-vm.XXXXXX)
trap 'rm -f "$out"' EXIT

# The guest's part: prints "BENCH TOOL RUN CPU_S EVENTS BYTES" lines.
guest=$(cat <<'EOF'
set -u
cd /tmp
rec() {
	tool=$1 run=$2 f=/tmp/$1.$2.dat
	rm -f go "$f"
	mkfifo go
	# Not our child: bash reaps a finished child at once (SIGCHLD), and
	# time would then count the workload's CPU with the recorder's.
	# Orphaned, it is init's to reap.
	( ( read -r _ <go; exec dd if=/dev/zero of=/dev/null bs=1 count="$BYTES" 2>/dev/null ) &
	  echo $! >wpid )
	read -r w <wpid
	TIMEFORMAT='%U %S'
	# Builtins only in the block (read, kill): a forked helper would be
	# counted with the recorder.
	{ time {
		"$tool" record -q -b "$BUF_KB" -e sched -e raw_syscalls -P "$w" -o "$f" &
		r=$!
		# Both are tracing by then: let the workload go.
		read -r -t 5 <>/tmp/idle
		echo go >go
		# Until it is a zombie or gone.
		while read -r _ _ st _ <"/proc/$w/stat" 2>/dev/null && [ "$st" != Z ]; do
			read -r -t 0.2 <>/tmp/idle
		done
		kill -INT "$r"
		wait "$r"
	} 2>"/tmp/log.$tool.$run"; } 2>"/tmp/time.$tool.$run"
	ev=$(trace-cmd report -i "$f" 2>/dev/null | grep -c -E '^ *.*-[0-9]+ +\[[0-9]+\] ')
	echo "BENCH $tool $run $(awk '{ printf "%.3f", $1 + $2 }' /tmp/time.$tool.$run) $ev $(stat -c %s "$f")"
	rm -f "$f"
}
mkfifo /tmp/idle
i=1
while [ $i -le "$RUNS" ]; do
	rec tracekit $i
	rec trace-cmd $i
	i=$((i + 1))
done
EOF
)
"$src/tests/vm/run.sh" --tracekit "$TRACEKIT" "${vm[@]}" --smp "$SMP" --timeout 1800 -- \
	env BYTES="$BYTES" BUF_KB="$BUF_KB" RUNS="$RUNS" bash -c "$guest" | tee "$out" |
	grep '^BENCH ' || true
grep -q '^BENCH trace-cmd ' "$out" || { echo "bench/record-vm.sh: no results from the guest" >&2; exit 1; }

# The median run of a tool by CPU per event: "cpu events bytes".
median() {
	awk -v t="$1" '$1 == "BENCH" && $2 == t && $5 > 0 { print $4 / $5, $4, $5, $6 }' "$out" |
		sort -g | awk '{ l[NR] = $2 " " $3 " " $4 } END { print l[int((NR + 1) / 2)] }'
}
read -r oc oe os <<<"$(median tracekit)"
read -r pc pe ps <<<"$(median trace-cmd)"
awk -v oc="$oc" -v oe="$oe" -v os="$os" -v pc="$pc" -v pe="$pe" -v ps="$ps" \
    -v kb="$BUF_KB" -v runs="$RUNS" -v smp="$SMP" -v arch="$ARCH" 'BEGIN {
	printf "guest (%s): %d CPU(s), buffer %d KB/CPU, events sched + raw_syscalls, workload dd bs=1; median of %d runs\n", arch, smp, kb, runs
	printf "%-20s %10s %10s %12s %10s\n", "", "events", "cpu s", "cpu s/Mev", "B/event"
	printf "%-20s %10d %10.3f %12.3f %10.2f\n", "tracekit record", oe, oc, oc / (oe / 1e6), os / oe
	printf "%-20s %10d %10.3f %12.3f %10.2f\n", "trace-cmd record", pe, pc, pc / (pe / 1e6), ps / pe
	printf "ratio ours/peer: cpu per Mevent %.2f, bytes per event %.2f\n",
		(oc / oe) / (pc / pe), (os / oe) / (ps / pe)
}'
