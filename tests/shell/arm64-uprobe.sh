#!/bin/bash
# description: arm64: uprobe definitions made on this x86 host from arm64 DWARF (-O0, -O2, DWARF 4 and 5, no PIE; --sysroot) record in Debian's arm64 kernel what the programs print; a machine tracekit does not know is refused
# tracefs: untouched
# probe-target.c is cross-built with aarch64-linux-gnu-gcc into a copy of
# the guest's file tree; `tracekit probe --sysroot TREE -x /PATH -D`
# translates its specs here, with arm64's registers (%x0.., %sp) and
# calling convention.  The arm64 guest (tests/vm/run.sh --arch arm64, no
# tracekit in it) writes the definitions into uprobe_events as they are,
# runs each program and prints the program's EXPECT lines and the trace:
# the kernel accepting every definition and recording what the program
# printed is the oracle.  The same specs as probe-uprobe.sh's on x86.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/probe-target.sh"

need_vm_host qemu-system-aarch64 aarch64-linux-gnu-gcc readelf
src=$(dirname "$0")/probe-target.c
root=$TK_TMP/root
mkdir -p "$root/tracekit/files"

# An ELF of a machine tracekit does not translate for: refused in one
# line naming it, nothing printed (riscv64's e_machine, 243, written into
# a copy of an arm64 build).
aarch64-linux-gnu-gcc -g -O2 -o "$TK_TMP/rv" "$src" || fail "cross gcc failed"
printf '\363\000' | dd of="$TK_TMP/rv" bs=1 seek=18 conv=notrunc 2>/dev/null
for a in "-D ip_rcv flags" "-V ip_rcv" "--sdt"; do
	# shellcheck disable=SC2086
	expect_fail "$TRACEKIT" probe -x "$TK_TMP/rv" $a
	assert_eq "riscv64 $a: output" "$(cat "$TK_TMP/out")" \
		"tracekit probe: $TK_TMP/rv: an ELF for riscv64: tracekit translates for x86_64, arm64 only"
done

# An absolute symbolic link in the copy would be this machine's file:
# refused, never read in the target's stead.
ln -s "$TK_TMP/rv" "$root/tracekit/files/abs"
expect_fail "$TRACEKIT" probe --sysroot "$root" -x /tracekit/files/abs -D 'ip_rcv flags'
assert_grep "^tracekit probe: /tracekit/files/abs: resolves to $TK_TMP/rv, outside --sysroot $root" \
	"$TK_TMP/out"
rm "$root/tracekit/files/abs"

# NAME CROSS-GCC-FLAGS: the builds, as probe-uprobe.sh's on x86.
builds=("O0 -O0" "O2 -O2" "O2d4 -O2 -gdwarf-4" "O0d5 -O0 -gdwarf-5"
	"O2np -O2 -no-pie")
names=()
ships=()
for b in "${builds[@]}"; do
	set -- $b
	name=$1
	shift
	bin=/tracekit/files/tkprobe_$name
	aarch64-linux-gnu-gcc -g "$@" -o "$root$bin" "$src" ||
		fail "aarch64-linux-gnu-gcc $* failed"
	target_set "$name"
	args=()
	for s in "${specs[@]}"; do
		args+=(-D "$s")
	done
	"$TRACEKIT" probe --sysroot "$root" -x "$bin" "${args[@]}" \
		>"$root/tracekit/files/defs.$name" 2>"$TK_TMP/err.$name" ||
		{ cat "$TK_TMP/err.$name"; fail "$name: probe -D failed"; }
	sed 's/^/  | /' "$root/tracekit/files/defs.$name"
	assert_eq "$name: definitions" "$(wc -l <"$root/tracekit/files/defs.$name")" "$ndefs"
	# The target's path, arm64's registers: never an x86 one.
	grep -v "^[pr]:probe_tkprobe_$name/[A-Za-z_0-9]* $bin:0x[0-9a-f]* " \
		"$root/tracekit/files/defs.$name" && fail "$name: a definition not on $bin"
	grep -E '%(di|si|dx|cx|ax|bx|bp|r[0-9]+)\b' "$root/tracekit/files/defs.$name" &&
		fail "$name: x86 registers in an arm64 definition"
	# -O0 spills every argument to the stack before the probe point.
	case $name in
	O0*) grep -q '(%sp)' "$root/tracekit/files/defs.$name" ||
		fail "$name: no variable off sp" ;;
	*) grep -q '%x0' "$root/tracekit/files/defs.$name" ||
		fail "$name: no argument in x0" ;;
	esac
	names+=("$name")
	ships+=(--file "$root$bin" --file "$root/tracekit/files/defs.$name")
done

# The guest: every definition as is, one program at a time, each
# event's trace line and the program's output with its name in front.
cat >"$root/tracekit/files/guest.sh" <<'GUEST'
T=/sys/kernel/tracing
cd /tracekit/files
for n in "$@"; do
	while read -r d; do
		echo "$d" >>$T/uprobe_events || echo "REFUSED $n: $d"
	done <defs.$n
	echo 1 >$T/events/probe_tkprobe_$n/enable || echo "REFUSED $n: enable"
	./tkprobe_$n >out.$n || echo "REFUSED $n: the program failed"
	echo 0 >$T/events/probe_tkprobe_$n/enable
	sed "s/^/OUT $n /" out.$n
	sed "s/^/TRACE $n /" $T/trace
	echo >$T/trace
	echo >$T/uprobe_events
done
GUEST
set +e
"$VM_RUN" --arch arm64 --timeout 300 "${ships[@]}" \
	--file "$root/tracekit/files/guest.sh" \
	-- sh /tracekit/files/guest.sh "${names[@]}" >"$TK_TMP/console" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { sed "s/^/  | /" "$TK_TMP/console"; fail "guest exit status $rc"; }
assert_grep '^TRACEKIT-VM: booted [0-9.-]*-arm64$' "$TK_TMP/console"
if grep '^REFUSED ' "$TK_TMP/console"; then
	sed 's/^/  | /' "$TK_TMP/console"
	fail "the arm64 kernel refused definitions"
fi
for name in "${names[@]}"; do
	target_set "$name"
	sed -n "s/^OUT $name //p" "$TK_TMP/console" >"$TK_TMP/out.$name"
	sed -n "s/^TRACE $name //p" "$TK_TMP/console" >"$TK_TMP/trace.$name"
	target_check "$name" "$TK_TMP/out.$name" "$TK_TMP/trace.$name"
done
echo "${#names[@]} arm64 builds: every definition accepted, every value as printed"
