#!/bin/bash
# description: source sizes: no file over 1,500 lines, no builtin over 400, no code line over 80 columns
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

tree_check source-sizes.sh "$TK_TMP/out"
cat "$TK_TMP/out"
assert_grep '^[0-9]+ files: none too long, no line too wide$' "$TK_TMP/out"

# The checker itself, on a small tree: a long builtin, a long module, a
# wide code line; a wide line holding a string, and tabs counted as 8
# columns that stay within 80, pass.
t=$TK_TMP/t
mkdir -p "$t/util"
seq 400 | sed 's/^/x/' >"$t/builtin-ok.c"
seq 401 | sed 's/^/x/' >"$t/builtin-long.c"
seq 1501 | sed 's/^/x/' >"$t/util/long.c"
{
	printf '\t\t\t\t\t\t\t\t%s\n' "$(printf '%.16s' xxxxxxxxxxxxxxxxxxxx)"
	printf '\terror("%s");\n' "$(printf '%090d' 0)"
	printf '\tint %s;\n' "$(printf '%.72s' "$(printf 'y%.0s' $(seq 80))")"
	# A tab after text reaches the next multiple of 8: 8 + 72 columns.
	printf 'int;\t%s\n' "$(printf '%.72s' "$(printf 'z%.0s' $(seq 80))")"
} >"$t/util/wide.c"
if "$check" "$t" >"$TK_TMP/out" 2>&1; then
	cat "$TK_TMP/out"
	fail "the excesses passed"
fi
cat "$TK_TMP/out"
assert_grep '^builtin-long.c: 401 lines \(limit 400\)$' "$TK_TMP/out"
assert_grep '^util/long.c: 1501 lines \(limit 1500\)$' "$TK_TMP/out"
assert_grep '^util/wide.c:3: 85 columns$' "$TK_TMP/out"
assert_eq "excesses named" "$(wc -l <"$TK_TMP/out")" 3
exit 0
