#!/bin/bash
# description: record --proc-map: the maps of COMMAND (at its exit) and of -P PID, as trace-cmd stores and dumps them
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cmd trace-cmd

# procmaps FILE: the PROCMAPS options of FILE as trace-cmd dump prints them.
procmaps() {
	trace-cmd dump --options "$1" 2>/dev/null |
		sed -n '/\[Option PROCMAPS, /,/^$/{/\[Option PROCMAPS, /d;/^$/d;p}'
}
# named MAPS: "START END NAME" of /proc/PID/maps lines with a name, the
# addresses without the zero padding of maps (trace-cmd writes "%llx").
named() {
	awk 'NF >= 6 { split($1, r, "-"); sub(/^0+/, "", r[1]); sub(/^0+/, "", r[2])
		print r[1], r[2], $6 }' "$1"
}

# COMMAND: cat prints its own maps, then exits; what is stored at its exit
# must be those maps, headed by "PID NR EXE" in hex as trace-cmd writes.
run_bounded 60 "$TRACEKIT" record -q --proc-map -e sched:sched_process_exit -o "$TK_TMP/c.dat" \
	-- cat /proc/self/maps >"$TK_TMP/cat.maps" 2>"$TK_TMP/log" ||
	{ cat "$TK_TMP/log"; fail "record --proc-map -- cat"; }
procmaps "$TK_TMP/c.dat" >"$TK_TMP/stored"
[ -s "$TK_TMP/stored" ] || fail "no PROCMAPS option in the file"
read -r hpid hnr hexe <"$TK_TMP/stored"
cat_pid=$(report_lines "$TK_TMP/c.dat" | sed -n 's/^[0-9]* \([0-9]*\) sched_process_exit: comm=cat .*/\1/p')
assert_eq "PROCMAPS pid" "$((16#$hpid))" "$cat_pid"
assert_eq "PROCMAPS exe" "$hexe" "$(command -v cat | xargs readlink -f)"
named "$TK_TMP/cat.maps" >"$TK_TMP/want"
tail -n +2 "$TK_TMP/stored" >"$TK_TMP/got"
assert_eq "PROCMAPS count" "$((16#$hnr))" "$(wc -l <"$TK_TMP/want")"
diff -u "$TK_TMP/want" "$TK_TMP/got" || fail "stored maps differ from cat's own"

# trace-cmd's own --proc-map file has the same shape (header, then ranges).
# trace-cmd record needs the function tracer ("Can't enable ftrace"
# where the kernel refuses it, as on a locked-down host): the VM has it.
# One run of trace-cmd record in a CI run of the guest suite did not end
# in 300 s; it is bounded, and a hang is retried once, showing where it
# hung: the peer's hang is not ours, two in a row still fail.
if [ "$(cap function_tracer)" = 1 ]; then
tc_save
for try in 1 2; do
	run_bounded 60 trace-cmd record -q --proc-map -e sched:sched_process_exit \
		-o "$TK_TMP/tc.dat" -- cat /proc/self/maps >"$TK_TMP/tc.maps" 2>"$TK_TMP/log"
	rc=$?
	tc_reset
	[ $rc = 124 ] || break
	echo "trace-cmd record --proc-map hung (try $try of 2):" >&2
	cat "$TK_TMP/log" >&2
done
[ $rc = 0 ] || { cat "$TK_TMP/log"; fail "trace-cmd record --proc-map: exit $rc"; }
procmaps "$TK_TMP/tc.dat" | tail -n +2 >"$TK_TMP/tc.got"
named "$TK_TMP/tc.maps" | diff -u - "$TK_TMP/tc.got" ||
	fail "trace-cmd stores maps unlike the rule this test assumes"
else
	echo "function_tracer: no, so trace-cmd record cannot run here; its shape is checked in the VM"
fi

# -P PID: a process running throughout, read as it is at the end.
sleep 30 &
sp=$!
on_exit "kill $sp"
run_bounded 60 "$TRACEKIT" record -q --proc-map -P $sp -e sched:sched_switch --duration 0.3 \
	-o "$TK_TMP/p.dat" >"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record --proc-map -P"; }
kill -0 $sp || fail "the -P process did not survive being traced"
procmaps "$TK_TMP/p.dat" | tail -n +2 >"$TK_TMP/p.got"
named "/proc/$sp/maps" | diff -u - "$TK_TMP/p.got" || fail "-P maps differ from /proc/$sp/maps"
grep -q "^TracerPid:[[:space:]]*0$" "/proc/$sp/status" || fail "-P process left traced"

expect_fail "$TRACEKIT" record --proc-map -e sched -o "$TK_TMP/x.dat" --duration 1
assert_grep '^tracekit record: --proc-map stores the maps of -P PID or a COMMAND' "$TK_TMP/out"
exit 0
