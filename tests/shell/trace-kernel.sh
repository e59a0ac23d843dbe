#!/bin/bash
# description: trace: the kernel's hist triggers and user space give the same tables of the same run (tracepoint and kprobe); --where kernel refused with the reason
# A shell held until the tracers watch it runs dd with known block sizes;
# for each table, `tracekit trace --where kernel` and `--where user`
# watch it at once (-P PID -c, the dd children included).  The two
# tables must be equal byte for byte: the kernel's, read back from its
# hist file, and the one added up from every event read.  The keys are
# pids, not names: the kernel names a task when its table is read, user
# space at the task's first event, and a dd reaped by then may not be
# in saved_cmdlines yet (trace-hist's suite holds the kernel's names to
# report's of a recording).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"

need_tracefs
need_cap instances "this tracefs has no instances"
need_cap hist_triggers "this kernel has no hist triggers"
t=$(cap tracefs)
ev=syscalls:sys_enter_write
[ -d "$t/events/syscalls/sys_enter_write" ] ||
	fail "no $ev: the kernel traces no system calls"

# NAME|SPEC (a kprobe) or -e EVENT|OPTIONS
tables=(
	"count|-e $ev|--count=count"
	"countpid|-e $ev|--count --by pid,count"
	"hist|-e $ev|--hist count"
	"histk|-e $ev|--hist count --by pid"
	"lhist|-e $ev|--lhist count,0,5000,500"
	"sum|-e $ev|--sum count --by pid"
	"avg|-e $ev|--avg count --by count"
	"json|-e $ev|--hist count --format json"
	"filter|-e $ev|-f count>50 --count=count"
	"min|-e $ev|--min count --by pid"
)
[ "$(cap kprobes)" = 1 ] && tables+=("kprobe|ksys_write count|--hist count")
mkfifo "$TK_TMP/go"
(read -r _ <"$TK_TMP/go"
 for b in 1 3 7 100 513 4096; do
	dd if=/dev/zero of=/dev/null bs=$b count=$((b % 7 + 20)) 2>/dev/null
 done) &
work=$!
on_exit "kill $work"
tpids=()
for tb in "${tables[@]}"; do
	IFS='|' read -r name spec opts <<<"$tb"
	for where in kernel user; do
		if [ "${spec#-e }" != "$spec" ]; then
			# shellcheck disable=SC2086
			"$TRACEKIT" trace -v -e "${spec#-e }" $opts --where $where \
				-P $work -c >"$TK_TMP/$name.$where" \
				2>"$TK_TMP/$name.$where.err" &
		else
			# shellcheck disable=SC2086
			"$TRACEKIT" trace -v "$spec" $opts --where $where \
				-P $work -c >"$TK_TMP/$name.$where" \
				2>"$TK_TMP/$name.$where.err" &
		fi
		tpids+=($!)
		on_exit "kill $!"
	done
done
for p in "${tpids[@]}"; do
	wait_tracing "$p" 60 $work
done
echo >"$TK_TMP/go"
wait $work || fail "the workload failed"
for p in "${tpids[@]}"; do
	wait $p || { cat "$TK_TMP"/*.err; fail "trace $p failed"; }
done
for tb in "${tables[@]}"; do
	name=${tb%%|*}
	grep -q "aggregating in the kernel" "$TK_TMP/$name.kernel.err" ||
		{ cat "$TK_TMP/$name.kernel.err"; fail "$name: not aggregated in the kernel"; }
	grep -q "aggregating in user space" "$TK_TMP/$name.user.err" ||
		{ cat "$TK_TMP/$name.user.err"; fail "$name: not aggregated in user space"; }
	[ -s "$TK_TMP/$name.user" ] && grep -q '[0-9]' "$TK_TMP/$name.user" ||
		fail "$name: an empty table"
	cmp -s "$TK_TMP/$name.kernel" "$TK_TMP/$name.user" ||
		{ diff -u "$TK_TMP/$name.user" "$TK_TMP/$name.kernel" | head -30
		  fail "$name: the kernel's table differs from user space's"; }
done

# What a hist trigger cannot do is refused with the reason.
"$TRACEKIT" trace -e "$ev" --count --by pid,cpu,count,fd --where kernel \
	--duration 0.1 >/dev/null 2>"$TK_TMP/keys.err" &&
	fail "4 keys --where kernel succeeded"
grep -q "where kernel: .*3 keys" "$TK_TMP/keys.err" ||
	{ cat "$TK_TMP/keys.err"; fail "4 keys: no reason given"; }
exit 0
