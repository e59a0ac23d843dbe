#!/bin/bash
# bench/unwind.sh [TRACEKIT] [N]: offline unwinding of --call-graph stacks,
# tracekit report against perf script, in one run.  The same uprobe on
# tests/shell/unwind-target.c (-O2 -fomit-frame-pointer, depths 5, 20
# and 60) is recorded by tracekit (record, 2944 bytes of stack an event)
# and by perf (record --call-graph dwarf, 8192); then each tool unwinds
# and names its N events: tracekit report --format folded and perf script
# --no-inline, to /dev/null.  Best of 3, CPU seconds (the machine is
# shared), events/s, the ratio and peak RSS.  tracekit report --stat of
# the same file reads every event and unwinds none: the difference is the
# unwinding and naming alone (the file's kallsyms and the DWARF of libc,
# read once, are most of the rest at this size).  The probe is removed on
# exit.
set -eu
tk=$(realpath "${1:-./tracekit}")
n=${2:-20000}
src=$(dirname "$0")/../tests/shell/unwind-target.c
tmp=$(mktemp -d /tmp/tkbench.XXXXXX)
bin=$tmp/unwind_bench
cleanup() {
	"$tk" probe -d 'probe_unwind_bench:*' >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for c in perf gcc; do
	command -v $c >/dev/null || { echo "bench/unwind.sh: $c is not installed" >&2; exit 3; }
done
[ "$(id -u)" = 0 ] || { echo "bench/unwind.sh: recording needs root" >&2; exit 3; }
gcc -g -O2 -fomit-frame-pointer -o "$bin" "$src"
"$tk" probe -x "$bin" --call-graph 'leaf id depth' >/dev/null
"$tk" record -q -b 131072 -e probe_unwind_bench:leaf -o "$tmp/tk.dat" -- "$bin" "$n" \
	>/dev/null 2>"$tmp/tk.log"
perf record -q -m 16384 -e probe_unwind_bench:leaf --call-graph dwarf -o "$tmp/perf.data" \
	-- "$bin" "$n" >/dev/null 2>"$tmp/perf.log"
tk_events=$("$tk" report --format folded "$tmp/tk.dat" | awk '{ s += $NF } END { print s + 0 }')
perf_events=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | wc -l)
echo "events: tracekit $tk_events, perf $perf_events (of $n)"

# measure NAME CMD...: best of 3, CPU (user+sys) seconds and peak RSS.
measure() {
	local name=$1 cpu="" rss=0 i u s m c
	shift
	for i in 1 2 3; do
		/usr/bin/time -f "%U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; echo "$name failed" >&2; exit 1; }
		read -r u s m <"$tmp/time"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	printf '%-13s %7.2f s cpu %8d KB peak RSS\n' "$name" "$cpu" "$rss"
	eval "${name//-/_}_cpu=$cpu"
}

measure perf-script perf script -i "$tmp/perf.data" --no-inline
measure tracekit "$tk" report --format folded "$tmp/tk.dat"
measure tracekit-stat "$tk" report --stat "$tmp/tk.dat"
awk -v a="$perf_script_cpu" -v b="$tracekit_cpu" -v p="$perf_events" -v t="$tk_events" \
	'BEGIN { printf "perf script %.0f events/s, tracekit %.0f events/s: %.2fx\n",
		 p / a, t / b, (t / b) / (p / a) }'
awk -v a="$tracekit_cpu" -v b="$tracekit_stat_cpu" -v t="$tk_events" \
	'BEGIN { if (a > b) printf "tracekit unwinding alone (folded - --stat): %.0f events/s\n", t / (a - b) }'
