#!/bin/bash
# description: probe: same probe address and fetch chain as perf probe -D
# Side by side with perf (Debian linux-perf) on the same -O0 and -O2
# builds: for the specs where perf's output is valid, the place and every
# register/offset chain must be identical (types may only be added where
# perf gave none); Documentation/tracekit-probe.txt lists the differences.
. "$(dirname "$0")/lib/common.sh"

need_host_cmd gcc perf
src=$(dirname "$0")/probe-target.c
perf probe -q -x /bin/true -D main >/dev/null 2>&1 ||
	perf probe -q -x "$(command -v perf)" -F >/dev/null 2>&1 ||
	fail "perf probe does not work here"

specs=(
	'ip_rcv skb->len flags who:string skb->dev->mtu skb->dev->in->vals[2] skb->s4[1]'
	'ip_rcv skb->dev->handler skb->dev->in->name skb->dev->mac'
	'ip_rcv $params'
	'many_args a1 a2 a6 a7 a8 a9:string'
	'ip_rcv%return $retval'
	'main argc argv'
	'many_args'
)

# "p:G/E PLACE [NAME=]CHAIN[:TYPE]..." -> "PLACE CHAIN CHAIN..." and the types.
chains() {
	awk '{ printf "%s", $2; for (i = 3; i <= NF; i++) { a = $i; sub(/^[A-Za-z0-9_]+=/, "", a);
	       sub(/:[^:()]*$/, "", a); printf " %s", a } print "" }' "$1"
}
types() {
	awk '{ for (i = 3; i <= NF; i++) { a = $i; t = "-"; if (match(a, /:[^:()]*$/))
	       t = substr(a, RSTART + 1); printf "%s ", t } print "" }' "$1"
}

for opt in O0 O2; do
	bin=$TK_TMP/tkperf_$opt
	gcc -g -"$opt" -o "$bin" "$src" || fail "gcc -$opt failed"
	for s in "${specs[@]}"; do
		perf probe -q -x "$bin" -D "$s" >"$TK_TMP/perf" 2>"$TK_TMP/perf.err" ||
			{ cat "$TK_TMP/perf.err"; fail "perf refused '$s'"; }
		"$TRACEKIT" probe -x "$bin" -D "$s" >"$TK_TMP/ours" 2>"$TK_TMP/ours.err" ||
			{ cat "$TK_TMP/ours.err"; fail "-$opt: '$s' refused"; }
		echo "-$opt $s"
		sed 's/^/  perf:     /' "$TK_TMP/perf"
		sed 's/^/  tracekit: /' "$TK_TMP/ours"
		assert_eq "-$opt '$s': place and chains" "$(chains "$TK_TMP/ours")" \
			"$(chains "$TK_TMP/perf")"
		read -r -a pt <<<"$(types "$TK_TMP/perf")"
		read -r -a ot <<<"$(types "$TK_TMP/ours")"
		for i in "${!pt[@]}"; do
			[ "${pt[i]}" = - ] || assert_eq "-$opt '$s': type of arg $((i + 1))" \
				"${ot[i]}" "${pt[i]}"
		done
	done

	# The documented differences, each checked so the table stays true.
	"$TRACEKIT" probe -x "$bin" -D 'ip_rcv g_counter' >"$TK_TMP/ours" || fail "global"
	perf probe -q -x "$bin" -D 'ip_rcv g_counter' >"$TK_TMP/perf"
	assert_grep ' g_counter=@g_counter\+0:s32$' "$TK_TMP/perf"
	assert_grep ' g_counter=@\+0x[0-9a-f]+:s32$' "$TK_TMP/ours"
	"$TRACEKIT" probe -x "$bin" -D 'ip_rcv skb->dev->up' >"$TK_TMP/ours" || fail "bitfield"
	assert_grep ' up=\+4\(\+8\(.*\)\):b1@16/32$' "$TK_TMP/ours"
	if perf probe -q -x "$bin" -D 'ip_rcv skb->dev->up' >/dev/null 2>&1; then
		fail "perf now handles DWARF 5 bitfields: update the table"
	fi
	perf probe -q -x "$bin" -D 'ip_rcv skb->dev->mac' >"$TK_TMP/perf"
	assert_grep ' mac=\+0\(\+8\([^:]*\)\)$' "$TK_TMP/perf"
done

# DWARF 4 bitfields: perf counts DW_AT_bit_offset from the wrong end.
bin=$TK_TMP/tkperf_d4
gcc -g -gdwarf-4 -O2 -o "$bin" "$src" || fail "gcc -gdwarf-4 failed"
"$TRACEKIT" probe -x "$bin" -D 'ip_rcv skb->dev->up' >"$TK_TMP/ours" || fail "bitfield"
perf probe -q -x "$bin" -D 'ip_rcv skb->dev->up' >"$TK_TMP/perf" || fail "perf bitfield"
cat "$TK_TMP/perf" "$TK_TMP/ours"
assert_grep ' up=\+4\(\+8\(%di\)\):b1@16/32$' "$TK_TMP/ours"
assert_grep ' up=\+4\(\+8\(%di\)\):b1@15/32$' "$TK_TMP/perf"
