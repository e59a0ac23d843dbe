#!/bin/bash
# description: command line: --version, help, usage errors, unknown commands
. "$(dirname "$0")/lib/common.sh"

"$TRACEKIT" --version >"$TK_TMP/v" || fail "--version failed"
assert_grep '^tracekit version .+' "$TK_TMP/v"

# help lists every command of the command table, with its summary, in
# the table's order.
"$TRACEKIT" help >"$TK_TMP/help" || fail "help failed"
"$TRACEKIT" --list-cmds=summary >"$TK_TMP/table" || fail "--list-cmds=summary failed"
[ -s "$TK_TMP/table" ] || fail "--list-cmds=summary printed no command"
while IFS=$'\t' read -r name summary; do
	printf '   %-10s %s\n' "$name" "$summary"
done <"$TK_TMP/table" >"$TK_TMP/want"
grep '^   ' "$TK_TMP/help" >"$TK_TMP/got"
diff -u "$TK_TMP/want" "$TK_TMP/got" || fail "help lists other commands than the table"

# Where man finds no tracekit-test page (an empty MANPATH, whatever is
# installed on the host), help CMD and CMD --help print what CMD -h
# prints, the table-generated usage, and exit 0.
mkdir -p "$TK_TMP/man/man1"
export MANPATH=$TK_TMP/man MANPAGER=cat PAGER=cat
"$TRACEKIT" help test >"$TK_TMP/h1" || fail "help test failed"
"$TRACEKIT" test -h >"$TK_TMP/h2" || fail "test -h failed"
"$TRACEKIT" test --help >"$TK_TMP/h3" || fail "test --help failed"
cmp -s "$TK_TMP/h1" "$TK_TMP/h2" || fail "help test differs from test -h"
cmp -s "$TK_TMP/h3" "$TK_TMP/h2" || fail "test --help differs from test -h"
assert_grep '^usage: tracekit test ' "$TK_TMP/h1"
assert_grep '^    -v, --verbose ' "$TK_TMP/h1"

# Where it finds one, help CMD and CMD --help show the page as man
# renders it (into a pipe: no pager), and -h stays the usage.  The VM
# guest has no man: there the host's run of this test covers it.
if [ -z "${TRACEKIT_IN_VM:-}" ] || command -v man >/dev/null 2>&1; then
	cat >"$TK_TMP/man/man1/tracekit-test.1" <<'EOF'
.TH TRACEKIT-TEST 1
.SH NAME
tracekit-test \- a page only this test has
EOF
	"$TRACEKIT" help test >"$TK_TMP/m1" || fail "help test with a page failed"
	"$TRACEKIT" test --help >"$TK_TMP/m2" || fail "test --help with a page failed"
	assert_grep '^TRACEKIT-TEST\(1\)' "$TK_TMP/m1"
	assert_grep 'tracekit-test - a page only this test has' "$TK_TMP/m1"
	cmp -s "$TK_TMP/m1" "$TK_TMP/m2" || fail "test --help differs from help test"
	"$TRACEKIT" test -h >"$TK_TMP/h4" || fail "test -h failed"
	cmp -s "$TK_TMP/h4" "$TK_TMP/h2" || fail "test -h shows more than the usage"
fi
unset MANPATH

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
