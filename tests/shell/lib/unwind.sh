# Sourced by tests/shell/unwind-*.sh after common.sh: what a test of
# probe --call-graph stacks needs, and the stacks tracekit unwound.

# need_unwind: uprobes in tracefs, and jq for report's JSON callchains.
need_unwind() {
	need_tracefs
	need_cap uprobes "this kernel has no uprobe_events"
	need_cmd jq
}

# unwind_stacks DAT [REPORT-OPTION...]: "ID SYM0 RET1 RET2 ..." for each
# event of DAT with a callchain, from tracekit's JSON (unwind_json).
unwind_stacks() {
	"$TRACEKIT" report -i "$1" --format json "${@:2}" | unwind_json
}

# unwind_json: the stacks of report --format json on stdin as
# unwind_stacks prints them: frame 0 by its symbol, then the return
# addresses, [unknown] where the unwinder stopped; the frames of inlined
# functions (tracekit's own, which backtrace() does not show) left out;
# no blank after a lone frame 0.
unwind_json() {
	jq -r 'select(.callchain) |
			(.callchain | map(select(.inlined | not))) as $c |
			"\(.fields.id) \($c[0].sym) " +
			([$c[1:][] | if .sym == "[unknown]" then "[unknown]"
			  else (.ip | tostring) end] | join(" "))' | sed 's/ $//'
}

# unwind_fdes READELF NM BIN: how many of the functions leaf, rec and
# main of BIN (tests/shell/unwind-target.c) have an FDE in .eh_frame,
# and how many in .debug_frame.
unwind_fdes() {
	"$1" --debug-dump=frames "$3" | awk -v syms="$("$2" "$3" |
		awk '$3 == "leaf" || $3 == "rec" || $3 == "main" { printf "%s ", $1 }')" '
	BEGIN { n = split(syms, s, " ") }
	/^Contents of the/ { sec = $4 }
	/ FDE / { split(substr($NF, 4), r, "\\.\\.")
		  for (i = 1; i <= n; i++)	# 16 hex digits each: compared as strings
			if ("x" s[i] >= "x" r[1] && "x" s[i] < "x" r[2]) c[sec]++ }
	END { print c[".eh_frame"] + 0, c[".debug_frame"] + 0 }'
}

# unwind_classify OUT GOT FIT: each event of GOT (unwind_json) against
# the BT line of OUT (tests/shell/unwind-target.c), "leaf RET1 RET2 ...":
# equal frame for frame, or cut short (backtrace()'s first frames, then
# [unknown]: the dump ended), or wrong.  Prints the three counts, then
# those of the events at depths <= FIT: how many, and how many equal.
unwind_classify() {
	awk -v fit="$3" '
	FNR == NR { if ($1 == "BT") { s = "leaf"; for (i = 5; i <= NF; i++) s = s " " $i
			bt[$2] = s; depth[$2] = $3 }; next }
	{ id = $1; s = $2; for (i = 3; i <= NF; i++) s = s " " $i
	  cut = substr(s, 1, length(s) - length(" [unknown]"))
	  if (s == bt[id]) m++
	  else if ($NF == "[unknown]" && index(bt[id] " ", cut " ") == 1) t++
	  else { w++; if (w <= 5) print "wrong: " id ": " s " / " bt[id] >"/dev/stderr" }
	  if (depth[id] <= fit) { fn++; fm += s == bt[id] } }
	END { print m + 0, t + 0, w + 0, fn + 0, fm + 0 }' "$1" "$2"
}
