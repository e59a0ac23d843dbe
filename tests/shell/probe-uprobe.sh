#!/bin/bash
# description: probe: uprobes from DWARF (-O0, -O2, DWARF 4, no PIE) record what the program prints
# A target with structs, nested pointers, char[16], unsigned char[6],
# bitfields, long[4], short[4], a function pointer, 9 arguments, a global
# and a static is probed with `tracekit probe -x -a`; the events, read back
# from a private tracefs instance, must equal what the program printed.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc
src=$(dirname "$0")/probe-target.c

. "$(dirname "$0")/lib/probe-target.sh"

# check_build NAME GCC-FLAGS...
check_build() {
	local opt=$1 bin=$TK_TMP/tkprobe_$1 group=probe_tkprobe_$1 inst ev args=()
	local s
	shift
	gcc -g "$@" -o "$bin" "$src" || fail "gcc $* failed"
	target_set "$opt"
	for s in "${specs[@]}"; do
		args+=(-a "$s")
	done
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	"$TRACEKIT" probe -x "$bin" "${args[@]}" >"$TK_TMP/add.$opt" 2>&1 ||
		{ cat "$TK_TMP/add.$opt"; fail "-$opt: probe -a failed"; }
	assert_grep "$group:ip_rcv__return" "$TK_TMP/add.$opt"
	grep "$group/" "$TRACEFS/uprobe_events" >"$TK_TMP/defs.$opt"
	cat "$TK_TMP/defs.$opt"
	assert_eq "-$opt: definitions" "$(wc -l <"$TK_TMP/defs.$opt")" "$ndefs"
	"$TRACEKIT" probe -l >"$TK_TMP/list.$opt" || fail "-$opt: probe -l failed"
	assert_grep "^  $group:many_args__return +\\(on $bin:0x" "$TK_TMP/list.$opt"

	# A private instance: nothing else's buffer is touched.
	inst=tkprobe_$$_$opt
	mkdir "$TRACEFS/instances/$inst" || fail "cannot create instance"
	on_exit "rmdir '$TRACEFS/instances/$inst'"
	for ev in $want_ev; do
		echo 1 >"$TRACEFS/instances/$inst/events/$group/$ev/enable" ||
			fail "cannot enable $group:$ev"
		on_exit "echo 0 >'$TRACEFS/instances/$inst/events/$group/$ev/enable'"
	done
	"$bin" >"$TK_TMP/out.$opt" || fail "-$opt: target failed"
	for ev in $want_ev; do
		echo 0 >"$TRACEFS/instances/$inst/events/$group/$ev/enable"
	done
	target_check "-$opt" "$TK_TMP/out.$opt" "$TRACEFS/instances/$inst/trace"

	"$TRACEKIT" probe -d "$group:*" >"$TK_TMP/del.$opt" || fail "-$opt: probe -d failed"
	assert_eq "-$opt: all removed" "$(grep -c '^Removed event' "$TK_TMP/del.$opt")" \
		"$(echo $want_ev | wc -w)"
	if grep -q "$group/" "$TRACEFS/uprobe_events"; then
		fail "-$opt: probes left behind"
	fi
}

check_build O0 -O0
check_build O2 -O2
# DWARF 4 bitfields: DW_AT_bit_offset, counted from the MSB.
check_build O2d4 -O2 -gdwarf-4
# Not PIE: @+N is relative to the segment's p_vaddr - p_offset (0x400000).
check_build O2np -O2 -no-pie
