# Sourced by tests/shell/probe-btf*.sh after common.sh: kernel probes
# whose types come from the running kernel's BTF alone.

# need_btf_only: no vmlinux with DWARF where tracekit looks for one, whose
# DWARF it would take instead of the BTF under test.
need_btf_only() {
	local kver v
	kver=$(uname -r)
	for v in /usr/lib/debug/boot/vmlinux-$kver \
		/usr/lib/debug/lib/modules/$kver/vmlinux \
		/boot/vmlinux-$kver /lib/modules/$kver/build/vmlinux; do
		[ -r "$v" ] &&
			fail "$v exists: tracekit would use its DWARF, this test is about BTF"
	done
}

# btf_add GROUP ARG...: `tracekit probe -v ARG...`, its output in
# $TK_TMP/add (with the kernel's error_log where it fails), which must
# name the kernel's BTF as where the types come from; GROUP's definitions
# as kprobe_events lists them in $TK_TMP/defs.
btf_add() {
	local group=$1
	shift
	"$TRACEKIT" probe -v "$@" >"$TK_TMP/add" 2>&1 || {
		cat "$TK_TMP/add"
		tail -n 5 "$TRACEFS/error_log"
		fail "probe -a failed"
	}
	cat "$TK_TMP/add"
	assert_grep "BTF in /sys/kernel/btf/vmlinux" "$TK_TMP/add"
	grep "^[pr][0-9]*:$group/" "$TRACEFS/kprobe_events" >"$TK_TMP/defs"
	cat "$TK_TMP/defs"
}
