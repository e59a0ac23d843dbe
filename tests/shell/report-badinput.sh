#!/bin/bash
# description: report: fixtures match trace-cmd's text; empty CPU sections past the end read as trace-cmd reads them; corrupt files give one error line with the offset, exit 1
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

data=$(cd "$(dirname "$0")/../data" && pwd)
v7=$data/report-sched-v7.dat
v6=$data/report-sched-v6.dat
[ -r "$v7" ] && [ -r "$v6" ] || fail "committed fixtures missing in $data"

# trace-cmd 3.1.6's report of the fixture, committed with it.  Its
# sched_switch lines come from libtraceevent's plugin (which also names
# tasks for later lines): without the plugins (the test VM), only the
# decoding can be compared.
"$TRACEKIT" report "$v7" >"$TK_TMP/v7.txt" || fail "v7 fixture failed"
"$TRACEKIT" report -i "$v6" >"$TK_TMP/v6.txt" || fail "v6 fixture failed"
cmp "$TK_TMP/v7.txt" "$TK_TMP/v6.txt" || fail "v6 and v7 of one trace differ"
if ls /usr/lib*/*/traceevent/plugins/plugin_sched_switch.so >/dev/null 2>&1 ||
   ls /usr/lib*/traceevent/plugins/plugin_sched_switch.so >/dev/null 2>&1; then
	cmp "$data/report-sched.txt" "$TK_TMP/v7.txt" || fail "v7 text differs from trace-cmd's"
else
	echo "no libtraceevent plugins: not comparing with trace-cmd's text"
	assert_eq "event lines" "$(grep -c ': sched_' "$TK_TMP/v7.txt")" \
		"$(grep -c ': sched_' "$data/report-sched.txt")"
fi

