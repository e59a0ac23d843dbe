# Helpers for the record tests (sourced after common.sh).

# report_lines FILE: trace-cmd report of FILE as "CPU PID EVENT: FIELDS",
# without the timestamp, the buffer prefix and the comm column (which
# comes from saved_cmdlines, read at different moments by different tools).
# Fields as the event's print fmt gives them (-N: no libtraceevent
# plugins), so the lines are the same where the plugins are not installed,
# as in the VM.
report_lines() {
	trace-cmd report -N -i "$1" 2>/dev/null | sed -nE \
		's/^([A-Za-z0-9_-]+: )? *.*-([0-9]+) +\[([0-9]+)\] +[0-9.]+: +(.*)$/\3 \2 \4/p' |
		sed -E 's/ +/ /g'
}

# events_of FILE: the number of events trace-cmd reports.
events_of() {
	report_lines "$1" | wc -l
}

# summary_events LOG: N from "tracekit record: N events (M lost) ...".
summary_events() {
	sed -nE 's/^tracekit record: ([0-9]+) events.*/\1/p' "$1"
}

summary_lost() {
	sed -nE 's/^tracekit record: [0-9]+ events \(([0-9]+) lost\).*/\1/p' "$1"
}

# no_instance_left PID: the private instance of that recorder is gone.
no_instance_left() {
	[ ! -d "$TRACEFS/instances/tracekit-$1" ] ||
		fail "instance tracekit-$1 left behind"
}

# start_load SECONDS: keeps a CPU busy for SECONDS in the background (so
# that events keep coming), killed at exit at the latest; its PID in $load.
start_load() {
	busy_load "$1" &
	load=$!
	on_exit "kill $load"
}

busy_load() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do /bin/true; done
}

# wait_or_kill PID SECONDS: waits for the background job PID and returns
# its exit status, or 124 when it is still running after SECONDS: then
# what each of its processes is blocked in goes to stderr (so a hang
# names the process that hung, not only the test) and they are killed.
wait_or_kill() {
	local pid=$1 left=$(($2 * 10)) p tree
	while kill -0 "$pid" 2>/dev/null && [ $left -gt 0 ]; do
		sleep 0.1
		left=$((left - 1))
	done
	kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
	tree=$(process_tree "$pid")
	echo "still running after $2 s:" >&2
	for p in $tree; do
		echo "  $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" \
			"$(sed -n 's/^State:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)" >&2
		sed 's/^/    /' "/proc/$p/stack" >&2 2>/dev/null
	done
	kill -9 $tree 2>/dev/null
	wait "$pid"
	return 124
}

# process_tree PID: PID and its descendants.
process_tree() {
	local c
	echo "$1"
	for c in $(grep -l "^PPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null |
		cut -d/ -f3); do
		process_tree "$c"
	done
}

# wait_bounded PID SECONDS: wait_or_kill, FAILED on a timeout, so a
# recorder that missed its signal fails the test instead of hanging it.
wait_bounded() {
	local rc
	wait_or_kill "$1" "$2"
	rc=$?
	[ $rc != 124 ] || fail "pid $1 still running $2 s after it was told to stop"
	return $rc
}

# run_bounded SECONDS CMD...: CMD's exit status, or 124 as wait_or_kill.
run_bounded() {
	local secs=$1
	shift
	"$@" &
	wait_or_kill $! "$secs"
}

# wait_tracing PID SECONDS [TARGET]: waits until the recorder (record or
# trace) PID has turned its instance on (the recording has started);
# FAILED after SECONDS or when PID ends first.  With TARGET, the pid -P
# names, also until set_event_pid names it: a new instance's tracing_on
# is 1 from its mkdir until setup turns it off, before the pid filter.
wait_tracing() {
	local i=$TRACEFS/instances/tracekit-$1 left=$(($2 * 10))
	until [ "$(cat "$i/tracing_on" 2>/dev/null)" = 1 ] &&
		{ [ -z "${3:-}" ] || grep -qw "$3" "$i/set_event_pid" 2>/dev/null; }; do
		kill -0 "$1" 2>/dev/null || fail "pid $1 ended before recording"
		[ $left -gt 0 ] || fail "pid $1 not recording after $2 s"
		sleep 0.1
		left=$((left - 1))
	done
}

# is_run_modulo_nesting A B: some n consecutive lines of B (n = lines of
# A) hold exactly the lines of A, in any order.  An event raised by an
# interrupt while another event is being written reaches two instances'
# buffers in opposite orders (the kernel writes each instance in turn),
# so two recorders of one CPU may swap neighbours; any missing or extra
# event still fails.
is_run_modulo_nesting() {
	local n at start want
	n=$(wc -l <"$1")
	[ "$n" -gt 0 ] || return 1
	want=$(sort "$1")
	for at in $(head -n 4 "$1" | grep -n -F -x -f - "$2" | cut -d: -f1 | sort -un); do
		for start in $((at - 3)) $((at - 2)) $((at - 1)) "$at"; do
			[ "$start" -ge 1 ] || continue
			if [ "$(sed -n "${start},$((start + n - 1))p" "$2" | sort)" = "$want" ]; then
				return 0
			fi
		done
	done
	return 1
}

# trace-cmd resets what it set rather than restoring it, and where the
# kernel refuses part of what it resets (ftrace_enabled: EPERM, as on a
# host that refuses the function tracer) `trace-cmd reset` stops with
# the top-level tracing_on left 0.  tc_save notes the clock and
# tracing_on and registers tc_reset for the end (failure and signals
# too); tc_reset resets trace-cmd's settings and puts those two back.
tc_save() {
	TC_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$TRACEFS/trace_clock")
	TC_ON=$(cat "$TRACEFS/tracing_on")
	on_exit tc_reset
}
tc_reset() {
	trace-cmd reset >/dev/null 2>&1
	echo "$TC_CLOCK" >"$TRACEFS/trace_clock"
	echo "$TC_ON" >"$TRACEFS/tracing_on"
}
