#!/bin/bash
# Times `tracekit probe -D` against `perf probe -D` on every SDT marker of
# one binary (default: the host's libpython, 8 markers with semaphores),
# in the same run, and prints the ratio.  Not part of `make check`.
# usage: bench/probe-sdt.sh TRACEKIT [BIN] [RUNS]
set -eu
tk=$(readlink -f "${1:-./tracekit}")
bin=$(readlink -f "${2:-$(ls /usr/lib/x86_64-linux-gnu/libpython3.*.so.1.0 2>/dev/null | head -n 1)}")
runs=${3:-50}
[ -f "$bin" ] || { echo "probe-sdt.sh: no binary with SDT markers given" >&2; exit 3; }
command -v perf >/dev/null || { echo "probe-sdt.sh: perf is not installed" >&2; exit 3; }
HOME=$(mktemp -d)
export HOME
trap 'rm -rf "$HOME"' EXIT
perf buildid-cache --add "$bin"
providers=$(readelf -n "$bin" | sed -n 's/ *Provider: //p' | sort -u)

# run CMD...: seconds for $runs runs of CMD on every provider.
run() {
	local s e i p
	s=$(date +%s.%N)
	for ((i = 0; i < runs; i++)); do
		for p in $providers; do
			"$@" -x "$bin" -D "sdt_$p:*" >/dev/null 2>&1
		done
	done
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}

t_tk=$(run "$tk" probe)
t_perf=$(run perf probe)
printf 'binary   %s (%s)\n' "$bin" "$(echo $providers)"
printf 'tracekit %8.3f s for %d runs\n' "$t_tk" "$runs"
printf 'perf     %8.3f s for %d runs\n' "$t_perf" "$runs"
printf 'ratio    perf/tracekit = %.1f\n' "$(echo "$t_perf / $t_tk" | bc -l)"
