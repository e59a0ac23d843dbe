#!/bin/bash
# description: probe: an ELF alias of a DWARF function (libc's malloc of __libc_malloc, a library's own) is probed by its name with the function's parameters
# glibc defines its public functions as aliases (strong_alias, weak_alias)
# of internal ones: the symbol `malloc` and the DIE `__libc_malloc` share
# an address, and no DIE is named malloc.  The host's libc with its
# separate debug file (libc6-dbg), and a library of aliases built here,
# are probed by the public names; the values recorded must be those the
# program passed, -V must list the variables perf -V lists, and -v must
# name the DIE (llvm-dwarfdump's at the symbol's address, from nm) and the
# file the DWARF came from (the debug file of libc's build-id).  A symbol
# at code without DWARF still takes raw fetchargs only.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc perf llvm-dwarfdump
need_cmd nm readelf jq

cat >"$TK_TMP/lib.c" <<'SRC'
long tk_sum(int a, long b)
{
	return a * 3L + b;
}
long tk_add(int a, long b) __attribute__((alias("tk_sum")));
long tk_plus(int a, long b) __attribute__((weak, alias("tk_sum")));
SRC
# Built without -g: its alias has no DIE at its address.
cat >"$TK_TMP/raw.c" <<'SRC'
long tk_raw(long x)
{
	return x ^ 5;
}
long tk_raw_alias(long x) __attribute__((alias("tk_raw")));
SRC
cat >"$TK_TMP/prog.c" <<'SRC'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
long tk_add(int a, long b);
long tk_plus(int a, long b);
int main(void)
{
	size_t bytes = 12345;
	void *p = malloc(bytes);
	int fd = openat(AT_FDCWD, "/dev/null", O_WRONLY | O_CLOEXEC);
	ssize_t n = write(fd, p, 777);
	long s = tk_add(7, 123456789) + tk_plus(-3, -42);

	/* Printed last: stdio's own malloc and write come after. */
	printf("EXPECT malloc bytes=%zu\n", bytes);
	printf("EXPECT openat file=/dev/null oflag=%d\n", O_WRONLY | O_CLOEXEC);
	printf("EXPECT write fd=%d nbytes=%zd\n", fd, n);
	printf("EXPECT tk_add a=7 b=123456789\nEXPECT tk_add a=-3 b=-42\n");
	printf("EXPECT tk_plus a=7 b=123456789\nEXPECT tk_plus a=-3 b=-42\n");
	free(p);
	return s == 0;
}
SRC
lib=$TK_TMP/libtkalias.so bin=$TK_TMP/tkalias
(cd "$TK_TMP" && gcc -g -O2 -fPIC -c lib.c && gcc -O2 -fPIC -c raw.c &&
	gcc -shared -o "$lib" lib.o raw.o &&
	gcc -O2 -o "$bin" prog.c -L"$TK_TMP" -ltkalias -Wl,-rpath,"$TK_TMP") ||
	fail "gcc failed"
libc=$(ldd "$bin" | sed -n 's/^.*libc\.so\.6 => \([^ ]*\) .*/\1/p')
[ -n "$libc" ] || fail "ldd names no libc.so.6 for $bin"
libc=$(readlink -f "$libc")
id=$(readelf -n "$libc" | sed -n 's/^ *Build ID: //p')
libc_debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -r "$libc_debug" ] || fail "$libc_debug: libc6-dbg is not installed (scripts/deps.sh installs it)"

# die_name: the DW_AT_name of the first DIE llvm-dwarfdump prints.
die_name() {
	sed -n 's/^ *DW_AT_name[[:space:]]*("\(.*\)")$/\1/p' | head -n 1
}

