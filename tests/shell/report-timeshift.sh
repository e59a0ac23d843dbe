#!/bin/bash
# description: report: TIME_SHIFT (host/guest clock sync) applied as trace-cmd report applies it; GUEST read; a cut option refused
# tracefs: untouched
# No host+guest recording can be made here (trace-cmd record -A needs a
# VM agent over vsock), so tracedat-option.c adds the options to
# trace-cmd's own recordings, the way trace-cmd writes them; trace-cmd
# report of each file is the expected text.
. "$(dirname "$0")/lib/common.sh"
need_cmd trace-cmd
need_host_cmd gcc

data=$(cd "$(dirname "$0")/../data" && pwd)
tool=$TK_TMP/tracedat-option
gcc -O2 -o "$tool" "$(dirname "$0")/tracedat-option.c" || fail "cannot build tracedat-option"
gzip -dc "$data/report-ftrace-fgraph-sched.dat.gz" >"$TK_TMP/top.dat"	# top-level buffer
cp "$data/report-sched-v7.dat" "$TK_TMP/inst.dat"			# an instance only

# le VALUE BYTES: little-endian hex.
le() {
	printf '%016x' "$1" | sed 's/../& /g' |
		awk -v n="$2" '{ s = ""; for (i = NF; i > NF - n; i--) s = s $i; printf "%s", s }'
}

# time_shift FLAGS "COUNT TIME OFFSET SCALING..." (per CPU) [-- FRACTION...]:
# a TIME_SHIFT payload (lib/trace-cmd/trace-input.c, handle_options()):
# trace id, flags, CPU count, per CPU the count and the times, offsets
# and scalings as three arrays, then the fraction bits of every CPU.
time_shift() {
	local d col i c
	local -a v
	d="$(le 0x1234 8)$(le "$1" 4)"
	shift
	local -a cpus=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		cpus+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	d="$d$(le ${#cpus[@]} 4)"
	for c in "${cpus[@]}"; do
		read -r -a v <<<"$c"
		d="$d$(le "${v[0]}" 4)"
		for col in 1 2 3; do
			for ((i = col; i < ${#v[@]}; i += 3)); do
				d="$d$(le "${v[i]}" 8)"
			done
		done
	done
	for c in "$@"; do
		d="$d$(le "$c" 8)"
	done
	echo "$d"
}

n=0
# same NAME SRC OPTION-ID PAYLOAD: SRC with the option, reported alike.
same() {
	cp "$2" "$TK_TMP/x.dat"
	"$tool" "$TK_TMP/x.dat" "$3" "$4" || fail "$1: cannot add the option"
	trace-cmd report "$TK_TMP/x.dat" >"$TK_TMP/want" 2>/dev/null || fail "$1: trace-cmd report"
	[ "$(wc -l <"$TK_TMP/want")" -gt 10 ] || fail "$1: trace-cmd reads no events"
	"$TRACEKIT" report "$TK_TMP/x.dat" >"$TK_TMP/got" || fail "$1: tracekit report"
	diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
		{ head -n 20 "$TK_TMP/diff"; fail "$1: differs from trace-cmd report"; }
	n=$((n + 1))
}

T=138000000000		# the fixture's raw timestamps run from 138.5 s
same "one sample per CPU" "$TK_TMP/top.dat" 12 "$(time_shift 0 "1 0 1000000000 1" "1 0 -2000000 1")"
cmp -s "$TK_TMP/got" <(trace-cmd report "$TK_TMP/top.dat") && fail "TIME_SHIFT changed nothing"
same "two samples" "$TK_TMP/top.dat" 12 \
	"$(time_shift 0 "2 $T 1000 1 $((T + 10 ** 9)) 5000 1" "2 $T -1000 1 $((T + 10 ** 9)) -5000 1")"
same "two samples, interpolated" "$TK_TMP/top.dat" 12 \
	"$(time_shift 1 "2 $T 1000 1 $((T + 10 ** 9)) 5000000 1" "2 $T -1000 1 $((T + 10 ** 9)) -5000000 1")"
# Out of order, a repeated time, times before, among and after the events.
same "many samples, searched" "$TK_TMP/top.dat" 12 \
	"$(time_shift 1 "5 $((T + 500000000)) 1000 1 $T 2000000 1 $((T + 600000000)) -300000 1 $((T + 600000000)) 9 1 $((T + 10 ** 9)) 7 1" \
		"4 $((T + 540000000)) 0 1 $((T + 545000000)) 80000 1 $((T + 550000000)) -80000 1 $((T + 560000000)) 0 1")"
same "scaling and fraction bits" "$TK_TMP/top.dat" 12 \
	"$(time_shift 0 "3 $((T + 500000000)) 1000 3 $T 2000000 3 $((T + 600000000)) -300000 3" "1 0 5 8" -- 2 0 1 3)"
same "fewer CPUs than the file" "$TK_TMP/top.dat" 12 "$(time_shift 0 "1 0 3000000 1")"
# trace-cmd 3.1.6 shifts the top-level buffer only.
same "an instance's events" "$TK_TMP/inst.dat" 12 "$(time_shift 0 "1 0 1000000000 1" "1 0 1000000000 1")"
# GUEST (a host's file): name, trace id, vCPU count, {vCPU, host pid}.
same "GUEST" "$TK_TMP/top.dat" 13 \
	"$(printf 'vm1' | od -An -tx1 | tr -d ' \n')00$(le 0x1234 8)$(le 2 4)$(le 0 4)$(le 4242 4)$(le 1 4)$(le 4243 4)"

# A TIME_SHIFT cut short: trace-cmd prints nothing; here one error line.
cp "$TK_TMP/top.dat" "$TK_TMP/x.dat"
"$tool" "$TK_TMP/x.dat" 12 "$(time_shift 0 "1 0 5")" || fail "cannot add the cut option"
expect_fail "$TRACEKIT" report "$TK_TMP/x.dat"
assert_eq "error lines" "$(wc -l <"$TK_TMP/out")" 1
assert_grep "^tracekit report: $TK_TMP/x.dat: offset [0-9]+: TIME_SHIFT option of [0-9]+ bytes is cut short" \
	"$TK_TMP/out"
echo "$n files with host/guest options report as trace-cmd reports them"
exit 0
