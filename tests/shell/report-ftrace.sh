#!/bin/bash
# description: report: function and function_graph files trace-cmd recorded print as trace-cmd report prints them
# tracefs: untouched
# The files are trace-cmd's own recordings in the VM guest
# (tests/vm/mk-ftrace-fixtures.sh): this host refuses the tracers.
. "$(dirname "$0")/lib/common.sh"
need_cmd trace-cmd

data=$(cd "$(dirname "$0")/../data" && pwd)
n=0
for gz in "$data"/report-ftrace-*.dat.gz; do
	[ -r "$gz" ] || fail "committed fixtures missing in $data"
	f=$TK_TMP/$(basename "$gz" .gz)
	gzip -dc "$gz" >"$f"
	# Graph folding, durations and markers; -N the raw records; -l the
	# latency columns; -F and -R change what the folding sees.
	for opts in "" "-N" "-l" "-R" "-F funcgraph_exit" \
		    "-F funcgraph_entry:depth<2"; do
		# shellcheck disable=SC2086
		trace-cmd report $opts "$f" >"$TK_TMP/want" 2>"$TK_TMP/err" ||
			{ cat "$TK_TMP/err"; fail "trace-cmd report $opts $f"; }
		# shellcheck disable=SC2086
		"$TRACEKIT" report $opts "$f" >"$TK_TMP/got" || fail "tracekit report $opts $f"
		diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
			{ head -n 30 "$TK_TMP/diff"; fail "report $opts ${f##*/} differs from trace-cmd's"; }
		n=$((n + 1))
	done
	trace-cmd report "$f" >"$TK_TMP/want"
	case $f in
	*fgraph*)
		# Leaves, nests and their closing braces are all there.
		assert_grep 'funcgraph_entry: .* us .*|  *[a-z_.0-9]*();$' "$TK_TMP/want"
		assert_grep 'funcgraph_entry: *|  *[a-z_.0-9]*() {$' "$TK_TMP/want"
		assert_grep 'funcgraph_exit: .* us .*|  *}$' "$TK_TMP/want"
		;;
	*function*)
		assert_grep ' function: ' "$TK_TMP/want"
		;;
	esac
done
[ "$n" -ge 36 ] || fail "only $n comparisons"
echo "$n reports equal trace-cmd's"
exit 0
