#!/bin/bash
# description: probe: BTF alone, ip_rcv records the MAC QEMU gave the NIC; openat2 the paths opened; a NIC driver module's types
# The seed example of kprobe $argN, end to end on a stock kernel without
# debuginfo: the VM guest (tests/vm/run.sh) has an e1000 NIC (arm64's
# virt machine: virtio-net) whose MAC
# the harness chose and put on the kernel command line (tracekit.mac=),
# on QEMU's user networking with restrict=on, so the DHCP exchange below
# stays between the guest and QEMU.  The MAC must come back out of
# `tracekit report`, text and JSON, through dev->perm_addr of ip_rcv and
# through the NIC driver module's own types (split BTF in
# /sys/kernel/btf/MODULE);
# the paths this test opens must come back out of do_sys_openat2.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/probe-btf.sh"
. "$(dirname "$0")/lib/record.sh"
export LC_ALL=C

need_tracefs
need_cap in_vm "brings up the VM's NIC and asks QEMU's DHCP server"
need_cap kprobes "this kernel has no kprobe_events"
need_cap instances "this tracefs has no instances"
need_cap btf "this kernel has no /sys/kernel/btf/vmlinux"
need_cmd jq
need_btf_only

mac=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^tracekit\.mac=//p')
[ -n "$mac" ] || fail "no tracekit.mac= on the kernel command line (tests/vm/run.sh sets it)"
# The driver's receive function, and what it reaches the MAC through:
# e1000_clean_rx_irq is the e1000's NAPI receive (adapter->clean_rx, so
# never inlined), hw.mac_addr e1000_hw's, a type only the module's BTF
# has; virtio_net's receive_buf takes its virtnet_info.  netdev and dev
# go on into vmlinux's net_device.
if [ "$(sed -n 's/^arch=//p' <<<"$("$TRACEKIT" test --caps)")" = arm64 ]; then
	# The virt machine's NIC is on PCI, which virtio_pci drives.
	drv="virtio_pci virtio_net"
	rx="receive_buf vi->dev->perm_addr:x8[6]"
	rx_def="virtio_net:receive_buf perm_addr=\+[0-9]+\(\+[0-9]+\(\\\$arg1\)\):x8\[6\]"
else
	drv=e1000
	rx="e1000_clean_rx_irq adapter->hw.mac_addr adapter->netdev->perm_addr:x8[6]"
	rx_def="e1000:e1000_clean_rx_irq mac_addr=\+[0-9]+\(\\\$arg1\):x8\[6\] perm_addr=\+[0-9]+\(\+[0-9]+\(\\\$arg1\)\):x8\[6\]"
fi
for m in $drv; do
	modprobe "$m" || fail "modprobe $m failed"
done
drv=${drv##* }
[ -e "/sys/kernel/btf/$drv" ] || fail "$drv is loaded but has no /sys/kernel/btf/$drv"
iface=
for i in 1 2 3 4 5 6 7 8 9 10; do
	for n in /sys/class/net/*; do
		[ "$(cat "$n/address")" = "$mac" ] && iface=${n##*/}
	done
	[ -n "$iface" ] && break
	sleep 0.5
