#!/bin/bash
# description: vm: the whole test suite inside the Debian kernel
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

need_vm_host

# The record tests check our files with trace-cmd, the peer: ship it when
# the host has it (without it they skip in the guest as on the host).
bins=()
if command -v trace-cmd >/dev/null; then
	bins+=(--bin trace-cmd)
fi

set +e
"$VM_RUN" --tracekit "$TRACEKIT" "${bins[@]}" --timeout 1500 -- tracekit test -v >"$TK_TMP/console" 2>&1
rc=$?
set -e
# Indented, so the guest's own summary line is not mistaken for ours.
sed "s/^/  | /" "$TK_TMP/console"
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$TK_TMP/console" | tail -n 1)
[ -n "$summary" ] || fail "the guest printed no summary line"
echo "guest result: $summary"
assert_eq "guest test exit status" "$rc" 0
