#!/bin/bash
# tracekit report vs trace-cmd report, in one run, on three files:
#   uniform  >= 1M events of a few types: raw_syscalls and sched of a dd
#            doing 1-byte reads and writes;
#   mixed    every event enabled around a short busy workload (files,
#            block I/O, page faults, timers, IRQs): hundreds of types;
#   small    a few hundred sched_switch records, with every format of the
#            kernel in the file as with the others, so that the time
#            is what a report costs before its first record.
# For each: CPU time (user+sys) and wall time of both to /dev/null, best
# of BENCH_RUNS (default 5) runs, the two tools alternating; the ratio
# trace-cmd / tracekit, peak RSS, and whether the outputs are the same
# bytes; then tracekit --format json against the
# same trace-cmd text on the uniform file.
#   bench/report.sh [TRACEKIT] [FILE]
# With FILE, only that file is measured.  Without, the three are recorded
# (root), each in a tracefs instance with big buffers, extracted by
# trace-cmd (v7, zstd); the instance is removed on exit, also on Ctrl-C.
set -eu
tk=${1:-./tracekit}
given=${2:-}
RUNS=${BENCH_RUNS:-5}
tmp=$(mktemp -d /tmp/tkbench.XXXXXX)
T=/sys/kernel/tracing
inst=tkbench_report_$$
cleanup() {
	[ -d "$T/instances/$inst" ] && rmdir "$T/instances/$inst" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed" >&2; exit 2; }

# record FILE EVENT_DIRS CMD...: the events (directories under events/,
# "." for all) of an instance with 64 MB per CPU, while CMD runs.
record() {
	local out=$1 dirs=$2 d
	shift 2
	mkdir "$T/instances/$inst"
	echo 0 >"$T/instances/$inst/tracing_on"
	echo 65536 >"$T/instances/$inst/buffer_size_kb"
	for d in $dirs; do
		echo 1 >"$T/instances/$inst/events/$d/enable"
	done
	echo 1 >"$T/instances/$inst/tracing_on"
	"$@"
	echo 0 >"$T/instances/$inst/tracing_on"
	# trace-cmd extract -B removes the instance when done.
	trace-cmd extract -B "$inst" -o "$out" >/dev/null 2>&1
}

busy() {
	find /usr/share -maxdepth 3 >/dev/null 2>&1 || true
	dd if=/dev/zero of="$tmp/busy" bs=64k count=64 conv=fsync status=none
	rm -f "$tmp/busy"
	sleep 0.1
}

# run_once NAME REPEAT CMD...: one timed run of CMD REPEAT times in a
# row, wall and CPU (user+sys) seconds per run; NAME keeps its best of
# each and its peak RSS (KB).  The machine is shared: CPU time is the
# steadier.
run_once() {
	local label=$1 name=${1//-/_} rep=$2 e u s m c
	shift 2
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" \
		sh -c 'n=$1; shift; while [ "$n" -gt 0 ]; do "$@" || exit; n=$((n - 1)); done' \
		sh "$rep" "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; echo "$label failed" >&2; exit 1; }
	read -r e u s m <"$tmp/time"
	c=$(awk -v u="$u" -v s="$s" -v r="$rep" 'BEGIN { print (u + s) / r }')
	e=$(awk -v e="$e" -v r="$rep" 'BEGIN { print e / r }')
	eval "local wall=\${${name}_wall:-} cpu=\${${name}_cpu:-} rss=\${${name}_rss:-0}"
	if [ -z "$wall" ] || awk "BEGIN{exit !($e < $wall)}"; then wall=$e; fi
	if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
	[ "$m" -gt "$rss" ] && rss=$m
	eval "${name}_wall=$wall ${name}_cpu=$cpu ${name}_rss=$rss"
}

show() {
	local name=${1//-/_}
	eval "printf '  %-13s %8.3f s wall %8.3f s cpu %8d KB peak RSS\n' \"\$1\" \
		\"\$${name}_wall\" \"\$${name}_cpu\" \"\$${name}_rss\""
}

# measure NAME REPEAT CMD...: best of RUNS runs, shown.
measure() {
	local i name=${1//-/_}
	eval "unset ${name}_wall ${name}_cpu ${name}_rss"
	for ((i = 0; i < RUNS; i++)); do
		run_once "$@"
	done
	show "$1"
}

# pair REPEAT CMD_A... -- CMD_B...: trace-cmd (A) and tracekit (B)
# alternately, RUNS times, so that a slow spell of the machine (this
# one has them: the same run takes 0.31 or 0.50 s) hits both.
pair() {
	local rep=$1 i a=() b=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	unset trace_cmd_wall trace_cmd_cpu trace_cmd_rss tracekit_wall tracekit_cpu tracekit_rss
	for ((i = 0; i < RUNS; i++)); do
		run_once trace-cmd "$rep" "${a[@]}"
		run_once tracekit "$rep" "${b[@]}"
	done
	show trace-cmd
	show tracekit
}

# bench LABEL FILE REPEAT: both tools on FILE, the ratio trace-cmd / tracekit.
bench() {
	local label=$1 file=$2 rep=$3 events types
	events=$("$tk" report --stat "$file" 2>/dev/null |
		 sed -n 's/^total: \([0-9]*\) events.*/\1/p')
	types=$("$tk" report --stat "$file" 2>/dev/null |
		sed -n '/^  events:/,/^  lost/p' | grep -c '^    ')
	echo "$label: $file ($(stat -c %s "$file") bytes, $events events of $types types)"
	pair "$rep" trace-cmd report -i "$file" -- "$tk" report "$file"
	# The same bytes, or the comparison means nothing.
	trace-cmd report -i "$file" 2>/dev/null | cmp -s - <("$tk" report "$file" 2>/dev/null) &&
		echo "  outputs: identical" || echo "  outputs: DIFFER"
	awk -v l="$label" -v a="$trace_cmd_wall" -v b="$tracekit_wall" -v c="$trace_cmd_cpu" \
		-v d="$tracekit_cpu" \
		'BEGIN { printf "  %s ratio trace-cmd/tracekit: %.2fx cpu, %.2fx wall\n", l, c / d, a / b }'
}

if [ -n "$given" ]; then
	bench given "$given" 2
	exit 0
fi
[ "$(id -u)" = 0 ] && [ -d "$T/instances" ] ||
	{ echo "recording needs root and tracefs (or pass FILE)" >&2; exit 2; }
record "$tmp/uniform.dat" "raw_syscalls sched" \
	dd if=/dev/zero of=/dev/null bs=1 count=300000 status=none
record "$tmp/mixed.dat" . busy
record "$tmp/small.dat" sched/sched_switch sleep 0.2

bench uniform "$tmp/uniform.dat" 2
events=$("$tk" report --stat "$tmp/uniform.dat" | sed -n 's/^total: \([0-9]*\) events.*/\1/p')
[ "$events" -ge 1000000 ] || echo "warning: fewer than 1M events" >&2
# trace-cmd has no JSON output: --format json is timed against its text,
# the only way the peer can hand the same events to a script.
measure tracekit-json 1 "$tk" report --format json "$tmp/uniform.dat"
lines=$("$tk" report --format json "$tmp/uniform.dat" | wc -l)
[ "$lines" = "$events" ] || echo "json: $lines lines for $events events" >&2
awk -v a="$trace_cmd_wall" -v b="$tracekit_json_wall" -v c="$trace_cmd_cpu" \
	-v d="$tracekit_json_cpu" \
	'BEGIN { printf "  json vs trace-cmd text: %.2fx cpu, %.2fx wall\n", c / d, a / b }'
bench mixed "$tmp/mixed.dat" 2
bench small "$tmp/small.dat" 10
