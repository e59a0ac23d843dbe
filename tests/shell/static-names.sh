#!/bin/bash
# description: static names: no static function is named as a function a project header declares
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

tree_check static-names.sh "$TK_TMP/out"
cat "$TK_TMP/out"
assert_grep '^[0-9]+ static functions, [0-9]+ declared: no name shared$' "$TK_TMP/out"

# The checker itself, on small trees.
t=$TK_TMP/t
mkdir -p "$t/util" "$t/arch" "$t/tests/shell"
touch "$t/tracekit.c" "$t/builtin.h"
printf 'int strbuf_grow(struct strbuf *sb, size_t n);\nstatic inline int strbuf_avail(void)\n{\n}\n' \
	>"$t/util/strbuf.h"
# Static helpers of the same name in two files, and a test program's own
# header, are no clash.
printf 'static int helper(void)\n{\n}\n' | tee "$t/util/a.c" >"$t/util/b.c"
printf 'static void strbuf_grow(void);\n' >"$t/tests/shell/tool.h"
"$check" "$t" >"$TK_TMP/out" 2>&1 || { cat "$TK_TMP/out"; fail "a tree without clashes refused"; }
# A static function named as a header's function, or its inline one.
printf 'static int strbuf_grow(struct strbuf *sb, size_t n)\n{\n}\n' >"$t/util/c.c"
printf 'static void strbuf_avail(void)\n{\n}\n' >"$t/tests/d.c"
if "$check" "$t" >"$TK_TMP/out" 2>&1; then
	cat "$TK_TMP/out"
	fail "the clashes passed"
fi
assert_grep '^util/c.c: static strbuf_grow\(\) is declared in util/strbuf.h$' "$TK_TMP/out"
assert_grep '^tests/d.c: static strbuf_avail\(\) is declared in util/strbuf.h$' "$TK_TMP/out"
assert_eq "clashes named" "$(wc -l <"$TK_TMP/out")" 2
exit 0
