#!/bin/bash
# description: probe: kernel functions from the guest's BTF alone equal the same specs from its vmlinux DWARF; 1,000 added at once
# tracefs: untouched
# The Debian 6.1 guest translates, from /sys/kernel/btf/vmlinux alone,
# "FUNC $params P->M..." for the functions of its BTF (a member chain for
# each struct pointer parameter, lib/btf-specs.awk); the host translates
# the same specs from that kernel's real DWARF (linux-image-VERSION-dbg,
# tests/vm/vmlinux-dbg.sh).  Every difference is put in a kind; a kind
# not known to come from the DWARF (an argument the compiler moved or
# dropped) fails.  The guest then adds 1,000 of its definitions to
# kprobe_events in one tracekit probe -a, all of which the kernel must
# accept, and removes them.  TK_BTF_STRIDE=N takes every Nth function
# (default 16, 4 in make check-full; 1 for all of them, ~6 minutes of
# guest time under TCG).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/btf-dwarf.sh"

need_vm_host bpftool llvm-dwarfdump
vmlinux=$("$TRACEKIT_SRCDIR/tests/vm/vmlinux-dbg.sh") || fail "no vmlinux with DWARF"
stride=${TK_BTF_STRIDE:-$(sized 16 4)}

btf_dwarf_specs
btf_dwarf_host
"$VM_RUN" --tracekit "$TRACEKIT" --bin bpftool --timeout 1800 -- \
	bash /tracekit/tests/shell/lib/btf-guest.sh "$stride" 1000 >"$TK_TMP/console" 2>&1
rc=$?
btf_dwarf_wait
grep -E '^(vm:|BTF-SPECS|BATCH)' "$TK_TMP/console"
[ $rc = 0 ] || { tail -n 20 "$TK_TMP/console"; fail "the guest run failed ($rc)"; }
btf_dwarf_results

# The guest's BTF and the vmlinux's .BTF must give the same specs.
want="$(wc -l <"$TK_TMP/specs") $(md5sum <"$TK_TMP/specs" | cut -d' ' -f1)"
got=$(sed -n 's/^BTF-SPECS: //p' "$TK_TMP/console" | tr -d '\r')
assert_eq "specs from the guest's BTF" "$got" "$want"

btf_dwarf_classify "%di %si %dx %cx %r8 %r9" 8 ""
btf_dwarf_batch
exit 0
