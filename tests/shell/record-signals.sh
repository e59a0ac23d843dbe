#!/bin/bash
# description: record: SIGINT/TERM/HUP at random moments leave a whole file, SIGKILL none
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cmd trace-cmd

start_load 30

i=0
for sig in INT INT INT INT TERM HUP; do
	i=$((i + 1))
	out="$TK_TMP/s$i.dat"
	# Without job control bash starts a background job with SIGINT
	# ignored: one sent before record blocks it would be lost and the
	# recording never end.  With -m the job starts as from a terminal,
	# where SIGINT kills it until record takes it over.
	set -m
	"$TRACEKIT" record -q -e sched -e 'syscalls:sys_enter_exec*' -o "$out" \
		>"$TK_TMP/log$i" 2>&1 &
	rec=$!
	set +m
	# The first at 20 ms, during setup; then 50..1550 ms after the start,
	# setup or recording; from the fourth on, 50..1550 ms into the
	# recording, since on a slow machine (the VM) setup alone can last
	# the whole window.
	if [ $i = 1 ]; then
		sleep 0.02
	else
		[ $i -lt 4 ] || wait_tracing $rec 120
		sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", 0.05 + (r % 1500) / 1000 }')"
	fi
	kill -s "$sig" $rec
	wait_bounded $rec 120
	rc=$?
	no_instance_left $rec
	if [ $rc -ne 0 ]; then
		# Killed before recording started: nothing may be left.
		[ ! -e "$out" ] || fail "SIG$sig, rc $rc: $out left behind"
		ls "$TK_TMP" | grep -q "s$i.dat.tk-" && fail "temporary file left"
		echo "SIG$sig during setup: exit $rc, no file"
		continue
	fi
	n=$(summary_events "$TK_TMP/log$i")
	got=$(events_of "$out")
	assert_eq "SIG$sig: summary vs trace-cmd report" "$got" "$n"
	echo "SIG$sig: $n events"
done

# SIGKILL cannot be caught: the file must not appear at all.
"$TRACEKIT" record -q -e sched -o "$TK_TMP/k.dat" >/dev/null 2>&1 &
rec=$!
on_exit "rmdir $TRACEFS/instances/tracekit-$rec"
wait_tracing $rec 120
kill -9 $rec
wait $rec
[ ! -e "$TK_TMP/k.dat" ] || fail "SIGKILL left k.dat looking complete"
ls "$TK_TMP" | grep -q '^k.dat' && fail "SIGKILL left a k.dat file"
# What a SIGKILL leaves in tracefs is the instance, its events enabled:
# the next record removes it, and says so.
[ -d "$TRACEFS/instances/tracekit-$rec" ] || fail "SIGKILL left no instance: nothing to clear"
"$TRACEKIT" record -q -e sched:sched_switch -o "$TK_TMP/n.dat" -- true >"$TK_TMP/log" 2>&1 ||
	{ cat "$TK_TMP/log"; fail "record after a SIGKILLed one failed"; }
cat "$TK_TMP/log"
assert_grep "removed instance tracekit-$rec: its recorder is gone" "$TK_TMP/log"
[ ! -d "$TRACEFS/instances/tracekit-$rec" ] || fail "the stale instance tracekit-$rec is still there"
exit 0
