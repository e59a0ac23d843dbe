#!/bin/bash
# source-sizes.sh [DIR]: checks the sizes CONTRIBUTING sets for the C
# sources of the tree at DIR (the source tree this script is in by
# default): no file over 1,500 lines, no builtin over 400 (a builtin is
# option handling and calls; the work is in util/), and no line over 80
# columns (tabs at 8) unless it holds a string literal, which is not
# broken so that a grep for a message finds it.  Prints each excess as
# "FILE: N lines (limit L)" or "FILE:LINE: N columns" and exits 1, or
# prints the counts and exits 0.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

files=$(find . \( -path ./build -o -path ./tests/kmod -o -path ./tests/vm \
	-o -path ./.git \) -prune -o -name '*.[ch]' -type f -print |
	sed 's|^\./||' | LC_ALL=C sort)
[ -n "$files" ] || { echo "source-sizes: no C sources under $PWD" >&2; exit 2; }
# shellcheck disable=SC2086
awk '
FNR == 1 {
	if (NR > 1)
		check_length(prev, prev_lines)
	nfiles++
}
{
	prev = FILENAME
	prev_lines = FNR
	w = width($0)
	if (w > 80 && $0 !~ /"/) {
		printf "%s:%d: %d columns\n", FILENAME, FNR, w
		bad++
	}
}
# Columns, a tab reaching the next multiple of 8.
function width(s,	i, n, c) {
	n = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		n = c == "\t" ? n + 8 - n % 8 : n + 1
	}
	return n
}
function check_length(f, n,	limit) {
	limit = f ~ /^builtin-.*\.c$/ ? 400 : 1500
	if (n > limit) {
		printf "%s: %d lines (limit %d)\n", f, n, limit
		bad++
	}
}
END {
	check_length(prev, prev_lines)
	if (bad)
		exit 1
	printf "%d files: none too long, no line too wide\n", nfiles
}' $files
