#!/bin/bash
# description: stack: Ctrl-C and SIGTERM during -- COMMAND restore the state
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/stack.sh"

need_stack_tracer
need_cmd setsid
save_stack_state
echo 0 >"$SYSCTL"
echo 'vfs_write' >"$T/stack_trace_filter"
before_filter=$(cat "$T/stack_trace_filter")

# run_until_started SIG: tracekit and its command in a process group of
# their own, as a terminal's foreground job; SIG goes to the whole group
# once the tracer is on, as Ctrl-C (SIGINT) does.
run_until_started() {
	local pid i rc=0
	setsid "$TRACEKIT" stack --filter do_sys_openat2 -- sleep 60 >"$TK_TMP/out" 2>&1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(cat "$SYSCTL")" = 1 ] && [ "$(cat "$T/stack_trace_filter")" = do_sys_openat2 ] &&
			break
		sleep 0.1
	done
	[ "$i" -lt 200 ] || { kill -KILL -- "-$pid"; fail "tracer never started"; }
	kill "-$1" -- "-$pid"
	wait "$pid" || rc=$?
	echo "$rc"
}

rc=$(run_until_started INT)
cat "$TK_TMP/out"
assert_eq "Ctrl-C: tracekit exits as the command did" "$rc" 130
assert_grep '^Stack tracer: stopped, filter: do_sys_openat2$' "$TK_TMP/out"
assert_state "after Ctrl-C" 0 "$before_filter"

rc=$(run_until_started TERM)
cat "$TK_TMP/out"
assert_eq "SIGTERM: tracekit dies by it" "$rc" 143
assert_state "after SIGTERM" 0 "$before_filter"
