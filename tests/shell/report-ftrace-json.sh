#!/bin/bash
# description: report --format json: the tracers' typed members carry what trace-cmd report prints (kind, depth, func, duration, parent)
# tracefs: untouched
# On trace-cmd's own recordings (tests/vm/mk-ftrace-fixtures.sh), every
# member is read back from trace-cmd's text: the folded graph gives each
# object's kind, depth (the indentation) and function; -N gives every
# exit record's function, depth and timestamps, so the leaves' and the
# exits' durations to the nanosecond; function's "FUNC <-- PARENT".
. "$(dirname "$0")/lib/common.sh"
need_cmd trace-cmd
need_cmd jq

data=$(cd "$(dirname "$0")/../data" && pwd)

# The folded text as "kind depth [func]" lines.
graph_text() {
	awk '/ funcgraph_(entry|exit): / {
		body = substr($0, index($0, "|  ") + 3)
		n = match(body, /[^ ]/) - 1
		name = substr(body, n + 1)
		if (name == "}") {
			print "exit", n / 2
		} else if (name ~ /\(\);$/) {
			sub(/\(\);$/, "", name); print "leaf", n / 2, name
		} else {
			sub(/\(\) \{$/, "", name); print "entry", n / 2, name
		}
	}'
}

# -N's exit records as "func depth rettime-calltime".
graph_exits() {
	local func depth start end
	sed -n 's/.* funcgraph_exit: *<-- \([^ ]*\) (\([0-9]*\)) (start: \([0-9a-f]*\)  end: \([0-9a-f]*\)).*/\1 \2 \3 \4/p' |
		while read -r func depth start end; do
			echo "$func $depth $((16#$end - 16#$start))"
		done
}

n=0
for gz in "$data"/report-ftrace-*.dat.gz; do
	f=$TK_TMP/$(basename "$gz" .gz)
	gzip -dc "$gz" >"$f"
	"$TRACEKIT" report --format json "$f" >"$TK_TMP/json" || fail "report --format json $f"
	jq -e . "$TK_TMP/json" >/dev/null || fail "${f##*/}: not JSON"
	case $f in
	*fgraph*)
		trace-cmd report "$f" | graph_text >"$TK_TMP/want"
		jq -r 'select(.graph) | .graph |
			if .kind == "exit" then "exit \(.depth)" else "\(.kind) \(.depth) \(.func)" end' \
			"$TK_TMP/json" >"$TK_TMP/got"
		for kind in leaf entry exit; do
			assert_grep "^$kind " "$TK_TMP/want"
		done
		diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
			{ head -n 20 "$TK_TMP/diff"; fail "${f##*/}: graph members differ from trace-cmd's graph"; }
		trace-cmd report -N "$f" | graph_exits >"$TK_TMP/want"
		jq -r 'select(.graph.kind == "leaf" or .graph.kind == "exit") | .graph |
			"\(.func) \(.depth) \(.duration_ns)"' "$TK_TMP/json" >"$TK_TMP/got"
		[ -s "$TK_TMP/want" ] || fail "${f##*/}: trace-cmd -N shows no exit"
		diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
			{ head -n 20 "$TK_TMP/diff"; fail "${f##*/}: durations differ from trace-cmd -N's exits"; }
		# Every event but the tracer's has no graph member; no exit
		# of a leaf is an object of its own.
		assert_eq "${f##*/}: graph objects" \
			"$(jq -r 'select(.graph) | .event' "$TK_TMP/json" | sort -u | tr '\n' ' ')" \
			"funcgraph_entry funcgraph_exit "
		;;
	*function*)
		trace-cmd report -N "$f" |
			sed -n 's/.* function: *\([^ ]* <-- [^ ]*\)$/\1/p' >"$TK_TMP/want"
		jq -r 'select(.function) | "\(.function.func) <-- \(.function.parent)"' \
			"$TK_TMP/json" >"$TK_TMP/got"
		[ -s "$TK_TMP/want" ] || fail "${f##*/}: trace-cmd -N shows no function"
		diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
			{ head -n 20 "$TK_TMP/diff"; fail "${f##*/}: func/parent differ from trace-cmd -N's"; }
		;;
	esac
	# -N prints the records as they are: no typed members there.
	"$TRACEKIT" report -N --format json "$f" | jq -e 'select(.graph or .function)' >/dev/null &&
		fail "${f##*/}: -N gives typed members"
	n=$((n + 1))
done
[ "$n" = 6 ] || fail "$n fixtures, want 6"
echo "$n files' typed members agree with trace-cmd report"
exit 0
