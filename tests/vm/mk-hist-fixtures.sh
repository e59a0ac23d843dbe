#!/bin/bash
# Makes tests/data/hist-6.1-*.txt: the `hist` files of hist triggers as
# Debian's 6.1 kernel prints them (this host has no hist triggers), in
# the VM with 2 CPUs, for tests/trace-hist.c's parser.  Each trigger of
# the table below goes on its event, the workload runs, then the event's
# hist file (every trigger on it, in one file) comes back over the
# console and the triggers are removed.  The formats of the events go to
# tests/data/hist-6.1-EVENT.format.
#
#   tests/vm/mk-hist-fixtures.sh      (from the source tree, as root)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
export TRACEKIT=${TRACEKIT:-$src/tracekit} TRACEKIT_SRCDIR=$src
. "$src/tests/shell/lib/common.sh"

ev=/sys/kernel/tracing/events
# NAME|EVENT|TRIGGER...: the triggers of one file, in the order written.
# The third trigger of "write" goes on the same event as the first two:
# its section of that file is the table that overflows, and "dropped"
# is that trigger's alone after the others are removed.
fixtures=(
	"write|syscalls/sys_enter_write|hist:keys=common_pid.execname,count:vals=hitcount,count if comm == \"dd\"|hist:keys=common_cpu,fd:vals=hitcount,count if comm == \"dd\""
	"switch|sched/sched_switch|hist:keys=prev_comm,next_pid:vals=hitcount"
	"dropped|syscalls/sys_enter_write|hist:keys=count:vals=hitcount if comm == \"sh\""
)
# The workload: three dd with known sizes, then one write of each length
# from 1 to 2100 by the shell's echo, more than the 2048 entries of a
# table of the default size.
work='dd if=/dev/zero of=/dev/null bs=512 count=3 2>/dev/null
dd if=/dev/zero of=/dev/null bs=4096 count=2 2>/dev/null
dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null
sh -c '\''s=; i=0; while [ $i -lt 2100 ]; do s=${s}x; echo -n "$s" >/dev/null; i=$((i + 1)); done'\'''
{
	for f in "${fixtures[@]}"; do
		IFS='|' read -r -a t <<<"$f"
		for tr in "${t[@]:2}"; do
			printf "echo %q >>%s/%s/trigger || { cat %s; exit 1; }\n" \
				"$tr" "$ev" "${t[1]}" "${ev%/*}/error_log"
		done
	done
	printf '%s\n' "$work"
	for e in syscalls/sys_enter_write sched/sched_switch; do
		printf 'echo BEGIN-%s\ncat %s/%s/format\necho END-%s\n' \
			"${e#*/}" "$ev" "$e" "${e#*/}"
	done
	for f in "${fixtures[@]}"; do
		IFS='|' read -r -a t <<<"$f"
		printf 'echo BEGIN-%s\ncat %s/%s/hist\necho END-%s\n' \
			"${t[0]}" "$ev" "${t[1]}" "${t[0]}"
		for tr in "${t[@]:2}"; do
			printf "echo %q >>%s/%s/trigger\n" "!$tr" "$ev" "${t[1]}"
		done
	done
} >"$TK_TMP/guest.sh"
"$src/tests/vm/run.sh" --tracekit "$TRACEKIT" --timeout 600 \
	-- sh -c "$(cat "$TK_TMP/guest.sh")" >"$TK_TMP/console" 2>&1 ||
	{ cat "$TK_TMP/console"; fail "the guest run failed"; }
for f in "${fixtures[@]}"; do
	n=${f%%|*}
	out=$src/tests/data/hist-6.1-$n.txt
	sed -n "/^BEGIN-$n\$/,/^END-$n\$/p" "$TK_TMP/console" | sed '1d;$d' >"$out"
	grep -q '^    Dropped: ' "$out" || fail "no hist file for $n"
	grep '^# trigger info' "$out"
done
for n in sys_enter_write sched_switch; do
	out=$src/tests/data/hist-6.1-$n.format
	sed -n "/^BEGIN-$n\$/,/^END-$n\$/p" "$TK_TMP/console" | sed '1d;$d' >"$out"
	grep -q "^name: $n\$" "$out" || fail "no format for $n"
done
