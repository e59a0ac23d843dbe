#!/bin/bash
# description: vm: on a freshly booted kernel, the record and report tests pass first thing
# tracefs: untouched
# The guest's ring buffers are as boot left them ("7 (expanded: 1408)"),
# as on a new user's machine: the first thing it runs is the tests that
# enable events in its tracefs, and none may fail or skip for that.
. "$(dirname "$0")/lib/common.sh"

need_vm_host
need_cmd trace-cmd jq

buf=/sys/kernel/tracing/buffer_size_kb
# One line: the harness quotes the command for the guest's sh.
guest="echo \"FRESH-BEFORE: \$(cat $buf)\"; tracekit test -v --timeout 300 record report"
guest+="; rc=\$?; echo \"FRESH-AFTER: \$(cat $buf)\"; exit \$rc"
set +e
"$VM_RUN" --tracekit "$TRACEKIT" --bin trace-cmd --bin jq --timeout 1200 -- \
	sh -c "$guest" 2>&1 | tee "$TK_TMP/console" | sed -u "s/^/  | /"
rc=${PIPESTATUS[0]}
set -e
before=$(sed -n 's/^FRESH-BEFORE: //p' "$TK_TMP/console")
after=$(sed -n 's/^FRESH-AFTER: //p' "$TK_TMP/console")
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$TK_TMP/console" | tail -n 1)
echo "guest buffer_size_kb: '$before' before, '$after' after; result: $summary"
case $before in
*"(expanded: "*) ;;
*) fail "the guest was not freshly booted: buffer_size_kb '$before'" ;;
esac
assert_grep '^tracekit test: ring buffers expanded once for this boot' "$TK_TMP/console"
[ -n "$summary" ] || fail "the guest printed no summary line"
case $summary in
*" 0 failed, "*) ;;
*) fail "guest: $summary" ;;
esac
assert_eq "guest test exit status" "$rc" 0
