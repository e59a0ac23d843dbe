#!/bin/bash
# description: probe: the listings -L, -V and -F side by side with perf probe 6.1 (every LINE form of its test_line_semantics.sh and ranges, -V with --externs, --range, --filter, --no-inlines, -F with filters): the same output and verdict; each difference listed
# tracefs: untouched
# probe-listing.c (with probe-listing-aux.c and probe-listing.h) built
# -O0 and -O2, DWARF 4 and 5; each listing below goes through `perf
# probe -x BIN` and `tracekit probe -x BIN`: the verdict (listed, a
# malformed argument: perf's usage exit 129 and tracekit's 2, or refused
# for what the binary has) and the output must be the same, byte for
# byte, but where a comment says why not.  Both run from /, so that the
# sources are found through the DWARF's paths.  The differences
# tracekit-probe(1) lists under DIFFERENCES FROM PERF PROBE are checked
# here too, so that the list stays true.
. "$(dirname "$0")/lib/common.sh"

need_host_cmd gcc perf readelf
dir=$(dirname "$0")
cp "$dir/probe-listing.c" "$dir/probe-listing-aux.c" "$dir/probe-listing.h" \
	"$TK_TMP/" || fail "cannot copy the sources"

# perf-probe(1) LINE SYNTAX: valid_lines and the first four invalid_lines
# are perf's test_line_semantics.sh's patterns (func: compute, source.c:
# probe-listing.c; its unquoted func;lazy\*pattern keeps the backslash),
# the others ranges empty, reversed, past a function's end, negative,
# in other bases, and names: a path's suffix, a header, an alias, a
# function inlined only, one inlined and out of line, a static one of
# two files, none.
valid_lines=(
	compute compute:10 compute:0-10 compute:2+10 compute@probe-listing.c
	compute@probe-listing.c:1 probe-listing.c:1 probe-listing.c:1+1
	probe-listing.c:1-10
)
invalid_lines=(
	compute:foo compute:1-foo compute:1+foo 'compute;lazy\*pattern'
	'compute;lazy*pattern' compute:5+0 compute:5-4 probe-listing.c:30-20
	compute:5x compute:5- ':5'
)
more_lines=(
	compute:-3 compute:-40 compute:5-5 compute:0x2+3 compute:010+2
	'compute: 5+1' compute:+5+1 compute:14-40 compute:0-1000 compute:3-4
	probe-listing.c probe-listing.c:40 probe-listing.c:40-200
	probe-listing.c:-5+7 probe-listing.c:1-2 ing.c:38+2 listing-aux.c
	listing-aux.c:13-18 probe-listing.h probe-listing.h:3-9
	main helper dup dup@probe-listing-aux.c dup@ux.c:0+2 square twice
	clamp_to compute_alias compute_alias:1+3 'comp*@probe-listing.c:0+3'
	compute@probe-listing-aux.c nosuch nosuch.c:3 '@probe-listing.c:5'
)
vars=(
	compute compute@probe-listing.c 'compute%return' compute:4 compute:6
	compute:7 helper helper:6 dup dup@probe-listing-aux.c square twice
	compute_alias main 'comp*' probe-listing.c:43 'compute;sum*'
	nosuch compute:foo 'compute n'
)
var_opts=('' --externs --range '--externs --range' '--filter !_*'
	  '--filter n*|t*' '--range --filter n*|t*' --no-inlines)
funcs=(
	"-F" "-F '*'" "-F 'comp*'" "-F --filter 'comp*'" "--filter 'comp*' -F"
	"-F 'comp*' --filter 'h*'" "-F '!*'" "-F '(comp*|h*) & !*r'" "-F '_*'"
	"-F '[a-d]*'" "-F '*[!e]'" "-F 'c?mpute'" "-F --filter '!_*'"
	"-F 'a !b'" "-F '('" "-F 'comp*' '&'"
)

forms=0 agree=0 exceptions=0 varied=0
bad=()

