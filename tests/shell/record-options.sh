#!/bin/bash
# description: record: -f filter, -T stack traces, --cpus, -M, -P and -c, -C clock, -b, bad arguments
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cmd trace-cmd taskset

# A shell on CPU 1 that keeps switching out to wait for its children.
taskset -c 1 bash -c 'for i in $(seq 200); do sleep 0.01; done' &
load=$!
on_exit "kill $load"
"$TRACEKIT" record -q -e sched:sched_switch -f "prev_pid == $load" -e sched:sched_wakeup \
	--cpus 1 -C mono -b 2048 -T -o "$TK_TMP/t.dat" --duration 0.5 \
	>"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record failed"; }
cat "$TK_TMP/log"
trace-cmd report -N -i "$TK_TMP/t.dat" >"$TK_TMP/report" 2>&1
report_lines "$TK_TMP/t.dat" >"$TK_TMP/lines"
grep -q ' sched_switch: ' "$TK_TMP/lines" || fail "no sched_switch"
# -f: only switches away from the loop
if grep ' sched_switch: ' "$TK_TMP/lines" | grep -v " prev_pid=$load prev_prio="; then
	fail "the filter prev_pid == $load was not applied"
fi
# --cpus 1: nothing from CPU 0
if cut -d' ' -f1 "$TK_TMP/lines" | grep -v '^001$'; then
	fail "events from a CPU other than 1"
fi
# -T: kernel stacks, symbolised from the stored kallsyms
if ! grep -q 'stack traces unavailable' "$TK_TMP/log"; then
	assert_grep 'kernel_stack: +[[:space:]]=> [a-z_]' "$TK_TMP/report"
	# __schedule in each switch's stack: a frame of its own on x86-64,
	# the first frame (on the event's line) on arm64.
	assert_grep '(^|kernel_stack: +)[[:space:]]=> __schedule$' "$TK_TMP/report"
fi
# Our report reads the stacks back as trace-cmd does, records with fewer
# frames than caller[8] too: the function plugin's "=> func (addr)"
# lines, or with -N the print format's.
trace-cmd report -i "$TK_TMP/t.dat" >"$TK_TMP/tc.txt" 2>/dev/null
"$TRACEKIT" report "$TK_TMP/t.dat" >"$TK_TMP/tk.txt" || fail "report of -T file failed"
diff -u "$TK_TMP/tc.txt" "$TK_TMP/tk.txt" || fail "report of the -T file differs from trace-cmd's"
trace-cmd report -N -i "$TK_TMP/t.dat" >"$TK_TMP/tcN.txt" 2>/dev/null
"$TRACEKIT" report -N "$TK_TMP/t.dat" >"$TK_TMP/tkN.txt" || fail "report -N of -T file failed"
diff -u "$TK_TMP/tcN.txt" "$TK_TMP/tkN.txt" || fail "report -N of the -T file differs from trace-cmd's"
# -F keeps stack traces as trace-cmd report -F does (from the first event
# that passes on a CPU, every later one there); -e keeps exactly those of
# the events it keeps.
trace-cmd report -F sched_switch -i "$TK_TMP/t.dat" >"$TK_TMP/tcF.txt" 2>/dev/null
"$TRACEKIT" report -F sched_switch "$TK_TMP/t.dat" >"$TK_TMP/tkF.txt" || fail "report -F of -T file failed"
diff -u "$TK_TMP/tcF.txt" "$TK_TMP/tkF.txt" || fail "report -F of the -T file differs from trace-cmd's"
"$TRACEKIT" report -e sched:sched_switch "$TK_TMP/t.dat" >"$TK_TMP/tke.txt" || fail "report -e of -T file failed"
if ! grep -q 'stack traces unavailable' "$TK_TMP/log"; then
	grep -q ' sched_wakeup: ' "$TK_TMP/tke.txt" && fail "report -e sched_switch kept a sched_wakeup"
	# Each stack trace right after its sched_switch on the same CPU (the
	# CPUs' events interleave in time: another CPU's switch and stack
	# may come between), one per switch; what breaks the rule is printed.
	awk 'match($0, /\[[0-9]+\]/) { cpu = substr($0, RSTART, RLENGTH) }
	     / kernel_stack: / { if (prev[cpu] !~ / sched_switch: /) { bad = 1
				print "stack after: " prev[cpu]; print "  " $0 }
				stacks++ }
	     / sched_switch: / { switches++ }
	     !/^[[:space:]]*=>/ { prev[cpu] = $0 }
	     END { if (stacks != switches) print switches " switches, " stacks " stacks"
		   exit bad || !switches || stacks != switches }' "$TK_TMP/tke.txt" ||
		fail "report -e sched_switch: stack traces not one per sched_switch"
	assert_grep '^[[:space:]]*=> __schedule( \(|$)' "$TK_TMP/tke.txt"
