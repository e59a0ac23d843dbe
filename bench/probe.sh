#!/bin/bash
# bench/probe.sh [TRACEKIT [BINARY]]: `tracekit probe -D` against
# `perf probe -D` on the same specs and the same binary with debug info
# (default: the tracekit binary itself), one process per spec and then all
# specs in one process, ROUNDS times each; prints both times and the ratio.
set -u
tk=$(realpath "${1:-./tracekit}")
bin=$(realpath "${2:-$tk}")
rounds=${ROUNDS:-5}
command -v perf >/dev/null || { echo "bench/probe.sh: perf is not installed" >&2; exit 3; }

specs=(
	'strbuf_addf sb fmt'
	'strbuf_add sb data len'
	'probe_spec_parse text:string spec err'
	'fetch_arg_format fa ctx out err'
	'probe_defs_add kind lines nr undo err'
	'probe_name_valid name:string'
	'elf_load_segment elf vaddr out'
	'parse_options argc argv opts'
	'xmalloc n'
	'xstrdup s:string'
	'strbuf_release sb'
	'strbuf_addstr sb->len sb->alloc s:string'
	'cmd_probe argc argv'
	'tk_dynevent_write file:string line:string err'
	'probe_def_parse line:string kind def'
	'fetch_arg_push_deref fa->nr_derefs off'
	'tk_tracefs_set instance file val restore'
	'probe_dwarf_resolve dbg spec opts pp err'
	'strbuf_read_file sb path:string hint'
	'probe_defs_del glob deleted err'
	'tk_restore_push_write path value append'
	'cmd_test argc argv'
)

now() { date +%s%N; }

# run TOOL: every spec in its own process, ROUNDS times; prints nanoseconds.
per_spec() {
	local t0 r s
	t0=$(now)
	for ((r = 0; r < rounds; r++)); do
		for s in "${specs[@]}"; do
			"$@" -D "$s" >/dev/null 2>&1 || { echo "failed: $* -D '$s'" >&2; return 1; }
		done
	done
	echo $(($(now) - t0))
}

batch() {
	local t0 r s args=()
	for s in "${specs[@]}"; do
		args+=(-D "$s")
	done
	t0=$(now)
	for ((r = 0; r < rounds; r++)); do
		"$@" "${args[@]}" >/dev/null 2>&1 || { echo "failed: $* (batch)" >&2; return 1; }
	done
	echo $(($(now) - t0))
}

report() {
	awk -v what="$1" -v n="$2" -v p="$3" -v t="$4" 'BEGIN {
		printf "%-28s perf %8.1f ms   tracekit %8.1f ms   ratio %6.1fx\n",
		       what, p / 1e6 / n, t / 1e6 / n, p / t }'
}

echo "binary: $bin ($(stat -c %s "$bin") bytes), ${#specs[@]} specs, $rounds rounds"
p=$(per_spec perf probe -q -x "$bin") || exit 1
t=$(per_spec "$tk" probe -x "$bin") || exit 1
report "one process per spec" "$((rounds * ${#specs[@]}))" "$p" "$t"
p=$(batch perf probe -q -x "$bin") || exit 1
t=$(batch "$tk" probe -x "$bin") || exit 1
report "all specs in one process" "$rounds" "$p" "$t"
