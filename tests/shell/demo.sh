#!/bin/bash
# description: demo: make demo's script probes its program and reports what the program printed, writes the flame graph it names, and cleans up after Ctrl-C
# scripts/demo.sh runs as `make demo` runs it.  Its program prints the
# values it passes to ship() before each call: the events the report
# shows must hold them, the flame graph must have the callers with as
# many samples as the program made calls through each.  A second run gets
# SIGINT, as Ctrl-C sends it to the foreground process group, once its
# first probe exists: it must fail and leave no probe and no file.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc
need_cmd jq
demo=${TRACEKIT_SRCDIR:-$(dirname "$0")/../..}/scripts/demo.sh
[ -r "$demo" ] || fail "no $demo"
# The demo's folder and flame graph come from mktemp, here.
export TMPDIR=$TK_TMP/tmp
mkdir "$TMPDIR"

# The probes the demo defines are deleted even if it does not.
for e in probe_shop:ship probe_shop_O2:ship probe:ip_rcv; do
	on_exit "'$TRACEKIT' probe -d '$e'"
done
bash "$demo" "$TRACEKIT" >"$TK_TMP/out" 2>"$TK_TMP/err" ||
	{ cat "$TK_TMP/out" "$TK_TMP/err"; fail "the demo failed"; }
cat "$TK_TMP/out"

# What the program printed (it runs twice: -O0 and -O2), "ship: ARGS".
grep '^ship: ' "$TK_TMP/out" | sort -u >"$TK_TMP/want"
[ "$(wc -l <"$TK_TMP/want")" -gt 1 ] || fail "the program printed no calls"
# The report's events, "COMM-PID [CPU] TS: ship: (IP) ARGS" -> "ship: ARGS".
sed -n -E 's/^ +shop-[0-9]+ +\[[0-9]+\] [0-9.]+: (ship): +\([0-9a-f]+\) (.*)$/\1: \2/p' \
	"$TK_TMP/out" | sort -u >"$TK_TMP/got"
diff -u "$TK_TMP/want" "$TK_TMP/got" ||
	fail "the report's events differ from what the program printed"
grep '^{"ts_ns":' "$TK_TMP/out" |
	jq -r '.fields | "ship: number=\(.number) customer=\"\(.customer)\" id=\(.id)" +
	       " items={\(.items | map(tostring) | join(","))} city=\"\(.city)\""' \
	>"$TK_TMP/json"
assert_eq "JSON events shown" "$(wc -l <"$TK_TMP/json")" 2
while read -r l; do
	grep -qxF -- "$l" "$TK_TMP/want" || fail "JSON event '$l' is not what the program printed"
done <"$TK_TMP/json"

# The flame graph: the path printed last; the late orders (their
# numbers raised by 1000) go through ship_late(), the others through
# ship_today(), in each of the program's two runs.
svg=$(sed -n 's/^# The flame graph, to open in a web browser: //p' "$TK_TMP/out")
[ -n "$svg" ] || fail "the demo printed no flame graph path"
[ -s "$svg" ] || fail "no flame graph at $svg"
on_exit "rm -f '$svg'"
head -n 2 "$svg" | grep -q '^<svg ' || fail "$svg is not an SVG"
late=$(grep -cE '^ship: number=[0-9]{4,} ' "$TK_TMP/out")
today=$(grep -cE '^ship: number=[0-9]{1,3} ' "$TK_TMP/out")
for f in "main $(((late + today) / 2))" "ship_today $((today / 2))" \
	 "ship_late $((late / 2))" "ship $((today / 2))" "ship $((late / 2))"; do
	grep -q "<title>${f% *} (${f#* } samples, " "$svg" ||
		{ grep -o '<title>[^<]*' "$svg"; fail "no frame '${f% *}' of ${f#* } samples in $svg"; }
done
rm -f "$svg"
[ -z "$(ls -A "$TMPDIR")" ] || { ls -la "$TMPDIR"; fail "the demo left files in $TMPDIR"; }

# Ctrl-C: SIGINT to the demo's process group once its first probe is
# defined (the record step follows).  Job control gives the background
# demo a process group of its own.
set -m
bash "$demo" "$TRACEKIT" >"$TK_TMP/out2" 2>&1 &
pid=$!
set +m
for ((i = 0; i < 2000; i++)); do
	grep -q '^p:probe_shop/ship ' "$TRACEFS/uprobe_events" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.01
done
kill -INT -- -"$pid" 2>/dev/null || { cat "$TK_TMP/out2"; fail "the demo ended before Ctrl-C"; }
rc=0
wait "$pid" || rc=$?
cat "$TK_TMP/out2"
[ "$rc" != 0 ] || fail "the demo exited 0 after Ctrl-C"
grep -q 'probe_shop' "$TRACEFS/uprobe_events" && fail "Ctrl-C left a probe"
[ -z "$(ls -A "$TMPDIR")" ] || { ls -la "$TMPDIR"; fail "Ctrl-C left files in $TMPDIR"; }
exit 0
