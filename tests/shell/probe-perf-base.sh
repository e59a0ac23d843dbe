#!/bin/bash
# description: probe: perf's own base_probe tests (adding_kernel, adding_blacklisted, invalid_options) re-enacted with tracekit and their expectations
# perf 6.1's tools/perf/tests/shell/base_probe checks perf probe by what
# it prints and what the kernel then does; the same steps with tracekit
# probe, on the running kernel (the VM guest: kprobes, BTF, no vmlinux
# with DWARF, so the steps perf makes depend on debuginfo are those of
# BTF here):
#  - adding_kernel: inode_permission added with no option, -a, --add
#    ("Added new event", "probe:inode_permission", "on inode_permission"),
#    listed by -l, fired by cat /proc/uptime, removed by -d with a
#    glob; -n adds nothing; a second add without --force fails ("already
#    exists"), with --force it is inode_permission_1, and both count the
#    same calls; -d '*' removes both; -nf --max-probes=512 'vfs_* $params'
#    names vfs_mknod, vfs_create, vfs_rmdir, vfs_link and vfs_write; a
#    variable the function lacks fails naming it; %return $retval adds
#    and records.
#  - adding_blacklisted: a function of /sys/kernel/debug/kprobes/blacklist
#    is refused, and nothing is listed.
#  - invalid_options: -a, -d, -L, -V without their argument fail; -F and
#    -l without one do not; each pair of actions is refused.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap kprobes "this kernel has no kprobe_events"
f=inode_permission
on_exit "'$TRACEKIT' probe -q -d 'probe:*' 2>/dev/null || true"
listed() { "$TRACEKIT" probe -l 2>&1 | grep -c "probe:$1\b" || true; }

# --- adding_kernel ---
for opt in "" -a --add; do
	"$TRACEKIT" probe -q -d 'probe:*' 2>/dev/null
	# shellcheck disable=SC2086
	"$TRACEKIT" probe $opt $f >"$TK_TMP/add" 2>&1 || { cat "$TK_TMP/add"; fail "adding $f ($opt)"; }
	for p in "Added new events?:" "probe:$f\b" "on $f\b"; do
		assert_grep "$p" "$TK_TMP/add"
	done
done
assert_eq "-l lists probe:$f" "$(listed $f)" 1
"$TRACEKIT" record -q -e "probe:$f" -o "$TK_TMP/one.dat" -- cat /proc/uptime >/dev/null ||
	fail "record probe:$f"
n=$("$TRACEKIT" report -i "$TK_TMP/one.dat" | grep -c " $f: ")
[ "$n" -ge 1 ] || fail "probe:$f did not fire for cat /proc/uptime"
"$TRACEKIT" probe -d "$f*" >"$TK_TMP/del" 2>&1 || { cat "$TK_TMP/del"; fail "-d '$f*'"; }
assert_eq "-d '$f*' says" "$(cat "$TK_TMP/del")" "Removed event: probe:$f"
assert_eq "-l after -d" "$(listed $f)" 0

# Dry run: the same words, nothing added.
"$TRACEKIT" probe -n --add $f >"$TK_TMP/dry" 2>&1 || { cat "$TK_TMP/dry"; fail "-n --add"; }
assert_grep "Added new events?:" "$TK_TMP/dry"
assert_grep "probe:$f\b" "$TK_TMP/dry"
assert_eq "-l after -n" "$(listed $f)" 0

# --force: a second probe of one name.
"$TRACEKIT" probe --add $f >"$TK_TMP/add" 2>&1 || { cat "$TK_TMP/add"; fail "first add"; }
expect_fail "$TRACEKIT" probe --add $f
assert_grep "already exists" "$TK_TMP/out"
"$TRACEKIT" probe --force --add $f >"$TK_TMP/force" 2>&1 ||
	{ cat "$TK_TMP/force"; fail "--force --add"; }
assert_grep "probe:${f}_1\b" "$TK_TMP/force"
"$TRACEKIT" record -q -e "probe:$f" -e "probe:${f}_1" -o "$TK_TMP/two.dat" -- \
	bash -c 'cat /proc/cpuinfo >/dev/null' || fail "record both"
