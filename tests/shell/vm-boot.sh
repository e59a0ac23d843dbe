#!/bin/bash
# description: vm: Debian kernel boots with kprobe_events, stack_trace, test module
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

need_vm_host

# Each check prints a marker only when it holds; the host asserts them.
cat >"$TK_TMP/guest.sh" <<'GUEST'
T=/sys/kernel/tracing
[ -e $T/kprobe_events ] && echo "CHECK kprobe_events"
[ -e $T/stack_trace ] && [ -e /proc/sys/kernel/stack_tracer_enabled ] && echo "CHECK stack_trace"
if [ -e /tracekit/kmod/tktest.ko ]; then
	insmod /tracekit/kmod/tktest.ko && echo 5 >/proc/tktest &&
		dmesg | grep -q 'tktest: poke id=5 ' && echo "CHECK kmod"
	rmmod tktest
fi
# UBIFS asks the crypto API for its compressors; zstd is a module.
modprobe zstd 2>/dev/null
modprobe ubifs && grep -q ubifs /proc/filesystems && echo "CHECK ubifs"
tracekit test -v 'host cap'
GUEST
set +e
"$VM_RUN" --tracekit "$TRACEKIT" --timeout 300 -- sh -c "$(cat "$TK_TMP/guest.sh")" \
	>"$TK_TMP/console" 2>&1
rc=$?
set -e
# Indented, so the guest's own summary line is not mistaken for ours.
sed "s/^/  | /" "$TK_TMP/console"
assert_eq "guest exit status" "$rc" 0
assert_grep '^TRACEKIT-VM: booted ' "$TK_TMP/console"
assert_grep '^CHECK kprobe_events$' "$TK_TMP/console"
assert_grep '^CHECK stack_trace$' "$TK_TMP/console"
assert_grep '^CHECK ubifs$' "$TK_TMP/console"
if [ -d "/usr/src/linux-headers-$(sed -n 's/^vm: booting \([^ ]*\) .*/\1/p' "$TK_TMP/console")" ]; then
	assert_grep '^CHECK kmod$' "$TK_TMP/console"
fi
assert_grep 'host capabilities +: Ok$' "$TK_TMP/console"
exit 0
