#!/bin/bash
# description: probe: perf probe's wildcards, lines, SRC:LINE, $vars and %return on Debian's vmlinux DWARF, side by side with perf probe -k -D: the same probe points and fetch chains
# tracefs: untouched
# The guest kernel's own debuginfo (tests/vm/vmlinux-dbg.sh), every form
# below through `perf probe -k VMLINUX -D` and `tracekit probe --regs -k
# VMLINUX -D` (registers, as perf writes them): the sorted places and
# fetch chains (types aside: tracekit-probe(1) lists where they differ)
# must be equal, and so must the verdict.  The inline-only functions of
# SYSCALL_DEFINE (__do_sys_read inside __se_sys_read inside
# __x64_sys_read) are the difference the manual lists: perf "not found",
# tracekit each copy.
. "$(dirname "$0")/lib/common.sh"

need_host_cmd perf
vmlinux=$("$TRACEKIT_SRCDIR/tests/vm/vmlinux-dbg.sh") || fail "no vmlinux with DWARF"

specs=(
	'vfs_write*' 'vfs_write* $params' 'vfs_read* $params' 'ksys_[rw]*' 'ksys_rea?'
	'tcp_sendmsg*' 'ksys_write:3' 'ksys_read:3' 'vfs_read:5' 'tcp_v4_connect:10'
	'ksys_write $vars' 'do_sys_openat2 $vars' 'do_sys_openat2:5 $vars'
	'filemap_read $vars' 'read_write.c:470' 'fs/read_write.c:620'
	'inode_permission%return $retval'
)
points() {
	grep -E '^[pr]:' "$1" | awk '{ printf "%s %s", substr($1, 1, 1), $2
		for (i = 3; i <= NF; i++) { a = $i; sub(/^[A-Za-z0-9_]+=/, "", a)
			sub(/:[^:()]*$/, "", a); printf " %s", a }
		print "" }' | LC_ALL=C sort
}
agree=0
for s in "${specs[@]}"; do
	prc=0 trc=0
	perf probe -q -k "$vmlinux" -D "$s" >"$TK_TMP/perf" 2>&1 || prc=$?
	"$TRACEKIT" probe -q --regs -k "$vmlinux" -D "$s" >"$TK_TMP/ours" 2>&1 || trc=$?
	if { [ $prc != 0 ] && [ $trc != 0 ]; } ||
	   { [ $prc = 0 ] && [ $trc = 0 ] && [ -s "$TK_TMP/ours" ] &&
	     [ "$(points "$TK_TMP/perf")" = "$(points "$TK_TMP/ours")" ]; }; then
		agree=$((agree + 1))
		continue
	fi
	sed 's/^/  perf:     /' "$TK_TMP/perf"
	sed 's/^/  tracekit: /' "$TK_TMP/ours"
	fail "'$s': perf exit $prc, tracekit exit $trc, not the same points"
done
echo "$agree of ${#specs[@]} kernel specs agree with perf probe -k"

# The listed difference.
expect_fail perf probe -q -k "$vmlinux" -D '__do_sys_read'
"$TRACEKIT" probe --regs -k "$vmlinux" -D '__do_sys_read' >"$TK_TMP/ours" ||
	fail "__do_sys_read refused"
assert_grep '^p:probe/__do_sys_read __x64_sys_read\+[0-9]+' "$TK_TMP/ours"
exit 0
