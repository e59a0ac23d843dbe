#!/bin/bash
# description: probe: -m of a loaded module refuses a symbol exactly where the kernel refuses it
# The DWARF path on the running kernel applies the checks the BTF path
# does (util/probe-ksyms.c: notrace, a name kallsyms lists twice, the
# blacklist).  The oracle is the kernel: each function's bare definition
# is written to kprobe_events by hand, and tracekit -m must refuse the
# function exactly when the kernel refuses that line, and say why.
. "$(dirname "$0")/lib/common.sh"

need_cap in_vm "tktest.ko is built for the VM's kernel (make check's vm-suite)"
need_tracefs
need_cap kprobes "this kernel has no kprobe_events"
ko=${TRACEKIT_KMOD_DIR:-/tracekit/kmod}/tktest.ko
[ -f "$ko" ] || fail "no $ko (tests/vm/run.sh builds it)"
need_cmd insmod rmmod

if ! grep -q '^tktest ' /proc/modules; then
	insmod "$ko" || fail "insmod $ko failed"
	on_exit "rmmod tktest"
fi

group=tkrefuse
on_exit "'$TRACEKIT' probe -d '$group:*'"
on_exit "echo '-:tkraw/f' >>'$TRACEFS/kprobe_events'"
refused=0
for f in tktest_poke tktest_notrace kallsyms_open; do
	if echo "p:tkraw/f tktest:$f" >>"$TRACEFS/kprobe_events" 2>/dev/null; then
		kernel=takes
		echo '-:tkraw/f' >>"$TRACEFS/kprobe_events" || fail "cannot remove tkraw/f"
	else
		kernel=refuses
		refused=$((refused + 1))
	fi
	cp "$TRACEFS/kprobe_events" "$TK_TMP/before"
	if "$TRACEKIT" probe -m "$ko" -a "$group:$f=$f" >"$TK_TMP/out" 2>&1; then
		tk=takes
	else
		tk=refuses
	fi
	echo "$f: the kernel $kernel it, tracekit $tk it: $(head -n 1 "$TK_TMP/out")"
	assert_eq "tracekit on $f" "$tk" "$kernel"
	if [ "$tk" = refuses ]; then
		# Through a pipe: GNU cmp -s calls regular files of other sizes
		# different unread, and a tracefs file's size is 0.
		cat "$TRACEFS/kprobe_events" | cmp -s "$TK_TMP/before" - || fail "kprobe_events changed"
		assert_grep "^tracekit probe: $f: (notrace|[0-9]+ symbols of that name)" "$TK_TMP/out"
	fi
done
# The module's notrace function is one the kernel refuses on any config
# tests/vm/run.sh boots: without a refusal this test proves nothing.
[ "$refused" -gt 0 ] || fail "the kernel refused none of the functions"
"$TRACEKIT" probe -d "$group:*" >/dev/null 2>&1
! grep -q "$group/" "$TRACEFS/kprobe_events" || fail "probes left behind"
