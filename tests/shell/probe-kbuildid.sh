#!/bin/bash
# description: probe: -k VMLINUX with the running kernel's build-id (as perf buildid-list -k reads it) is checked against kallsyms; another's is not
# tracefs: untouched
# A -k file counts as the running kernel only when its build-id is the one
# in /sys/kernel/notes; then what kallsyms says the kernel would refuse is
# refused first, as with BTF.  The build-id comes from perf, and gcc puts
# it (or another) into a small ELF whose DWARF describes a function the
# kernel has, one kallsyms does not list, and, where this kernel has one,
# a local name kallsyms lists twice.
. "$(dirname "$0")/lib/common.sh"
export LC_ALL=C

need_cap root "reads the addresses in /proc/kallsyms"
need_host_cmd gcc perf readelf
bid=$(perf buildid-list -k 2>/dev/null)
[[ $bid =~ ^[0-9a-f]{40}$ ]] || fail "perf buildid-list -k gave '$bid', no build-id"
absent=tk_nowhere_in_kallsyms
grep -q " $absent\$" /proc/kallsyms && fail "/proc/kallsyms lists $absent"
dup=$(awk '$2 == "t" && $3 !~ /[.]/ { print $3 }' /proc/kallsyms | sort | uniq -c |
	awk '$1 == 2 { print $2; exit }')

{
	echo 'int vfs_read(void *f, char *buf, unsigned long n, long *pos) { return n > 0; }'
	echo "int $absent(int a) { return a + 1; }"
	[ -z "$dup" ] || echo "int $dup(int a) { return a * 2; }"
} >"$TK_TMP/k.c"
for which in same:$bid other:0123456789abcdef0123456789abcdef01234567; do
	gcc -g -O2 -nostdlib -static -Wl,-e,vfs_read -Wl,--build-id=0x"${which#*:}" \
		-o "$TK_TMP/${which%%:*}" "$TK_TMP/k.c" || fail "gcc failed"
done
readelf -n "$TK_TMP/same" | grep -q "Build ID: $bid" || fail "gcc did not set the build-id"

specs=(-D 'vfs_read buf' -D "$absent a")
[ -z "$dup" ] || specs+=(-D "$dup a")
for k in same other; do
	"$TRACEKIT" probe -k "$TK_TMP/$k" --keep-going "${specs[@]}" >"$TK_TMP/$k.out" 2>"$TK_TMP/$k.err"
	echo "-k with the $k build-id: exit $?"
	cat "$TK_TMP/$k.out" "$TK_TMP/$k.err"
done

# Another kernel's vmlinux: translated, nothing checked against this one.
assert_eq "definitions from -k of another build-id" "$(wc -l <"$TK_TMP/other.out")" "$((${#specs[@]} / 2))"
[ -s "$TK_TMP/other.err" ] && fail "-k of another build-id refused something"

# The running kernel's: vfs_read, and the two kallsyms rules.
assert_grep '^p:probe/vfs_read vfs_read\+0 buf=\$arg2:x64$' "$TK_TMP/same.out"
assert_eq "definitions from -k of the running build-id" "$(wc -l <"$TK_TMP/same.out")" 1
assert_grep "'$absent a': $absent: not in /proc/kallsyms" "$TK_TMP/same.err"
if [ -n "$dup" ]; then
	assert_grep "'$dup a': $dup: 2 symbols of that name in /proc/kallsyms" "$TK_TMP/same.err"
else
	echo "note: this kernel lists no local function name twice in kallsyms"
fi
