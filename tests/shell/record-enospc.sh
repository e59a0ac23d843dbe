#!/bin/bash
# description: record: ENOSPC on a tiny tmpfs: clear error, exit 1, no file, tracefs restored
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
need_tracefs

mnt="$TK_TMP/mnt"
mkdir "$mnt"
mount -t tmpfs -o size=4k tktest-enospc "$mnt" 2>/dev/null || fail "cannot mount a tmpfs"
on_exit "umount $mnt"

# Too small for the metadata (the formats of sched alone are larger).
"$TRACEKIT" record -q -e sched -o "$mnt/t.dat" --duration 2 >"$TK_TMP/log" 2>&1 &
rec=$!
wait_bounded $rec 60
rc=$?
cat "$TK_TMP/log"
assert_eq "exit code" "$rc" 1
assert_grep "^tracekit record: .*t.dat.*No space left on device" "$TK_TMP/log"
no_instance_left $rec
[ -z "$(ls -A "$mnt")" ] || { ls -la "$mnt"; fail "files left on the full filesystem"; }

# Room for the metadata, but the data fills it while recording.
umount "$mnt"
mount -t tmpfs -o size=1400k tktest-enospc "$mnt" || fail "remount"
start_load 20
"$TRACEKIT" record -q -e sched -e syscalls -o "$mnt/t.dat" --duration 15 \
	>"$TK_TMP/log" 2>&1 &
rec=$!
wait_bounded $rec 60
rc=$?
kill $load 2>/dev/null
cat "$TK_TMP/log"
assert_eq "exit code (data)" "$rc" 1
assert_grep "No space left on device" "$TK_TMP/log"
no_instance_left $rec
[ -z "$(ls -A "$mnt")" ] || { ls -la "$mnt"; fail "files left on the full filesystem"; }
exit 0
