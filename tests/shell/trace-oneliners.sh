#!/bin/bash
# description: trace: bpftrace's tutorial one-liners as tracekit-trace(1) gives them, against bpftrace 0.17 on the same run; the JSON members its manual lists
# A workload waits on its standard input; bpftrace runs each original
# one-liner filtered on its pid, tracekit trace each equivalent with
# -P, and once all watch it, it reads, opens and forks a known number
# of times.  Each tracekit table must equal what bpftrace printed at
# SIGINT (its "Attaching" line left out), the opens bpftrace's
# str(args->filename) of the same openat calls, the listing bpftrace -l;
# lesson 11's block I/O goes to a loop device of the test's own.  The
# live text is what trace-cmd report prints of the -o file; the JSON
# members those the manual lists, in its order.  Lessons 6, 7 and 12
# need kprobes, 2, 9 and 10 have no trace equivalent: not run here.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/bpftrace.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc bpftrace
need_cmd jq trace-cmd
doc=$TRACEKIT_SRCDIR/Documentation/tracekit-trace.txt
bin=$TK_TMP/oneliners
gcc -O1 -o "$bin" "$(dirname "$0")/trace-oneliners-target.c" ||
	fail "gcc failed"

# Lesson 1: the tracepoints bpftrace lists are those tracekit lists.
bpftrace -l 'tracepoint:syscalls:sys_enter_*' | sed 's/^tracepoint://' |
	sort >"$TK_TMP/want.list"
[ -s "$TK_TMP/want.list" ] || fail "bpftrace -l listed nothing"
"$TRACEKIT" record --list-events | grep '^syscalls:sys_enter_' |
	sort >"$TK_TMP/got.list"
diff -u "$TK_TMP/want.list" "$TK_TMP/got.list" ||
	fail "record --list-events differs from bpftrace -l"

# The workload, held on a FIFO opened read-write (no open blocks).
mkfifo "$TK_TMP/go" || fail "mkfifo failed"
exec 3<>"$TK_TMP/go"
touch "$TK_TMP/ol-a" "$TK_TMP/ol-b"
"$bin" "$TK_TMP/ol-a" "$TK_TMP/ol-b" "$TK_TMP/ol-none" <&3 &
wl=$!
on_exit "kill $wl 2>/dev/null"
for ((t = 0; t < 100; t++)); do
	# In its read() of standard input (syscall 0), after exec.
	[ "$(cat /proc/$wl/comm 2>/dev/null)" = oneliners ] &&
		[ "$(cut -d' ' -f1 /proc/$wl/syscall 2>/dev/null)" = 0 ] && break
	sleep 0.1
done
[ "$t" -lt 100 ] || fail "the workload did not start"
libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' /proc/$wl/maps)
[ -n "$libc" ] || fail "the workload maps no libc.so.6"

# NAME|BPFTRACE-OPTION|PROGRAM|TRACE ARGUMENTS, separated by ';'
pf="/pid == $wl/"
lessons=(
	"open||tracepoint:syscalls:sys_enter_openat $pf { printf(\"%s %s\\n\", comm, str(args->filename)); }|-x;$libc;__libc_open64 file:string;-o;$TK_TMP/open.dat"
	"count||tracepoint:raw_syscalls:sys_enter $pf { @[comm] = count(); }|-e;raw_syscalls:sys_enter;--count=comm"
	"hist||tracepoint:syscalls:sys_exit_read $pf { @bytes = hist(args->ret); }|-e;syscalls:sys_exit_read;--hist;ret"
	"sched||tracepoint:sched:sched_process_* $pf { @[probe] = count(); }|-e;sched:sched_process_*;--count=event"
	"jhist|-f json|tracepoint:syscalls:sys_exit_read $pf { @bytes = hist(args->ret); }|-e;syscalls:sys_exit_read;--hist;ret;--format;json"
	"json|||-x;$libc;__libc_open64 file:string;-e;syscalls:sys_exit_read;--format;json"
)
bts=() tks=()
for l in "${lessons[@]}"; do
	IFS='|' read -r name fopt prog args <<<"$l"
	if [ -n "$prog" ]; then
		# shellcheck disable=SC2086
		bpftrace $fopt -e "$prog" >"$TK_TMP/bt.$name" \
			2>"$TK_TMP/bt.$name.err" &
		bts+=("$! $name")
		on_exit "kill $!"
	fi
	IFS=';' read -ra argv <<<"$args"
	"$TRACEKIT" trace "${argv[@]}" -P "$wl" >"$TK_TMP/tk.$name" \
		2>"$TK_TMP/tk.$name.err" &
	tks+=("$! $name")
	on_exit "kill $! 2>/dev/null"
done

