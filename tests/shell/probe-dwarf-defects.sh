#!/bin/bash
# description: probe: user-space DWARF cases checked against perf ($params structs by value, lazy lines)
# tracefs: untouched
# Each case is compared with perf probe -D, -F or -L on the same binary,
# or with what readelf and the compiler say.
. "$(dirname "$0")/lib/common.sh"

need_host_cmd gcc perf
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

# A lazy-line pattern is refused as one.
expect_fail "$TRACEKIT" probe -x "$TK_TMP/params_O0" -D 'main;printf'
assert_grep "^tracekit probe: 'main;printf': lazy-line patterns .* are not supported" "$TK_TMP/out"
assert_eq "one line" "$(wc -l <"$TK_TMP/out")" 1
