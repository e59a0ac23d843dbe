#!/bin/bash
# description: unwind: probe --call-graph stacks unwound by report equal the program's own backtrace() (-O2 -fomit-frame-pointer, -O0, through a DSO and libc, an SDT marker, CFI in .debug_frame only)
# The oracle is the program: at the probed leaf() it prints the stack
# glibc's backtrace() walks in-process.  tracekit records the same calls
# with probe --call-graph and record (--proc-map, or nothing, which such
# events imply), and its offline stack
# of each event must equal that one frame for frame (the return
# addresses; frame 0 is leaf itself) for >= 95% of the events, with
# recursion depths 5, 20 and 60 (the frame of a function inlined at a
# return address is tracekit's own, left out).  Text output, --format folded and a stack
# dump that crosses the top of the stack are checked too.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_unwind
need_host_cmd gcc
src=$(dirname "$0")/unwind-target.c
N=500

# check NAME FIT MAPS GROUP SPEC GCC-FLAGS...: builds, probes SPEC (its
# event GROUP:leaf), records N calls (with MAPS, --proc-map or nothing:
# the events imply it), compares.  The recursion up to depth FIT fits in
# the dump (-O2: 16 bytes a level; -O0: 48, and 60 levels take more than
# the 2944 bytes the kernel lets a probe take beside the user's arguments).
# With oracle set, the backtrace() lines are that program's, run as bin is
# (norand: both without ASLR, so at the same addresses).
norand= oracle=
check() {
	local name=$1 fit=$2 maps=$3 group=$4 spec=$5 bin m t w fn fm
	shift 5
	bin=$TK_TMP/unwind_$name
	gcc -g -o "$bin" "$src" "$@" || fail "gcc $* failed"
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	"$TRACEKIT" probe -x "$bin" --call-graph "$spec" >"$TK_TMP/add.$name" 2>&1 ||
		{ cat "$TK_TMP/add.$name"; fail "$name: probe --call-graph failed"; }
	"$TRACEKIT" probe -x "$bin" --call-graph -D "$spec" | grep -q ' __stack0=+0(%sp):x64\[64\]' ||
		fail "$name: -D shows no stack capture"
	$norand "$TRACEKIT" record -q $maps -e "$group:leaf" -b 8192 -o "$TK_TMP/$name.dat" \
		-- "$bin" $N >"$TK_TMP/out.$name" 2>"$TK_TMP/log.$name" ||
		{ cat "$TK_TMP/log.$name"; fail "$name: record failed"; }
	if [ -n "$oracle" ]; then
		$norand "$oracle" $N >"$TK_TMP/out.$name" || fail "$name: $oracle failed"
	fi
	[ -n "$maps" ] || assert_grep "storing the maps of the traced processes" "$TK_TMP/log.$name"
	unwind_stacks "$TK_TMP/$name.dat" >"$TK_TMP/got.$name"
	assert_eq "$name: calls made" "$(grep -c '^BT ' "$TK_TMP/out.$name")" $N
	assert_eq "$name: events unwound" "$(wc -l <"$TK_TMP/got.$name")" $N
	read -r m t w fn fm < <(unwind_classify "$TK_TMP/out.$name" "$TK_TMP/got.$name" "$fit")
	echo "$name: $m of $N events unwound as backtrace() walked them, $t cut short" \
		"by the dump ([unknown]), $w wrong; at depths <= $fit: $fm of $fn"
	assert_eq "$name: wrong stacks" "$w" 0
	[ $((fm * 100)) -ge $((fn * 95)) ] || fail "$name: $fm of $fn stacks match, want >= 95%"

	# Text: the frames beneath the event, symbolized by libdw.
	"$TRACEKIT" report -i "$TK_TMP/$name.dat" >"$TK_TMP/text.$name"
	assert_grep '^  => leaf\+0x[0-9a-f]+ \(unwind_'"$name"'\) unwind-target\.c:[0-9]+$' "$TK_TMP/text.$name"
	assert_grep '^  => rec\+0x[0-9a-f]+ \(unwind_'"$name"'\) unwind-target\.c:[0-9]+$' \
		"$TK_TMP/text.$name"
	assert_grep '^  => main\+0x[0-9a-f]+ ' "$TK_TMP/text.$name"
	# via_inline(), inlined into rec(), at its call of leaf() or unwind_lib_sort().
	assert_grep '^  => via_inline \(unwind_'"$name"'\) unwind-target\.c:[0-9]+ \(inlined\)$' \
		"$TK_TMP/text.$name"
	grep -q '__stack0' "$TK_TMP/text.$name" && fail "$name: capture fields printed"

	# Folded: one line per distinct stack, counted as the program's depths.
	"$TRACEKIT" report -i "$TK_TMP/$name.dat" --format folded >"$TK_TMP/folded.$name"
	cat "$TK_TMP/folded.$name"
	for d in 5 20 60; do
		local recs= i want
		for ((i = 0; i <= d; i++)); do recs+=";rec"; done
		want=$(awk -v d=$d '$1 == "BT" && $3 == d' "$TK_TMP/out.$name" | wc -l)
		if [ $d -le $fit ]; then
			assert_grep "^unwind_$name;.*;main$recs;(.*;)?leaf $want\$" "$TK_TMP/folded.$name"
		else
			assert_grep "^unwind_$name;\[unknown\](;rec)+;via_inline;leaf $want\$" \
				"$TK_TMP/folded.$name"
		fi
	done
	assert_eq "$name: folded lines" "$(wc -l <"$TK_TMP/folded.$name")" 3

	"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "$name: probe -d failed"
}

