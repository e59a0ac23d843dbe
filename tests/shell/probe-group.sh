#!/bin/bash
# description: probe: default groups are perf probe's (libc.so.6 probe_libc, my-prog probe_my, sdt_PROVIDER, probe), collisions included
# perf names a uprobe's group after the binary's basename up to its first
# character that is neither alphanumeric nor '_'; a perf user's
# `-e 'probe_libc:*'` and scripts depend on it.  perf probe -D is the
# oracle, on the host's libraries and on one program copied under names
# with dots, dashes, digits and a leading dot.  Two files cut to one group
# (libtkgrp.so.1, libtkgrp.so.2) share it: with an event of one defined,
# the other's takes the next name, as perf --force gives it.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc g++ perf
need_cmd nm

# perf keeps the binaries it probes in a build-id cache under ~/.debug.
export HOME=$TK_TMP/home
mkdir -p "$HOME"

# group_of TOOL FILE SPEC: the group of TOOL's -D definition of SPEC.
group_of() {
	local out
	out=$("$1" probe -x "$2" -D "$3" 2>"$TK_TMP/err") ||
		{ cat "$TK_TMP/err"; fail "$1 probe -x $2 -D '$3' failed"; }
	echo "$out" | sed -n '1s/^p:\([^/]*\)\/.*/\1/p'
}

# same FILE SPEC: the two tools give SPEC on FILE one group.
same() {
	local perf ours
	perf=$(group_of perf "$1" "$2")
	ours=$(group_of "$TRACEKIT" "$1" "$2")
	echo "$1 $2: perf $perf, tracekit $ours"
	[ -n "$perf" ] || fail "perf -D '$2' on $1 printed no definition"
	assert_eq "group of $1" "$ours" "$perf"
}

printf 'int tk_grp(int a) { return a + 1; }\nint main(int c, char **v) { (void)v; return tk_grp(c); }\n' \
	>"$TK_TMP/p.c"
printf '#include <string>\nint main(int c, char **v) { (void)v; return std::to_string(c).size(); }\n' \
	>"$TK_TMP/pp.cc"
gcc -g -O0 -o "$TK_TMP/prog" "$TK_TMP/p.c" && g++ -O1 -o "$TK_TMP/progxx" "$TK_TMP/pp.cc" ||
	fail "gcc failed"
# The host's libraries, each with a function of its own: the first C one
# it exports at its default version (perf finds no other by name).
for f in $({ ldd "$TK_TMP/prog"; ldd "$TK_TMP/progxx"; } |
	sed -n 's/^[[:space:]]*\(.* => \)\{0,1\}\(\/[^ ]*\) .*/\2/p' | sort -u); do
	fn=$(nm -D --defined-only "$f" |
		awk '$2 == "T" && $3 !~ /^_Z/ && $3 !~ /[^@]@[^@]/ { sub(/@.*/, "", $3); print $3; exit }')
	[ -n "$fn" ] || fail "nm: no function exported by $f"
	same "$f" "$fn"
done
mkdir "$TK_TMP/bin"
for n in my-prog prog2x 9prog a.b-c __x Ab_9-z .hidden -lead libtkgrp.so.1 libtkgrp.so.2; do
	cp "$TK_TMP/prog" "$TK_TMP/bin/$n"
	same "$TK_TMP/bin/$n" tk_grp
done
# A symlink: both name the file it points at.
ln -s prog "$TK_TMP/link-name"
same "$TK_TMP/link-name" tk_grp
# SDT markers and kernel functions keep their own groups.
lib=$(ldd "$TK_TMP/progxx" | sed -n 's/^.*libstdc++\.so\.6 => \([^ ]*\) .*/\1/p')
"$TRACEKIT" probe -x "$lib" --sdt | grep -q '^sdt_libstdcxx:throw ' ||
	fail "$lib has no sdt_libstdcxx:throw marker"
same "$lib" sdt_libstdcxx:throw
perf_k=$(perf probe -D vfs_read 2>/dev/null | sed -n '1s/^p:\([^/]*\)\/.*/\1/p')
ours_k=$("$TRACEKIT" probe -D vfs_read 2>/dev/null | sed -n '1s/^p:\([^/]*\)\/.*/\1/p')
assert_eq "kprobe group" "$ours_k" "$perf_k"

# libtkgrp.so.1 and .2: one group.  With tk_grp of .1 defined, perf -a
# and tracekit -a refuse tk_grp of .2 ("already exists"), and with
# --force perf names it as tracekit -D does (perf -D looks at no existing
# event: no oracle).
group=$(group_of "$TRACEKIT" "$TK_TMP/bin/libtkgrp.so.1" tk_grp)
on_exit "'$TRACEKIT' probe -d '$group:tk_grp*'"
"$TRACEKIT" probe -x "$TK_TMP/bin/libtkgrp.so.1" tk_grp >/dev/null || fail "probe -a failed"
ours=$("$TRACEKIT" probe -x "$TK_TMP/bin/libtkgrp.so.2" -D tk_grp | sed -n '1s/^p:\([^ ]*\) .*/\1/p')
expect_fail perf probe -x "$TK_TMP/bin/libtkgrp.so.2" -a tk_grp
assert_grep 'already exists' "$TK_TMP/out"
expect_fail "$TRACEKIT" probe -x "$TK_TMP/bin/libtkgrp.so.2" -a tk_grp
assert_grep "event $group:tk_grp already exists" "$TK_TMP/out"
perf probe -f -x "$TK_TMP/bin/libtkgrp.so.2" -a tk_grp >"$TK_TMP/perf.add" 2>&1 ||
	{ cat "$TK_TMP/perf.add"; fail "perf probe -f -a failed"; }
perf=$(sed -n 's/^ *\([^ ]*\) *(on .*/\1/p' "$TK_TMP/perf.add" | head -n 1 | tr : /)
echo "libtkgrp.so.2 next to libtkgrp.so.1: perf --force $perf, tracekit $ours"
assert_eq "the second file's event" "$ours" "$perf"
[ "$ours" != "$group/tk_grp" ] || fail "the second file's event took the first's name"
"$TRACEKIT" probe -d "$group:tk_grp*" >/dev/null || fail "probe -d failed"
