#!/bin/bash
# description: unwind: --call-graph sizes the kernel takes and refuses
# The kernel is the judge of the size: the largest stack tracekit lets
# through is defined by it, one more word is refused by it (and by
# tracekit, first).
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc
src=$(dirname "$0")/unwind-target.c
bin=$TK_TMP/unwind_lim
gcc -g -O2 -fomit-frame-pointer -o "$bin" "$src" || fail "gcc failed"

# Sizes: 3008 bytes is the most the kernel takes beside the registers.
max=$("$TRACEKIT" probe -x "$bin" --call-graph=3008 -D leaf) || fail "-D --call-graph=3008"
place=$(echo "$max" | awk '{print $2}')
on_exit "echo '-:tkunwind_oracle/e' >>'$TRACEFS/uprobe_events'"
echo "p:tkunwind_oracle/e $place ${max#* * }" >>"$TRACEFS/uprobe_events" ||
	fail "the kernel refuses --call-graph=3008, which tracekit lets through"
echo "-:tkunwind_oracle/e" >>"$TRACEFS/uprobe_events"
if echo "p:tkunwind_oracle/e $place ${max#* * } x=+3008(%sp):x64" \
	>>"$TRACEFS/uprobe_events" 2>/dev/null; then
	fail "the kernel takes 8 more bytes than --call-graph's maximum"
fi
expect_fail "$TRACEKIT" probe -x "$bin" --call-graph=3016 -D leaf
assert_grep "multiple of 8 bytes, 8 to 3008" "$TK_TMP/out"
expect_fail "$TRACEKIT" probe -x "$bin" --call-graph -D 'leaf __ip=%ax'
assert_grep "names starting with __ are --call-graph's" "$TK_TMP/out"