# patch FILE OFFSET HEXBYTES: overwrite bytes in place.
patch() {
	printf "$(echo "$3" | sed 's/../\\x&/g')" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# bad NAME FILE REGEX: exit 1 (not a signal), one stderr line naming the
# file, matching REGEX.
bad() {
	local rc lines
	set +e
	"$TRACEKIT" report "$2" >"$TK_TMP/out" 2>"$TK_TMP/err"
	rc=$?
	set -e
	[ "$rc" = 1 ] || { cat "$TK_TMP/err"; fail "$1: exit status $rc, want 1"; }
	lines=$(wc -l <"$TK_TMP/err")
	[ "$lines" = 1 ] || { cat "$TK_TMP/err"; fail "$1: $lines error lines, want 1"; }
	grep -q "^tracekit report: $2: " "$TK_TMP/err" || { cat "$TK_TMP/err"; fail "$1: no file name"; }
	grep -Eq -- "$3" "$TK_TMP/err" || { cat "$TK_TMP/err"; fail "$1: error does not match '$3'"; }
}

# corrupt NAME SRC OFFSET HEXBYTES REGEX: SRC with the bytes at OFFSET
# overwritten must be refused as bad() says.
corrupt() {
	cp "$2" "$f"
	patch "$f" "$3" "$4"
	bad "$1" "$f" "$5"
}

set -e
f=$TK_TMP/f.dat

corrupt "bad magic" "$v7" 0 18 \
	'offset 0: bad magic'

for n in 0 5 12 20 30 40 60 200 1000 2300 4100 4200 8200 8400; do
	head -c "$n" "$v7" >"$f"
	bad "v7 truncated to $n bytes" "$f" 'offset [0-9]+: .*(truncated|past|exceeds|end of)'
done
for n in 0 16 100 900 2000 5000 9000; do
	head -c "$n" "$v6" >"$f"
	bad "v6 truncated to $n bytes" "$f" 'offset [0-9]+: '
done

# The first CPU's data: u32 chunk count at 4096, chunk header, zstd frame.
corrupt "corrupt zstd chunk" "$v7" 4108 00000000 \
	'offset 4100: corrupt zstd chunk'
# zstd frames here carry no checksum: garbage decompresses, and the
# events it yields must still be caught before libtraceevent sees them.
corrupt "garbage in a zstd chunk" "$v7" 4200 deadbeefdeadbeef \
	'offset 4100: (corrupt zstd chunk|cpu 0: )'
corrupt "absurd chunk count" "$v7" 4096 ffffff7f \
	'offset 4096: absurd chunk count'
corrupt "chunk size not in pages" "$v7" 4104 01100000 \
	'offset 4100: absurd chunk size'

# The HEADER_INFO section header at 37: u16 id, u16 flags, u32 string, u64 size.
corrupt "section size past the end" "$v7" 45 ffffffff00000000 \
	'offset 53: section size [0-9]+ exceeds the file'
corrupt "section size smaller than its data" "$v7" 45 0100000000000000 \
	'offset 53: compressed size'
corrupt "wrong section id" "$v7" 37 1100 \
	'offset 37: section id 17 where 16'
corrupt "corrupt zstd section" "$v7" 61 00000000 \
	'offset 53: corrupt zstd section'

# The kallsyms section is read at the first lookup, not at open: corrupt,
# it is still one error line with its offset.  A function tracer file
# (trace-cmd's, from the guest) looks every function up; its KALLSYMS
# option points at 69319, the zstd frame starts 24 bytes on.
zcat "$data/report-ftrace-function.dat.gz" >"$TK_TMP/fn.dat"
corrupt "corrupt kallsyms, read at the first lookup" "$TK_TMP/fn.dat" 69343 00000000 \
	'offset 69335: corrupt zstd section'

# v6: the u32 count of event systems sits at 906, before "sched".
corrupt "absurd system count" "$v6" 906 ffffff7f \
	'offset 910: absurd event system count'
corrupt "absurd page size" "$v6" 14 00000001 \
	'offset 14: page size'

# v6 "flyrecord" tables: the top buffer's at 3883 (CPU 0 and CPU 1 both
# offset 0, size 0), the instance's at 3940 (its CPUs at 4096 and 8192,
# a page each); the file is 12288 bytes.  trace-cmd 2.9.1's agent in a
# KVM guest writes a file without events whose empty CPU 0 section sits
# at the next page boundary past its end: an empty section is read as
# nothing wherever it points, as trace-cmd reads it.
need_cmd trace-cmd
# same_as_trace_cmd NAME FILE: exit 0, and trace-cmd's text.
same_as_trace_cmd() {
	trace-cmd report -i "$2" >"$TK_TMP/want" 2>"$TK_TMP/tc.err" ||
		{ cat "$TK_TMP/tc.err"; fail "$1: trace-cmd report failed"; }
	"$TRACEKIT" report "$2" >"$TK_TMP/got" || fail "$1: tracekit report failed"
	diff -u "$TK_TMP/want" "$TK_TMP/got" || fail "$1: differs from trace-cmd report"
}
cp "$v6" "$f"
patch "$f" 3883 0040000000000000
same_as_trace_cmd "empty CPU 0 section past the end" "$f"
patch "$f" 3883 0020000000000000
patch "$f" 3940 00200000000000000000000000000000
patch "$f" 3956 00300000000000000000000000000000
head -c 4096 "$f" >"$f.cut"
same_as_trace_cmd "no events, every CPU section empty, past the end" "$f.cut"
assert_eq "no events: the text" "$(cat "$TK_TMP/got")" "cpus=2"
# Not empty, it is an error; trace-cmd fails too.
cp "$v6" "$f"
patch "$f" 3883 00400000000000000010000000000000
if trace-cmd report -i "$f" >/dev/null 2>&1; then
	fail "trace-cmd reads a CPU section past the end: the oracle changed"
fi
bad "a page of CPU 0 data past the end" "$f" \
	'offset 16384: cpu 0 data \(4096 bytes\) runs past the end of the file \(12288 bytes\)'

# Inputs that once crashed libtraceevent (tests/fuzz/report.c found them):
# a print fmt naming an undeclared field, a divisor that is an octal 0,
# garbage after a "?:" (three times), a short printk_formats line,
# "sizeof(int)(x)", a number with a '.' after the ':' of a "?:", an '='
# after a "?:" whose operands are strings (9, and 10 the file the fuzzer
# found it in, on which trace-cmd 3.1.6 dies too).  Text or JSON: exit 0,
# or 1 with one error line naming the file and an offset after the
# warnings.
for f in "$data"/report-fuzz-*.dat; do
	for opts in "" "--format json"; do
		set +e
		# shellcheck disable=SC2086
		"$TRACEKIT" report $opts "$f" >/dev/null 2>"$TK_TMP/err"
		rc=$?
		set -e
		what="$(basename "$f") ${opts:-text}"
		[ "$rc" -lt 2 ] || fail "$what: exit status $rc"
		grep -v "^tracekit report: warning: $f: event " "$TK_TMP/err" >"$TK_TMP/errors" || true
		assert_eq "$what: error lines" "$(wc -l <"$TK_TMP/errors")" "$rc"
		[ "$rc" = 0 ] || assert_grep "^tracekit report: $f: offset [0-9]*: " "$TK_TMP/errors"
	done
done

expect_fail "$TRACEKIT" report "$TK_TMP/does-not-exist.dat"
assert_grep 'does-not-exist.dat: No such file' "$TK_TMP/out"
expect_fail "$TRACEKIT" report --format yaml "$v7"
expect_fail "$TRACEKIT" report --cpu 1-x "$v7"
exit 0
