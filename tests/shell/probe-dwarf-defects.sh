#!/bin/bash
# description: probe: user-space DWARF cases checked against perf (static copies, $params structs by value, symbol-only functions, -L, split DWARF, C++, lazy lines)
# tracefs: untouched
# Each case is compared with perf probe -D, -F or -L on the same binary,
# or with what readelf and the compiler say.
. "$(dirname "$0")/lib/common.sh"

need_host_cmd gcc g++ perf readelf llvm-dwp
perf probe -q -x /bin/true -D main >/dev/null 2>&1 ||
	perf probe -q -x "$(command -v perf)" -F >/dev/null 2>&1 ||
	fail "perf probe does not work here"

cat >"$TK_TMP/s.c" <<'SRC'
#include <stdio.h>
struct pt { long x, y; };
struct small { int a; };
__attribute__((noinline)) long by_value(int k, struct pt p, long z, struct small s)
{
	return k + p.x + p.y + z + s.a;
}
int main(void)
{
	struct pt p = { 1, 2 };
	struct small s = { 4 };

	printf("%ld\n", by_value(1, p, 3, s));
	return 0;
}
SRC

# $params: a struct passed by value is fetched as perf fetches it.
for opt in O0 O2; do
	bin=$TK_TMP/params_$opt
	gcc -g -"$opt" -o "$bin" "$TK_TMP/s.c" || fail "gcc -$opt failed"
	perf probe -q -x "$bin" -D 'by_value $params' >"$TK_TMP/perf" 2>/dev/null ||
		fail "-$opt: perf refused 'by_value \$params'"
	"$TRACEKIT" probe -x "$bin" -D 'by_value $params' >"$TK_TMP/ours" 2>"$TK_TMP/ours.err" ||
		{ cat "$TK_TMP/ours.err"; fail "-$opt: 'by_value \$params' refused"; }
	sed 's/^/  perf:     /' "$TK_TMP/perf"
	sed 's/^/  tracekit: /' "$TK_TMP/ours"
	assert_eq "-$opt: \$params" "$(cat "$TK_TMP/ours")" "$(cat "$TK_TMP/perf")"
	assert_grep "'p' is a struct pt passed by value" "$TK_TMP/ours.err"
done

# A static function defined in two files: perf -D probes both, under one
# event; FUNC@FILE one of them.  C and C++ (whose copies share a mangled name).
cat >"$TK_TMP/st1.c" <<'SRC'
#include <stdio.h>
static __attribute__((noinline)) int helper(int v) { printf("1 %d\n", v); return v + 1; }
int call_b(int v);
int main(void) { return helper(1) + call_b(2) != 6; }
SRC
cat >"$TK_TMP/st2.c" <<'SRC'
#include <stdio.h>
static __attribute__((noinline)) int helper(int v) { printf("2 %d\n", v); return v + 2; }
int call_b(int v);
int call_b(int v) { return helper(v); }
SRC
for cc in gcc g++; do
	for opt in O0 O2; do
		bin=$TK_TMP/static_$opt
		(cd "$TK_TMP" && $cc -x c$([ $cc = g++ ] && echo ++) -g -"$opt" -o "$bin" st1.c st2.c) ||
			fail "$cc -$opt failed"
		for s in 'helper v' 'helper@st2.c v' 'helper@st1.c v'; do
			perf probe -q -x "$bin" -D "$s" >"$TK_TMP/perf" 2>/dev/null ||
				fail "$cc -$opt: perf refused '$s'"
			"$TRACEKIT" probe -x "$bin" -D "$s" >"$TK_TMP/ours" 2>/dev/null ||
				fail "$cc -$opt: '$s' refused"
			assert_eq "$cc -$opt: '$s'" "$(cat "$TK_TMP/ours")" "$(cat "$TK_TMP/perf")"
		done
		assert_eq "$cc -$opt: copies" "$("$TRACEKIT" probe -x "$bin" -D 'helper v' | wc -l)" 2
		# -V: one location line per copy, as perf -V prints them.
		assert_eq "$cc -$opt: -V locations" \
			"$("$TRACEKIT" probe -x "$bin" -V helper | grep -c $'^\t@<')" \
			"$(perf probe -q -x "$bin" -V helper | grep -c $'^\t@<')"
	done
done

# A lazy-line pattern: the points perf gives (probe-perf-forms.sh has
# more).
assert_eq "main;*printf*" \
	"$("$TRACEKIT" probe -x "$TK_TMP/params_O0" -D 'main;*printf*' | awk '{ print $2 }')" \
	"$(perf probe -q -x "$TK_TMP/params_O0" -D 'main;*printf*' | awk '{ print $2 }')"

