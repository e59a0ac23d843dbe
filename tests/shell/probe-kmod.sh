#!/bin/bash
# description: probe: kprobes from a module's DWARF ($argN, @global) record its values
# Runs for real in the VM (vm-suite), where tests/kmod/tktest.ko is in
# /tracekit/kmod: `tracekit probe -m tktest.ko -a` must produce $argN
# definitions the kernel accepts; poking /proc/tktest fires them, and each
# recorded value must equal what the module logs for itself.  It adds
# kprobes and an instance, so the runner checks it for residue; it unloads
# the module itself and checks that too.
. "$(dirname "$0")/lib/common.sh"

# The module is built for the VM's kernel, by tests/vm/run.sh.
need_cap in_vm "tktest.ko is built for the VM's kernel (make check's vm-suite)"
need_tracefs
need_cap kprobes "this kernel has no kprobe_events"
need_cap instances "this tracefs has no instances"
ko=${TRACEKIT_KMOD_DIR:-/tracekit/kmod}/tktest.ko
[ -f "$ko" ] || fail "no $ko (tests/vm/run.sh builds it)"
need_cmd insmod rmmod dmesg

loaded=
if ! grep -q '^tktest ' /proc/modules; then
	insmod "$ko" || fail "insmod $ko failed"
	loaded=1
	on_exit "rmmod tktest"
fi

group=tktest_kp
poke='tktest_poke obj->id a b c d e f g obj->mac obj->flags obj->prio obj->inner->vals
      obj->inner->name obj->cb gid=@tktest_global.id sv=@tktest_inner_data.vals[1] st=@tktest_static'
on_exit "'$TRACEKIT' probe -d '$group:*'"
"$TRACEKIT" probe -m "$ko" -a "$group:tktest_poke=$(echo $poke)" \
	-a "$group:tktest_poke__return=tktest_poke%return \$retval" >"$TK_TMP/add" 2>&1 ||
	{ cat "$TK_TMP/add"; tail -n 5 "$TRACEFS/error_log"; fail "probe -a failed"; }
cat "$TK_TMP/add"
grep "$group/" "$TRACEFS/kprobe_events" >"$TK_TMP/defs"
cat "$TK_TMP/defs"
assert_eq "two definitions" "$(wc -l <"$TK_TMP/defs")" 2
if grep -q 'arg<N>' "$TRACEFS/README"; then
	assert_grep ' a=\$arg2:s64 .* g=\$arg8:s64 ' "$TK_TMP/defs"
	assert_grep ' id=\+0\(\$arg1\):s32 ' "$TK_TMP/defs"
fi
assert_grep 'tktest:tktest_poke' "$TK_TMP/defs"
assert_grep ' gid=@tktest_global\+0:s32 ' "$TK_TMP/defs"

inst=tkkprobe_$$
mkdir "$TRACEFS/instances/$inst" || fail "cannot create instance"
on_exit "rmdir '$TRACEFS/instances/$inst'"
for ev in tktest_poke tktest_poke__return; do
	echo 1 >"$TRACEFS/instances/$inst/events/$group/$ev/enable" || fail "cannot enable $ev"
	on_exit "echo 0 >'$TRACEFS/instances/$inst/events/$group/$ev/enable'"
done
for n in 5 9; do
	echo "$n" >/proc/tktest || fail "poking /proc/tktest failed"
done
for ev in tktest_poke tktest_poke__return; do
	echo 0 >"$TRACEFS/instances/$inst/events/$group/$ev/enable"
done

dmesg | sed -n 's/^.*tktest: expect //p' | tail -n 4 >"$TK_TMP/logged"
sed -n -E 's/^.*[0-9]: ([a-z_]+): \(.*\) ([a-z]+=.*)$/\1: \2/p' \
	"$TRACEFS/instances/$inst/trace" >"$TK_TMP/got"
cat "$TK_TMP/got"
for ev in tktest_poke tktest_poke__return; do
	grep "^$ev: " "$TK_TMP/logged" >"$TK_TMP/want.$ev"
	grep "^$ev: " "$TK_TMP/got" >"$TK_TMP/got.$ev"
	if ! diff "$TK_TMP/want.$ev" "$TK_TMP/got.$ev"; then
		cat "$TRACEFS/instances/$inst/trace"
		fail "$ev: recorded values differ from the module's"
	fi
	assert_eq "$ev: two events" "$(wc -l <"$TK_TMP/got.$ev")" 2
done

"$TRACEKIT" probe -d "$group:*" >"$TK_TMP/del" || fail "probe -d failed"
if grep -q "$group/" "$TRACEFS/kprobe_events"; then
	fail "probes left behind"
fi

# -m NAME finds NAME.ko under /lib/modules (Debian's are stripped of DWARF:
# a function is placed by its symbol, a variable needs the DWARF).
mod=$(find "/lib/modules/$(uname -r)" -name ubifs.ko 2>/dev/null | head -n 1)
if [ -n "$mod" ]; then
	expect_fail "$TRACEKIT" probe -m ubifs -D 'ubifs_iget inum'
	assert_grep "^tracekit probe: $mod: no DWARF debug info" "$TK_TMP/out"
fi

# What this test loaded it unloads (the kprobes are gone, so it can).
if [ -n "$loaded" ]; then
	rmmod tktest || fail "rmmod tktest failed"
	! grep -q '^tktest ' /proc/modules || fail "tktest still loaded"
fi