"$TRACEKIT" report -i "$TK_TMP/two.dat" >"$TK_TMP/two"
a=$(grep -c " $f: " "$TK_TMP/two") b=$(grep -c " ${f}_1: " "$TK_TMP/two")
[ "$a" -ge 1 ] || fail "probe:$f did not fire"
assert_eq "calls counted by probe:$f and probe:${f}_1" "$a" "$b"
"$TRACEKIT" probe --del 'probe:*' >"$TK_TMP/del" 2>&1 || fail "--del 'probe:*'"
assert_eq "removed" "$(sort "$TK_TMP/del" | tr '\n' ' ')" \
	"Removed event: probe:$f Removed event: probe:${f}_1 "

# A wildcard, as perf's test adds it (a dry run).
"$TRACEKIT" probe -nf --max-probes=512 -a 'vfs_* $params' >"$TK_TMP/wild" 2>&1 ||
	{ cat "$TK_TMP/wild"; fail "'vfs_* \$params'"; }
for e in vfs_mknod vfs_create vfs_rmdir vfs_link vfs_write; do
	assert_grep "probe:$e\b" "$TK_TMP/wild"
done
assert_eq "-l after the dry run" "$("$TRACEKIT" probe -l | grep -c probe:)" 0

# A variable the function does not have.
v=somenonexistingrandomstuffwhichisalsoprettylongorevenlongertoexceed64
rc=0
"$TRACEKIT" probe "vfs_read $v" >"$TK_TMP/out" 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$rc" -lt 128 ] || fail "'vfs_read $v': exit $rc"
assert_grep "$v" "$TK_TMP/out"
assert_eq "one line" "$(wc -l <"$TK_TMP/out")" 1

# %return $retval: added, recorded, its value in each event.
"$TRACEKIT" probe --add "$f%return \$retval" >"$TK_TMP/ret" 2>&1 ||
	{ cat "$TK_TMP/ret"; fail "$f%return \$retval"; }
assert_grep "probe:${f}__return\b" "$TK_TMP/ret"
"$TRACEKIT" record -q -e "probe:${f}__return" -o "$TK_TMP/ret.dat" -- \
	cat /proc/cpuinfo >/dev/null || fail "record the return probe"
"$TRACEKIT" report -i "$TK_TMP/ret.dat" | grep " ${f}__return: " >"$TK_TMP/retev" ||
	fail "the return probe did not fire"
# perf's pattern: "(HEX <- HEX) arg1=HEX"; tracekit names it ret, in decimal.
if grep -v -E " ${f}__return: \([0-9a-f]+ <- [0-9a-f]+\) ret=-?[0-9]+$" "$TK_TMP/retev" |
	head -3 | grep .; then
	fail "events without their return value"
fi
"$TRACEKIT" probe -q -d 'probe:*'

# --- adding_blacklisted ---
bl=/sys/kernel/debug/kprobes/blacklist
if [ -r "$bl" ] && b=$(awk '$2 !~ /^_/ { print $2; exit }' "$bl") && [ -n "$b" ]; then
	expect_fail "$TRACEKIT" probe "$b"
	assert_grep "blacklist" "$TK_TMP/out"
	assert_eq "-l after a blacklisted add" "$("$TRACEKIT" probe -l | grep -c probe:)" 0
else
	echo "no kprobe blacklist in debugfs: that part not run"
fi

# --- invalid_options ---
for opt in -a -d -L -V; do
	expect_fail "$TRACEKIT" probe $opt
	assert_grep "requires a value|needs an argument|requires an argument" "$TK_TMP/out"
done
"$TRACEKIT" probe -F >/dev/null 2>"$TK_TMP/err" || fail "-F without an argument"
"$TRACEKIT" probe -l >/dev/null 2>>"$TK_TMP/err" || fail "-l without an argument"
assert_eq "-F, -l: nothing on stderr" "$(cat "$TK_TMP/err")" ""
for opts in '-a xxx -d xxx' '-a xxx -L foo' '-a xxx -V foo' '-a xxx -l' '-a xxx -F' \
	    '-d xxx -L foo' '-d xxx -V foo' '-d xxx -l' '-d xxx -F' \
	    '-L foo -V bar' '-L foo -l' '-L foo -F' '-V foo -l' '-V foo -F' '-l -F'; do
	# shellcheck disable=SC2086
	expect_fail "$TRACEKIT" probe $opts
	assert_grep "one action at a time" "$TK_TMP/out"
done
exit 0
