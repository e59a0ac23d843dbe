#!/bin/bash
# include-graph.sh [DIR]: prints the module graph of the tree at DIR (the
# source tree this script is in by default) from its #include "..." lines,
# and checks the layering the contributor doc describes.  A module is a
# file's path without .c or .h, so util/strbuf.c and util/strbuf.h are
# util/strbuf; a module's private header NAME-int.h (util/record-int.h,
# for the files of util/record) is part of NAME.  Layers, top down:
#
#   tracekit      main(), the command table
#   builtin-*     one command each; builtin.h their shared declarations
#   tests/        the suites: they may use ubifs/, util/ and arch/, and
#                 builtin-test.c runs them
#   ubifs/        UBI and UBIFS images: uses util/; only builtin-ubifs.c
#                 and tests/ may use it
#   util/         the libraries
#   arch/         what differs between architectures
#   util/strbuf, util/usage
#                 the floor: strings and diagnostics, which every layer
#                 (arch/ included) uses
#
# A module includes only modules of lower layers, or of its own layer
# where that layer's modules share code (ubifs/, util/, tests/, arch/),
# never one above it; builtins share nothing but builtin.h, and of them
# builtin-ubifs.c alone uses ubifs/.  The graph has no cycle, which within
# ubifs/ or util/ means no two modules include each other.
# Exit status: 0, or 1 with each violation named.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

find tracekit.c builtin*.[ch] ubifs util arch tests \
	\( -path tests/kmod -o -path tests/vm \) -prune -o \
	-name '*.[ch]' -type f -print 2>/dev/null | LC_ALL=C sort |
awk '
function module(path) {
	sub(/(-int\.h|\.[ch])$/, "", path)
	return path
}
function layer(m) {
	if (m == "tracekit")
		return 6
	if (m ~ /^builtin/)
		return 5
	if (m ~ /^tests\//)
		return 4
	if (m ~ /^ubifs\//)
		return 3.5
	if (m == "util/strbuf" || m == "util/usage")
		return 1
	if (m ~ /^util\//)
		return 3
	if (m ~ /^arch\//)
		return 2
	return 0
}
function exists(path,	line, ok) {
	ok = (getline line < path) >= 0
	close(path)
	return ok
}
# Depth-first search: state 1 = on the current path, 2 = done.
function visit(m,	i, d, n, k) {
	state[m] = 1
	stack[++depth] = m
	n = split(deps[m], d, " ")
	for (i = 1; i <= n; i++) {
		if (state[d[i]] == 1) {
			cyc = d[i]
			for (k = depth; k >= 1 && stack[k] != d[i]; k--)
				cyc = stack[k] " -> " cyc
			cyc = d[i] " -> " cyc
			problem("cycle: " cyc)
		} else if (!state[d[i]]) {
			visit(d[i])
		}
	}
	depth--
	state[m] = 2
}
function problem(what) {
	print "include-graph: " what > "/dev/stderr"
	bad++
}
{
	file = $0
	m = module(file)
	mods[m] = 1
	dir = file
	sub(/[^\/]*$/, "", dir)
	while ((getline line < file) > 0) {
		if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/)
			continue
		sub(/^[^"]*"/, "", line)
		sub(/".*/, "", line)
		# -I. first, as the compiler searches, then beside the file.
		target = exists(line) ? line : dir line
		if (!exists(target)) {
			problem(file ": includes \"" line "\", which is not in the tree")
			continue
		}
		t = module(target)
		if (t == m || ((m, t) in edge))
			continue
		edge[m, t] = 1
		deps[m] = deps[m] (deps[m] == "" ? "" : " ") t
		nedges++
	}
	close(file)
}
END {
	for (e in edge) {
		split(e, p, SUBSEP)
		lf = layer(p[1])
		lt = layer(p[2])
		if (lt > lf)
			problem(p[1] " includes " p[2] ", a layer above it")
		else if (lt == lf && lf == 5 && p[2] != "builtin")
			problem(p[1] " includes " p[2] ", another builtin")
		else if (lt == lf && lf == 6)
			problem(p[1] " includes " p[2])
		else if (lt == 3.5 && lf > 4 && p[1] != "builtin-ubifs")
			problem(p[1] " includes " p[2] ", which only " \
				"builtin-ubifs and tests/ use")
	}
	n = 0
	for (m in mods)
		order[++n] = m
	# Insertion sort: awk has no portable sort, and n is small.
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
			tmp = order[j]
			order[j] = order[j - 1]
			order[j - 1] = tmp
		}
	for (i = 1; i <= n; i++)
		if (!state[order[i]])
			visit(order[i])
	for (i = 1; i <= n; i++) {
		nd = split(deps[order[i]], d, " ")
		for (a = 2; a <= nd; a++)
			for (b = a; b > 1 && d[b - 1] > d[b]; b--) {
				tmp = d[b]
				d[b] = d[b - 1]
				d[b - 1] = tmp
			}
		line = ""
		for (a = 1; a <= nd; a++)
			line = line " " d[a]
		print order[i] ":" line
	}
	printf "%d modules, %d include edges, %s\n", n, nedges,
		bad ? bad " violations" : "no cycles, nothing includes a layer above it"
	exit bad ? 1 : 0
}'
