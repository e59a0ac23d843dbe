#!/bin/bash
# tracekit report vs trace-cmd report on the same file of >= 1M events, in
# one run: wall time of each to /dev/null, the ratio, peak RSS.
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

# measure NAME CMD...: best of 3 wall-clock seconds and the peak RSS (KB).
measure() {
	local name=$1 best="" rss=0 i t m
	shift
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; echo "$name failed" >&2; exit 1; }
		read -r t m <"$tmp/time"
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	printf '%-10s %8.2f s  %8d KB peak RSS\n' "$name" "$best" "$rss"
	eval "${name//-/_}_t=$best"
}

measure trace-cmd trace-cmd report -i "$file"
measure tracekit "$tk" report "$file"
# The same bytes, or the comparison means nothing.
trace-cmd report -i "$file" 2>/dev/null | cmp -s - <("$tk" report "$file") &&
	echo "outputs: identical" || echo "outputs: DIFFER"
awk -v a="$trace_cmd_t" -v b="$tracekit_t" 'BEGIN { printf "speedup: %.2fx\n", a / b }'