# bpftrace has attached when it says so; tracekit trace when its
# instance traces (tracing_on is 1 once set_event_pid names the pid).
for ((t = 0; t < 600; t++)); do
	n=0
	for b in "${bts[@]}"; do
		set -- $b
		grep -qE '^Attaching |"attached_probes"' "$TK_TMP/bt.$2" &&
			n=$((n + 1))
		kill -0 "$1" 2>/dev/null ||
			{ cat "$TK_TMP/bt.$2.err"; fail "bpftrace $2 exited"; }
	done
	for k in "${tks[@]}"; do
		set -- $k
		i=$TRACEFS/instances/tracekit-$1
		grep -qw "$wl" "$i/set_event_pid" 2>/dev/null &&
			[ "$(cat "$i/tracing_on" 2>/dev/null)" = 1 ] &&
			n=$((n + 1))
		kill -0 "$1" 2>/dev/null ||
			{ cat "$TK_TMP/tk.$2.err"; fail "tracekit trace $2 exited"; }
	done
	[ "$n" = $((${#bts[@]} + ${#tks[@]})) ] && break
	sleep 0.1
done
[ "$t" -lt 600 ] || fail "bpftrace and tracekit trace did not start in 60 s"

echo >&3
wait "$wl" || fail "the workload failed"
# tracekit trace -P ends when the workload does.
for k in "${tks[@]}"; do
	set -- $k
	wait "$1" || { rc=$?; cat "$TK_TMP/tk.$2.err"
		       fail "tracekit trace $2 exited $rc"; }
done
for b in "${bts[@]}"; do
	set -- $b
	bpftrace_stop "$1"
	grep -vE '^Attaching |"attached_probes"' "$TK_TMP/bt.$2" \
		>"$TK_TMP/want.$2"
done

same() {	# NAME WANT GOT
	cmp -s "$2" "$3" && return
	diff -u "$2" "$3" | head -40
	fail "$1: tracekit trace differs from bpftrace"
}

# Lesson 3: the same opens, as "COMM PATH".
sed -n 's/^ *\([^ ].*\)-[0-9]* *\[[0-9]*\] [0-9.]*: __libc_open64: *([0-9a-f]*) file="\(.*\)"$/\1 \2/p' \
	"$TK_TMP/tk.open" >"$TK_TMP/got.open"
# bpftrace ends with the empty lines that come before its maps.
grep . "$TK_TMP/want.open" >"$TK_TMP/want.open.l"
grep -c "^oneliners $TK_TMP/ol-" "$TK_TMP/want.open.l" | grep -qx 3 ||
	{ cat "$TK_TMP/want.open"; fail "bpftrace saw other opens than 3"; }
same open "$TK_TMP/want.open.l" "$TK_TMP/got.open"
# The live text is what trace-cmd report prints of the file written.
trace-cmd report -i "$TK_TMP/open.dat" >"$TK_TMP/tc.open" 2>/dev/null ||
	fail "trace-cmd report of -o's file failed"
cmp -s "$TK_TMP/tc.open" "$TK_TMP/tk.open" ||
	{ diff -u "$TK_TMP/tc.open" "$TK_TMP/tk.open" | head -20
	  fail "the live text differs from trace-cmd report of the -o file"; }

# Lesson 4 (one key), 5 and its JSON: byte for byte, bpftrace's map named.
same count "$TK_TMP/want.count" "$TK_TMP/tk.count"
sed 's/^@bytes:/@:/' "$TK_TMP/want.hist" >"$TK_TMP/want.hist.@"
same hist "$TK_TMP/want.hist.@" "$TK_TMP/tk.hist"
sed 's/{"@bytes": /{"@": /' "$TK_TMP/want.jhist" >"$TK_TMP/want.jhist.@"
same jhist "$TK_TMP/want.jhist.@" "$TK_TMP/tk.jhist"
grep -q '^@: ' "$TK_TMP/tk.hist" || fail "hist: no table"
# Lesson 8: bpftrace names the probe, tracekit the event; a count map's
# ties come in bpftrace's hash order, which no trace keeps: sorted.
# sched_process_free fires in the RCU callbacks of a softirq, over
# whatever task runs (the workload, at times); there bpftrace skips its
# program when it interrupted another BPF program on that CPU (the
# kernel's bpf_prog_active guard: lesson 4's, in the workload's
# syscalls), and the ring buffer does not: once 5 against none.  The
# frees are left out of both.
sed 's/^@\[tracepoint:/@[/' "$TK_TMP/want.sched" | grep -v sched_process_free |
	sort >"$TK_TMP/want.sched.s"
grep -v sched_process_free "$TK_TMP/tk.sched" | sort >"$TK_TMP/got.sched.s"
same sched "$TK_TMP/want.sched.s" "$TK_TMP/got.sched.s"
grep -qx '@\[sched:sched_process_fork\]: 3' "$TK_TMP/tk.sched" ||
	fail "sched: not the workload's 3 forks"

# Lesson 11: block I/O sizes, on a loop device of the test's own, whose
# dev (the kernel's MKDEV: major << 20 | minor) both filter on; each
# traces until SIGINT.
truncate -s 1M "$TK_TMP/disk" || fail "truncate failed"
loop=$(losetup -f --show "$TK_TMP/disk") || fail "losetup failed"
on_exit "losetup -d $loop"
dev=$((0x$(stat -c %t "$loop") << 20 | 0x$(stat -c %T "$loop")))
bpftrace -e "tracepoint:block:block_rq_issue /args->dev == $dev/ { @ = hist(args->bytes); }" \
	>"$TK_TMP/bt.block" 2>"$TK_TMP/bt.block.err" &
bt=$!
on_exit "kill $bt"
"$TRACEKIT" trace -e block:block_rq_issue -f "dev == $dev" --hist bytes \
	>"$TK_TMP/tk.block" 2>"$TK_TMP/tk.block.err" &
tk=$!
on_exit "kill $tk 2>/dev/null"
i=$TRACEFS/instances/tracekit-$tk
for ((t = 0; t < 600; t++)); do
	kill -0 "$bt" 2>/dev/null ||
		{ cat "$TK_TMP/bt.block.err"; fail "bpftrace block exited"; }
	kill -0 "$tk" 2>/dev/null ||
		{ cat "$TK_TMP/tk.block.err"; fail "tracekit trace block exited"; }
	# A new instance's tracing_on is 1 until setup turns it off, before
	# it enables the event.
	grep -q '^Attaching ' "$TK_TMP/bt.block" &&
		[ "$(cat "$i/events/block/block_rq_issue/enable" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$i/tracing_on" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
[ "$t" -lt 600 ] || fail "block: bpftrace and tracekit trace did not start"
for bs in 512 4096 4096 65536; do
	dd if=/dev/zero of="$loop" bs=$bs count=2 oflag=direct 2>/dev/null ||
		fail "dd to $loop failed"
done
dd if="$loop" of=/dev/null bs=16384 count=2 iflag=direct 2>/dev/null ||
	fail "dd from $loop failed"
kill -INT "$tk"
wait "$tk" || { cat "$TK_TMP/tk.block.err"; fail "tracekit trace block failed"; }
bpftrace_stop "$bt"
grep -v '^Attaching ' "$TK_TMP/bt.block" >"$TK_TMP/want.block"
same block "$TK_TMP/want.block" "$TK_TMP/tk.block"
grep -q '^\[64K, 128K) *2 ' "$TK_TMP/tk.block" ||
	{ cat "$TK_TMP/tk.block"; fail "block: not dd's two 64 KB writes"; }

# JSON OUTPUT: the events' members are among those the manual lists, in
# its order; every one is there in some event.  missed_before comes
# after events lost: a ring buffer of 4 KB a CPU, which a dd of one
# byte a syscall overruns between two reads.
sed -n '/^JSON OUTPUT$/,/^TABLE JSON$/p' "$doc" |
	sed -n 's/^`\([a-z_]*\)`::$/\1/p' >"$TK_TMP/doc.ev"
assert_eq "event members in the manual" "$(wc -l <"$TK_TMP/doc.ev")" 9
jq -r .event "$TK_TMP/tk.json" | sort -u | tr '\n' ' ' |
	grep -qx '__libc_open64 sys_exit_read ' || fail "json: not both events"
"$TRACEKIT" trace -e raw_syscalls:sys_enter -b 4 --format json \
	-- dd if=/dev/zero of=/dev/null bs=1 count=100000 >"$TK_TMP/lost.json" \
	2>"$TK_TMP/lost.err" || { cat "$TK_TMP/lost.err"; fail "json: the overrun failed"; }
assert_grep 'warning: [0-9]* events lost' "$TK_TMP/lost.err"
cat "$TK_TMP/tk.json" "$TK_TMP/lost.json" | jq -r 'keys_unsorted | join(" ")' |
	sort -u >"$TK_TMP/shapes" || fail "the events are not JSON"
while read -r shape; do
	printf '%s\n' $shape | grep -Fxf - "$TK_TMP/doc.ev" | tr '\n' ' ' |
		sed 's/ $//' | grep -qFx "$shape" ||
		fail "event members not the manual's, or out of its order: $shape"
done <"$TK_TMP/shapes"
tr ' ' '\n' <"$TK_TMP/shapes" | sort -u >"$TK_TMP/got.members"
sort -u "$TK_TMP/doc.ev" | diff -u - "$TK_TMP/got.members" ||
	fail "event members differ from the manual's (-: documented only, +: undocumented)"

# TABLE JSON: the table's members and its buckets'.
sed -n '/^TABLE JSON$/,/^BPFTRACE/p' "$doc" |
	sed -n 's/^`\([a-z_]*\)`::$/\1/p' >"$TK_TMP/doc.table"
assert_eq "table members" "$(tr '\n' ' ' <"$TK_TMP/doc.table")" \
	"type data min max count "
grep . "$TK_TMP/tk.jhist" | jq -r 'keys_unsorted | join(" ")' |
	grep -qx 'type data' || fail "table JSON: not type and data"
grep . "$TK_TMP/tk.jhist" | jq -r '.data["@"][] | keys_unsorted | join(" ")' |
	sort -u | grep -vx 'min max count' && fail "table JSON: bucket members"
exit 0
