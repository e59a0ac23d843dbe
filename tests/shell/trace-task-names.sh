#!/bin/bash
# description: trace: a pid that saved_cmdlines still names after its former task prints with its own name, as the kernel names it and trace-cmd report of the -o file
# On a busy host pids are used again soon, and saved_cmdlines keeps the
# name of a pid's former task until the new task has run with events
# on.  The workload makes that happen to itself: named tk-former, it
# sleeps while the test traces the sleep, so that the kernel saves that
# name; renamed tk-latter, it waits for a byte, then calls getppid().
# Its events must print as the kernel names it then (/proc/PID/comm),
# as trace-cmd report prints the -o file, whose saved_cmdlines is read
# at the end.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"

need_tracefs
need_cap instances "this tracefs has no instances"
need_host_cmd gcc
need_cmd trace-cmd
cat >"$TK_TMP/names.c" <<'EOC'
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
int main(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char c;
	int i;

	if (prctl(PR_SET_NAME, "tk-former") || nanosleep(&ts, NULL) ||
	    prctl(PR_SET_NAME, "tk-latter") || read(0, &c, 1) != 1)
		return 1;
	for (i = 0; i < 5; i++)
		getppid();
	return 0;
}
EOC
gcc -O1 -o "$TK_TMP/names" "$TK_TMP/names.c" || fail "gcc failed"

mkfifo "$TK_TMP/go" || fail "mkfifo failed"
exec 3<>"$TK_TMP/go"
inst=$TRACEFS/instances/tknames_$$
mkdir "$inst" || fail "cannot create an instance"
on_exit "rmdir '$inst'"
ev=$inst/events/syscalls/sys_enter_clock_nanosleep/enable
echo 1 >"$ev" || fail "cannot enable sys_enter_clock_nanosleep"
on_exit "echo 0 >'$ev'"
"$TK_TMP/names" <&3 &
wl=$!
on_exit "kill $wl 2>/dev/null"
for ((t = 0; t < 100; t++)); do
	[ "$(cat /proc/$wl/comm 2>/dev/null)" = tk-latter ] &&
		[ "$(cut -d' ' -f1 /proc/$wl/syscall 2>/dev/null)" = 0 ] && break
	sleep 0.1
done
[ "$t" -lt 100 ] || fail "the workload did not start"
echo 0 >"$ev"
rmdir "$inst" || fail "cannot remove the instance"
grep -qx "$wl tk-former" "$TRACEFS/saved_cmdlines" ||
	fail "saved_cmdlines does not name the workload tk-former"

"$TRACEKIT" trace -e syscalls:sys_enter_getppid -P "$wl" \
	-o "$TK_TMP/names.dat" >"$TK_TMP/live" 2>"$TK_TMP/err" &
tk=$!
on_exit "kill $tk 2>/dev/null"
wait_tracing $tk 10 "$wl"
echo >&3
wait "$wl" || fail "the workload failed"
wait "$tk" || { cat "$TK_TMP/err"; fail "tracekit trace failed"; }

sed -n 's/^ *\([^ ]*\)-[0-9]* *\[.*sys_enter_getppid:.*/\1/p' "$TK_TMP/live" |
	sort | uniq -c | sed 's/^ *//' >"$TK_TMP/got"
assert_eq "the events' task" "$(cat "$TK_TMP/got")" "5 tk-latter"
trace-cmd report -i "$TK_TMP/names.dat" >"$TK_TMP/file" 2>/dev/null ||
	fail "trace-cmd report of the -o file failed"
diff -u "$TK_TMP/file" "$TK_TMP/live" ||
	fail "the live text differs from trace-cmd report of the -o file"
exit 0
