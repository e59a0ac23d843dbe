#!/bin/bash
# static-names.sh [DIR]: checks that no static function of the tree at DIR
# (the source tree this script is in by default) is named as a function
# that a header of the project declares: a grep for a module's API must
# not land in another file's private helper.  The project's headers are
# builtin.h and those of ubifs/, util/, arch/ and tests/ (not tests/shell/,
# whose programs are built on their own); a function definition starts at
# the line's first column, as CONTRIBUTING has it.  Prints each clash as
# "FILE: static NAME() is declared in HEADER" and exits 1, or prints the
# counts and exits 0.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

headers=$(find builtin.h ubifs util arch tests -path tests/shell -prune -o \
	-path tests/kmod -prune -o -path tests/vm -prune -o -name '*.h' -type f -print 2>/dev/null |
	LC_ALL=C sort)
sources=$(find tracekit.c builtin*.c ubifs util arch tests \
	-path tests/shell -prune -o \
	-path tests/kmod -prune -o -path tests/vm -prune -o -name '*.c' -type f -print 2>/dev/null |
	LC_ALL=C sort)
# NAME FILE: the functions each header declares (or defines inline), and
# each static function a source defines.
# shellcheck disable=SC2086
declared=$(for h in $headers; do
	sed -nE 's/^[A-Za-z_][^#(=;]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' "$h" |
		grep -v '^typedef$' | sed "s|\$| $h|"
done | LC_ALL=C sort -u)
# shellcheck disable=SC2086
statics=$(for c in $sources; do
	sed -nE 's/^static [^(=;]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' "$c" | sed "s|\$| $c|"
done | LC_ALL=C sort -u)
clashes=$(LC_ALL=C join <(printf '%s\n' "$statics") <(printf '%s\n' "$declared") |
	awk '{ print $2 ": static " $1 "() is declared in " $3 }')
if [ -n "$clashes" ]; then
	printf '%s\n' "$clashes"
	exit 1
fi
echo "$(printf '%s\n' "$statics" | grep -c .) static functions," \
	"$(printf '%s\n' "$declared" | grep -c .) declared: no name shared"
