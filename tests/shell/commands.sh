#!/bin/bash
# description: commands: README.md's table and the tracekit manual name the commands of the command table, with its summaries
# tracefs: untouched
# The command table in tracekit.c is the one list of the commands
# (`tracekit --list-cmds=summary`); README.md's table and
# Documentation/tracekit.txt's COMMANDS say the same, word for word, in
# its order, and each command has its manual page.  A command added to
# the table but not to the documents fails here.
. "$(dirname "$0")/lib/common.sh"

need_cap '!in_vm' "the guest carries tests/ and Documentation/, not README.md"
src=$TRACEKIT_SRCDIR
"$TRACEKIT" --list-cmds=summary >"$TK_TMP/table" || fail "--list-cmds=summary failed"
[ -s "$TK_TMP/table" ] || fail "--list-cmds=summary printed nothing"
if grep -vE '^[a-z]+	[^	]+$' "$TK_TMP/table"; then
	fail "--list-cmds=summary: a line is not NAME<TAB>SUMMARY"
fi

# --list-cmds: the same names, then help.
{ cut -f1 "$TK_TMP/table"; echo help; } >"$TK_TMP/names"
"$TRACEKIT" --list-cmds >"$TK_TMP/list" || fail "--list-cmds failed"
diff -u "$TK_TMP/names" "$TK_TMP/list" || fail "--list-cmds differs from the table"

# README.md: | `tracekit NAME`  | SUMMARY |
sed -n 's/^| `tracekit \([a-z]*\)` *| \(.*\) |$/\1\t\2/p' "$src/README.md" >"$TK_TMP/readme"
diff -u "$TK_TMP/table" "$TK_TMP/readme" || fail "README.md's table differs from the command table"

# The manual's COMMANDS section: NAME::   SUMMARY
sed -n '/^COMMANDS$/,/^$/s/^\([a-z]*\):: *\(.*\)$/\1\t\2/p' \
	"$src/Documentation/tracekit.txt" >"$TK_TMP/manual"
diff -u "$TK_TMP/table" "$TK_TMP/manual" ||
	fail "Documentation/tracekit.txt's COMMANDS differ from the command table"

while IFS=$'\t' read -r name _; do
	[ -f "$src/Documentation/tracekit-$name.txt" ] ||
		fail "no manual page Documentation/tracekit-$name.txt"
done <"$TK_TMP/table"
exit 0
