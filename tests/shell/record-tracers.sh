#!/bin/bash
# description: record: -p function and function_graph side by side with trace-cmd record; refused tracers exit 1
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs
need_cmd trace-cmd

T=$TRACEFS
# The files a tracer run changes at the top level (function_graph lives
# there on 6.1), in one text to compare before and after.
tracer_state() {
	local f
	for f in current_tracer tracing_on set_event set_event_pid set_ftrace_pid \
		set_ftrace_filter set_ftrace_notrace set_graph_function max_graph_depth \
		options/func_stack_trace options/function-fork options/event-fork \
		options/sym-offset; do
		printf '%s: ' "$f"
		{ cat "$T/$f" 2>&1 | head -n 5 | tr '\n' ' '; } || true
		echo
	done
	ls "$T/instances"
}
tracer_state >"$TK_TMP/before"
check_state() {
	tracer_state >"$TK_TMP/after"
	diff -u "$TK_TMP/before" "$TK_TMP/after" || fail "$1: tracefs not restored"
}

if [ "$(cap function_tracer)" != 1 ]; then
	# This kernel refuses the function tracer: say so, exit 1, change nothing.
	for args in "-p function" "-p function -l vfs_read" "-p function_graph -g vfs_read"; do
		# shellcheck disable=SC2086
		"$TRACEKIT" record $args -o "$TK_TMP/no.dat" -- true >"$TK_TMP/log" 2>&1
		rc=$?
		cat "$TK_TMP/log"
		[ $rc = 1 ] || fail "record $args: exit $rc, want 1"
		[ "$(wc -l <"$TK_TMP/log")" = 1 ] || fail "record $args: not one line"
		assert_grep '^tracekit record: -[pl] ' "$TK_TMP/log"
		[ ! -e "$TK_TMP/no.dat" ] || fail "record $args left a file"
		check_state "record $args"
	done
	exit 0
fi

tc_save
# The workload: a command that opens files, the same for both recorders.
work=(sh -c 'cat /proc/version /proc/cmdline >/dev/null; ls / >/dev/null')
n=0
# both ARGS...: records the workload with tracekit and with trace-cmd (-F:
# only the command, as tracekit records a COMMAND), then each file must
# be reported byte for byte alike by both tools, and the tracer's events
# be there.
both() {
	local tk=$TK_TMP/tk$n.dat tc=$TK_TMP/tc$n.dat f
	n=$((n + 1))
	"$TRACEKIT" record -q "$@" -o "$tk" -- "${work[@]}" >"$TK_TMP/log" 2>&1 ||
		{ cat "$TK_TMP/log"; fail "tracekit record $*"; }
	check_state "tracekit record $*"
	trace-cmd record -q "$@" -F -o "$tc" -- "${work[@]}" >"$TK_TMP/log" 2>&1 ||
		{ cat "$TK_TMP/log"; fail "trace-cmd record $*"; }
	tc_reset
	tracer_state >"$TK_TMP/before"
	for f in "$tk" "$tc"; do
		trace-cmd report -i "$f" >"$f.tc.txt" 2>"$f.tc.err" ||
			{ cat "$f.tc.err"; fail "trace-cmd report of $f ($*)"; }
		"$TRACEKIT" report "$f" >"$f.tk.txt" || fail "tracekit report of $f ($*)"
		diff -u "$f.tc.txt" "$f.tk.txt" >"$f.diff" ||
			{ head -n 40 "$f.diff"; fail "report of $f ($*) differs from trace-cmd's"; }
	done
	echo "record $*: tracekit $(grep -c . "$tk.tc.txt") lines, trace-cmd $(grep -c . "$tc.tc.txt")"
}

both -p function -l 'vfs_*'
# The parent where trace-cmd's function plugin does not indent under a
# traced caller instead (arm64's run: every vfs_open at depth 0, bare).
assert_grep ' function: +vfs_open( <-- path_openat)?$' "$TK_TMP/tk0.dat.tc.txt"
grep -v 'cpus=' "$TK_TMP/tk0.dat.tc.txt" | grep -q -v ' function: \+vfs_' &&
	fail "-l 'vfs_*': functions outside the filter"

both -p function -l '*openat*' -n do_sys_openat2
assert_grep ' function: .*openat' "$TK_TMP/tk1.dat.tc.txt"
grep -q ' function: \+do_sys_openat2 ' "$TK_TMP/tk1.dat.tc.txt" && fail "-n do_sys_openat2 traced"

both -p function -l do_sys_openat2 --func-stack
assert_grep 'kernel_stack:' "$TK_TMP/tk2.dat.tc.txt"

both -p function_graph -g do_sys_openat2
assert_grep 'do_sys_openat2\(\) \{$' "$TK_TMP/tk3.dat.tc.txt"

both -p function_graph -g do_sys_openat2 --max-graph-depth 2
# depth 2: do_sys_openat2 and what it calls directly, nothing deeper
assert_grep 'do_sys_openat2\(\) \{$' "$TK_TMP/tk4.dat.tc.txt"
grep -E '\| {6}' "$TK_TMP/tk4.dat.tc.txt" && fail "--max-graph-depth 2: a call at depth 2"

both -p function_graph -g do_sys_openat2 -e sched:sched_process_exec
assert_grep 'sched_process_exec:' "$TK_TMP/tk5.dat.tc.txt"
assert_grep 'do_sys_openat2\(\) \{$' "$TK_TMP/tk5.dat.tc.txt"

# mm_page_alloc's format names vmemmap_base, which report looks up in
# the file's kallsyms where it is there: the guest's lists data symbols
# (CONFIG_KALLSYMS_ALL), the host's does not.
both -e kmem:mm_page_alloc -e kmem:kmalloc
if [ "$(uname -m)" = aarch64 ]; then
	# Its arm64 format is one libtraceevent does not parse: both print
	# the fields as trace-cmd does (the diff above holds).
	assert_grep ' mm_page_alloc: +\[FAILED TO PARSE\] ' "$TK_TMP/tk6.dat.tc.txt"
elif grep -q ' vmemmap_base$' /proc/kallsyms; then
	# Found, the name reads as its address: no longer pfn * sizeof(struct page).
	assert_grep ' mm_page_alloc: +page=0xffff[0-9a-f]+ pfn=' "$TK_TMP/tk6.dat.tc.txt"
else
	echo "note: this kernel's kallsyms has no vmemmap_base"
	assert_grep ' mm_page_alloc: +page=0x[0-9a-f]+ pfn=' "$TK_TMP/tk6.dat.tc.txt"
fi
# trace-cmd's kmem plugin puts call_site's function first where the
# file's kallsyms names it (the guests').
assert_grep ' kmalloc: +(\([a-z_0-9.]+\+0x[0-9a-f]+\) )?call_site=' "$TK_TMP/tk6.dat.tc.txt"

# -O sets a trace option for the recording only.
"$TRACEKIT" record -q -p function -l vfs_read -O sym-offset -o "$TK_TMP/o.dat" -- cat /proc/version \
	>"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record -O sym-offset"; }
check_state "record -O sym-offset"
# Refusals: one line naming the argument, exit 1, nothing changed.
for args in "-p function -l no_such_function_tk" "-p no_such_tracer" "-p function -O no_such_option"; do
	# shellcheck disable=SC2086
	"$TRACEKIT" record $args -o "$TK_TMP/no.dat" -- true >"$TK_TMP/log" 2>&1
	rc=$?
	cat "$TK_TMP/log"
	[ $rc = 1 ] || fail "record $args: exit $rc, want 1"
	[ ! -e "$TK_TMP/no.dat" ] || fail "record $args left a file"
	check_state "record $args"
done
