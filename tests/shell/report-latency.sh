#!/bin/bash
# description: report --latency: durations from START to END, per thread or --match, as bpftrace 0.17's @start[tid] = nsecs ... hist(nsecs - @start[tid]) prints them; bad events and match fields
# Threads of a program sleep known lengths in nap(), and begin(a),
# finish(b) bracket some of them with tokens.  bpftrace, one run per map,
# and `tracekit record` of uprobes and uretprobes watch the same run.  The
# two tracers' clocks differ by microseconds, the sleeps lie mid-bucket
# (report-latency-target.c), so each table of `tracekit report` must
# equal what bpftrace printed at SIGINT byte for byte, its "Attaching"
# line left out, and in the text its last line: the empty line bpftrace
# prints for its @start map, empty at the end.  The same run's
# sched_waking to sched_switch, paired by pid and next_pid, gives the
# program's threads the same count of pairs, in a run of their own.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/bpftrace.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc bpftrace
bin=$TK_TMP/lattarget
gcc -O1 -g -pthread -o "$bin" "$(dirname "$0")/report-latency-target.c" ||
	fail "gcc failed"
on_exit "'$TRACEKIT' probe -d 'probe_lattarget:*'"
"$TRACEKIT" probe -x "$bin" -a nap -a 'nap%return' -a 'begin a' \
	-a 'finish b' >"$TK_TMP/probe" 2>&1 ||
	{ cat "$TK_TMP/probe"; fail "probe -a failed"; }

# NAME|BPFTRACE-OPTION|START|END|MATCH (START's, END's)|MAP ASSIGNMENT
# (D the duration)|REPORT OPTIONS
nap="uprobe:$bin:nap|uretprobe:$bin:nap|tid|tid"
bracket="uprobe:$bin:begin|uprobe:$bin:finish|arg0|arg0"
sched="tracepoint:sched:sched_waking|tracepoint:sched:sched_switch"
maps=(
	"hist||$nap|@ = hist(D)|--latency nap"
	"histtid||$nap|@[tid] = hist(D)|--latency probe_lattarget:nap,nap__return --by pid"
	"lhist||$nap|@ = lhist(D, 0, 20000000, 1000000)|--latency nap,nap__return --lhist latency,0,20000000,1000000"
	"count||$nap|@[tid] = count()|--latency nap,nap__return --count=pid"
	"match||$bracket|@ = hist(D)|--latency begin,finish --match a,b"
	"jhist|-f json|$nap|@[tid] = hist(D)|--latency nap,nap__return --by pid --format json"
	"jmatch|-f json|$bracket|@ = hist(D)|--latency begin,finish --match a,b --format json"
)
# sched_waking to sched_switch, paired by pid and next_pid, is a round of
# its own: bpftrace skips a BPF program that fires while another runs on
# the same CPU (the kernel's bpf_prog_active guard), so a waking from a
# timer interrupt that lands in one of the uprobe programs is lost to it,
# not to the ring buffer (59 pairs against tracekit's 60, once).  Alone,
# its two programs run with interrupts off, but another test's BPF
# programs may run beside them (58 against 59 in CI, the sanitizer run
# beside make check): the pairs tracekit counts beyond bpftrace's must
# be no more than the kernel counted as skipped (bpftrace_misses).
wake="wake||$sched|args->pid|args->next_pid|@[args->next_comm] = count()|--latency sched:sched_waking,sched_switch --match pid,next_pid --count=next_comm"

# round FILE MAP... -- RECORD-OPTIONS: one run of the program, watched
# by a bpftrace per MAP and by tracekit record into FILE.
round() {
	local file=$1
	shift
	BT_PIDS=() BT_NAMES=()
	while [ "$1" != -- ]; do
		IFS='|' read -r name fopt start end ms me assign opts <<<"$1"
		d="nsecs - @start[$me]"
		prog="$start { @start[$ms] = nsecs; }"
		prog+=" $end /@start[$me]/ { ${assign/D/$d}; delete(@start[$me]); }"
		# shellcheck disable=SC2086
		bpftrace_start "$name" $fopt -e "$prog"
		shift
	done
	shift
	bpftrace_wait
	"$TRACEKIT" record "$@" -o "$file" -- "$bin" >"$TK_TMP/record" 2>&1 ||
		{ cat "$TK_TMP/record"; fail "record failed"; }
	grep -q ' events (0 lost)' "$TK_TMP/record" ||
		{ cat "$TK_TMP/record"; fail "record lost events"; }
	misses=$(bpftrace_misses "${BT_PIDS[@]}")
	bpftrace_stop "${BT_PIDS[@]}"
}
round "$TK_TMP/lat.dat" "${maps[@]}" -- -e 'probe_lattarget:*'
round "$TK_TMP/wake.dat" "$wake" -- -e sched:sched_waking -e sched:sched_switch
wake_misses=$misses

