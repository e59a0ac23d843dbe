# Sourced by tests/shell/stack-*.sh after common.sh: the stack tracer's
# files, saving and restoring its state, and the table's invariants.
SYSCTL=/proc/sys/kernel/stack_tracer_enabled

# Under TCG, turning the tracer off after it hooked every function hangs
# the guest now and then (soft lockup in the sysctl write, seen on the
# Debian 6.1 kernel with -smp 2); with a filter of a few hundred functions
# it takes 0.2 s.  The tests therefore always run it with a filter.
BROAD_FILTER='vfs_*'

need_stack_tracer() {
	need_tracefs
	need_cap stack_tracer "this kernel has no stack tracer (CONFIG_STACK_TRACER)"
	T=$TRACEFS
}

# The filter as the kernel lists it ("f [mod]") turned into what it
# accepts back ("f"); nothing for "all functions enabled".
filter_as_input() {
	printf '%s\n' "$1" | sed -n '/^#/d; s/ \[.*\]$//; /./p'
}

restore_stack_state() {
	echo "$ORIG_ENABLED" >"$SYSCTL"
	filter_as_input "$ORIG_FILTER" >"$T/stack_trace_filter"
}

# Saves the enabled state and the filter; they are put back on exit.
save_stack_state() {
	ORIG_ENABLED=$(cat "$SYSCTL")
	ORIG_FILTER=$(cat "$T/stack_trace_filter")
	on_exit restore_stack_state
}

# assert_state WHAT ENABLED FILTER: the sysctl and the filter file now.
assert_state() {
	assert_eq "$1: $SYSCTL" "$(cat "$SYSCTL")" "$2"
	assert_eq "$1: stack_trace_filter" "$(cat "$T/stack_trace_filter")" "$3"
}

# check_table FILE: the "N) DEPTH SIZE LOCATION" rows of FILE are numbered
# from 0, their depth falls strictly, each size is the step to the next
# depth (the last one the whole depth) and the sizes sum to the first
# depth, which is printed.
check_table() {
	awk '
	BEGIN { n = 0; bad = 0; sum = 0 }
	/^ *[0-9]+\) +[0-9]+ +[0-9]+ +[^ ]/ {
		idx = $1; sub(/\)$/, "", idx)
		if (idx + 0 != n) { print "row " n " numbered " idx; bad = 1 }
		depth[n] = $2 + 0; size[n] = $3 + 0; n++
	}
	END {
		if (!n) { print "no rows"; exit 1 }
		for (i = 0; i < n; i++) {
			next_depth = i + 1 < n ? depth[i + 1] : 0
			if (depth[i] <= next_depth) { print "depth not falling at " i; bad = 1 }
			if (size[i] != depth[i] - next_depth) { print "size of " i " is not the step"; bad = 1 }
			sum += size[i]
		}
		if (sum != depth[0]) { print "sizes sum to " sum ", not " depth[0]; bad = 1 }
		if (bad) exit 1
		print depth[0]
	}' "$1"
}

# assert_depth_is_max WHAT DEPTH MAX: the first row's depth (the sum of
# the sizes) is stack_max_size on x86-64.  arm64 defines
# ARCH_FTRACE_SHIFT_STACK_TRACER (gcc saves the link register after the
# locals): kernel/trace/trace_stack.c then shifts each size one frame
# down and drops the first, so the rows sum to less than the maximum.
assert_depth_is_max() {
	if [ "$(cap arch)" = arm64 ]; then
		[ "$2" -gt 0 ] && [ "$2" -lt "$3" ] ||
			fail "$1: the rows' depth $2 is not below the maximum $3 (arm64's shift)"
	else
		assert_eq "$1" "$2" "$3"
	fi
}

# The rows as the kernel prints them (tracekit prints them the same way).
table_rows() {
	grep -E '^ *[0-9]+\) ' "$1"
}
