#!/bin/bash
# description: exit codes: every command exits as its manual's EXIT STATUS lists, each code provoked (usage error, failure, environment unavailable)
. "$(dirname "$0")/lib/common.sh"

# The tree the script is in (the VM guest carries tests/ and
# Documentation/, not the source tree the binary was built from).
src=$(cd "$(dirname "$0")/../.." && pwd)
data=$src/tests/data
need_cmd setpriv unshare
cd "$TK_TMP"

# The codes a command's manual lists: the "N::" items of EXIT STATUS.
documented() {
	sed -n '/^EXIT STATUS$/,/^[A-Z][A-Z ]*$/s/^\([0-9]\+\)::$/\1/p' \
		"$src/Documentation/tracekit-$1.txt" | sort -un | tr '\n' ' '
}

# What each command was seen to exit with, or could not be made to exit
# with on this host ("CMD CODE" lines).
: >codes

# expect CODE CMD ARGS...: tracekit CMD ARGS exits CODE, and a failure
# says why on stderr (the test runner: in its report).
expect() {
	local want=$1 rc=0
	shift
	"$TRACEKIT" "$@" >out 2>err || rc=$?
	[ "$rc" = "$want" ] || { cat err; fail "tracekit $*: exit $rc, want $want"; }
	[ "$want" = 0 ] || [ -s err ] || { [ "$1" = test ] && [ -s out ]; } ||
		fail "tracekit $*: exit $rc, nothing on stderr"
	echo "$1 $want" >>codes
}

# as_user CMD...: CMD run by a user who may not use tracefs, nobody
# where the test runs as root.  BusyBox's setpriv (the VM guest's)
# changes no user: there the unprivileged codes are not checked.
drop=self
if [ "$(cap root)" = 1 ]; then
	drop=
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null && drop=setpriv
fi
# A sanitizer build checks no leaks there: its suppressions file may be
# where that user cannot read it (a clone in /root), and LeakSanitizer
# failing would decide the exit code.
as_user() {
	if [ "$drop" = setpriv ]; then
		env ASAN_OPTIONS=detect_leaks=0 LSAN_OPTIONS= \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
# expect_user CODE CMD ARGS...: as expect, run as_user.
expect_user() {
	local want=$1 rc=0
	shift
	as_user "$TRACEKIT" "$@" >out 2>err || rc=$?
	[ "$rc" = "$want" ] || { cat err; fail "tracekit $* (unprivileged): exit $rc, want $want"; }
	[ -s err ] || fail "tracekit $* (unprivileged): exit $rc, nothing on stderr"
	echo "$1 $want" >>codes
}

# unchecked CMD CODE WHY: this host cannot make CMD exit CODE.
unchecked() {
	echo "not checked here: tracekit $1 exiting $2: $3"
	echo "$1 $2" >>codes
}

# The capabilities of the unprivileged user decide whether it meets 3.
user_tracefs=1
no_user="tracefs writable by every user"
if [ -n "$drop" ]; then
	user_tracefs=$(as_user "$TRACEKIT" test --caps | sed -n 's/^tracefs_writable=//p')
else
	no_user="no way to run as another user here (setpriv --reuid)"
fi
# Where that user writes a file, so that what it meets is tracefs.
chmod 711 .
mkdir -m 777 shared

# probe: an SDT spec of a missing binary is a failure, as a function's is.
expect 0 probe -x "$TRACEKIT" -D main
expect 1 probe -x nosuch -D main
expect 1 probe -x nosuch -D sdt_app:mark
expect 2 probe --keep-going -x "$TRACEKIT" main
if [ "$(cap kprobes)" = 0 ] && [ "$(cap btf)" = 1 ]; then
	expect 3 probe vfs_read
elif [ "$user_tracefs" != 1 ]; then
	expect_user 3 probe -x "$TRACEKIT" main
else
	unchecked probe 3 "kprobes present and $no_user"
fi

if [ "$(cap tracefs_writable)" = 1 ]; then
	expect 0 record -e sched:sched_switch -o r.dat -- true
else
	unchecked record 0 "no writable tracefs"
fi
expect 1 record -e sched:sched_switch -o nodir/r.dat -- true
expect 2 record -z 99 -e sched:sched_switch
if [ "$user_tracefs" != 1 ]; then
	expect_user 3 record -e sched:sched_switch -o shared/r.dat -- true
else
	unchecked record 3 "$no_user"
fi

expect 0 report "$data/report-sched-v7.dat"
expect 1 report nosuch.dat
expect 2 report --format xml "$data/report-sched-v7.dat"
expect 1 report --sum nosuch "$data/report-sched-v7.dat"
expect 2 report --count --sum prev_pid "$data/report-sched-v7.dat"
expect 1 report --latency nosuch,sched_switch "$data/report-sched-v7.dat"
expect 1 report --latency sched_wakeup,sched_switch --match pid,nosuch \
	"$data/report-sched-v7.dat"
expect 2 report --latency sched_wakeup, "$data/report-sched-v7.dat"

expect 2 stack --start --stop
if [ "$(cap stack_tracer)" = 1 ] && [ "$(cap root)" = 1 ]; then
	expect 0 stack --json
	expect 1 stack --filter tk_no_such_function
	expect 127 stack -- ./nosuch
	if [ "$user_tracefs" != 1 ]; then
		expect_user 3 stack
	else
		unchecked stack 3 "$no_user"
	fi
else
	# Every form needs the stack tracer first (stack-unavailable.sh).
	expect 3 stack
	for code in 0 1 127; do
		unchecked stack $code "no stack tracer to use"
	done
fi

export TRACEKIT_TEST_FIXTURES=1
expect 0 test 1
expect 1 test fails
expect 2 test 99999
# A /tmp it cannot write to, in a mount namespace of its own.
if unshare -rm true 2>/dev/null; then
	rc=0
	# /tmp made read-only in place, not hidden: the binary may be there.
	unshare -rm sh -c 'mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp && exec "$@"' sh \
		"$TRACEKIT" test 1 >out 2>err || rc=$?
	assert_eq "test with a read-only /tmp: exit status" "$rc" 3
	assert_grep '^tracekit test: cannot create a temporary directory' err
	echo "test 3" >>codes
else
	unchecked test 3 "no mount namespace to make /tmp read-only in"
fi
unset TRACEKIT_TEST_FIXTURES

zcat "$data/ubifs-kernel-hmac.img.gz" >k.img
head -c 1000 k.img >short.img
expect 0 ubifs info k.img
expect 1 ubifs verify short.img
expect 2 ubifs verify --max-size 1 k.img

for c in probe record report stack test ubifs; do
	assert_eq "tracekit $c: the codes of its manual's EXIT STATUS" \
		"$(sed -n "s/^$c //p" codes | sort -un | tr '\n' ' ')" "$(documented $c)"
done
exit 0
