#!/bin/bash
# Builds tests/fuzz/unwind.c with clang's libFuzzer and sanitizers, and
# runs it: a live snapshot of the fuzzer's own stack, registers and maps,
# corrupted by each input (words of the stack and registers, the record
# cut short, maps with holes, files missing, swapped or of another
# build-id), unwound by util/unwind.  Not part of `make check`.
#   [SAN=asan|ubsan] tests/fuzz/run-unwind.sh [RUNS] [-- LIBFUZZER_ARGS...]
# RUNS defaults to 1000000.  SAN=asan (default) is ASan+UBSan.
set -eu
. "$(dirname "$0")/args.sh"
command -v clang >/dev/null || { echo "run-unwind.sh: clang is not installed" >&2; exit 3; }
[ "$(uname -m)" = x86_64 ] || { echo "run-unwind.sh: the snapshot is taken on x86-64" >&2; exit 3; }
mkdir -p "$out/corpus-unwind" "$out/artifacts-unwind"
pkgs="libelf libdw libtraceevent libtracefs libunwind-generic zlib"
fuzz_build "$out/unwind" "$pkgs" tests/fuzz/unwind.c tests/lib.c \
	tests/runner.c util/unwind.c util/elf-addr.c util/tracefs.c \
	util/tracefs-restore.c arch/*.c arch/*/*.c
# Seeds: no edit, and one of each kind (opcode, arguments).
printf '\0' >"$out/corpus-unwind/none"
printf '\1' >"$out/corpus-unwind/build-ids"
printf '\0\1\x40\0\x08\0\0\0' >"$out/corpus-unwind/add"
printf '\0\0\x08\0\x41\x41\x41\x41\x41\x41\x41\x41' >"$out/corpus-unwind/set"
printf '\0\2\x00\x02' >"$out/corpus-unwind/cut"
printf '\0\3\1\3\2' >"$out/corpus-unwind/holes"
printf '\0\4\0' >"$out/corpus-unwind/gone"
printf '\0\5\0\3' >"$out/corpus-unwind/swap"
printf '\0\6\1\0\x10\0\0' >"$out/corpus-unwind/shift"
for t in data/unwind-fuzz-*; do
	[ -e "tests/$t" ] && cp "tests/$t" "$out/corpus-unwind/"
done
LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
	"$out/unwind" -runs="$runs" -max_len=512 -print_final_stats=1 \
	-artifact_prefix="$out/artifacts-unwind/" "$@" "$out/corpus-unwind" 2>&1 |
	tee "$out/unwind.log" | grep -E '^(#[0-9]+ +(DONE|INITED)|stat::|==[0-9]+==|SUMMARY)' || true
crashes=$(ls "$out/artifacts-unwind" | wc -l)
echo "crash/leak/timeout artifacts: $crashes (in $out/artifacts-unwind)"
[ "$crashes" = 0 ]
