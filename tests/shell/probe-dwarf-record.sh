#!/bin/bash
# description: probe: uprobes on static copies, negative enums, signed bitfields, entry location views, split DWARF and C++ methods record what the program prints
# A static function defined in two CUs is probed at both copies under one
# event (perf probe -D gives both places), an enum with a negative value
# records it signed (split DWARF too), a signed bitfield, which the
# kernel's b type records unsigned, is warned about, and a parameter GCC
# sets to a constant before the first instruction (an empty location range
# at the entry holds its register) is fetched from that register.  The
# events, read back from a private tracefs instance, are compared with what
# the program printed.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc g++ perf llvm-dwarfdump

cat >"$TK_TMP/a.c" <<'SRC'
#include <stdio.h>
enum sgn { NEG = -5, ZERO = 0, POS = 3 };
struct bf { int s : 4; unsigned u : 4; };
static __attribute__((noinline)) int helper(int v)
{
	printf("EXPECT helper: v=%d\n", v);
	return v + 1;
}
int call_a(int v);
int call_a(int v) { return helper(v); }
int call_b(int v);
__attribute__((noinline)) int use_enum(enum sgn e)
{
	printf("EXPECT use_enum: e=%d\n", (int)e);
	return e;
}
__attribute__((noinline)) int use_bf(struct bf *b)
{
	/* The kernel's b4 is unsigned: what it records is s modulo 16. */
	printf("EXPECT use_bf: s=%u u=%u\n", (unsigned)b->s & 15, b->u);
	return b->s;
}
/*
 * pos = NULL costs no instruction: at -O2 GCC's location list for pos is
 * %di for the empty range at the entry (view 0), then the constant 0
 * (the kernel's css_rightmost_descendant has the same shape).
 */
struct node { struct node *child, *sib; };
__attribute__((noinline)) struct node *rightmost(struct node *pos)
{
	struct node *last, *t;

	do {
		last = pos;
		pos = NULL;
		for (t = last->child; t; t = t->sib)
			pos = t;
	} while (pos);
	return last;
}
int main(void)
{
	struct bf b = { .s = -3, .u = 5 };
	struct node n[3] = { { .child = &n[1] }, { .sib = &n[2] }, { 0 } };

	call_a(1);
	call_b(2);
	use_enum(NEG);
	use_bf(&b);
#ifdef __OPTIMIZE__
	/* At -O0 the place after the prologue is the loop's head, hit twice. */
	printf("EXPECT rightmost: pos=%#lx\n", (unsigned long)&n[0]);
#endif
	rightmost(&n[0]);
	return 0;
}
SRC
cat >"$TK_TMP/b.c" <<'SRC'
#include <stdio.h>
static __attribute__((noinline)) int helper(int v)
{
	printf("EXPECT helper: v=%d\n", v);
	return v + 2;
}
int call_b(int v);
int call_b(int v) { return helper(v); }
SRC