check O2 60 --proc-map probe_unwind_O2 'leaf id depth' -O2 -fomit-frame-pointer
check O0 20 "" probe_unwind_O0 'leaf id depth' -O0
# A PIE calling leaf() through a library of its own and libc's qsort().
gcc -g -O2 -fomit-frame-pointer -fPIC -shared -o "$TK_TMP/libunwind_lib.so" \
	"$(dirname "$0")/unwind-lib.c" || fail "gcc -shared failed"
check LIB 60 --proc-map probe_unwind_LIB 'leaf id depth' -O2 -fomit-frame-pointer -DUNWIND_LIB \
	-L"$TK_TMP" -lunwind_lib -Wl,-rpath,"$TK_TMP"
assert_grep '^  => cmp\+0x[0-9a-f]+ \(libunwind_lib\.so\) unwind-lib\.c:[0-9]+$' "$TK_TMP/text.LIB"
assert_grep '^  => unwind_lib_sort\+0x[0-9a-f]+ \(libunwind_lib\.so\)' "$TK_TMP/text.LIB"
assert_grep '^  => [a-z_]*qsort[a-z_]*\+0x[0-9a-f]+ \(libc\.so\.6\)' "$TK_TMP/text.LIB"
# The SDT marker in leaf(), as for a library's markers.
check SDT 60 --proc-map sdt_tkunwind 'sdt_tkunwind:leaf id=arg1 depth=arg2' -O2 -fomit-frame-pointer
# CFI in .debug_frame only (gcc -g without unwind tables; libunwind 1.6
# reads no .debug_frame remotely): readelf finds the FDEs of leaf(), rec()
# and main() there, and none in .eh_frame, which keeps _start's and the
# PLT's.  backtrace() (libgcc, .eh_frame) cannot walk such a program: the
# oracle is the O2 build's, whose .text is the same bytes at the same
# addresses (objcopy), both run without ASLR.
objcopy -O binary -j .text "$TK_TMP/unwind_O2" "$TK_TMP/O2.text"
norand="setarch -R" oracle=$TK_TMP/unwind_O2 check DBGF 60 --proc-map probe_unwind_DBGF \
	'leaf id depth' -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables
objcopy -O binary -j .text "$TK_TMP/unwind_DBGF" "$TK_TMP/DBGF.text"
cmp -s "$TK_TMP/O2.text" "$TK_TMP/DBGF.text" || fail "DBGF: .text differs from the O2 build's"
assert_eq "DBGF: FDEs of leaf, rec, main in .eh_frame and .debug_frame" \
	"$(unwind_fdes readelf nm "$TK_TMP/unwind_DBGF")" "0 3"
