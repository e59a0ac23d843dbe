#!/bin/bash
# Builds tests/fuzz/report.c with clang's libFuzzer and sanitizers, and
# runs it from the tests/data seeds.  Not part of `make check`.
#   [SAN=asan|ubsan] tests/fuzz/run-report.sh [RUNS] [-- LIBFUZZER_ARGS...]
# RUNS defaults to 1000000.  SAN=asan (default) is ASan+UBSan, about 200
# runs/s here; SAN=ubsan is UBSan only, about five times faster.
set -eu
. "$(dirname "$0")/args.sh"
mkdir -p "$out/corpus" "$out/artifacts"
pkgs="libtraceevent libzstd zlib"
# shellcheck disable=SC2086
fuzz_build "$out/report" "$pkgs" tests/fuzz/report.c $tracedat_srcs \
	util/print.c util/print-fmt.c util/json.c util/ftrace-print.c \
	util/callgraph.c arch/*.c arch/*/*.c
cp tests/data/report-sched-v7.dat tests/data/report-sched-v6.dat "$out/corpus/"
# libtraceevent warns on stderr about what it cannot parse: keep it out of the log.
LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
	"$out/report" -runs="$runs" -max_len=16384 -close_fd_mask=2 -print_final_stats=1 \
	-artifact_prefix="$out/artifacts/" "$@" "$out/corpus" 2>&1 |
	tee "$out/report.log" | grep -E '^(#[0-9]+ +(DONE|INITED)|stat::|==[0-9]+==|SUMMARY)' || true
crashes=$(ls "$out/artifacts" | wc -l)
echo "crash/leak/timeout artifacts: $crashes (in $out/artifacts)"
[ "$crashes" = 0 ]
