#!/bin/bash
# description: command line: --version, help, usage errors, unknown commands
. "$(dirname "$0")/lib/common.sh"

"$TRACEKIT" --version >"$TK_TMP/v" || fail "--version failed"
assert_grep '^tracekit version .+' "$TK_TMP/v"

"$TRACEKIT" help >"$TK_TMP/help" || fail "help failed"
for c in probe record report stack ubifs test; do
	assert_grep "^   $c " "$TK_TMP/help"
done

# help CMD and CMD -h print the same table-generated usage, exit 0.
"$TRACEKIT" help test >"$TK_TMP/h1" || fail "help test failed"
"$TRACEKIT" test -h >"$TK_TMP/h2" || fail "test -h failed"
cmp -s "$TK_TMP/h1" "$TK_TMP/h2" || fail "help test differs from test -h"
assert_grep '^usage: tracekit test ' "$TK_TMP/h1"
assert_grep '^    -v, --verbose ' "$TK_TMP/h1"

set +e
"$TRACEKIT" recrod >"$TK_TMP/out" 2>&1
rc=$?
set -e
assert_eq "unknown command exit status" "$rc" 2
assert_grep "'recrod' is not a tracekit command" "$TK_TMP/out"
assert_grep '^	record$' "$TK_TMP/out"

set +e
"$TRACEKIT" test --no-such-option >"$TK_TMP/out" 2>&1
rc=$?
"$TRACEKIT" >/dev/null 2>&1
rc2=$?
set -e
assert_eq "unknown option exit status" "$rc" 2
assert_grep "^tracekit test: unknown option '--no-such-option'" "$TK_TMP/out"
assert_grep '^usage: tracekit test' "$TK_TMP/out"
assert_eq "no command exit status" "$rc2" 2

# Output errors are reported, not ignored.
if [ -w /dev/full ]; then
	set +e
	"$TRACEKIT" test --list >/dev/full 2>"$TK_TMP/err"
	rc=$?
	set -e
	assert_eq "write error exit status" "$rc" 1
	assert_grep 'write error' "$TK_TMP/err"
fi
exit 0
