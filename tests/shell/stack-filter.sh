#!/bin/bash
# description: stack: --filter limits the check to the function's calls
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/stack.sh"

need_stack_tracer
save_stack_state
echo 0 >"$SYSCTL"
echo >"$T/stack_trace_filter"
all=$(cat "$T/stack_trace_filter")

# The workload prints the filter the kernel has while it runs.
"$TRACEKIT" stack --filter do_sys_openat2 -- cat "$T/stack_trace_filter" >"$TK_TMP/out" ||
	fail "tracekit stack --filter failed"
cat "$TK_TMP/out"
assert_eq "filter file during the run" "$(sed -n 1p "$TK_TMP/out")" do_sys_openat2
assert_state "after the run" 0 "$all"
assert_grep '^Stack tracer: stopped, filter: do_sys_openat2$' "$TK_TMP/out"
check_table "$TK_TMP/out" >/dev/null || fail "table invariants"
# Checked only at its calls: the deepest stack is one entering it.
assert_grep '^  0\) +[0-9]+ +[0-9]+   do_sys_openat2\+0x[0-9a-f]+/0x[0-9a-f]+$' "$TK_TMP/out"

# A module function: the location carries the module, JSON names it.
if [ -e /tracekit/kmod/tktest.ko ]; then
	loaded=$(grep -c '^tktest ' /proc/modules)
	[ "$loaded" = 1 ] || { insmod /tracekit/kmod/tktest.ko || fail "insmod"; }
	"$TRACEKIT" stack --json --filter tktest_poke -- sh -c 'echo 5 >/proc/tktest' \
		>"$TK_TMP/json" || fail "--filter tktest_poke failed"
	cat "$TK_TMP/json"
	[ "$loaded" = 1 ] || rmmod tktest
	assert_grep '"entries":\[\{"index":0,"depth":[0-9]+,"size":[0-9]+,"symbol":"tktest_poke","offset":5,"length":[0-9]+,"module":"tktest",' "$TK_TMP/json"
	assert_state "after the module run" 0 "$all"
else
	echo "no tests/kmod/tktest.ko: module part not run"
fi

# All or nothing: a refused name leaves the filter as it was, not empty
# (the kernel's own answer to a failed write) nor half applied.
echo vfs_write >"$T/stack_trace_filter"
before=$(cat "$T/stack_trace_filter")
for bad in no_such_function_tk "vfs_read,no_such_function_tk"; do
	rc=0
	"$TRACEKIT" stack --filter "$bad" -- true >"$TK_TMP/out" 2>"$TK_TMP/err" || rc=$?
	cat "$TK_TMP/err"
	assert_eq "exit status for --filter $bad" "$rc" 1
	assert_grep '^tracekit stack: --filter no_such_function_tk: not a function the stack tracer can trace' "$TK_TMP/err"
	assert_state "after --filter $bad" 0 "$before"
done

# Without a COMMAND the filter stays, and --clear-filter empties it.
"$TRACEKIT" stack --filter vfs_read,vfs_write || fail "persistent --filter failed"
assert_eq "--filter stays" "$(sort "$T/stack_trace_filter" | tr '\n' ' ')" "vfs_read vfs_write "
"$TRACEKIT" stack --clear-filter || fail "--clear-filter failed"
assert_state "--clear-filter" 0 "$all"
