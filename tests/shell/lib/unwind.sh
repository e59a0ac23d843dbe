# Sourced by tests/shell/unwind-*.sh after common.sh: what a test of
# probe --call-graph stacks needs, and the stacks tracekit unwound.

# need_unwind: uprobes in tracefs, and jq for report's JSON callchains.
need_unwind() {
	need_tracefs
	need_cap uprobes "this kernel has no uprobe_events"
	need_cmd jq
}

# unwind_stacks DAT: "ID SYM0 RET1 RET2 ..." for each event of DAT with a
# callchain, from tracekit's JSON: frame 0 by its symbol, then the return
# addresses, [unknown] where the unwinder stopped; the frames of inlined
# functions (tracekit's own, which backtrace() does not show) left out.
unwind_stacks() {
	"$TRACEKIT" report -i "$1" --format json |
		jq -r 'select(.callchain) |
			(.callchain | map(select(.inlined | not))) as $c |
			"\(.fields.id) \($c[0].sym) " +
			([$c[1:][] | if .sym == "[unknown]" then "[unknown]"
			  else (.ip | tostring) end] | join(" "))'
}
