#!/bin/bash
# Builds tests/fuzz/format.c with clang's libFuzzer and sanitizers, and
# runs it on event formats: every format of the running kernel's tracefs
# (when mounted) and the formats stored as text in tests/data's trace.dat
# files.  Not part of `make check`.
#   [SAN=asan|ubsan] tests/fuzz/run-format.sh [RUNS] [-- LIBFUZZER_ARGS...]
set -eu
. "$(dirname "$0")/args.sh"
out=$out/format
mkdir -p "$out/corpus" "$out/artifacts"
pkgs="libtraceevent libtracefs libzstd zlib"
# shellcheck disable=SC2086
fuzz_build "$out/format" "$pkgs" tests/fuzz/format.c $tracedat_srcs
for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$t/events" ] || continue
	for f in "$t"/events/*/*/format; do
		n=${f#"$t"/events/}
		cat "$f" >"$out/corpus/${n//\//_}"
	done
	break
done
# A format in a v6 file (and in the fuzz inputs, v6 too) is its text,
# from "name: " to the newline that ends its print fmt.
for f in tests/data/*.dat; do
	perl -0777 -e 'my $t = <STDIN>; my $i = 0;
		while ($t =~ /(name: \S+\nID: \d+\nformat:\n.*?\nprint fmt: [^\n]*\n)/sg) {
			open(my $o, ">", "$ARGV[0]-" . $i++) or die; print $o $1; }' \
		"$out/corpus/$(basename "$f")" <"$f"
done
echo "corpus: $(ls "$out/corpus" | wc -l) inputs"
LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
	"$out/format" -runs="$runs" -max_len=16384 -dict=tests/fuzz/format.dict -close_fd_mask=2 -print_final_stats=1 \
	-artifact_prefix="$out/artifacts/" "$@" "$out/corpus" 2>&1 |
	tee "$out/format.log" | grep -E '^(#[0-9]+ +(DONE|INITED)|stat::|==[0-9]+==|SUMMARY)' || true
crashes=$(ls "$out/artifacts" | wc -l)
echo "crash/leak/timeout artifacts: $crashes (in $out/artifacts)"
[ "$crashes" = 0 ]