# -F lists the functions DWARF does not describe (assembly, an IFUNC) as
# perf -F does, from the symbol table; they are probed at their symbol.
cat >"$TK_TMP/f.c" <<'SRC'
static int tk_impl(void) { return 1; }
static void *tk_resolve(void) { return (void *)tk_impl; }
int tk_ifunc(void) __attribute__((ifunc("tk_resolve")));
int tk_asm_only(void);
int main(void) { return tk_ifunc() + tk_asm_only() != 2; }
SRC
printf '\t.text\n\t.globl tk_asm_only\n\t.type tk_asm_only, @function\ntk_asm_only:\n\tmovl $1, %%eax\n\tret\n\t.size tk_asm_only, .-tk_asm_only\n\t.section .note.GNU-stack,"",@progbits\n' \
	>"$TK_TMP/asm.s"
gcc -g -O2 -c -o "$TK_TMP/f.o" "$TK_TMP/f.c" && gcc -c -o "$TK_TMP/asm.o" "$TK_TMP/asm.s" &&
	gcc -o "$TK_TMP/symonly" "$TK_TMP/f.o" "$TK_TMP/asm.o" || fail "cannot build symonly"
perf probe -q -x "$TK_TMP/symonly" -F 'tk_*' >"$TK_TMP/perf" || fail "perf -F failed"
"$TRACEKIT" probe -x "$TK_TMP/symonly" -F 'tk_*' >"$TK_TMP/ours" || fail "-F failed"
diff -u "$TK_TMP/perf" "$TK_TMP/ours" || fail "-F differs from perf's"
assert_grep '^tk_asm_only$' "$TK_TMP/ours"
# perf looks for tk_asm_only's entry in the DWARF (and fails), its return is by symbol.
perf probe -q -x "$TK_TMP/symonly" -D 'tk_asm_only%return' >"$TK_TMP/perf" ||
	fail "perf refused tk_asm_only%return"
"$TRACEKIT" probe -x "$TK_TMP/symonly" -D 'tk_asm_only%return' >"$TK_TMP/ours" ||
	fail "tk_asm_only%return refused"
assert_eq "symbol-only return probe" "$(cat "$TK_TMP/ours")" "$(cat "$TK_TMP/perf")"
"$TRACEKIT" probe -x "$TK_TMP/symonly" -D 'tk_asm_only' >"$TK_TMP/ours" || fail "tk_asm_only refused"
assert_eq "symbol-only entry, at the symbol readelf gives" \
	"$(sed 's/.*:0x//' "$TK_TMP/ours")" \
	"$(readelf -sW "$TK_TMP/symonly" | awk '$8 == "tk_asm_only" { sub(/^0+/, "", $2); print $2 }')"
"$TRACEKIT" probe -x "$TK_TMP/symonly" -D 'tk_ifunc' >"$TK_TMP/ours" 2>&1 || fail "tk_ifunc refused"
assert_grep 'tk_ifunc is a GNU indirect function' "$TK_TMP/ours"
expect_fail "$TRACEKIT" probe -x "$TK_TMP/symonly" -D 'tk_asm_only x'
assert_grep 'tk_asm_only is a symbol without debug info: only raw fetchargs' "$TK_TMP/out"