# verdict EXIT USAGE: ok, usage (the tool's usage exit: a malformed
# argument) or failed.
verdict() {
	case $1 in
	0) echo ok ;;
	"$2") echo usage ;;
	*) echo failed ;;
	esac
}

# listing ARGS...: perf's and tracekit's output and verdict for ARGS.
listing() {
	(cd / && perf probe -x "$bin" "$@") >"$TK_TMP/perf" 2>"$TK_TMP/perf.err"
	pv=$(verdict $? 129)
	(cd / && "$TRACEKIT" probe -x "$bin" "$@") >"$TK_TMP/ours" 2>"$TK_TMP/ours.err"
	tv=$(verdict $? 2)
}

# judge WHAT [RETRY]: counts the listing just run.  With RETRY, perf runs
# again (up to 8 times) where its output differs: perf -L reads a line
# number it never set for an inlined copy's entry without a statement row
# (util/probe-finder.c line_range_walk_cb), which varies from run to
# run; tracekit's must be one of perf's.
judge() {
	forms=$((forms + 1))
	if [ "$pv" = "$tv" ] && [ -n "${2:-}" ] && ! cmp -s "$TK_TMP/perf" "$TK_TMP/ours"; then
		for _ in 1 2 3 4 5 6 7 8; do
			(cd / && perf probe -x "$bin" -L "$2") >"$TK_TMP/perf" 2>/dev/null
			cmp -s "$TK_TMP/perf" "$TK_TMP/ours" && { varied=$((varied + 1)); break; }
		done
	fi
	if [ "$pv" = "$tv" ] && cmp -s "$TK_TMP/perf" "$TK_TMP/ours"; then
		agree=$((agree + 1))
		return
	fi
	echo "DIFFERS: $1: perf $pv, tracekit $tv"
	diff -u "$TK_TMP/perf" "$TK_TMP/ours" | head -20
	head -3 "$TK_TMP/ours.err"
	bad+=("$1")
}

# The lines of a -V listing without the blocks of the points but
# @<FUNC+...>: perf lists the variables at each inlined copy of a
# function that has an out-of-line body too, tracekit at the points it
# probes, that body only ("inlined copies" in tracekit-probe(1)).
own_blocks() {
	awk -v f="$2" '/^\t@</ { keep = index($0, "\t@<" f "+") == 1 }
		!/^\t/ { keep = 1 } keep' "$1"
}

# A --range listing without the variables whose name the regular
# expression does not match, as tracekit filters: perf matches --filter
# against the text after a variable's first tab, which with --range is
# its type, name and range.
named() {
	awk -F '\t' -v re="$2" '
		function flush() { if (blk != "") printf "%s%s", blk, n ? "" : "\t\t(No matched variables)\n" }
		/^\t@</ { flush(); blk = $0 "\n"; n = 0; next }
		/^\t\t/ { if ($5 ~ re) { blk = blk $0 "\n"; n++ }; next }
		{ print }
		END { flush() }' "$1"
}

# perf_vars ARGS...: perf's listing of ARGS in $TK_TMP/perf, which must
# succeed.
perf_vars() {
	(cd / && perf probe -x "$bin" "$@") >"$TK_TMP/perf" 2>"$TK_TMP/perf.err" ||
		{ cat "$TK_TMP/perf.err"; fail "perf probe -x $bin $*"; }
	pv=ok
}

