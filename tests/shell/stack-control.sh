#!/bin/bash
# description: stack: --start, --stop, --reset and show change and read the real files
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/stack.sh"

need_stack_tracer
save_stack_state
echo "$BROAD_FILTER" >"$T/stack_trace_filter"
workload() { cat /proc/version /proc/self/status >/dev/null; }

"$TRACEKIT" stack --stop || fail "--stop failed"
assert_eq "--stop writes 0" "$(cat "$SYSCTL")" 0

"$TRACEKIT" stack --reset || fail "--reset failed"
assert_eq "--reset zeroes stack_max_size" "$(cat "$T/stack_max_size")" 0
"$TRACEKIT" stack >"$TK_TMP/show" || fail "show after reset failed"
cat "$TK_TMP/show"
assert_grep '^Stack tracer: stopped, filter: vfs_' "$TK_TMP/show"
assert_grep '^No maximum recorded; start the tracer' "$TK_TMP/show"
# The kernel still lists the previous rows after a reset: not shown.
[ -z "$(table_rows "$TK_TMP/show")" ] || fail "stale rows shown after --reset"
"$TRACEKIT" stack --json >"$TK_TMP/json" || fail "--json after reset failed"
assert_grep '"enabled":0,.*"max_stack_size":0,.*"entries":\[\]\}$' "$TK_TMP/json"

"$TRACEKIT" stack --start || fail "--start failed"
assert_eq "--start writes 1 and it stays" "$(cat "$SYSCTL")" 1
workload
"$TRACEKIT" stack --stop || fail "--stop failed"
assert_eq "--stop writes 0" "$(cat "$SYSCTL")" 0
max=$(cat "$T/stack_max_size")
[ "$max" -gt 0 ] || fail "stack_max_size is $max after a workload ran traced"
workload
assert_eq "nothing is measured once stopped" "$(cat "$T/stack_max_size")" "$max"

"$TRACEKIT" stack >"$TK_TMP/show" || fail "show failed"
cat "$TK_TMP/show"
cat "$T/stack_trace" >"$TK_TMP/kernel"
assert_grep '^Stack tracer: stopped, filter: vfs_' "$TK_TMP/show"
assert_grep "^Maximum stack: $max bytes, [0-9.]+% of THREAD_SIZE 16384 \\(" "$TK_TMP/show"
depth=$(check_table "$TK_TMP/show") || { echo "$depth"; fail "table invariants"; }
assert_depth_is_max "sizes sum to stack_max_size" "$depth" "$max"
assert_eq "rows are the kernel's" "$(table_rows "$TK_TMP/show")" "$(table_rows "$TK_TMP/kernel")"

"$TRACEKIT" stack --json >"$TK_TMP/json" || fail "--json failed"
cat "$TK_TMP/json"
assert_grep "^\\{\"enabled\":0,\"filter\":\\[\"vfs_[^]]*\\],\"max_stack_size\":$max,\"thread_size\":16384," "$TK_TMP/json"
assert_eq "JSON entries = kernel rows" "$(grep -o '"index":' "$TK_TMP/json" | wc -l)" \
	"$(table_rows "$TK_TMP/kernel" | wc -l)"

# --start shows "running" in the report, --reset while running is fine too.
"$TRACEKIT" stack --reset --start || fail "--reset --start failed"
assert_eq "--reset --start" "$(cat "$SYSCTL")" 1
"$TRACEKIT" stack >"$TK_TMP/show" || fail "show while running failed"
assert_grep '^Stack tracer: running, filter: vfs_' "$TK_TMP/show"
"$TRACEKIT" stack --stop || fail "--stop failed"
assert_eq "stopped again" "$(cat "$SYSCTL")" 0
