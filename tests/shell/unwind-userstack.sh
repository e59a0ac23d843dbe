#!/bin/bash
# description: unwind: side by side with ftrace's userstacktrace (frame pointers) on the same probe: -O2 -fomit-frame-pointer and -O0
# The kernel's userstacktrace option follows frame pointers, at most 8
# entries (a user_stack event after each event).  Both it and tracekit's
# --call-graph stacks of the same events are held against the target's
# own backtrace(): userstacktrace right where its non-zero entries are
# backtrace()'s first frames as far as its 8 slots reach.  At -O0, with
# frame pointers, it must be right (so the comparison is sound); at -O2
# without them it is wrong where tracekit is right, and the counts are
# printed.  Depths 5 and 20: 60 levels of -O0 frames do not fit in the
# dump (tests/shell/unwind-callgraph.sh).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_unwind
need_host_cmd gcc
src=$(dirname "$0")/unwind-target.c
N=200

# pairs DAT: "ID U RET1 ..." (userstacktrace) and "ID K RET1 ..." (tracekit).
pairs() {
	"$TRACEKIT" report -i "$1" --format json |
		jq -r 'if .event == "leaf" then "L \(.fields.id) " +
			([.callchain | map(select(.inlined | not)) | .[1:][] | .ip | tostring] |
			 join(" "))
		       elif .event == "user_stack" then "U " +
			([.fields.caller[1:][] | select(. != 0) | tostring] | join(" "))
		       else empty end' |
		awk '$1 == "L" { id = $2; $1 = ""; $2 = ""; print id " K" $0 }
		     $1 == "U" && id != "" { $1 = ""; print id " U" $0; id = "" }' |
		sed 's/  */ /g; s/ $//'
}

# check NAME GCC-FLAGS...: "TK US" (events right, of N) in $TK_TMP/right.NAME.
check() {
	local name=$1 bin group
	shift
	bin=$TK_TMP/unwind_$name
	group=probe_unwind_$name
	gcc -g "$@" -o "$bin" "$src" || fail "gcc $* failed"
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	"$TRACEKIT" probe -x "$bin" --call-graph 'leaf id depth' >/dev/null 2>&1 ||
		fail "$name: probe failed"
	"$TRACEKIT" record -q --proc-map -O userstacktrace -e "$group:leaf" -o "$TK_TMP/$name.dat" \
		-- "$bin" $N 5,20 >"$TK_TMP/out.$name" || fail "$name: record failed"
	"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "$name: probe -d failed"
	pairs "$TK_TMP/$name.dat" >"$TK_TMP/pairs.$name"
	assert_eq "$name: user_stack events" "$(grep -c '^[0-9]* U' "$TK_TMP/pairs.$name")" $N
	awk 'FNR == NR { if ($1 == "BT") { s = ""; for (i = 5; i <= NF; i++) s = s " " $i
			bt[$2] = s }; next }
	     { id = $1; kind = $2; s = ""; for (i = 3; i <= NF; i++) s = s " " $i
	       if (kind == "K") k += s == bt[id]
	       else { n = split(bt[id], f, " "); m = NF - 2; w = ""
		      for (i = 1; i <= n && i <= 7; i++) w = w " " f[i]
		      u += m > 0 && s == w } }
	     END { print k + 0, u + 0 }' "$TK_TMP/out.$name" "$TK_TMP/pairs.$name" \
		>"$TK_TMP/right.$name"
}

check O0 -O0
read -r tk us <"$TK_TMP/right.O0"
echo "-O0: of $N events, tracekit $tk match backtrace(), userstacktrace $us"
[ $((tk * 100)) -ge $((N * 95)) ] || fail "-O0: tracekit: $tk of $N"
[ $((us * 100)) -ge $((N * 95)) ] || fail "-O0: userstacktrace $us of $N: the comparison is broken"
check O2 -O2 -fomit-frame-pointer
read -r tk us <"$TK_TMP/right.O2"
echo "-O2 -fomit-frame-pointer: of $N events, tracekit $tk match backtrace(), userstacktrace $us"
[ $((tk * 100)) -ge $((N * 95)) ] || fail "-O2: tracekit: $tk of $N"
[ "$us" -lt "$tk" ] || fail "-O2: userstacktrace right as often as tracekit ($us)"
