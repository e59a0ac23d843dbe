# The probes of tests/shell/probe-target.c and how their events are held
# against what the program prints: shared by probe-uprobe.sh and
# probe-raw.sh (on this machine) and arm64-uprobe.sh (definitions made
# here, recorded in an arm64 guest).
#   target_specs          the specs every build takes
#   target_specs_O0       the further specs of an -O0 build, and
#   target_events_O0      the events they add
# target_set OPT: sets specs, want_ev, ndefs and nevents for a build at
# -O0 (OPT O0) or with optimisation (anything else).
# target_check WHAT OUT TRACE: the events of TRACE are what the program
# printed to OUT, nevents of them.
target_specs=(
	'ip_rcv len=skb->len skb->dev->mac skb->dev->up skb->dev->flags skb->dev->speed
	 skb->dev->mtu skb->dev->in->name skb->dev->in->vals v2=skb->dev->in->vals[1]
	 skb->s4 skb->dev->handler fl=flags who:string g_counter s_total'
	'many_args a1 a2 a6 a7 a8 a9:string'
	'ip_rcv%return $retval'
	'many_args%return $retval'
)
# A local at a line: at -O0 only, where gcc gives "return total" code of
# its own (at -O2 that line is only the n == 0 path).
# And an always_inline function: one event, a probe on each inlined copy.
target_specs_O0=('sum_vals:7 total' 'scale x k')
target_events_O0=(sum_vals_L7 scale)

target_set() {
	local s
	specs=()
	for s in "${target_specs[@]}"; do
		specs+=("$(echo $s)")
	done
	want_ev="ip_rcv ip_rcv__return many_args many_args__return"
	if [ "$1" = O0 ]; then
		specs+=("${target_specs_O0[@]}")
		want_ev+=" ${target_events_O0[*]}"
		ndefs=7		# 4 + sum_vals_L7 + scale at its two inlined copies
		nevents=9	# ip_rcv x2, its return x2, many_args, its return, sum_vals_L7, scale x2
	else
		ndefs=4
		nevents=6
	fi
}

# The program's "EXPECT EVENT: ARGS" lines of the events of want_ev, and
# tracefs's "comm-pid [cpu] flags ts: EVENT: (ip[ <- ret]) ARGS" lines,
# each as "EVENT: ARGS" sorted by event, must be the same.
target_check() {
	local what=$1 out=$2 trace=$3
	sed -n 's/^EXPECT //p' "$out" | grep -E "^(${want_ev// /|}):" |
		sort -s -t: -k1,1 >"$TK_TMP/target.want"
	sed -n -E 's/^.*[0-9]: ([A-Za-z0-9_]+): \([^)]*\) (.*)$/\1: \2/p' "$trace" |
		sort -s -t: -k1,1 >"$TK_TMP/target.got"
	if ! diff -u "$TK_TMP/target.want" "$TK_TMP/target.got"; then
		cat "$trace"
		fail "$what: recorded values differ from the program's"
	fi
	assert_eq "$what: events" "$(wc -l <"$TK_TMP/target.got")" "$nevents"
}