done
[ -n "$iface" ] || { ls /sys/class/net; fail "no interface has the MAC $mac"; }
echo "NIC $iface, MAC $mac"
# The MAC as the kernel prints an x8 array, and as JSON numbers.
want_text= want_json=
for b in ${mac//:/ }; do
	want_text+=$(printf ',0x%x' "0x$b")
	want_json+=$(printf ',%d' "0x$b")
done
want_text="{${want_text#,}}"
want_json=${want_json#,}

group=tkseed
on_exit "'$TRACEKIT' probe -d '$group:*'"
btf_add "$group" -a "$group:ip_rcv=ip_rcv dev->perm_addr:x8[6]" \
	-a "$group:open=do_sys_openat2 filename:string" -a "$group:rx=$rx"
assert_eq "three definitions in kprobe_events" "$(wc -l <"$TK_TMP/defs")" 3
assert_grep "^p:$group/ip_rcv ip_rcv perm_addr=\+[0-9]+\(\\\$arg2\):x8\[6\]$" "$TK_TMP/defs"
assert_grep "^p:$group/rx $rx_def$" "$TK_TMP/defs"

# Paths this test chooses; one does not exist, which openat2 sees all the same.
opened=("$TK_TMP/seed-$RANDOM" "$TK_TMP/seed dir-$RANDOM/f" "/tkseed-absent-$RANDOM")
mkdir -p "$(dirname "${opened[1]}")"
echo a >"${opened[0]}"
echo b >"${opened[1]}"

set -m
"$TRACEKIT" record -q -e "$group:ip_rcv" -e "$group:rx" -e "$group:open" \
	-o "$TK_TMP/seed.dat" >"$TK_TMP/rec" 2>&1 &
rec=$!
set +m
on_exit "kill $rec"
wait_tracing $rec 120
on_exit "ip link set dev '$iface' down"
ip link set dev "$iface" up || fail "ip link set $iface up failed"
# udhcpc's packet socket is bound to the NIC, so __netif_receive_skb_core
# (net/core/dev.c, 6.1) hands each IPv4 packet to ip_rcv through
# deliver_skb before the socket's handler, rather than leaving it to a
# batch for ip_list_rcv: the offer and the ack reach ip_rcv.
udhcpc -i "$iface" -n -q -t 5 -T 2 -s /bin/true >"$TK_TMP/dhcp" 2>&1 ||
	{ cat "$TK_TMP/dhcp"; fail "no DHCP lease from QEMU"; }
cat "$TK_TMP/dhcp"
for p in "${opened[@]}"; do
	cat "$p" >/dev/null 2>&1
done
kill -INT $rec
wait_bounded $rec 120 || { cat "$TK_TMP/rec"; fail "record failed"; }

"$TRACEKIT" report -i "$TK_TMP/seed.dat" >"$TK_TMP/report" || fail "report failed"
grep ' ip_rcv: ' "$TK_TMP/report"
grep -m 2 ' rx: ' "$TK_TMP/report"
for ev in ip_rcv rx; do
	n=$(grep -c " $ev: " "$TK_TMP/report")
	[ "$n" -gt 0 ] || fail "no $ev event recorded"
	good=$(grep " $ev: " "$TK_TMP/report" | grep -cF "perm_addr=$want_text")
	assert_eq "$ev events with perm_addr=$want_text" "$good" "$n"
	echo "$ev: $n events, all with perm_addr=$want_text"
done
if [ $drv = e1000 ]; then
	good=$(grep ' rx: ' "$TK_TMP/report" | grep -cF "mac_addr=$want_text")
	assert_eq "rx events with hw.mac_addr=$want_text" "$good" \
		"$(grep -c ' rx: ' "$TK_TMP/report")"
fi
grep -F ' open: ' "$TK_TMP/report" >"$TK_TMP/opens"
for p in "${opened[@]}"; do
	grep -qF "filename=\"$p\"" "$TK_TMP/opens" || fail "the report has no open of $p"
done

"$TRACEKIT" report --format json -i "$TK_TMP/seed.dat" >"$TK_TMP/json" ||
	fail "report --format json failed"
for ev in ip_rcv rx; do
	jq -r --arg ev "$ev" 'select(.event == $ev) | .fields.perm_addr | map(tostring) | join(",")' \
		"$TK_TMP/json" | sort -u >"$TK_TMP/macs"
	assert_eq "JSON perm_addr of $ev" "$(cat "$TK_TMP/macs")" "$want_json"
done
jq -r 'select(.event == "open") | .fields.filename' "$TK_TMP/json" >"$TK_TMP/json-opens"
for p in "${opened[@]}"; do
	grep -qxF "$p" "$TK_TMP/json-opens" || fail "the JSON has no open of $p"
done
echo "JSON: perm_addr [$want_json]; the ${#opened[@]} paths opened"

"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "probe -d failed"
! grep -q "$group/" "$TRACEFS/kprobe_events" || fail "probes left behind"
