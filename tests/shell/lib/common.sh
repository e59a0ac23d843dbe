# Sourced by tests/shell/*.sh.  `tracekit test` runs each script with bash
# and sets TRACEKIT (the binary under test), TRACEKIT_SRCDIR and
# TRACEKIT_SKIP_FILE.  Exit 0 = Ok, 1 = FAILED, 2 = Skip (reason via skip).
set -u

TRACEKIT=${TRACEKIT:-tracekit}
TK_TMP=$(mktemp -d /tmp/tktest.XXXXXX)
TK_CLEANUPS=()

# Runs registered cleanups newest first, then removes the scratch dir.
tk_cleanup() {
	local i
	for ((i = ${#TK_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${TK_CLEANUPS[i]}" >/dev/null 2>&1
	done
	TK_CLEANUPS=()
	rm -rf "$TK_TMP"
}
trap 'tk_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# on_exit 'command': registered undo (for probes, instances, files).
on_exit() {
	TK_CLEANUPS+=("$1")
}

skip() {
	[ -n "${TRACEKIT_SKIP_FILE:-}" ] && printf '%s\n' "$*" >"$TRACEKIT_SKIP_FILE"
	echo "SKIP: $*"
	exit 2
}

fail() {
	echo "FAILED: $*" >&2
	exit 1
}

# cap NAME: the value of NAME in `tracekit test --caps`.
cap() {
	"$TRACEKIT" test --caps | sed -n "s/^$1=//p"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

need_tracefs() {
	need_root
	TRACEFS=$(cap tracefs)
	[ -n "$TRACEFS" ] || skip "tracefs is not mounted"
}

need_cap() {
	[ "$(cap "$1")" = 1 ] || skip "${2:-this host lacks $1}"
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
	done
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
	[ -z "${TRACEKIT_IN_VM:-}" ] || skip "already inside the VM"
	need_cmd qemu-system-x86_64 cpio apt-get "$@"
	[ -x /bin/busybox ] || skip "busybox-static is not installed"
	VM_RUN=${TRACEKIT_SRCDIR:-$(dirname "$0")/../..}/tests/vm/run.sh
	[ -x "$VM_RUN" ] || skip "no VM harness at $VM_RUN"
}
