#!/bin/bash
# description: stack: -- COMMAND measures the command's maximum and restores the state
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/stack.sh"

need_stack_tracer
save_stack_state
opens_files='cat /proc/version /proc/self/status /proc/meminfo >/dev/null'

# From a stopped tracer with a broad filter (lib/stack.sh says why).
echo 0 >"$SYSCTL"
echo "$BROAD_FILTER" >"$T/stack_trace_filter"
before_filter=$(cat "$T/stack_trace_filter")
"$TRACEKIT" stack -- sh -c "$opens_files" >"$TK_TMP/out" || fail "tracekit stack -- ... failed"
cat "$TK_TMP/out"
assert_state "after -- COMMAND" 0 "$before_filter"
max=$(sed -n 's/^Maximum stack: \([0-9]*\) bytes.*/\1/p' "$TK_TMP/out")
[ -n "$max" ] && [ "$max" -gt 0 ] || fail "no maximum reported"
assert_eq "stack_max_size is the reported maximum" "$(cat "$T/stack_max_size")" "$max"
depth=$(check_table "$TK_TMP/out") || { echo "$depth"; fail "table invariants"; }
assert_depth_is_max "sizes sum to the maximum" "$depth" "$max"
assert_grep '^Stack tracer: stopped, filter: vfs_' "$TK_TMP/out"

# From a running tracer with an odd sysctl value and a filter that names a
# module function: both are put back exactly.  The command's status is
# tracekit's, and --json carries it too.
mod=
if [ -e /tracekit/kmod/tktest.ko ] && ! grep -q '^tktest ' /proc/modules; then
	insmod /tracekit/kmod/tktest.ko || fail "insmod tktest.ko"
	mod=tktest
	on_exit 'rmmod tktest'
fi
if grep -q '^tktest ' /proc/modules; then
	echo 'vfs_read tktest_poke' >"$T/stack_trace_filter"
	assert_grep '^tktest_poke \[tktest\]$' "$T/stack_trace_filter"
else
	echo "no tktest module: the preset filter names vmlinux functions only"
	echo 'vfs_read vfs_write' >"$T/stack_trace_filter"
fi
before_filter=$(cat "$T/stack_trace_filter")
echo 2 >"$SYSCTL"
rc=0
"$TRACEKIT" stack --json --filter do_sys_openat2 -- sh -c "$opens_files; exit 7" \
	>"$TK_TMP/json" || rc=$?
cat "$TK_TMP/json"
assert_eq "tracekit exits with the command's status" "$rc" 7
assert_state "after --filter -- COMMAND" 2 "$before_filter"
assert_grep '^\{"enabled":0,"filter":\["do_sys_openat2"\],"max_stack_size":[1-9][0-9]*,' "$TK_TMP/json"
assert_grep '"exit_status":7,' "$TK_TMP/json"
grep -o '"index":[0-9]*,"depth":[0-9]*,"size":[0-9]*' "$TK_TMP/json" |
	sed 's/"index":\([0-9]*\),"depth":\([0-9]*\),"size":\([0-9]*\)/\1) \2 \3 x/' \
	>"$TK_TMP/json-rows"
jmax=$(sed -n 's/.*"max_stack_size":\([0-9]*\),.*/\1/p' "$TK_TMP/json")
depth=$(check_table "$TK_TMP/json-rows") || { echo "$depth"; fail "JSON table invariants"; }
assert_depth_is_max "JSON sizes sum to the maximum" "$depth" "$jmax"
echo 0 >"$SYSCTL"
echo >"$T/stack_trace_filter"
if [ -n "$mod" ]; then
	rmmod tktest || fail "rmmod tktest"
fi

# A command that cannot be run: exit 127, state untouched.
echo "$BROAD_FILTER" >"$T/stack_trace_filter"
rc=0
"$TRACEKIT" stack -- /nonexistent/cmd >"$TK_TMP/out" 2>"$TK_TMP/err" || rc=$?
assert_eq "exit status for a missing command" "$rc" 127
assert_grep "^tracekit stack: cannot run '/nonexistent/cmd': No such file or directory$" "$TK_TMP/err"
assert_state "after a missing command" 0 "$(cat "$T/stack_trace_filter")"
rc=0
"$TRACEKIT" stack -- no-such-command-tk >"$TK_TMP/out" 2>"$TK_TMP/err" || rc=$?
assert_eq "exit status for an unknown command" "$rc" 127
assert_grep "^tracekit stack: cannot run 'no-such-command-tk': command not found$" "$TK_TMP/err"
# There but not executable: found by the lookup, refused by exec.
rc=0
"$TRACEKIT" stack -- "$TK_TMP/err" >"$TK_TMP/out" 2>"$TK_TMP/err2" || rc=$?
assert_eq "exit status for a file exec refuses" "$rc" 127
assert_grep "^tracekit stack: cannot run '$TK_TMP/err': Permission denied$" "$TK_TMP/err2"
assert_state "after a refused exec" 0 "$(cat "$T/stack_trace_filter")"
