#!/bin/bash
# description: trace: the kprobe one-liners of tracekit-trace(1) (bpftrace's lessons 3, 6, 12) on a dd of a file: the sizes its reads return, the paths it opens
# Where the kernel has kprobes (the VM): dd reads a file of the test's
# in blocks of 1000 bytes.  Its read()s return what the file's size,
# as stat(1) has it from the kernel, says they must (lesson 6's
# histogram of vfs_read's return values); do_sys_openat2 gets the paths
# dd was given (lesson 3); vfs_open the file's name as the kernel's
# dentry holds it (lesson 12).
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap kprobes "this kernel has no kprobe_events"
need_cap instances "this tracefs has no instances"
need_cap btf "no kernel BTF to type the probes by"
f=$TK_TMP/ol-file
head -c 5300 /dev/zero >"$f" || fail "cannot write $f"
size=$(stat -c %s "$f")
dd=(dd if="$f" of=/dev/null bs=1000)

# traced_dd OUT TRACE-ARGUMENTS...: dd under tracekit trace -P, run by a
# shell stopped until the trace watches it, so that the events are dd's
# alone (COMMAND's would include the read() that releases it).
traced_dd() {
	local out=$1 pid tk t i
	shift
	sh -c 'kill -STOP $$; exec "$@"' sh "${dd[@]}" 2>/dev/null &
	pid=$!
	on_exit "kill -9 $pid 2>/dev/null"
	for ((t = 0; t < 100; t++)); do
		[ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" = T ] && break
		sleep 0.1
	done
	[ "$t" -lt 100 ] || fail "the shell did not stop"
	"$TRACEKIT" trace "$@" -P "$pid" >"$out" 2>"$TK_TMP/err" &
	tk=$!
	on_exit "kill $tk 2>/dev/null"
	i=$TRACEFS/instances/tracekit-$tk
	for ((t = 0; t < 300; t++)); do
		grep -qw "$pid" "$i/set_event_pid" 2>/dev/null &&
			[ "$(cat "$i/tracing_on" 2>/dev/null)" = 1 ] && break
		kill -0 "$tk" 2>/dev/null || break
		sleep 0.1
	done
	kill -CONT "$pid"
	wait "$pid" || fail "dd failed"
	wait "$tk" || { cat "$TK_TMP/err"; fail "tracekit trace $* failed"; }
}

# Lesson 6: size / 1000 reads of 1000 bytes, one of the rest, one of 0
# at the end, in lhist(0, 2000, 200)'s buckets.
declare -A want
for ((i = 0; i < size / 1000; i++)); do
	want[5]=$((${want[5]:-0} + 1))
done
want[$((size % 1000 / 200))]=$((${want[$((size % 1000 / 200))]:-0} + 1))
want[0]=$((${want[0]:-0} + 1))
lo=-1 hi=-1
for b in "${!want[@]}"; do
	((lo < 0 || b < lo)) && lo=$b
	((b > hi)) && hi=$b
done
for ((b = lo; b <= hi; b++)); do
	echo "[$((b * 200)), $((b * 200 + 200))) ${want[$b]:-0}"
done >"$TK_TMP/want.lhist"
traced_dd "$TK_TMP/lhist" 'vfs_read%return $retval' --lhist ret,0,2000,200
sed -n 's/^\(\[[0-9]*, [0-9]*)\) *\([0-9]*\) |.*/\1 \2/p' "$TK_TMP/lhist" \
	>"$TK_TMP/got.lhist"
diff -u "$TK_TMP/want.lhist" "$TK_TMP/got.lhist" ||
	{ cat "$TK_TMP/lhist"; fail "lesson 6: not the reads of a $size-byte file"; }

# Lesson 3: the paths dd opens, in its order.
traced_dd "$TK_TMP/open" 'do_sys_openat2 filename:string'
sed -n 's/.* do_sys_openat2: .* filename="\(.*\)"$/\1/p' "$TK_TMP/open" \
	>"$TK_TMP/got.open"
printf '%s\n' "$f" /dev/null | diff -u - "$TK_TMP/got.open" ||
	{ cat "$TK_TMP/open"; fail "lesson 3: not the paths dd opened"; }

# Lesson 12: the dentry's name of each file dd opens.
traced_dd "$TK_TMP/vfs" 'vfs_open path->dentry->d_name.name:string'
for n in ol-file null; do
	assert_eq "lesson 12: vfs_open of $n" \
		"$(grep -c " vfs_open: .* name=\"$n\"\$" "$TK_TMP/vfs")" 1
done
exit 0
