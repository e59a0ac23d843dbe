#!/bin/bash
# description: vm: the whole test suite inside the Debian kernel
# tracefs: untouched
# timeout: 1800
. "$(dirname "$0")/lib/common.sh"

need_vm_host

# The record tests check our files with trace-cmd, the peer: ship it when
# the host has it (without it they skip in the guest as on the host).
bins=()
if command -v trace-cmd >/dev/null; then
	bins+=(--bin trace-cmd)
fi

# Each guest test has a limit of its own, so one that hangs fails with its
# log and the rest still run; the console is shown as it comes, so even a
# run killed from outside leaves the log of how far it got. Indented, so
# the guest's summary line is not mistaken for ours.
set +e
"$VM_RUN" --tracekit "$TRACEKIT" "${bins[@]}" --timeout 1700 -- \
	tracekit test -v --timeout 300 2>&1 | tee "$TK_TMP/console" | sed -u "s/^/  | /"
rc=${PIPESTATUS[0]}
set -e
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$TK_TMP/console" | tail -n 1)
[ -n "$summary" ] || fail "the guest printed no summary line"
echo "guest result: $summary"
assert_eq "guest test exit status" "$rc" 0
