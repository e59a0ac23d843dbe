#!/bin/bash
# description: bash completion: record -e and trace -e offer available_events, probe -d the probes defined
# What tracefs itself lists is what must be offered: available_events for
# record -e and trace -e, the uprobe_events this test defines for probe -d.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/completion.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc
load_completion

grep '^sched:sched_' "$TRACEFS/available_events" | sort -u >"$TK_TMP/want"
[ -s "$TK_TMP/want" ] || fail "no sched:sched_* in available_events"
expect "record -e" "$TK_TMP/want" tracekit record -e sched:sched_
sed 's/^sched//' "$TK_TMP/want" >"$TK_TMP/want.tail"
expect "record -e SYSTEM:" "$TK_TMP/want.tail" tracekit record -q -e sched :
sed 's/^sched://' "$TK_TMP/want" >"$TK_TMP/want.tail"
expect "record --event=SYSTEM:EV" "$TK_TMP/want.tail" tracekit record --event = sched : sched_
expect "trace -e SYSTEM:EV" "$TK_TMP/want.tail" tracekit trace -e sched : sched_

cat >"$TK_TMP/prog.c" <<'EOC'
int tkcompd_one(int x) { return x + 1; }
int tkcompd_two(int x) { return x * 2; }
int main(int argc, char **argv) { (void)argv; return tkcompd_one(argc) + tkcompd_two(argc); }
EOC
gcc -g -O0 -o "$TK_TMP/tkcompd" "$TK_TMP/prog.c" || fail "gcc failed"
group=probe_tkcompd
on_exit "'$TRACEKIT' probe -d '$group:*'"
"$TRACEKIT" probe -x "$TK_TMP/tkcompd" -a tkcompd_one -a tkcompd_two >"$TK_TMP/add" 2>&1 ||
	{ cat "$TK_TMP/add"; fail "probe -a failed"; }
sed -n "s|^p:\\($group/[a-z_]*\\) .*|\\1|p" "$TRACEFS/uprobe_events" | tr / : |
	sort -u >"$TK_TMP/want"
assert_eq "probes defined" "$(wc -l <"$TK_TMP/want")" 2
expect "probe -d" "$TK_TMP/want" tracekit probe -d probe_tkcompd
expect "probe --del=" "$TK_TMP/want" tracekit probe --del = probe_tkcompd
"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "probe -d failed"
expect "probe -d, none left" /dev/null tracekit probe -d probe_tkcompd
exit 0
