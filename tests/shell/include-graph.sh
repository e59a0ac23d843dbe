#!/bin/bash
# description: include graph: no cycles, no module includes one a layer above it
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

tree_check include-graph.sh "$TK_TMP/graph"
assert_grep '^util/strbuf: util/usage$' "$TK_TMP/graph"
assert_grep '^[0-9]+ modules, [0-9]+ include edges, no cycles' "$TK_TMP/graph"

# The checker itself, on trees made to break one rule each.
# tree NAME FILE:INCLUDE...: a tree in which FILE includes INCLUDE.
tree() {
	local t=$TK_TMP/$1 f
	shift
	mkdir -p "$t/util" "$t/ubifs" "$t/arch/x86" "$t/tests"
	touch "$t/tracekit.c" "$t/builtin.h" "$t/util/strbuf.h"
	for f in "$@"; do
		touch "$t/${f%%:*}" "$t/${f#*:}"
		echo "#include \"${f#*:}\"" >>"$t/${f%%:*}"
	done
	echo "$t"
}
# refused TREE REGEX: the checker fails on TREE, naming the violation.
refused() {
	if "$check" "$1" >"$TK_TMP/out" 2>&1; then
		cat "$TK_TMP/out"
		fail "$1 passed"
	fi
	assert_grep "$2" "$TK_TMP/out"
}
refused "$(tree cycle util/a.h:util/b.h util/b.c:util/c.h util/c.h:util/a.h)" \
	'cycle: util/a -> util/b -> util/c -> util/a'
refused "$(tree mutual util/a.c:util/b.h util/b.c:util/a.h)" \
	'cycle: util/a -> util/b -> util/a'
refused "$(tree up util/a.c:builtin.h)" 'util/a includes builtin, a layer above it'
refused "$(tree arch arch/x86/r.c:util/print.h)" 'arch/x86/r includes util/print, a layer above it'
refused "$(tree floor util/strbuf.c:util/print.h)" 'util/strbuf includes util/print, a layer above it'
refused "$(tree tests tests/t.c:builtin.h)" 'tests/t includes builtin, a layer above it'
refused "$(tree builtins builtin-a.c:builtin-b.h)" 'builtin-a includes builtin-b, another builtin'
refused "$(tree ubifs-up util/a.c:ubifs/image.h)" \
	'util/a includes ubifs/image, a layer above it'
refused "$(tree ubifs-other builtin-a.c:ubifs/image.h)" \
	'builtin-a includes ubifs/image, which only builtin-ubifs and tests/ use'
t=$(tree missing util/a.c:util/gone.h)
rm "$t/util/gone.h"
refused "$t" 'util/a.c: includes "util/gone.h", which is not in the tree'

# A private header NAME-int.h belongs to NAME: no cycle when it includes NAME.h.
t=$(tree private util/rec.c:util/rec-int.h util/rec-int.h:util/rec.h)
"$check" "$t" >"$TK_TMP/out" 2>&1 || { cat "$TK_TMP/out"; fail "private header seen as a cycle"; }
assert_grep '^util/rec:$' "$TK_TMP/out"

# ubifs/ uses util/, and builtin-ubifs and tests/ use ubifs/.
t=$(tree ubifs builtin-ubifs.c:ubifs/image.h tests/t.c:ubifs/image.h \
	ubifs/image.c:util/strbuf.h)
"$check" "$t" >"$TK_TMP/out" 2>&1 ||
	{ cat "$TK_TMP/out"; fail "ubifs/ refused"; }
exit 0
