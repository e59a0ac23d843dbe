#!/bin/bash
# description: unwind: --call-graph sizes the kernel takes and refuses, a dump past the stack's top, a short dump, a binary gone or rebuilt end in [unknown]
# The kernel is the judge of the size: the largest stack tracekit lets
# through is defined by it, one more word is refused by it (and by
# tracekit, first).  A dump taken at _start runs past the top of the
# stack, whose fetch faults: the event must still be recorded, and
# unwind.  A dump too short to hold the callers' frames must end the
# stack with [unknown], the frames before it right; so must a binary
# deleted since the recording, after the one address known, and one
# rebuilt since (its build-id differs from the recorded one).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_unwind
need_host_cmd gcc
need_cmd trace-cmd readelf setarch
src=$(dirname "$0")/unwind-target.c
bin=$TK_TMP/unwind_lim
group=probe_unwind_lim
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

# unwound DAT: unwind_stacks, sorted.
unwound() {
	unwind_stacks "$1" | sort
}

# At _start the stack holds little more than argv, envp and auxv (in an
# empty environment, and without the random gap of up to 8 KB that
# arch_align_stack() leaves under them: setarch -R): the dump reaches
# past the top of the stack, where the fetch faults.  The event must still be recorded, and unwind to the
# one frame _start's CFI ends.  _start has no DWARF: its definition is
# main's with _start's file offset.
sym=$(readelf -sW "$bin" | awk '$8 == "_start" { print $2 }')
read -r seg_off seg_vaddr < <(readelf -lW "$bin" | awk '$1 == "LOAD" && $7 ~ /E/ { print $2, $3 }')
off=$(printf '0x%x' $((16#$sym - seg_vaddr + seg_off)))
[ -n "$sym" ] && [ -n "$off" ] || fail "no _start in $bin"
def=$("$TRACEKIT" probe -x "$bin" --call-graph -D main) || fail "-D main"
on_exit "echo '-:tkunwind_top/start' >>'$TRACEFS/uprobe_events'"
echo "p:tkunwind_top/start $bin:$off ${def#* * }" >>"$TRACEFS/uprobe_events" ||
	fail "cannot add a probe on _start"
"$TRACEKIT" record -q --proc-map -e tkunwind_top:start -o "$TK_TMP/top.dat" \
	-- setarch "$(uname -m)" -R env -i "$bin" 1 0 >/dev/null || fail "record failed"
echo "-:tkunwind_top/start" >>"$TRACEFS/uprobe_events"
top=$(trace-cmd dump --options "$TK_TMP/top.dat" 2>/dev/null | awk '$3 == "[stack]" { print $2 }')
[ -n "$top" ] || fail "no [stack] in the stored maps"
"$TRACEKIT" report -R -i "$TK_TMP/top.dat" --format json >"$TK_TMP/top.raw"
assert_eq "events at _start" "$(wc -l <"$TK_TMP/top.raw")" 1
assert_eq "dump past the top of the stack" \
	"$(jq --argjson top $((16#$top)) '.fields.__sp + 2944 > $top' "$TK_TMP/top.raw")" true
"$TRACEKIT" report -i "$TK_TMP/top.dat" --format json >"$TK_TMP/top.json"
assert_eq "stack at _start" "$(jq -c '[.callchain[].sym]' "$TK_TMP/top.json")" '["_start"]'

# 16 bytes of stack: leaf's return address and no more.
on_exit "'$TRACEKIT' probe -d '$group:*'"
"$TRACEKIT" probe -x "$bin" --call-graph=16 'leaf id depth' >/dev/null || fail "probe failed"
"$TRACEKIT" record -q --proc-map -e "$group:leaf" -o "$TK_TMP/short.dat" \
	-- "$bin" 20 >"$TK_TMP/out.short" || fail "record failed"
unwound "$TK_TMP/short.dat" >"$TK_TMP/got.short"
cat "$TK_TMP/got.short"
assert_eq "short dumps unwound" "$(wc -l <"$TK_TMP/got.short")" 20
assert_eq "short dumps ending in [unknown]" "$(grep -c ' \[unknown\]$' "$TK_TMP/got.short")" 20
awk '$1 == "BT" { print $2, $5 }' "$TK_TMP/out.short" | sort >"$TK_TMP/want.short1"
awk '{ print $1, $3 }' "$TK_TMP/got.short" >"$TK_TMP/got.short1"
diff -u "$TK_TMP/want.short1" "$TK_TMP/got.short1" || fail "the frame the dump holds is wrong"
"$TRACEKIT" report -i "$TK_TMP/short.dat" >"$TK_TMP/text.short" || fail "report failed"
assert_grep '^  => \[unknown\]$' "$TK_TMP/text.short"
"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "probe -d failed"

# A binary gone since the recording: its frame is an address, then the
# unwinder has no CFI to go on.
cp "$bin" "$TK_TMP/gone" || fail "cp failed"
"$TRACEKIT" probe -x "$TK_TMP/gone" --call-graph 'leaf id depth' >/dev/null || fail "probe failed"
on_exit "'$TRACEKIT' probe -d 'probe_gone:*'"
"$TRACEKIT" record -q -e probe_gone:leaf -o "$TK_TMP/gone.dat" -- "$TK_TMP/gone" 10 \
	>/dev/null 2>&1 || fail "record failed"
"$TRACEKIT" probe -d 'probe_gone:*' >/dev/null || fail "probe -d failed"
rm "$TK_TMP/gone"
"$TRACEKIT" report -i "$TK_TMP/gone.dat" --format json >"$TK_TMP/gone.json" ||
	fail "report of a file whose binary is gone failed"
assert_eq "stacks without their binary" \
	"$(jq -c '[.callchain[] | .dso // .sym]' "$TK_TMP/gone.json" | sort | uniq -c | awk '{print $1, $2}')" \
	'10 [null,"[unknown]"]'

# A binary rebuilt since the recording: record stored its build-id (as
# readelf -n reads it) in an option of its own, which trace-cmd skips;
# report names the change and does not use the new file.
cp "$bin" "$TK_TMP/changed" || fail "cp failed"
want_id=$(readelf -n "$TK_TMP/changed" | sed -n 's/^ *Build ID: //p')
[ -n "$want_id" ] || fail "gcc wrote no build-id"
"$TRACEKIT" probe -x "$TK_TMP/changed" --call-graph 'leaf id depth' >/dev/null || fail "probe failed"
on_exit "'$TRACEKIT' probe -d 'probe_changed:*'"
"$TRACEKIT" record -q -e probe_changed:leaf -o "$TK_TMP/changed.dat" -- "$TK_TMP/changed" 10 \
	>/dev/null 2>&1 || fail "record failed"
"$TRACEKIT" probe -d 'probe_changed:*' >/dev/null || fail "probe -d failed"
trace-cmd report -i "$TK_TMP/changed.dat" >/dev/null 2>"$TK_TMP/tc.err" ||
	{ cat "$TK_TMP/tc.err"; fail "trace-cmd cannot read a file with build-ids"; }
[ -s "$TK_TMP/tc.err" ] && { cat "$TK_TMP/tc.err"; fail "trace-cmd complains of the build-ids"; }
"$TRACEKIT" report -i "$TK_TMP/changed.dat" --format json >/dev/null 2>"$TK_TMP/same.err"
[ -s "$TK_TMP/same.err" ] && { cat "$TK_TMP/same.err"; fail "report warns of an unchanged file"; }
gcc -g -O0 -o "$TK_TMP/changed" "$src" || fail "gcc failed"
"$TRACEKIT" report -i "$TK_TMP/changed.dat" --format json >"$TK_TMP/changed.json" \
	2>"$TK_TMP/changed.err" || fail "report of a changed binary failed"
assert_grep "$TK_TMP/changed: build-id [0-9a-f]+, recorded $want_id: a changed file, not used" \
	"$TK_TMP/changed.err"
assert_eq "stacks of a changed binary" \
	"$(jq -c '[.callchain[] | .dso // .sym]' "$TK_TMP/changed.json" | sort | uniq -c | awk '{print $1, $2}')" \
	'10 [null,"[unknown]"]'
