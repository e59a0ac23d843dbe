#!/bin/bash
# description: probe: definitions as tracefs takes them (made with -D here or for another machine) are checked, then added as they are; the kernel lists and fires what -D printed; bad ones are one line each, nothing written
# The workflow of tracekit-probe(1)'s CROSS TARGETS on one machine: the
# output of `probe -D` goes back in through `probe -a` unchanged, the
# kernel's uprobe_events lists the same lines, and the events record what
# the program prints.  Then definitions wrong in each way probe_events_raw()
# checks: refused before the kernel sees them, uprobe_events and
# error_log as they were.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/probe-target.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_cap instances "this tracefs has no instances"
need_host_cmd gcc
bin=$TK_TMP/tkraw
gcc -g -O2 -o "$bin" "$(dirname "$0")/probe-target.c" || fail "gcc failed"
target_set O2
args=()
for s in "${specs[@]}"; do
	args+=(-D "$s")
done
"$TRACEKIT" probe -x "$bin" "${args[@]}" >"$TK_TMP/defs" || fail "probe -D failed"
assert_eq "definitions" "$(wc -l <"$TK_TMP/defs")" "$ndefs"

# -D of a definition prints it unchanged (checked, not translated).
mapfile -t defs <"$TK_TMP/defs"
args=()
for d in "${defs[@]}"; do
	args+=(-D "$d")
done
"$TRACEKIT" probe "${args[@]}" >"$TK_TMP/again" || fail "probe -D of definitions failed"
cmp -s "$TK_TMP/defs" "$TK_TMP/again" || { diff -u "$TK_TMP/defs" "$TK_TMP/again"; fail "-D changed a definition"; }

group=probe_tkraw
on_exit "'$TRACEKIT' probe -d '$group:*'"
args=()
for d in "${defs[@]}"; do
	args+=(-a "$d")
done
"$TRACEKIT" probe "${args[@]}" >"$TK_TMP/add" 2>&1 || { cat "$TK_TMP/add"; fail "probe -a of definitions failed"; }
assert_grep "^  $group:ip_rcv__return " "$TK_TMP/add"
# The kernel lists the offset with its leading zeros.
grep "^[pr]:$group/" "$TRACEFS/uprobe_events" | sed -E 's/:0x0+([0-9a-f])/:0x\1/' \
	>"$TK_TMP/listed"
cmp -s "$TK_TMP/defs" "$TK_TMP/listed" ||
	{ diff -u "$TK_TMP/defs" "$TK_TMP/listed"; fail "uprobe_events lists other lines than -D printed"; }

inst=$TRACEFS/instances/tkraw_$$
mkdir "$inst" || fail "cannot create instance"
on_exit "rmdir '$inst'"
on_exit "echo 0 >'$inst/events/$group/enable'"
echo 1 >"$inst/events/$group/enable" || fail "cannot enable $group"
"$bin" >"$TK_TMP/out" || fail "the target failed"
echo 0 >"$inst/events/$group/enable"
target_check "definitions added as -D printed them" "$TK_TMP/out" "$inst/trace"
"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "probe -d failed"

# bad WANT-IN-MESSAGE DEFINITION...: exit 1, one line naming it, no write.
snapshot() { cat "$TRACEFS/uprobe_events" "$TRACEFS/kprobe_events" "$TRACEFS/error_log" 2>/dev/null; }
snapshot >"$TK_TMP/before"
off=$(sed -n '1s/^p:[^ ]* [^:]*:\(0x[0-9a-f]*\) .*/\1/p' "$TK_TMP/defs")
[ -n "$off" ] || fail "no offset in the first definition"
bad() {
	local want=$1 rc=0
	shift
	"$TRACEKIT" probe -a "$@" >"$TK_TMP/out" 2>"$TK_TMP/err" || rc=$?
	[ "$rc" = 1 ] || { cat "$TK_TMP/err"; fail "$*: exit $rc, want 1"; }
	[ ! -s "$TK_TMP/out" ] || fail "$*: printed on stdout"
	assert_eq "$*: stderr lines" "$(wc -l <"$TK_TMP/err")" 1
	assert_grep "^tracekit probe: .*$want" "$TK_TMP/err"
}
bad "offset 0x10 is in no executable segment of $bin" "p:tkraw/a $bin:0x10"
bad "$TK_TMP/absent: No such file or directory" "p:tkraw/a $TK_TMP/absent:0x10"
bad "not an ELF file" "p:tkraw/a $(dirname "$0")/probe-target.c:0x10"
bad "is not PATH:0xOFFSET" "p:tkraw/a $bin"
# Made for the other machine: its registers (this suite runs on x86-64).
bad "%x0 is a register of arm64, this kernel is x86_64" "p:tkraw/a $bin:$off v=%x0:u64"
bad "uprobes take no \\\$argN" "p:tkraw/a $bin:$off v=\$arg1"
bad "MAXACTIVE is for kretprobes, not uprobes" "r5:tkraw/a $bin:$off"
bad "GROUP and EVENT are C identifiers" "p:tk-raw/a $bin:$off"
bad "not an argument name the kernel takes" "p:tkraw/a $bin:$off common_pid=%di"
bad "an argument is NAME=FETCHARG" "p:tkraw/a $bin:$off %di"
bad "not \\[p\\|r\\[MAXACTIVE\\]\\]:GROUP/EVENT" "p:tkraw $bin:$off"
bad "control characters and quotes" "p:tkraw/a $bin:$off v=\"x\""
bad "kprobe and uprobe definitions go in one command each" "p:tkraw/a $bin:$off" "p:tkraw/b vfs_read"
# All or nothing: the good first line is not written either.
bad "offset 0x10" "p:tkraw/a $bin:$off" "p:tkraw/b $bin:0x10"
# --call-graph adds to a uprobe definition what it adds to a spec's.
plain=$("$TRACEKIT" probe -x "$bin" -D "${specs[0]}") || fail "probe -D failed"
full=$("$TRACEKIT" probe -x "$bin" --call-graph -D "${specs[0]}") || fail "probe --call-graph -D failed"
[ "${full#"$plain"}" != "$full" ] || fail "--call-graph did not append to the spec's definition"
assert_eq "--call-graph on a definition" \
	"$("$TRACEKIT" probe --call-graph -D "p:tkraw/a $bin:$off")" "p:tkraw/a $bin:$off${full#"$plain"}"
rc=0
"$TRACEKIT" probe --call-graph -D "p:tkraw/k vfs_read" >"$TK_TMP/out" 2>&1 || rc=$?
assert_eq "--call-graph on a kprobe definition: exit" "$rc" 2
assert_grep "uprobes only" "$TK_TMP/out"
rc=0
"$TRACEKIT" probe -x "$bin" -a "p:tkraw/a $bin:$off" >"$TK_TMP/out" 2>&1 || rc=$?
assert_eq "-x with a definition: exit" "$rc" 2
rc=0
"$TRACEKIT" probe -a "p:tkraw/a $bin:$off" -a "ip_rcv flags" >"$TK_TMP/out" 2>&1 || rc=$?
assert_eq "a definition and a spec: exit" "$rc" 2
snapshot >"$TK_TMP/after"
cmp -s "$TK_TMP/before" "$TK_TMP/after" ||
	{ diff -u "$TK_TMP/before" "$TK_TMP/after"; fail "a refused definition reached tracefs"; }
exit 0
