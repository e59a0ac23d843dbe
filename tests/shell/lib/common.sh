# Sourced by tests/shell/*.sh.  `tracekit test` runs each script with bash
# and sets TRACEKIT (the binary under test), TRACEKIT_SRCDIR and
# TRACEKIT_SKIP_FILE.  Exit 0 = Ok, 1 = FAILED, 2 = Skip (via need_cap:
# a skip names the --caps capability it lacks, and the runner checks it).
set -u

TRACEKIT=${TRACEKIT:-tracekit}
TK_TMP=$(mktemp -d /tmp/tktest.XXXXXX)
TK_CLEANUPS=()

# Runs registered cleanups newest first, then removes the scratch dir
# (kept for a post-mortem when TK_KEEP is set).
tk_cleanup() {
	local i
	for ((i = ${#TK_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${TK_CLEANUPS[i]}" >/dev/null 2>&1
	done
	TK_CLEANUPS=()
	[ -n "${TK_KEEP:-}" ] || rm -rf "$TK_TMP"
}
trap 'tk_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# on_exit 'command': registered undo (for probes, instances, files).
on_exit() {
	TK_CLEANUPS+=("$1")
}

# skip_cap CAP REASON: skip, naming the capability (a --caps key, or
# !KEY for one this test must not have) whose lack is the reason.  A skip
# that --caps does not bear out counts as a failure (the skip ledger).
skip_cap() {
	local c=$1
	shift
	[ -n "${TRACEKIT_SKIP_FILE:-}" ] && printf '%s\n%s\n' "$c" "$*" >"$TRACEKIT_SKIP_FILE"
	echo "SKIP: $c: $*"
	exit 2
}

# skip REASON: names no capability, so the runner fails it.
skip() {
	skip_cap "" "$@"
}

fail() {
	echo "FAILED: $*" >&2
	exit 1
}

# sized SAMPLE FULL: how much of a kernel-scale comparison to run: SAMPLE
# in make check, which must fit a CI run on a fresh machine, FULL in make
# check-full (TRACEKIT_TEST_FULL=1), which a change touching the
# comparison runs and reports.
sized() {
	if [ -n "${TRACEKIT_TEST_FULL:-}" ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

# cap NAME: the value of NAME in `tracekit test --caps`.
cap() {
	"$TRACEKIT" test --caps | sed -n "s/^$1=//p"
}

# tree_check SCRIPT OUT: the tests of the source tree's own rules.  Sets
# src (the tree) and check (scripts/SCRIPT, for the tests of the checker
# on small trees), and runs the checker on the tree into OUT, which it
# must pass.
tree_check() {
	need_cap '!in_vm' "the guest has neither the sources nor scripts/"
	src=${TRACEKIT_SRCDIR:-$(dirname "$0")/../..}
	check=$src/scripts/$1
	"$check" "$src" >"$2" 2>&1 || { cat "$2"; fail "$1 on $src"; }
}

need_root() {
	need_cap root "needs root"
}

need_tracefs() {
	need_root
	need_cap tracefs "tracefs is not mounted"
	TRACEFS=$(cap tracefs)
}

# need_cap CAP [REASON]: skip unless --caps has CAP (not empty, not 0);
# need_cap !CAP: skip unless it lacks CAP.
need_cap() {
	local c=${1#!} v
	v=$(cap "$c")
	[ "$v" = 0 ] && v=
	if [ "$c" = "$1" ]; then
		[ -n "$v" ] || skip_cap "$1" "${2:-this host lacks $c}"
	else
		[ -z "$v" ] || skip_cap "$1" "${2:-this test cannot run where $c}"
	fi
}

# need_cmd CMD...: the tools scripts/deps.sh installs (and the VM
# harness ships): one missing is a failure, not a skip.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			fail "$c is not installed (scripts/deps.sh installs it)"
	done
}

# need_host_cmd CMD...: tools the VM guest does not carry (the compiler,
# perf): there the test skips for !in_vm; on the host need_cmd.
need_host_cmd() {
	local c
	for c in "$@"; do
		if [ -n "${TRACEKIT_IN_VM:-}" ] && ! command -v "$c" >/dev/null 2>&1; then
			skip_cap '!in_vm' "$c is not in the VM guest"
		fi
	done
	need_cmd "$@"
}

# test_helper OUT SOURCE [GCC-ARG...]: the program SOURCE of tests/shell
# built into OUT; in a guest without a compiler, the build of it that
# the harness shipped into $TRACEKIT_HELPERS under OUT's last name
# (arm64-suite.sh's cross builds), else the test skips there.
test_helper() {
	local out=$1 src=$(dirname "$0")/$2
	shift 2
	if [ -n "${TRACEKIT_HELPERS:-}" ] && [ -e "$TRACEKIT_HELPERS/${out##*/}" ]; then
		cp "$TRACEKIT_HELPERS/${out##*/}" "$out" || fail "cannot copy ${out##*/}"
		return
	fi
	need_host_cmd gcc
	gcc -O2 -Wall -o "$out" "$src" "$@" || fail "cannot build $src"
}

# expect_fail CMD...: CMD must exit non-zero; its output goes to $TK_TMP/out.
expect_fail() {
	if "$@" >"$TK_TMP/out" 2>&1; then
		cat "$TK_TMP/out"
		fail "expected failure: $*"
	fi
	return 0
}

# assert_eq WHAT GOT WANT
assert_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

assert_grep() {
	grep -q -E -- "$1" "$2" || { cat "$2"; fail "'$1' not found in $2"; }
}

# need_vm_host: this test boots the VM itself (tests/vm/run.sh, set in
# $VM_RUN), so it runs on the host only and needs QEMU and busybox.
need_vm_host() {
	need_cap '!in_vm' "already inside the VM"
	need_cmd qemu-system-x86_64 cpio apt-get "$@"
	[ -x /bin/busybox ] || fail "busybox-static is not installed"
	VM_RUN=${TRACEKIT_SRCDIR:-$(dirname "$0")/../..}/tests/vm/run.sh
	[ -x "$VM_RUN" ] || fail "no VM harness at $VM_RUN"
}
