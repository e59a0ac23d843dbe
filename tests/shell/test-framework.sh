#!/bin/bash
# description: test framework: numbering, selection, -v, timeouts, failing run exits 1
. "$(dirname "$0")/lib/common.sh"

fx() {
	TRACEKIT_TEST_FIXTURES=1 "$TRACEKIT" test "$@"
}

fx --list >"$TK_TMP/list"
assert_grep '^  1: fixture: passes$' "$TK_TMP/list"
assert_grep '^  [0-9]+: fixture: crashes$' "$TK_TMP/list"

# A run with a failing and a crashing test exits 1 and says so last.
set +e
fx >"$TK_TMP/all" 2>&1
rc=$?
set -e
assert_eq "exit status with failures" "$rc" 1
assert_eq "closing line" "$(tail -n 1 "$TK_TMP/all")" "1 passed, 4 failed, 1 skipped"
assert_grep 'fixture: fails +: FAILED!$' "$TK_TMP/all"
assert_grep 'fixture: skips +: Skip \(fixture: fixture reason\)$' "$TK_TMP/all"
# The skip ledger: a skip must name a capability --caps reports missing.
assert_grep 'naming no capability +: FAILED! \(no capability named; skip names no capability\)$' "$TK_TMP/all"
assert_grep 'naming a capability not missing +: FAILED! \(.*; skip needs !fixture, but --caps has fixture absent\)$' "$TK_TMP/all"
assert_eq "the ledger, before the closing line" "$(tail -n 3 "$TK_TMP/all" | head -n 2)" \
	"skip ledger (capability: tests skipped for it):
  fixture: 3"
assert_grep 'fixture: crashes +: FAILED! \(killed by signal 6\)$' "$TK_TMP/all"
if grep -q 'deliberate failure detail' "$TK_TMP/all"; then
	fail "failure detail shown without -v"
fi

# Selection by number and by substring; a passing run exits 0.
fx 1 >"$TK_TMP/one" || fail "selecting the passing test by number should exit 0"
assert_eq "one selected" "$(grep -c ': Ok$' "$TK_TMP/one")" 1
assert_eq "closing line for one" "$(tail -n 1 "$TK_TMP/one")" "1 passed, 0 failed, 0 skipped"
set +e
fx -v fails >"$TK_TMP/v" 2>&1
rc=$?
set -e
assert_eq "exit status of a failing selection" "$rc" 1
assert_grep 'deliberate failure detail \(4 != 5\)' "$TK_TMP/v"
assert_grep '^--- start ---$' "$TK_TMP/v"
assert_eq "substring selects one" "$(grep -c 'FAILED!' "$TK_TMP/v")" 1

# --timeout stops a test that runs too long (TERM, so its cleanups run);
# a "# timeout:" header gives one a limit of its own.  -v shows how long.
mkdir "$TK_TMP/sh"
printf '#!/bin/bash\n# description: fixture: sleeps\n# tracefs: untouched\n%s\n' \
	"trap 'echo cleaned up; exit 1' TERM; sleep 5 & wait" >"$TK_TMP/sh/a.sh"
printf '#!/bin/bash\n# description: fixture: sleeps, allowed\n# tracefs: untouched\n# timeout: 10\nsleep 2\n' \
	>"$TK_TMP/sh/b.sh"
set +e
TRACEKIT_SHELL_TESTS="$TK_TMP/sh" "$TRACEKIT" test -v --timeout 1 'fixture: sleeps' >"$TK_TMP/t" 2>&1
rc=$?
set -e
assert_eq "exit status with a timeout" "$rc" 1
assert_grep 'fixture: sleeps +: FAILED! \(timed out after 1 s\)$' "$TK_TMP/t"
assert_grep '^cleaned up$' "$TK_TMP/t"
assert_grep 'fixture: sleeps, allowed +: Ok$' "$TK_TMP/t"
assert_grep '^---- end \(2\.[0-9] s\) ----$' "$TK_TMP/t"
# The slowest tests of the run, slowest first, before the closing line.
assert_eq "slowest list" "$(sed -n '/^slowest tests (wall time):$/,$p' "$TK_TMP/t" |
	sed -n 2,3p | sed -E 's/^ +([0-9]+)\.[0-9] s +[0-9]+: /\1 s /')" \
	"2 s fixture: sleeps, allowed