# "p:G/E PATH:0xOFF ARGS" -> "OFF" in decimal, sorted (tracefs pads it).
places() {
	sed -E 's/^[^ ]* [^ ]*:0x([0-9a-f]+).*/\1/' | while read -r h; do echo $((16#$h)); done | sort
}

# record_and_compare WHAT EVENT...: runs $bin with EVENT... of $group
# enabled in the private instance $inst, and fails unless the events
# recorded are the EXPECT lines the program printed.  Leaves $TK_TMP/got.$opt.
record_and_compare() {
	local what=$1 ev
	shift
	mkdir "$TRACEFS/instances/$inst" || fail "cannot create instance"
	on_exit "rmdir '$TRACEFS/instances/$inst'"
	for ev in "$@"; do
		echo 1 >"$TRACEFS/instances/$inst/events/$group/$ev/enable" ||
			fail "cannot enable $group:$ev"
		on_exit "echo 0 >'$TRACEFS/instances/$inst/events/$group/$ev/enable'"
	done
	"$bin" >"$TK_TMP/out.$opt" || fail "$what: target failed"
	for ev in "$@"; do
		echo 0 >"$TRACEFS/instances/$inst/events/$group/$ev/enable"
	done
	sed -n 's/^EXPECT //p' "$TK_TMP/out.$opt" | sort >"$TK_TMP/want.$opt"
	sed -n -E 's/^.*[0-9]: ([A-Za-z0-9_]+): \([^)]*\) (.*)$/\1: \2/p' \
		"$TRACEFS/instances/$inst/trace" | sort >"$TK_TMP/got.$opt"
	cat "$TK_TMP/got.$opt"
	if ! diff -u "$TK_TMP/want.$opt" "$TK_TMP/got.$opt"; then
		cat "$TRACEFS/instances/$inst/trace"
		fail "$what: recorded values differ from the program's"
	fi
}

# NAME:FLAGS; split DWARF's places come from perf on the same code
# built without it (perf 6.1 does not read .dwo files).
for build in O0:-O0 O2:-O2 split:'-O2 -gsplit-dwarf'; do
	opt=${build%%:*}
	bin=$TK_TMP/tkdefect_$opt group=probe_tkdefect_$opt inst=tkdefect_$$_$opt
	(cd "$TK_TMP" && gcc -g ${build#*:} -o "$bin" a.c b.c &&
		gcc -g ${build#*:} -o "$bin.whole" -gno-split-dwarf a.c b.c) ||
		fail "gcc ${build#*:} failed"

	# The oracle for the places: perf probes every copy of helper.
	perf probe -q -x "$bin.whole" -D 'helper v' | places >"$TK_TMP/perf.$opt"
	assert_eq "-$opt: perf's copies of helper" "$(wc -l <"$TK_TMP/perf.$opt")" 2
	if [ "$opt" = O2 ]; then
		llvm-dwarfdump --name=pos "$bin.whole" >"$TK_TMP/pos.loc"
		grep -A2 'DW_AT_location' "$TK_TMP/pos.loc" | grep -Eq '\[(0x[0-9a-f]+), \1\): DW_OP_reg5 RDI' ||
			{ cat "$TK_TMP/pos.loc"; fail "-O2: GCC gave rightmost's pos no empty range at the entry"; }
	fi

	events="helper use_enum use_bf" entry=()
	[ "$opt" = O0 ] || { events+=" rightmost"; entry=(-a 'rightmost pos'); }
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	"$TRACEKIT" probe -x "$bin" -a 'helper v' -a 'use_enum e' -a 'use_bf b->s b->u' \
		"${entry[@]}" >"$TK_TMP/add.$opt" 2>&1 || { cat "$TK_TMP/add.$opt"; fail "-$opt: probe -a failed"; }
	cat "$TK_TMP/add.$opt"
	assert_grep "warning: 'b->s' is a signed bitfield" "$TK_TMP/add.$opt"
	assert_eq "-$opt: one warning" "$(grep -c 'signed bitfield' "$TK_TMP/add.$opt")" 1
	grep "^p:$group/helper " "$TRACEFS/uprobe_events" | places >"$TK_TMP/ours.$opt"
	diff -u "$TK_TMP/perf.$opt" "$TK_TMP/ours.$opt" || fail "-$opt: copies differ from perf's"

	# shellcheck disable=SC2086
	record_and_compare "-$opt" $events
	assert_grep '^use_enum: e=-5$' "$TK_TMP/got.$opt"
	"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "-$opt: probe -d failed"
done

# C++: a method by its qualified name, and an overload by its mangled
# name, with `this`; the place is perf's for the mangled names.
for opt in O0 O2; do
	bin=$TK_TMP/tkcxx_$opt group=probe_tkcxx_$opt inst=tkcxx_$$_$opt
	g++ -g -"$opt" -o "$bin" "$TRACEKIT_SRCDIR/tests/shell/probe-cxx-target.cc" ||
		fail "g++ -$opt failed"
	for s in '_ZN2ns3Cls6methodEi x' '_ZN2ns3Cls4overEli y'; do
		perf probe -q -x "$bin" -D "$s" | places >>"$TK_TMP/cxxperf.$opt"
	done
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	"$TRACEKIT" probe -x "$bin" -a 'ns::Cls::method x base=this->base' \
		-a '_ZN2ns3Cls4overEli y base=this->base' >"$TK_TMP/add.$opt" 2>&1 ||
		{ cat "$TK_TMP/add.$opt"; fail "-$opt: probe -a failed"; }
	grep "^p:$group/" "$TRACEFS/uprobe_events" | places >"$TK_TMP/cxxours.$opt"
	diff -u <(sort "$TK_TMP/cxxperf.$opt") "$TK_TMP/cxxours.$opt" ||
		fail "-$opt: C++ places differ from perf's"
	record_and_compare "-$opt: C++" ns__Cls__method _ZN2ns3Cls4overEli
	assert_eq "-$opt: C++ events" "$(wc -l <"$TK_TMP/got.$opt")" 2
	"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "-$opt: probe -d failed"
done
