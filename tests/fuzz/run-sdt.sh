#!/bin/bash
# Fuzzes util/probe-sdt with libFuzzer (clang -fsanitize=fuzzer) for
# SECONDS (default 300).  Not part of `make check`.  The seed corpus is SDT
# programs built here, real binaries, notes and argument strings.
# usage: tests/fuzz/run-sdt.sh [SECONDS]
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-300}
out=build/fuzz
mkdir -p "$out/corpus"
command -v clang >/dev/null || { echo "run-sdt.sh: clang is not installed" >&2; exit 3; }

pkgs="libelf libtracefs libtraceevent"
clang -g -O1 -std=gnu11 -D_GNU_SOURCE -I. $(pkg-config --cflags $pkgs) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-o "$out/fuzz-sdt" tests/fuzz/sdt.c util/probe-sdt.c util/elf-addr.c \
	util/probe-file.c util/tracefs.c util/tracefs-restore.c \
	util/strbuf.c util/usage.c \
	arch/*.c arch/*/*.c $(pkg-config --libs $pkgs)

# Seeds: ELF files with markers (built by the shell test helpers), plain ELFs,
# and text inputs (0x80 = argument, 0x81 = request, 0x82 = spec).
if command -v gcc >/dev/null && echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1; then
	TK_TMP=$(mktemp -d)
	skip() { :; }
	fail() { echo "run-sdt.sh: $*" >&2; exit 1; }
	need_cmd() { :; }
	. tests/shell/lib/sdt-progs.sh
	build_sdt_progs
	cp "$TK_TMP/sdtprog" "$TK_TMP/sdtprog_nopie" "$TK_TMP/libtksdt.so" "$out/corpus/"
	rm -rf "$TK_TMP"
fi
cp /bin/true "$out/corpus/true"
i=0
for a in '-4@%eax' '8@-40(%rbp)' '-8@g_total+16(%rip)' '1@$-56' '-8@(%rdx,%rsi,8)' \
	 '8f@%rdx' '1@%ah' '8@%fs:0x28'; do
	printf '\x80%s' "$a" >"$out/corpus/arg$i"
	i=$((i + 1))
done
for a in '8@x4' '-4@w2' '-4@[sp, 96]' '-4@[sp]' '2@[x22, 20]' '4@5' '8@[x1, x2]' \
	 '8@#-7'; do
	printf '\x83%s' "$a" >"$out/corpus/arg$i"
	i=$((i + 1))
done
printf '\x81tag=arg6:ustring' >"$out/corpus/req"
printf '\x82%%sdt_tkapp:t*' >"$out/corpus/spec"
printf '\x00\x10\x12\x00\x00\x00\x00\x00\x00\x00\x20\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00app\0req\0-4@%%eax\0' \
	>"$out/corpus/desc"

"$out/fuzz-sdt" -max_total_time="$secs" -max_len=65536 -print_final_stats=1 \
	-artifact_prefix="$out/" "$out/corpus" 2>&1 | tail -n 25