# vars_exceptions OPTS POINT: perf's -V listing just run, as it would be
# without the differences tracekit-probe(1) lists; each must be seen in
# a run (seen_*), and exceptions counts the listings one changed.
vars_exceptions() {
	local o=$1 v=$2 twice='' ex=''
	[ "$opt:$v" = O2:twice ] && twice=1
	if [ -n "$twice" ] && [ "$o" = --no-inlines ]; then
		# perf finds twice's abstract definition first, and skips it:
		# nothing; tracekit lists the out-of-line body, as without.
		assert_eq "$b --no-inlines -V twice: perf" "$pv" failed
		perf_vars -V twice
		seen_noinl=1 ex=1
	fi
	if [ "$o" = '--range --filter n*|t*' ] && [ "$pv" = ok ]; then
		cp "$TK_TMP/perf" "$TK_TMP/perf.as"
		perf_vars --range -V "$v"
		named "$TK_TMP/perf" '^[nt]' >"$TK_TMP/perf.named"
		mv "$TK_TMP/perf.named" "$TK_TMP/perf"
		cmp -s "$TK_TMP/perf" "$TK_TMP/perf.as" || seen_filter=1 ex=1
	fi
	if [ -n "$twice" ]; then
		own_blocks "$TK_TMP/perf" twice >"$TK_TMP/perf.own"
		cmp -s "$TK_TMP/perf.own" "$TK_TMP/perf" || seen_copies=1 ex=1
		mv "$TK_TMP/perf.own" "$TK_TMP/perf"
	fi
	[ -z "$ex" ] || exceptions=$((exceptions + 1))
}

seen_noinl='' seen_filter='' seen_copies=''
for opt in O0 O2; do
	for dv in 4 5; do
		bin=$TK_TMP/listing_${opt}_d$dv
		(cd "$TK_TMP" && gcc -g -gdwarf-$dv -"$opt" -o "$bin" probe-listing.c \
			probe-listing-aux.c) || fail "gcc -$opt -gdwarf-$dv failed"
		b="-$opt DWARF $dv"

		for l in "${valid_lines[@]}" "${invalid_lines[@]}" "${more_lines[@]}"; do
			listing -L "$l"
			judge "$b -L '$l'" "$l"
		done
		# perf's own test: the valid patterns are no semantic error, the
		# invalid ones are.
		for l in "${valid_lines[@]}"; do
			(cd / && perf probe -x "$bin" -L "$l" 2>&1) | grep -q 'Semantic error' &&
				fail "perf: -L '$l' is a semantic error"
		done
		for l in "${invalid_lines[@]::4}"; do
			(cd / && perf probe -x "$bin" -L "$l" 2>&1) | grep -q 'Semantic error' ||
				fail "perf: -L '$l' is no semantic error"
		done

		for o in "${var_opts[@]}"; do
			read -r -a ov <<<"$o"
			for v in "${vars[@]}"; do
				listing "${ov[@]}" -V "$v"
				vars_exceptions "$o" "$v"
				judge "$b $o -V '$v'"
			done
		done

		# perf -F lists the symbol table: data objects too, PLT entries
		# (which its default filter leaves out), and a name once per
		# symbol.  tracekit lists functions, each name once (a spec
		# naming it probes every copy): perf's list without readelf's
		# data symbols and *@plt, each name once, must be tracekit's.
		readelf -sW "$bin" | awk '$4 == "OBJECT" || $4 == "NOTYPE" || $4 == "TLS" { print $8 }' |
			sort -u >"$TK_TMP/objects"
		for f in "${funcs[@]}"; do
			eval "listing $f"
			grep -vxF -f "$TK_TMP/objects" "$TK_TMP/perf" | grep -v '@plt$' | uniq >"$TK_TMP/perf.funcs"
			mv "$TK_TMP/perf.funcs" "$TK_TMP/perf"
			judge "$b $f"
		done
	done
done

echo "$agree of $forms listings agree with perf 6.1 ($exceptions after a difference tracekit-probe(1) lists; perf -L varied from run to run in $varied, tracekit giving one of its outputs)"
[ ${#bad[@]} = 0 ] || fail "${#bad[@]} listings differ from perf's: ${bad[*]}"
# Each listed difference was seen, or the manual's list is stale.
[ -n "$seen_copies" ] || fail "perf -V lists no inlined copy of twice: update tracekit-probe(1)"
[ -n "$seen_noinl" ] || fail "perf -V --no-inlines twice: not seen"
[ -n "$seen_filter" ] || fail "perf --range --filter matched names: update tracekit-probe(1)"
exit 0
