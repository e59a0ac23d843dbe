#!/bin/bash
# description: report: zlib-compressed v7 files trace-cmd wrote read as trace-cmd report reads them; corrupt zlib is one error line
# tracefs: untouched
# Debian's trace-cmd 3.1.6 has zstd only; trace-cmd-zlib.c gives it the
# zlib codec trace-cmd has where it is built with zlib, so trace-cmd
# convert writes the files (its own sections and chunks) and trace-cmd
# report reads them.  report-sched-zlib.dat.gz is one such file, of
# report-sched-v7.dat, kept in case trace-cmd's internals move.
. "$(dirname "$0")/lib/common.sh"
need_cmd trace-cmd
need_host_cmd gcc

data=$(cd "$(dirname "$0")/../data" && pwd)
so=$TK_TMP/trace-cmd-zlib.so
gcc -shared -fPIC -o "$so" "$(dirname "$0")/trace-cmd-zlib.c" -lz || fail "cannot build the zlib codec"
LD_PRELOAD=$so trace-cmd list -c | grep -q '^	zlib, ' || fail "trace-cmd did not take the zlib codec"

# The committed file: trace-cmd's text of its source, committed with it.
gzip -dc "$data/report-sched-zlib.dat.gz" >"$TK_TMP/sched-zlib.dat"
"$TRACEKIT" report "$TK_TMP/sched-zlib.dat" >"$TK_TMP/got" || fail "committed zlib fixture failed"
cmp "$data/report-sched.txt" "$TK_TMP/got" || fail "committed zlib fixture differs from trace-cmd's text"

n=0
for src in "$data/report-sched-v7.dat" "$data/report-sched-v6.dat" \
	   "$data/report-ftrace-fgraph.dat.gz" "$data/report-ftrace-function-stack.dat.gz"; do
	in=$TK_TMP/in.dat
	case $src in
	*.gz) gzip -dc "$src" >"$in" ;;
	*) cp "$src" "$in" ;;
	esac
	f=$TK_TMP/$(basename "${src%.gz}" .dat)-zlib.dat
	LD_PRELOAD=$so trace-cmd convert --compression zlib --file-version 7 -i "$in" -o "$f" \
		>"$TK_TMP/conv" 2>&1 || { cat "$TK_TMP/conv"; fail "trace-cmd convert ${src##*/}"; }
	LD_PRELOAD=$so trace-cmd dump --summary "$f" | grep -q 'zlib.*\[Compression algorithm\]' ||
		fail "${f##*/} is not zlib"
	LD_PRELOAD=$so trace-cmd dump --sections "$f" | grep -q 'flags 0x1' ||
		fail "${f##*/} has no compressed section"
	for opts in "" "-N" "-R" "-l"; do
		# shellcheck disable=SC2086
		LD_PRELOAD=$so trace-cmd report $opts "$f" >"$TK_TMP/want" ||
			fail "trace-cmd report $opts ${f##*/}"
		# shellcheck disable=SC2086
		"$TRACEKIT" report $opts "$f" >"$TK_TMP/got" || fail "tracekit report $opts ${f##*/}"
		diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
			{ head -n 20 "$TK_TMP/diff"; fail "report $opts ${f##*/} differs from trace-cmd's"; }
		n=$((n + 1))
	done
	assert_grep '^  compression: zlib ' <("$TRACEKIT" report --stat "$f")
done

# Corrupt zlib: zlib's own checks, one error line with the offset.
# The first CPU's data: u32 chunk count at 4096, chunk header, stream.
f=$TK_TMP/sched-zlib.dat
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$f" bs=1 seek=4112 conv=notrunc status=none
expect_fail "$TRACEKIT" report "$f"
assert_eq "error lines" "$(wc -l <"$TK_TMP/out")" 1
assert_grep "^tracekit report: $f: offset 4100: corrupt zlib chunk: " "$TK_TMP/out"
echo "$n reports of zlib files equal trace-cmd's"
exit 0
