#!/bin/bash
# description: vm: the whole test suite inside the Debian kernel
# tracefs: untouched
# timeout: 1800
. "$(dirname "$0")/lib/common.sh"

need_vm_host

# The oracles and tools the guest's tests need, which the host has from
# scripts/deps.sh; in the guest, as on the host, one missing is a failure.
need_cmd trace-cmd jq mkfs.ubifs openssl
bins=(--bin trace-cmd --bin jq --bin mkfs.ubifs --bin openssl)

# Two image tests run on the host only, by name here, not by a skip:
# in the busybox guest they fail (ubifs-sign.sh needs GNU diff and find,
# ubifs-verify.sh misses its flipped byte), and they test no kernel.
# The tamper suite too: it tests no kernel either, and its 7800
# verifications take longer than a guest test's 300 s under TCG.
host_only="ubifs-sign.sh ubifs-verify.sh"
tamper="ubifs: every flipped byte is detected and located"
descs=$(for f in $host_only; do sed -n 's/^# description: //p' "$(dirname "$0")/$f"; done
	echo "$tamper")
selection=$("$TRACEKIT" test --list | while read -r num desc; do
	printf '%s\n' "$descs" | grep -qxF -- "$desc" || echo "${num%:}"
done)
echo "not run in the guest (the host runs them): $host_only, '$tamper'"

# Each guest test has a limit of its own, so one that hangs fails with its
# log and the rest still run; the console is shown as it comes, so even a
# run killed from outside leaves the log of how far it got. Indented, so
# the guest's summary line is not mistaken for ours.
set +e
# The guest has no /usr/lib/ssl/openssl.cnf, without which OpenSSL 3
# refuses to start; an empty one gives its defaults.
# shellcheck disable=SC2086
"$VM_RUN" --tracekit "$TRACEKIT" "${bins[@]}" --timeout 1700 -- \
	env OPENSSL_CONF=/dev/null tracekit test -v --timeout 300 $selection 2>&1 | tee "$TK_TMP/console" | sed -u "s/^/  | /"
rc=${PIPESTATUS[0]}
set -e
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$TK_TMP/console" | tail -n 1)
[ -n "$summary" ] || fail "the guest printed no summary line"
echo "guest result: $summary"
assert_eq "guest test exit status" "$rc" 0
