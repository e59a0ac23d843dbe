#!/bin/bash
# tracekit report vs trace-cmd report on the same file of >= 1M events, in
# one run: wall time of each to /dev/null, the ratio, peak RSS; then
# tracekit --format json against the same trace-cmd text run.
#   bench/report.sh [TRACEKIT] [FILE]
# Without FILE, one is recorded (root): raw_syscalls and sched events of a
# dd doing 1-byte reads and writes, in a tracefs instance with big
# buffers, extracted by trace-cmd (v7, zstd).  The instance is removed on
# exit, also on Ctrl-C.
set -eu
tk=${1:-./tracekit}
file=${2:-}
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
if [ -z "$file" ]; then
	[ "$(id -u)" = 0 ] && [ -d "$T/instances" ] ||
		{ echo "recording needs root and tracefs (or pass FILE)" >&2; exit 2; }
	mkdir "$T/instances/$inst"
	echo 65536 >"$T/instances/$inst/buffer_size_kb"
	echo 1 >"$T/instances/$inst/events/raw_syscalls/enable"
	echo 1 >"$T/instances/$inst/events/sched/enable"
	dd if=/dev/zero of=/dev/null bs=1 count=300000 status=none
	echo 0 >"$T/instances/$inst/tracing_on"
	# trace-cmd extract -B removes the instance when done.
	trace-cmd extract -B "$inst" -o "$tmp/bench.dat" >/dev/null 2>&1
	file=$tmp/bench.dat
fi
events=$("$tk" report --stat "$file" | sed -n 's/^total: \([0-9]*\) events.*/\1/p')
echo "file: $file ($(stat -c %s "$file") bytes, $events events)"
[ "$events" -ge 1000000 ] || echo "warning: fewer than 1M events" >&2

# measure NAME CMD...: best of 3 runs, wall and CPU (user+sys) seconds,
# and the peak RSS (KB).  The machine is shared: CPU time is the steadier.
measure() {
	local name=$1 wall="" cpu="" rss=0 i e u s m c
	shift
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; echo "$name failed" >&2; exit 1; }
		read -r e u s m <"$tmp/time"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		if [ -z "$wall" ] || awk "BEGIN{exit !($e < $wall)}"; then wall=$e; fi
		if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	printf '%-13s %7.2f s wall %7.2f s cpu %8d KB peak RSS\n' "$name" "$wall" "$cpu" "$rss"
	eval "${name//-/_}_wall=$wall ${name//-/_}_cpu=$cpu"
}

measure trace-cmd trace-cmd report -i "$file"
measure tracekit "$tk" report "$file"
# The same bytes, or the comparison means nothing.
trace-cmd report -i "$file" 2>/dev/null | cmp -s - <("$tk" report "$file") &&
	echo "outputs: identical" || echo "outputs: DIFFER"
awk -v a="$trace_cmd_wall" -v b="$tracekit_wall" -v c="$trace_cmd_cpu" -v d="$tracekit_cpu" \
	'BEGIN { printf "speedup: %.2fx wall, %.2fx cpu\n", a / b, c / d }'
# trace-cmd has no JSON output: --format json is timed against its text,
# the only way the peer can hand the same events to a script.
measure tracekit-json "$tk" report --format json "$file"
lines=$("$tk" report --format json "$file" | wc -l)
[ "$lines" = "$events" ] || echo "json: $lines lines for $events events" >&2
awk -v a="$trace_cmd_wall" -v b="$tracekit_json_wall" -v c="$trace_cmd_cpu" -v d="$tracekit_json_cpu" \
	'BEGIN { printf "json vs trace-cmd text: %.2fx wall, %.2fx cpu\n", a / b, c / d }'