fi
assert_eq "summary vs report" "$(summary_events "$TK_TMP/log")" "$(wc -l <"$TK_TMP/lines")"
trace-cmd dump --options -i "$TK_TMP/t.dat" >"$TK_TMP/opts" 2>&1
assert_grep '^"mono" \[clock\]' "$TK_TMP/opts"
assert_grep '^ +1 [0-9]+	[0-9]+	\[id, data offset and size\]' "$TK_TMP/opts"
assert_grep '^1 \[CPUs\]' "$TK_TMP/opts"

# --top: the top-level buffer, its settings restored (the runner checks).
"$TRACEKIT" record -q --top -e sched:sched_process_exec -C mono -b 1500 \
	-o "$TK_TMP/top.dat" -- /bin/true >"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "--top failed"; }
trace-cmd report -i "$TK_TMP/top.dat" >"$TK_TMP/top.txt" 2>&1
assert_grep ' sched_process_exec: +filename=/bin/true ' "$TK_TMP/top.txt"

# --no-compress: compression "none", read the same way.
"$TRACEKIT" record -q --no-compress -e sched -o "$TK_TMP/nc.dat" -- sleep 0.05 \
	>"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "--no-compress failed"; }
trace-cmd dump --summary -i "$TK_TMP/nc.dat" >"$TK_TMP/sum" 2>&1
assert_grep '^[[:space:]]+none[[:space:]]+\[Compression algorithm\]' "$TK_TMP/sum"
assert_eq "--no-compress: summary vs report" "$(summary_events "$TK_TMP/log")" \
	"$(events_of "$TK_TMP/nc.dat")"

expect_fail "$TRACEKIT" record -e sched:no_such_event -o "$TK_TMP/x.dat" --duration 1
assert_grep '^tracekit record: -e sched:no_such_event: no such event$' "$TK_TMP/out"
expect_fail "$TRACEKIT" record -f 'pid == 1' -e sched -o "$TK_TMP/x.dat"
assert_grep 'give it after the -e it filters' "$TK_TMP/out"
expect_fail "$TRACEKIT" record -e sched:sched_switch -f 'no_field == 1' -o "$TK_TMP/x.dat" --duration 1
assert_grep "^tracekit record: -f 'no_field == 1': refused for sched:sched_switch" "$TK_TMP/out"
expect_fail "$TRACEKIT" record -e sched --cpus 0-999 -o "$TK_TMP/x.dat" --duration 1
assert_grep '^tracekit record: --cpus 0-999: not a list of CPUs' "$TK_TMP/out"
expect_fail "$TRACEKIT" record -e sched -C no-such-clock -o "$TK_TMP/x.dat" --duration 1
assert_grep '^tracekit record: -C no-such-clock: clock refused' "$TK_TMP/out"
[ ! -e "$TK_TMP/x.dat" ] || fail "a failed record left x.dat"
# sysfs has no O_TMPFILE, so the named temporary is tried and refused:
# the error names the file the user gave, not our temporary.
expect_fail "$TRACEKIT" record -e sched -o /sys/tk-x.dat --duration 1
assert_grep '^tracekit record: /sys/tk-x.dat: cannot create: ' "$TK_TMP/out"