# -L numbers lines as perf -L does (the declaration line is 0, lines whose
# code maps back to another line are not numbered, three lines follow),
# for every function of the probe target and of one whose declaration
# spans lines; run elsewhere, so the source is found through DW_AT_comp_dir.
cat >"$TK_TMP/multi.c" <<'SRC'
#include <stdio.h>
__attribute__((noinline))
int
multi(int a,
      int b)
{
	int c = a * b;

	printf("%d\n", c);
	return c;
}
int main(void) { return multi(2, 3) != 6; }
SRC
for opt in O0 O2; do
	(cd "$(dirname "$0")" && gcc -g -"$opt" -o "$TK_TMP/lines_$opt" probe-target.c) ||
		fail "gcc -$opt failed"
	(cd "$TK_TMP" && gcc -g -"$opt" -o "$TK_TMP/multi_$opt" multi.c) || fail "gcc -$opt failed"
	for f in ip_rcv many_args sum_vals handler main multi_$opt:multi; do
		bin=$TK_TMP/lines_$opt
		case $f in *:*) bin=$TK_TMP/${f%%:*}; f=${f#*:} ;; esac
		(cd / && perf probe -q -x "$bin" -L "$f") >"$TK_TMP/perf" 2>&1 ||
			{ cat "$TK_TMP/perf"; fail "-$opt: perf -L $f failed"; }
		(cd / && "$TRACEKIT" probe -x "$bin" -L "$f") >"$TK_TMP/ours" 2>&1 ||
			{ cat "$TK_TMP/ours"; fail "-$opt: -L $f failed"; }
		diff -u "$TK_TMP/perf" "$TK_TMP/ours" || fail "-$opt: -L $f differs from perf's"
	done
done
assert_grep '^      0  multi\(int a,$' "$TK_TMP/ours"
# -V of a function inlined twice (-O0 keeps both copies' parameters): perf's text.
perf probe -q -x "$TK_TMP/lines_O0" -V scale >"$TK_TMP/perf" || fail "perf -V scale failed"
"$TRACEKIT" probe -x "$TK_TMP/lines_O0" -V scale >"$TK_TMP/ours" || fail "-V scale failed"
diff -u "$TK_TMP/perf" "$TK_TMP/ours" || fail "-V of the inlined copies differs from perf's"

# Split DWARF (-gsplit-dwarf): the .dwo files under DW_AT_comp_dir, then
# next to the binary elsewhere, then a .dwp (llvm-dwp: binutils' dwp
# crashes on DWARF 5), DWARF 5 and 4.  perf 6.1 cannot read it: the
# oracle is perf on the same source built without -gsplit-dwarf, whose
# code is the same.
split_specs=(
	'ip_rcv skb->len flags skb->dev->mtu skb->s4[1]'
	'ip_rcv $params'
	'main argc argv'
)
mkdir "$TK_TMP/split" "$TK_TMP/moved" "$TK_TMP/dwp" || fail "mkdir"
cp "$(dirname "$0")/probe-target.c" "$TK_TMP/split/" || fail "cp"
for dv in 5 4; do
	(cd "$TK_TMP/split" && gcc -g -gdwarf-$dv -O2 -o whole probe-target.c &&
		gcc -g -gdwarf-$dv -O2 -gsplit-dwarf -o split probe-target.c) ||
		fail "gcc -gdwarf-$dv failed"
	ls "$TK_TMP/split/"*.dwo >/dev/null || fail "-gdwarf-$dv: gcc wrote no .dwo"
	cp "$TK_TMP/split/split" "$TK_TMP/split/"*.dwo "$TK_TMP/moved/" || fail "cp"
	(cd "$TK_TMP/split" && llvm-dwp -e split -o "$TK_TMP/dwp/split.dwp") || fail "llvm-dwp failed"
	cp "$TK_TMP/split/split" "$TK_TMP/dwp/" || fail "cp"
	for s in "${split_specs[@]}"; do
		perf probe -q -x "$TK_TMP/split/whole" -D "$s" | sed 's/^[^ ]* [^:]*//' \
			>"$TK_TMP/perf" || fail "perf refused '$s'"
		for where in split moved dwp; do
			"$TRACEKIT" probe -x "$TK_TMP/$where/split" -D "$s" >"$TK_TMP/ours" 2>&1 ||
				{ cat "$TK_TMP/ours"; fail "-gdwarf-$dv $where: '$s' refused"; }
			assert_eq "-gdwarf-$dv $where: '$s'" "$(sed 's/^[^ ]* [^:]*//' "$TK_TMP/ours")" \
				"$(cat "$TK_TMP/perf")"
		done
	done
	# Globals: DW_OP_addrx (5), DW_OP_GNU_addr_index (4), at readelf's addresses.
	"$TRACEKIT" probe -x "$TK_TMP/moved/split" -D 'ip_rcv g_counter' >"$TK_TMP/ours" ||
		fail "-gdwarf-$dv: g_counter refused"
	assert_eq "-gdwarf-$dv: g_counter" "$(sed 's/.*g_counter=@+0x\([0-9a-f]*\):s32$/\1/' "$TK_TMP/ours")" \
		"$(readelf -sW "$TK_TMP/split/split" | awk '$8 == "g_counter" { sub(/^0+/, "", $2); print $2 }')"
	(cd / && "$TRACEKIT" probe -x "$TK_TMP/dwp/split" -L ip_rcv) >"$TK_TMP/ours" || fail "-L refused"
	(cd / && perf probe -q -x "$TK_TMP/split/whole" -L ip_rcv) >"$TK_TMP/perf" || fail "perf -L"
	diff -u "$TK_TMP/perf" "$TK_TMP/ours" || fail "-gdwarf-$dv: split -L differs"
	rm "$TK_TMP/split/"*.dwo "$TK_TMP/moved/"*.dwo "$TK_TMP/dwp/split.dwp"
done
# Without its .dwo the message says so.
expect_fail "$TRACEKIT" probe -x "$TK_TMP/split/split" -D 'ip_rcv flags'
assert_grep "its split DWARF is missing \(split-probe-target.dwo" "$TK_TMP/out"

# C++: mangled names as perf takes them; ns::Cls::method (and Cls::method)
# by the DIE nesting, at perf's place for the plain name; overloads refused
# with their prototypes and the mangled names readelf lists.
g++ -g -O2 -o "$TK_TMP/cxx" "$TRACEKIT_SRCDIR/tests/shell/probe-cxx-target.cc" || fail "g++ failed"
for s in '_ZN2ns3Cls6methodEi x' '_ZN2ns3Cls4overEi x' '_ZN2ns3Cls4overEli l y'; do
	perf probe -q -x "$TK_TMP/cxx" -D "$s" >"$TK_TMP/perf" || fail "perf refused '$s'"
	"$TRACEKIT" probe -x "$TK_TMP/cxx" -D "$s" >"$TK_TMP/ours" 2>&1 ||
		{ cat "$TK_TMP/ours"; fail "'$s' refused"; }
	assert_eq "'$s'" "$(cat "$TK_TMP/ours")" "$(cat "$TK_TMP/perf")"
done
perf probe -q -x "$TK_TMP/cxx" -D 'method x' | cut -d' ' -f2- >"$TK_TMP/perf" ||
	fail "perf refused 'method x'"
for s in 'ns::Cls::method x' 'Cls::method x'; do
	"$TRACEKIT" probe -x "$TK_TMP/cxx" -D "$s" >"$TK_TMP/ours" 2>&1 ||
		{ cat "$TK_TMP/ours"; fail "'$s' refused"; }
	assert_eq "'$s'" "$(cut -d' ' -f2- "$TK_TMP/ours")" "$(cat "$TK_TMP/perf")"
done
assert_grep '^p:probe_cxx/Cls__method ' "$TK_TMP/ours"
expect_fail "$TRACEKIT" probe -x "$TK_TMP/cxx" -D 'Other::method x'
assert_grep "no function 'Other::method'" "$TK_TMP/out"
expect_fail "$TRACEKIT" probe -x "$TK_TMP/cxx" -D 'ns::Cls::over x'
cat "$TK_TMP/out"
assert_eq "one line" "$(wc -l <"$TK_TMP/out")" 1
assert_grep "'ns::Cls::over' is overloaded: .*ns::Cls::over\(int\) \[" "$TK_TMP/out"
assert_grep 'ns::Cls::over\(long int, int\) \[' "$TK_TMP/out"
assert_eq "the overloads' mangled names" \
	"$(grep -o '\[[^]]*\]' "$TK_TMP/out" | tr -d '[]' | sort)" \
	"$(readelf -sW "$TK_TMP/cxx" | awk '$4 == "FUNC" && $8 ~ /Cls4over/ { print $8 }' | sort)"

# No DWARF at all (built without -g, as libc.so without its -dbg package):
# -F '*' (not perf's default filter, which leaves out _*) is the symbol
# table readelf shows, a function is probed by its symbol where perf
# probes it, and a variable is refused naming the missing DWARF.
gcc -O2 -o "$TK_TMP/nodebug" "$TK_TMP/f.c" "$TK_TMP/asm.o" || fail "cannot build nodebug"
"$TRACEKIT" probe -x "$TK_TMP/nodebug" -F '*' >"$TK_TMP/ours" || fail "-F without DWARF failed"
readelf -sW "$TK_TMP/nodebug" | awk '($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" { print $8 }' |
	sort -u >"$TK_TMP/want"
diff -u "$TK_TMP/want" "$TK_TMP/ours" || fail "-F without DWARF differs from readelf's functions"
for s in main 'main%return' 'main %di'; do
	perf probe -q -x "$TK_TMP/nodebug" -D "$s" >"$TK_TMP/perf" || fail "perf refused '$s'"
	"$TRACEKIT" probe -x "$TK_TMP/nodebug" -D "$s" >"$TK_TMP/ours" || fail "'$s' refused"
	assert_eq "no DWARF: '$s' place" "$(cut -d' ' -f1-2 "$TK_TMP/ours")" \
		"$(cut -d' ' -f1-2 "$TK_TMP/perf")"
done
expect_fail "$TRACEKIT" probe -x "$TK_TMP/nodebug" -D 'main argc'
assert_grep "nodebug: no DWARF debug info .*main is a symbol without debug info" "$TK_TMP/out"