# alias_line FILE SYM DEBUGFILE: the -v line for SYM, with the symbol's
# address from nm and the name of the function llvm-dwarfdump finds
# there (of its abstract origin, for a concrete copy of an inline one).
alias_line() {
	local addr func die origin
	addr=$(nm -D --defined-only "$1" | awk -v s="$2" '{ sub(/@.*/, "", $3) } $3 == s { print $1; exit }')
	[ -n "$addr" ] || fail "nm: no $2 in $1"
	func=$(llvm-dwarfdump --lookup="0x$addr" "$3" | sed -n '/DW_TAG_subprogram/,/^$/p')
	die=$(echo "$func" | die_name)
	origin=$(echo "$func" | sed -n 's/^ *DW_AT_abstract_origin[[:space:]]*(\(0x[0-9a-f]*\) .*/\1/p')
	[ -n "$die" ] || [ -z "$origin" ] ||
		die=$(llvm-dwarfdump --debug-info="$origin" "$3" | die_name)
	[ -n "$die" ] || fail "llvm-dwarfdump: no function at 0x$addr in $3"
	printf '%s: alias of %s (same address 0x%x) in %s\n' "$2" "$die" $((16#$addr)) "$3"
}

# probe_all WHAT FILE DEBUGFILE SPEC...: -D -v then -a of SPEC... on FILE;
# every spec's -v line must be alias_line's.  The group in $group.
probe_all() {
	local what=$1 file=$2 debug=$3 s defs=() adds=()
	shift 3
	for s in "$@"; do
		defs+=(-D "$s")
		adds+=(-a "$s")
	done
	"$TRACEKIT" probe -v -x "$file" "${defs[@]}" >"$TK_TMP/def" 2>"$TK_TMP/verbose" ||
		{ cat "$TK_TMP/verbose"; fail "$what: probe -D failed"; }
	cat "$TK_TMP/verbose" "$TK_TMP/def"
	group=$(sed -n 's/^p:\([^/]*\)\/.*/\1/p' "$TK_TMP/def" | sort -u)
	[ "$(echo "$group" | wc -l)" = 1 ] || fail "$what: not one group: $group"
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	assert_grep "^types and locations from DWARF in $debug\$" "$TK_TMP/verbose"
	for s in "$@"; do
		alias_line "$file" "${s%% *}" "$debug" >"$TK_TMP/want.line"
		grep -qxF -f "$TK_TMP/want.line" "$TK_TMP/verbose" ||
			fail "$what: -v lacks: $(cat "$TK_TMP/want.line")"
	done
	"$TRACEKIT" probe -x "$file" "${adds[@]}" >/dev/null || fail "$what: probe -a failed"
}

# vars FUNC FILE TOOL...: the variable names TOOL -V FUNC lists, sorted.
vars() {
	local f=$1 file=$2
	shift 2
	"$@" probe -x "$file" -V "$f" | sed -n 's/^\t\t.*\t\([^\t]*\)$/\1/p' | sort
}

for f in malloc openat write; do
	vars "$f" "$libc" perf >"$TK_TMP/perf.vars"
	vars "$f" "$libc" "$TRACEKIT" >"$TK_TMP/ours.vars"
	[ -s "$TK_TMP/perf.vars" ] || fail "perf -V $f listed nothing"
	diff -u "$TK_TMP/perf.vars" "$TK_TMP/ours.vars" || fail "-V $f: not perf's variables"
done
for f in tk_add tk_plus; do
	vars "$f" "$lib" perf >"$TK_TMP/perf.vars"
	vars "$f" "$lib" "$TRACEKIT" >"$TK_TMP/ours.vars"
	diff -u "$TK_TMP/perf.vars" "$TK_TMP/ours.vars" || fail "-V $f: not perf's variables"
done
perf probe -x "$lib" -F 'tk_*' | sort -u >"$TK_TMP/perf.funcs"
"$TRACEKIT" probe -x "$lib" -F 'tk_*' >"$TK_TMP/ours.funcs"
diff -u "$TK_TMP/perf.funcs" "$TK_TMP/ours.funcs" || fail "-F: not perf's functions"

expect_fail "$TRACEKIT" probe -x "$lib" -D 'tk_raw_alias x'
assert_grep "tk_raw_alias is a symbol without debug info: only raw fetchargs" "$TK_TMP/out"

probe_all libc "$libc" "$libc_debug" 'malloc bytes' 'openat file:string oflag' 'write fd nbytes'
libc_group=$group
probe_all "the library" "$lib" "$lib" 'tk_add a b' 'tk_plus a b'
lib_group=$group

"$TRACEKIT" record -q -e "$libc_group:*" -e "$lib_group:*" -o "$TK_TMP/t.dat" -- "$bin" \
	>"$TK_TMP/prog.out" || fail "record failed"
"$TRACEKIT" probe -d "$libc_group:*" -d "$lib_group:*" >/dev/null || fail "probe -d failed"
"$TRACEKIT" report -i "$TK_TMP/t.dat" --format json |
	jq -r '.event + " " + ([.fields | to_entries[] | select(.key != "__probe_ip") |
		"\(.key)=\(.value)"] | join(" "))' >"$TK_TMP/got"
sed -n 's/^EXPECT //p' "$TK_TMP/prog.out" >"$TK_TMP/want"
[ -s "$TK_TMP/want" ] || fail "the program printed nothing"
# stdio's buffer (malloc, write) comes on top: each call of the program's once.
while read -r line; do
	[ "$(grep -cxF "$line" "$TK_TMP/got")" = 1 ] ||
		{ cat "$TK_TMP/got"; fail "recorded not once: $line"; }
done <"$TK_TMP/want"
echo "$(wc -l <"$TK_TMP/want") calls recorded as the program made them"
