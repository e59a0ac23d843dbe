#!/bin/bash
# description: arm64: kernel functions from the arm64 guest's BTF alone (the arm64 build, in the guest) equal the same specs from Debian's arm64 vmlinux DWARF (this x86 build, here); 1,000 added at once
# tracefs: untouched
# timeout: 1500
# probe-btf-dwarf.sh for arm64: the specs of every Nth function of the
# arm64 kernel's BTF (lib/btf-specs.awk) are translated in the arm64
# guest by the arm64 build from /sys/kernel/btf/vmlinux alone, and here
# by this x86 build from linux-image-VERSION-arm64-dbg's vmlinux
# (tests/vm/vmlinux-dbg.sh --arch arm64), with arm64's registers (x0-x7)
# and AAPCS64's placement of composites (lib/btf-dwarf.sh classifies
# every difference).  The guest has no bpftool: the host makes the
# specs, from the vmlinux's .BTF, after checking that it is the BTF the
# guest kernel exports.  TK_BTF_STRIDE=N as probe-btf-dwarf.sh (default
# 32, 8 in make check-full).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arm64.sh"
. "$(dirname "$0")/lib/btf-dwarf.sh"

need_vm_host qemu-system-aarch64 aarch64-linux-gnu-gcc bpftool llvm-dwarfdump readelf make
arm64_tracekit
vmlinux=$("$TRACEKIT_SRCDIR/tests/vm/vmlinux-dbg.sh" --arch arm64) ||
	fail "no arm64 vmlinux with DWARF"
stride=${TK_BTF_STRIDE:-$(sized 32 8)}

"$VM_RUN" --arch arm64 --timeout 300 --btf-out "$TK_TMP/guest.btf" >"$TK_TMP/btf.log" 2>&1 ||
	{ cat "$TK_TMP/btf.log"; fail "cannot get the arm64 guest's BTF"; }
btf_dwarf_specs
bpftool btf dump file "$TK_TMP/guest.btf" format raw | cmp -s - "$TK_TMP/btf.raw" ||
	fail "the guest's /sys/kernel/btf/vmlinux is not the .BTF of $vmlinux"
btf_dwarf_host
"$VM_RUN" --arch arm64 --tracekit "$ARM64_TRACEKIT" --file "$TK_TMP/specs" --timeout 1300 -- \
	bash /tracekit/tests/shell/lib/btf-guest.sh "$stride" 1000 /tracekit/files/specs \
	>"$TK_TMP/console" 2>&1
rc=$?
btf_dwarf_wait
grep -E '^(vm:|BTF-SPECS|BATCH)' "$TK_TMP/console"
[ $rc = 0 ] || { tail -n 20 "$TK_TMP/console"; fail "the guest run failed ($rc)"; }
btf_dwarf_results

# Debian's arm64 kernel is built with -fpatchable-function-entry=2: two
# NOPs for ftrace start each function, before the DWARF's DW_AT_low_pc.
btf_dwarf_classify "%x0 %x1 %x2 %x3 %x4 %x5 %x6 %x7" 0 8
btf_dwarf_batch
exit 0
