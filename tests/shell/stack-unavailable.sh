#!/bin/bash
# description: stack: without a stack tracer every form explains it and exits 3
. "$(dirname "$0")/lib/common.sh"

need_cap !stack_tracer "this kernel has the stack tracer"
if [ -n "$(cap tracefs)" ]; then
	[ ! -e /proc/sys/kernel/stack_tracer_enabled ] ||
		fail "--caps says no stack tracer, yet its sysctl exists"
	want='the stack tracer is not available: kernel .* has no /proc/sys/kernel/stack_tracer_enabled \(built without CONFIG_STACK_TRACER\)'
else
	want='tracefs is not mounted'
fi

for args in "" "--json" "--start" "--stop" "--reset" "--filter vfs_read" "-- true"; do
	rc=0
	# shellcheck disable=SC2086
	"$TRACEKIT" stack $args >"$TK_TMP/out" 2>"$TK_TMP/err" || rc=$?
	assert_eq "exit status of 'tracekit stack $args'" "$rc" 3
	assert_grep "^tracekit stack: $want$" "$TK_TMP/err"
	assert_eq "one line on stderr for '$args'" "$(wc -l <"$TK_TMP/err")" 1
	[ ! -s "$TK_TMP/out" ] || { cat "$TK_TMP/out"; fail "'$args' printed a report"; }
done