1 s fixture: sleeps"

# -j: tests that leave tracefs alone run at once (each of these two waits
# for the other to have started), those that may touch it one at a time
# (in their order, the one after the other), and the results print
# in the tests' order whatever order they end in.
mkdir "$TK_TMP/par"
log=$TK_TMP/par.log
: >"$log"
for x in a b; do
	other=$([ $x = a ] && echo b || echo a)
	printf '#!/bin/bash\n# description: fixture: par %s\n# tracefs: untouched\n%s\n' "$x" \
		"echo $x >>$log; for i in \$(seq 100); do grep -qx $other $log && exit 0; sleep 0.1; done; exit 1" \
		>"$TK_TMP/par/$x.sh"
done
for x in c d; do
	printf '#!/bin/bash\n# description: fixture: par %s\n%s\n' "$x" \
		"echo $x >>$log; sleep 1; echo $x-end >>$log" >"$TK_TMP/par/$x.sh"
done
TRACEKIT_SHELL_TESTS="$TK_TMP/par" "$TRACEKIT" test -j 3 'fixture: par' >"$TK_TMP/j" 2>&1 ||
	{ cat "$TK_TMP/j" "$log"; fail "tracekit test -j 3"; }
assert_eq "-j 3: results in order" "$(sed -n 's/.*: fixture: par \(.\) *: Ok$/\1/p' "$TK_TMP/j" | tr -d '\n')" abcd
assert_eq "-j 3: c and d one at a time" "$(grep -E '^[cd]' "$log" | tr '\n' ' ')" "c c-end d d-end "
# The untouched tests with a time limit of their own start first: x and
# z each wait for y, the last in order, which would not get one of the
# two places otherwise.
mkdir "$TK_TMP/first"
: >"$TK_TMP/first.log"
for x in x z y; do
	body="for i in \$(seq 100); do grep -qx y $TK_TMP/first.log && exit 0; sleep 0.1; done; exit 1"
	limit=
	[ $x = y ] && body="echo y >>$TK_TMP/first.log" limit='# timeout: 60\n'
	printf "#!/bin/bash\n# description: fixture: first %s\n# tracefs: untouched\n$limit%s\n" \
		"$x" "$body" >"$TK_TMP/first/$(printf '%s\n' x z y | grep -n $x | cut -d: -f1).sh"
done
TRACEKIT_SHELL_TESTS="$TK_TMP/first" "$TRACEKIT" test -j 2 'fixture: first' >"$TK_TMP/f" 2>&1 ||
	{ cat "$TK_TMP/f"; fail "tracekit test -j 2: the test with a time limit did not start first"; }

# With the tracefs lock held elsewhere (by the run this test is part of),
# the tests that leave tracefs alone still run; Ctrl-C ends the wait.  A
# machine without /run/lock (the VM guest) has no lock to hold.
if [ -n "${TRACEKIT_TEST_LOCK_HELD:-}" ] && [ -e /run/lock/tracekit-test.lock ]; then
	env -u TRACEKIT_TEST_LOCK_HELD TRACEKIT_SHELL_TESTS="$TK_TMP/par" \
		"$TRACEKIT" test -j 2 'fixture: par' >"$TK_TMP/w" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q 'fixture: par b *: Ok$' "$TK_TMP/w" && break
		sleep 0.1
	done
	kill -INT $pid
	set +e
	wait $pid
	rc=$?
	set -e
	assert_eq "exit status of a run interrupted waiting for the lock" "$rc" 1
	assert_grep 'fixture: par b +: Ok$' "$TK_TMP/w"
	assert_grep '^interrupted$' "$TK_TMP/w"
	grep -q 'fixture: par c' "$TK_TMP/w" && fail "c ran without the lock"
fi
set +e
TRACEKIT_SHELL_TESTS="$TK_TMP/par" "$TRACEKIT" test -j 0 'fixture: par' >"$TK_TMP/j0" 2>&1
rc=$?
set -e
assert_eq "-j 0 exit status" "$rc" 2

# Unknown selection is a usage error.
set +e
fx no-such-test >"$TK_TMP/none" 2>&1
rc=$?
set -e
assert_eq "no match exit status" "$rc" 2
exit 0
