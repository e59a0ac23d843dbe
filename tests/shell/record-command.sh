#!/bin/bash
# description: record: -- COMMAND traces only the command and the children it forks
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cmd trace-cmd bash

# bash, not sh: busybox ash (the VM's sh) runs sleep as a NOFORK applet,
# without the exec this test looks for.
"$TRACEKIT" record -q -e sched:sched_switch -e sched:sched_process_fork \
	-e sched:sched_process_exec -o "$TK_TMP/t.dat" -- \
	bash -c 'echo $$ >'"$TK_TMP/pid"'; sleep 0.05; (sleep 0.05; true) & wait' \
	>"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record failed"; }
cat "$TK_TMP/log"
sh_pid=$(cat "$TK_TMP/pid")
report_lines "$TK_TMP/t.dat" >"$TK_TMP/lines"
n=$(wc -l <"$TK_TMP/lines")
assert_eq "events in summary vs trace-cmd report" "$(summary_events "$TK_TMP/log")" "$n"

# The pids of the command's tree: the shell and whatever it forked
# (event-fork adds children to set_event_pid as they are born).
echo "$sh_pid" >"$TK_TMP/tree"
sed -nE 's/.* sched_process_fork: .*child_pid=([0-9]+).*/\1/p' "$TK_TMP/lines" >>"$TK_TMP/tree"
[ "$(wc -l <"$TK_TMP/tree")" -ge 3 ] || { cat "$TK_TMP/lines"; fail "forks of the command not recorded"; }
grep -q "sched_process_exec: filename=.*sleep pid=" "$TK_TMP/lines" || fail "exec of sleep not recorded"

# Every sched_switch involves a task of the tree (as prev or next).
while read -r cpu pid ev rest; do
	[ "$ev" = "sched_switch:" ] || continue
	prev=$(sed -nE 's/.* prev_pid=([0-9]+) .*==>.*/\1/p' <<<" $rest")
	next=$(sed -nE 's/.*==> .* next_pid=([0-9]+) next_prio=[0-9]+$/\1/p' <<<"$rest")
	grep -qx -e "$prev" -e "$next" "$TK_TMP/tree" ||
		fail "sched_switch outside the command: $cpu $pid $ev $rest"
done <"$TK_TMP/lines"
grep -c sched_switch "$TK_TMP/lines" >/dev/null || fail "no sched_switch recorded"

# A command that does not exist: clear error, exit 1, no file.
expect_fail "$TRACEKIT" record -q -e sched:sched_switch -o "$TK_TMP/none.dat" -- /nonexistent/cmd
assert_grep 'tracekit record: /nonexistent/cmd: No such file or directory' "$TK_TMP/out"
[ ! -e "$TK_TMP/none.dat" ] || fail "output left after a failed exec"
exit 0