# ends_within PID SECONDS WHAT: PID, a record, ends by itself within
# SECONDS and succeeds.  SIGTERM, not SIGKILL, if it hangs: tracefs is
# restored.
ends_within() {
	local left=$(($2 * 10))

	while kill -0 "$1" 2>/dev/null && [ $left -gt 0 ]; do
		sleep 0.1
		left=$((left - 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -TERM "$1"
		wait "$1"
		fail "$3: still running after $2 s"
	fi
	wait "$1" || { cat "$TK_TMP/log"; fail "$3: failed"; }
}

# --duration longer than a second, with no status line (-q, or stderr not
# a terminal): it once never ended, as the loop waited on the status
# line's deadline.
for q in -q ""; do
	"$TRACEKIT" record $q -e sched:sched_switch --duration 2.5 -o "$TK_TMP/d.dat" \
		>"$TK_TMP/log" 2>&1 &
	ends_within $! 30 "record ${q:-(stderr a file)} --duration 2.5"
	[ -s "$TK_TMP/d.dat" ] || fail "--duration 2.5: no output"
done

# -P PID records PID alone; -c adds the children it forks.  The shell
# waits for the recorder (a fifo), forks two children that exec, and
# exits, which ends the recording.
for c in "" -c; do
	mkfifo "$TK_TMP/go$c"
	bash -c 'read -r _ <"$1"; /bin/true; /bin/true; :' _ "$TK_TMP/go$c" &
	sh_pid=$!
	"$TRACEKIT" record -q -P $sh_pid $c -e sched:sched_process_exec -e sched:sched_process_fork \
		-o "$TK_TMP/p$c.dat" >"$TK_TMP/log" 2>&1 &
	rec=$!
	# The pid filter is in place once the instance's set_event_pid names it.
	left=100
	until grep -qx "$sh_pid" "$TRACEFS/instances/tracekit-$rec/set_event_pid" 2>/dev/null ||
		[ $left = 0 ]; do
		sleep 0.1
		left=$((left - 1))
	done
	echo go >"$TK_TMP/go$c"
	wait_bounded $rec 30 || { cat "$TK_TMP/log"; fail "record -P $sh_pid $c failed"; }
	report_lines "$TK_TMP/p$c.dat" >"$TK_TMP/lines"
	cat "$TK_TMP/lines"
	forks=$(grep -c " $sh_pid sched_process_fork: comm=[^ ]* pid=$sh_pid " "$TK_TMP/lines")
	execs=$(grep ' sched_process_exec: filename=/bin/true ' "$TK_TMP/lines" | grep -vc " old_pid=$sh_pid$")
	[ "$forks" = 2 ] || fail "-P $sh_pid $c: $forks forks of the shell recorded, want 2"
	if [ -n "$c" ]; then
		[ "$execs" = 2 ] || fail "-P -c: $execs execs of the children, want 2"
	else
		[ "$execs" = 0 ] || fail "-P without -c: $execs execs of the children recorded"
	fi
done
# -P PID that exits while the metadata are written (kallsyms at -z 19
# take seconds): the recording once never ended, as the pid was watched
# only from the start of tracing, when it was gone.  The target exits as
# soon as the recorder's instance is there.
bash -c 'until [ -s "$1" ]; do sleep 0.01; done
	until [ -d "$2/instances/tracekit-$(cat "$1")" ]; do sleep 0.01; done' \
	_ "$TK_TMP/recpid" "$TRACEFS" &
tgt=$!
"$TRACEKIT" record -q -z 19 -P $tgt -e sched:sched_switch -o "$TK_TMP/gone.dat" \
	>"$TK_TMP/log" 2>&1 &
rec=$!
echo $rec >"$TK_TMP/recpid"
wait $tgt
ends_within $rec 60 "record -P of a pid gone before tracing started"
[ -s "$TK_TMP/gone.dat" ] || fail "record -P of a pid gone before tracing started: no output"

# -P of a pid that is gone: the error, exit 1, no file.
/bin/true &
dead=$!
wait $dead
rm -f "$TK_TMP/x.dat"
expect_fail "$TRACEKIT" record -e sched -P $dead -o "$TK_TMP/x.dat"
assert_grep "^tracekit record: -P $dead: no such process\$" "$TK_TMP/out"
[ ! -e "$TK_TMP/x.dat" ] || fail "record -P $dead (gone) left $TK_TMP/x.dat"

expect_fail "$TRACEKIT" record -e sched -c -o "$TK_TMP/x.dat" --duration 1
assert_grep '^tracekit record: -c follows the children of -P PID' "$TK_TMP/out"

# -M MASK: trace-cmd's hex CPU mask, CPU 1 alone as --cpus 1 above.
"$TRACEKIT" record -q -M 2 -e sched:sched_switch -o "$TK_TMP/m.dat" --duration 0.5 \
	>"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record -M 2"; }
report_lines "$TK_TMP/m.dat" | cut -d' ' -f1 | sort -u >"$TK_TMP/cpus"
assert_eq "-M 2: the CPUs recorded" "$(cat "$TK_TMP/cpus")" "001"
expect_fail "$TRACEKIT" record -e sched -M 0x0 -o "$TK_TMP/x.dat" --duration 1
assert_grep "^tracekit record: -M '0x0': selects no CPU" "$TK_TMP/out"
exit 0
