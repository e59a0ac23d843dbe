#!/bin/bash
# description: vm: the whole test suite inside the Debian kernel, the record and report tests first thing after boot
# tracefs: untouched
# timeout: 1800
. "$(dirname "$0")/lib/common.sh"

need_vm_host

# The oracles and tools the guest's tests need, which the host has from
# scripts/deps.sh; in the guest, as on the host, one missing is a failure.
need_cmd trace-cmd jq mkfs.ubifs openssl

# Two image tests run on the host only, by name here, not by a skip:
# in the busybox guest they fail (ubifs-sign.sh needs GNU diff and find,
# ubifs-verify.sh misses its flipped byte), and they test no kernel.
# The tamper suite too: it tests no kernel either, and its 7800
# verifications take longer than a guest test's 300 s under TCG.
host_only="ubifs-sign.sh ubifs-verify.sh"
tamper="ubifs: every flipped byte is detected and located"
descs=$(for f in $host_only; do sed -n 's/^# description: //p' "$(dirname "$0")/$f"; done
	echo "$tamper")
numbers() {
	"$TRACEKIT" test --list "$@" | while read -r num desc; do
		printf '%s\n' "$descs" | grep -qxF -- "$desc" || echo "${num%:}"
	done
}
echo "not run in the guest (the host runs them): $host_only, '$tamper'"

# One boot for both runs (a boot and the record tests are most of this
# test's time under TCG).  The guest's ring buffers are as boot left them
# ("7 (expanded: 1408)"), as on a new user's machine: the first run is the
# tests that enable events in its tracefs, and none may fail or skip for
# that; the second is every other test.
first=$(numbers record report | tr '\n' ' ')
rest=$(numbers | grep -vxF -f <(printf '%s\n' $first) | tr '\n' ' ')
buf=/sys/kernel/tracing/buffer_size_kb
# The guest has no /usr/lib/ssl/openssl.cnf, without which OpenSSL 3
# refuses to start; an empty one gives its defaults.  Each guest test has
# a limit of its own, so one that hangs fails with its log and the rest
# still run.  One line: the harness quotes the command for the guest's sh.
run="env OPENSSL_CONF=/dev/null tracekit test -v --timeout 300"
guest="echo \"FRESH-BEFORE: \$(cat $buf)\"; $run $first; rc1=\$?"
guest+="; echo \"FRESH-AFTER: \$(cat $buf)\"; echo GUEST-SECOND-RUN; $run $rest"
guest+="; rc2=\$?; echo \"GUEST-EXIT: \$rc1 \$rc2\"; [ \$rc1 = 0 ] && [ \$rc2 = 0 ]"

# The console is shown as it comes, so even a run killed from outside
# leaves the log of how far it got.  Indented, so the guest's summary
# lines are not mistaken for ours.
set +e
"$VM_RUN" --tracekit "$TRACEKIT" --suite-tools --timeout 1700 -- \
	sh -c "$guest" 2>&1 | tee "$TK_TMP/console" | sed -u "s/^/  | /"
rc=${PIPESTATUS[0]}
set -e
before=$(sed -n 's/^FRESH-BEFORE: //p' "$TK_TMP/console")
after=$(sed -n 's/^FRESH-AFTER: //p' "$TK_TMP/console")
sums=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$TK_TMP/console")
echo "guest buffer_size_kb: '$before' before, '$after' after"
echo "guest results (record and report first, then the rest):"
printf '  %s\n' "$sums"
case $before in
*"(expanded: "*) ;;
*) fail "the guest was not freshly booted: buffer_size_kb '$before'" ;;
esac
# The first run expanded the buffers itself, before any test could.
sed '/^GUEST-SECOND-RUN$/q' "$TK_TMP/console" >"$TK_TMP/first"
assert_grep '^tracekit test: ring buffers expanded once for this boot' "$TK_TMP/first"
assert_eq "guest summary lines" "$(printf '%s\n' "$sums" | grep -c .)" 2
if printf '%s\n' "$sums" | grep -qv ' 0 failed, '; then
	# Again at the end, where a CI log's tail shows it: each failed
	# test's last lines.
	grep -B 40 ': FAILED!' "$TK_TMP/console" | tail -n 160
	fail "guest: a test failed: $(grep -c ': FAILED!' "$TK_TMP/console")"
fi
assert_grep '^GUEST-EXIT: 0 0$' "$TK_TMP/console"
assert_eq "guest exit status" "$rc" 0
exit 0
