#!/bin/bash
# description: arm64: kprobes made on this x86 host from the arm64 guest's BTF alone (probe --btf), $argN and registers: ip_rcv records the MAC QEMU gave the NIC, do_sys_openat2 the paths opened, vfs_read the counts asked
# tracefs: untouched
# The guest kernel's /sys/kernel/btf/vmlinux, fetched once by the VM
# harness (run.sh --btf-out), is all the host has of that kernel: `tracekit
# probe --btf FILE -D` translates the seed example and two syscall paths
# with arm64's layouts and calling convention, as $argN and, with --regs,
# as the registers %x0-%x7.  The guest (Debian's arm64 kernel, no
# tracekit) writes both sets into kprobe_events as they are, brings up
# its virtio NIC, whose MAC the harness chose, asks QEMU's DHCP server
# (restricted user networking: nothing leaves the machine), opens files
# and reads known counts; the kernel's trace must show the MAC, the
# paths and the counts.
. "$(dirname "$0")/lib/common.sh"

need_vm_host qemu-system-aarch64 readelf
btf=$TK_TMP/arm64.btf
"$VM_RUN" --arch arm64 --timeout 300 --btf-out "$btf" >"$TK_TMP/btf.log" 2>&1 ||
	{ cat "$TK_TMP/btf.log"; fail "cannot get the arm64 guest's BTF"; }
files=$TK_TMP/files
mkdir -p "$files"

specs=(-D 'ip_rcv dev->perm_addr:x8[6]' -D 'do_sys_openat2 filename:string'
       -D 'vfs_read count')
"$TRACEKIT" probe --btf "$btf" -v "${specs[@]}" >"$files/defs.argn" \
	2>"$TK_TMP/err" || { cat "$TK_TMP/err"; fail "probe --btf -D failed"; }
assert_grep "types and locations from BTF in $btf" "$TK_TMP/err"
"$TRACEKIT" probe --btf "$btf" --regs "${specs[@]}" >"$TK_TMP/regs" ||
	fail "probe --btf --regs -D failed"
# Another group and names, so both sets live in kprobe_events at once
# and their lines in the trace tell which set they are from.
sed 's|^p:probe/\([a-z_0-9]*\) |p:tkregs/\1_r |' "$TK_TMP/regs" >"$files/defs.regs"
sed 's/^/  | /' "$files/defs.argn" "$files/defs.regs"
assert_grep '^p:probe/ip_rcv ip_rcv perm_addr=\+[0-9]+\(\$arg2\):x8\[6\]$' "$files/defs.argn"
assert_grep '^p:tkregs/ip_rcv_r ip_rcv perm_addr=\+[0-9]+\(%x1\):x8\[6\]$' "$files/defs.regs"
assert_grep '^p:tkregs/do_sys_openat2_r do_sys_openat2 filename=\+0\(%x1\):string$' "$files/defs.regs"
assert_grep '^p:tkregs/vfs_read_r vfs_read count=%x2:u64$' "$files/defs.regs"
# arm64's net_device is not x86's: the offset is the guest's.
[ "$(grep -o 'perm_addr=+[0-9]*' "$files/defs.argn")" != \
  "$("$TRACEKIT" probe -D 'ip_rcv dev->perm_addr:x8[6]' 2>/dev/null | grep -o 'perm_addr=+[0-9]*')" ] ||
	fail "perm_addr at the offset of this host's net_device"

# What BTF cannot say is refused naming the BTF it came from.
expect_fail "$TRACEKIT" probe --btf "$btf" -D 'vfs_read:3'
assert_grep "^tracekit probe: vfs_read:3: a line probe: needs DWARF debuginfo \(only BTF found: $btf\)$" \
	"$TK_TMP/out"

# A machine whose pt_regs is neither: refused, naming the file.
printf '\237\353\001\000\030\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\001\000\000\000\000' \
	>"$TK_TMP/empty.btf"
expect_fail "$TRACEKIT" probe --btf "$TK_TMP/empty.btf" -D 'vfs_read count'
assert_grep "^tracekit probe: $TK_TMP/empty.btf: a kernel whose struct pt_regs is neither x86_64's nor arm64's" \
	"$TK_TMP/out"

cat >"$files/guest.sh" <<'GUEST'
T=/sys/kernel/tracing
cd /tracekit/files
mac=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^tracekit\.mac=//p')
echo "MAC $mac"
modprobe virtio_pci && modprobe virtio_net || echo "REFUSED modprobe virtio_net"
for i in 1 2 3 4 5 6 7 8 9 10; do
	for n in /sys/class/net/*; do
		[ "$(cat $n/address)" = "$mac" ] && iface=${n##*/}
	done
	[ -n "$iface" ] && break
	sleep 0.5
done
cat defs.argn defs.regs | while read -r d; do
	echo "$d" >>$T/kprobe_events || echo "REFUSED $d"
done
echo 1 >$T/events/probe/enable && echo 1 >$T/events/tkregs/enable ||
	echo "REFUSED enable"
echo hello >/tmp/tk-arm64-opened
dd if=/tmp/tk-arm64-opened of=/dev/null bs=4093 count=1 2>/dev/null
cat /tmp/tk-absent-file 2>/dev/null
ip link set dev "$iface" up && udhcpc -i "$iface" -n -q -t 5 -T 2 -s /bin/true >/dev/null 2>&1 ||
	echo "REFUSED dhcp on $iface"
echo 0 >$T/events/probe/enable
echo 0 >$T/events/tkregs/enable
sed 's/^/TRACE /' $T/trace
echo >$T/kprobe_events
GUEST
set +e
"$VM_RUN" --arch arm64 --timeout 300 --file "$files/defs.argn" \
	--file "$files/defs.regs" --file "$files/guest.sh" \
	-- sh /tracekit/files/guest.sh >"$TK_TMP/console" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { sed 's/^/  | /' "$TK_TMP/console"; fail "guest exit status $rc"; }
if grep '^REFUSED' "$TK_TMP/console"; then
	sed 's/^/  | /' "$TK_TMP/console"
	fail "the arm64 guest refused a step"
fi
mac=$(sed -n 's/^MAC //p' "$TK_TMP/console")
[ -n "$mac" ] || fail "the guest printed no MAC"
want=
for b in ${mac//:/ }; do
	want+=$(printf ',0x%x' "0x$b")
done
want="{${want#,}}"
# Each set's events: $argN's, and the registers' (names ending _r).
for r in "" _r; do
	n=$(grep -c "^TRACE .* ip_rcv$r: ([^)]*) perm_addr=$want$" "$TK_TMP/console")
	[ "$n" -ge 1 ] || { grep '^TRACE' "$TK_TMP/console" | head -20
			    fail "ip_rcv$r: no perm_addr=$want (the NIC's MAC) in the trace"; }
	for f in /tmp/tk-arm64-opened /tmp/tk-absent-file; do
		grep -q "^TRACE .* do_sys_openat2$r: ([^)]*) filename=\"$f\"$" "$TK_TMP/console" ||
			{ grep "^TRACE .*do_sys_openat2" "$TK_TMP/console" | tail
			  fail "do_sys_openat2$r: $f not recorded"; }
	done
	grep -q "^TRACE  *dd-[0-9]* .* vfs_read$r: ([^)]*) count=4093$" "$TK_TMP/console" ||
		{ grep '^TRACE .*vfs_read' "$TK_TMP/console" | tail
		  fail "vfs_read$r: dd's count of 4093 not recorded"; }
done
echo "arm64 kernel, BTF from the host: MAC $mac, the opened paths and dd's count, by \$argN and by register"