for m in "${maps[@]}" "$wake"; do
	IFS='|' read -r name fopt start end ms me assign opts <<<"$m"
	dat=$TK_TMP/lat.dat
	[ "$name" = wake ] && dat=$TK_TMP/wake.dat
	grep -vE '^Attaching |"attached_probes"' "$TK_TMP/bt.$name" \
		>"$TK_TMP/want.$name"
	# The tracepoints fire for every task, from before the record to
	# after it: the program's threads alone were seen by both from
	# their first wakeup to their last switch, and only their line (the
	# pairs whose END is one of them) is compared.
	if [ "$name" = wake ]; then
		sel='^@\[lattarget\]: '
		grep "$sel" "$TK_TMP/bt.$name" >"$TK_TMP/want.$name" ||
			fail "bpftrace $name: no line for lattarget"
	elif [ -z "$fopt" ]; then
		[ -z "$(tail -n 1 "$TK_TMP/want.$name")" ] ||
			fail "bpftrace $name: no empty line for @start at the end"
		sed -i '$d' "$TK_TMP/want.$name"
	fi
	# shellcheck disable=SC2086
	"$TRACEKIT" report $opts "$dat" >"$TK_TMP/got.$name" 2>&1 ||
		{ cat "$TK_TMP/got.$name"; fail "report $opts failed"; }
	if [ "$name" = wake ]; then
		grep "$sel" "$TK_TMP/got.$name" >"$TK_TMP/got.$name.sel"
		mv "$TK_TMP/got.$name.sel" "$TK_TMP/got.$name"
	fi
	if [ "$name" = wake ] && ! cmp -s "$TK_TMP/want.$name" "$TK_TMP/got.$name"; then
		w=$(sed 's/.*: //' "$TK_TMP/want.$name") g=$(sed 's/.*: //' "$TK_TMP/got.$name")
		echo "wake: $g pairs, bpftrace $w, its programs skipped $wake_misses times"
		[ "$g" -gt "$w" ] && [ $((g - w)) -le "$wake_misses" ] && continue
	fi
	if ! cmp -s "$TK_TMP/want.$name" "$TK_TMP/got.$name"; then
		diff -u "$TK_TMP/want.$name" "$TK_TMP/got.$name" | head -40
		fail "report $opts differs from bpftrace's $name"
	fi
done

# Past 4096 STARTs waiting, a new one is dropped as bpftrace's full map
# drops it: the same pairs are counted, and report says how many it
# dropped (5000 - 4096).
prog="uprobe:$bin:begin { @start[arg0] = nsecs; }"
prog+=" uprobe:$bin:finish /@start[arg0]/ { @ = count(); delete(@start[arg0]); }"
bpftrace -e "$prog" >"$TK_TMP/bt.bound" 2>"$TK_TMP/bt.bound.err" &
pid=$!
on_exit "kill $pid"
for ((t = 0; t < 600; t++)); do
	grep -qs '^Attaching ' "$TK_TMP/bt.bound" && break
	kill -0 $pid 2>/dev/null ||
		{ cat "$TK_TMP/bt.bound.err"; fail "bpftrace bound exited"; }
	sleep 0.1
done
"$TRACEKIT" record -e 'probe_lattarget:begin' -e 'probe_lattarget:finish' \
	-o "$TK_TMP/bound.dat" -- "$bin" bound >"$TK_TMP/record" 2>&1 ||
	{ cat "$TK_TMP/record"; fail "record failed"; }
grep -q ' 10000 events (0 lost)' "$TK_TMP/record" ||
	{ cat "$TK_TMP/record"; fail "record bound: not 10000 events, none lost"; }
bpftrace_stop $pid
grep -v '^Attaching ' "$TK_TMP/bt.bound" | sed '$d' >"$TK_TMP/want.bound"
"$TRACEKIT" report --latency begin,finish --match a,b --count \
	"$TK_TMP/bound.dat" >"$TK_TMP/got.bound" 2>"$TK_TMP/err.bound" ||
	{ cat "$TK_TMP/err.bound"; fail "report bound failed"; }
cmp -s "$TK_TMP/want.bound" "$TK_TMP/got.bound" ||
	{ diff -u "$TK_TMP/want.bound" "$TK_TMP/got.bound"; fail "report bound differs from bpftrace's"; }
assert_grep "^tracekit report: warning: --latency: 904 START events dropped: 4096 STARTs waited for their END already \(bpftrace's map size\)$" \
	"$TK_TMP/err.bound"

# Bad input: one line naming the event or field; exit 1 (the file's
# events), 2 (the option's syntax).
bad() {	# CODE WANT-IN-MESSAGE REPORT-OPTIONS...
	local code=$1 want=$2 rc=0
	shift 2
	"$TRACEKIT" report "$@" "$TK_TMP/lat.dat" >"$TK_TMP/out" \
		2>"$TK_TMP/err" || rc=$?
	[ "$rc" = "$code" ] || { cat "$TK_TMP/err"; fail "report $*: exit $rc, want $code"; }
	[ ! -s "$TK_TMP/out" ] || fail "report $*: printed on stdout"
	[ "$(head -n 1 "$TK_TMP/err")" = "tracekit report: $want" ] ||
		{ cat "$TK_TMP/err"; fail "report $*: not '$want'"; }
	[ "$code" = 2 ] || [ "$(wc -l <"$TK_TMP/err")" = 1 ] ||
		{ cat "$TK_TMP/err"; fail "report $*: more than one line"; }
}
bad 1 "--latency: no file has the event 'nosuch'" --latency nosuch,nap__return
bad 1 "--latency: no file has the event 'probe_x:nap'" --latency nap,probe_x:nap
bad 1 "--match: probe_lattarget:finish has no field 'c' (its fields: __probe_ip, b)" \
	--latency begin,finish --match a,c
bad 2 "--latency: ',nap' is not START,END or EVENT" --latency ,nap
bad 1 "--latency: no file has the event 'begin__return'" --latency begin
bad 2 "--match: needs --latency" --match a --hist a
bad 2 "--sum: with --latency the value is 'latency', not 'a'" \
	--latency begin,finish --sum a
