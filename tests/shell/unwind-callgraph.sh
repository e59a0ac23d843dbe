#!/bin/bash
# description: unwind: probe --call-graph stacks unwound by report equal the program's own backtrace() (-O2 -fomit-frame-pointer, -O0, through a DSO and libc, an SDT marker)
# The oracle is the program: at the probed leaf() it prints the stack
# glibc's backtrace() walks in-process.  tracekit records the same calls
# with probe --call-graph and record (--proc-map, or nothing, which such
# events imply), and its offline stack
# of each event must equal that one frame for frame (the return
# addresses; frame 0 is leaf itself) for >= 95% of the events, with
# recursion depths 5 and 20.  Text output, --format folded and a stack
# dump that crosses the top of the stack are checked too.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc
need_cmd jq
src=$(dirname "$0")/unwind-target.c
N=500

# expected OUT: "ID leaf RET1 RET2 ..." from the program's BT lines.
expected() {
	awk '$1 == "BT" { printf "%s leaf", $2; for (i = 5; i <= NF; i++) printf " %s", $i
		print "" }' "$1" | sort
}
# unwound DAT: the same from tracekit's JSON callchains.
unwound() {
	"$TRACEKIT" report -i "$1" --format json |
		jq -r 'select(.callchain) | "\(.fields.id) \(.callchain[0].sym) " +
			([.callchain[1:][] | .ip | tostring] | join(" "))' |
		sed 's/ $//' | sort
}

# check NAME MAPS GROUP SPEC GCC-FLAGS...: builds, probes SPEC (its event
# GROUP:leaf), records N calls (with MAPS, --proc-map or nothing: the
# events imply it), compares.
check() {
	local name=$1 maps=$2 group=$3 spec=$4 bin ev match total
	shift 4
	bin=$TK_TMP/unwind_$name
	gcc -g -o "$bin" "$src" "$@" || fail "gcc $* failed"
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	"$TRACEKIT" probe -x "$bin" --call-graph "$spec" >"$TK_TMP/add.$name" 2>&1 ||
		{ cat "$TK_TMP/add.$name"; fail "$name: probe --call-graph failed"; }
	"$TRACEKIT" probe -x "$bin" --call-graph -D "$spec" | grep -q ' __stack0=+0(%sp):x64\[64\]' ||
		fail "$name: -D shows no stack capture"
	"$TRACEKIT" record -q $maps -e "$group:leaf" -b 8192 -o "$TK_TMP/$name.dat" \
		-- "$bin" $N >"$TK_TMP/out.$name" 2>"$TK_TMP/log.$name" ||
		{ cat "$TK_TMP/log.$name"; fail "$name: record failed"; }
	[ -n "$maps" ] || assert_grep "storing the maps of the traced processes" "$TK_TMP/log.$name"
	expected "$TK_TMP/out.$name" >"$TK_TMP/want.$name"
	unwound "$TK_TMP/$name.dat" >"$TK_TMP/got.$name"
	total=$(wc -l <"$TK_TMP/want.$name")
	assert_eq "$name: calls made" "$total" $N
	assert_eq "$name: events unwound" "$(wc -l <"$TK_TMP/got.$name")" $N
	match=$(comm -12 "$TK_TMP/want.$name" "$TK_TMP/got.$name" | wc -l)
	echo "$name: $match of $total events unwound as backtrace() walked them"
	if [ $((match * 100)) -lt $((total * 95)) ]; then
		diff "$TK_TMP/want.$name" "$TK_TMP/got.$name" | head -20
		fail "$name: $match of $total stacks match, want >= 95%"
	fi

	# Text: the frames beneath the event, symbolized by libdw.
	"$TRACEKIT" report -i "$TK_TMP/$name.dat" >"$TK_TMP/text.$name"
	assert_grep '^  => leaf\+0x[0-9a-f]+ \(unwind_'"$name"'\) unwind-target\.c:[0-9]+$' "$TK_TMP/text.$name"
	assert_grep '^  => rec\+0x[0-9a-f]+ \(unwind_'"$name"'\) unwind-target\.c:[0-9]+$' \
		"$TK_TMP/text.$name"
	assert_grep '^  => main\+0x[0-9a-f]+ ' "$TK_TMP/text.$name"
	grep -q '__stack0' "$TK_TMP/text.$name" && fail "$name: capture fields printed"

	# Folded: one line per distinct stack, counted as the program's depths.
	"$TRACEKIT" report -i "$TK_TMP/$name.dat" --format folded >"$TK_TMP/folded.$name"
	cat "$TK_TMP/folded.$name"
	for d in 5 20; do
		local recs= i want
		for ((i = 0; i <= d; i++)); do recs+=";rec"; done
		want=$(awk -v d=$d '$1 == "BT" && $3 == d' "$TK_TMP/out.$name" | wc -l)
		assert_grep "^unwind_$name;.*;main$recs;(.*;)?leaf $want\$" "$TK_TMP/folded.$name"
	done
	assert_eq "$name: folded lines" "$(wc -l <"$TK_TMP/folded.$name")" 2

	"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "$name: probe -d failed"
}

check O2 --proc-map probe_unwind_O2 'leaf id depth' -O2 -fomit-frame-pointer
check O0 "" probe_unwind_O0 'leaf id depth' -O0
# A PIE calling leaf() through a library of its own and libc's qsort().
gcc -g -O2 -fomit-frame-pointer -fPIC -shared -o "$TK_TMP/libunwind_lib.so" \
	"$(dirname "$0")/unwind-lib.c" || fail "gcc -shared failed"
check LIB --proc-map probe_unwind_LIB 'leaf id depth' -O2 -fomit-frame-pointer -DUNWIND_LIB \
	-L"$TK_TMP" -lunwind_lib -Wl,-rpath,"$TK_TMP"
assert_grep '^  => cmp\+0x[0-9a-f]+ \(libunwind_lib\.so\) unwind-lib\.c:[0-9]+$' "$TK_TMP/text.LIB"
assert_grep '^  => unwind_lib_sort\+0x[0-9a-f]+ \(libunwind_lib\.so\)' "$TK_TMP/text.LIB"
assert_grep '^  => [a-z_]*qsort[a-z_]*\+0x[0-9a-f]+ \(libc\.so\.6\)' "$TK_TMP/text.LIB"
# The SDT marker in leaf(), as for a library's markers.
check SDT --proc-map sdt_tkunwind 'sdt_tkunwind:leaf id=arg1 depth=arg2' -O2 -fomit-frame-pointer
