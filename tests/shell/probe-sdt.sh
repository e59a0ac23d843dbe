#!/bin/bash
# description: probe: SDT markers with semaphores on the real kernel (PIE, non-PIE, DSO)
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/sdt-progs.sh"

need_tracefs
need_cap uprobes "no uprobe_events on this kernel"
need_cap ref_ctr "this kernel's uprobes have no ref_ctr_offset"
need_cap instances "no tracefs instances"
need_sdt_build
build_sdt_progs
set -e

INST=$TRACEFS/instances/tktest_sdt_$$

# trace_run BIN RUNNER N EVENT...: enables the events in a fresh instance,
# runs RUNNER N into $TK_TMP/run.out, the trace into $TK_TMP/trace.
trace_run() {
	local bin=$1 runner=$2 n=$3 ev
	shift 3
	mkdir "$INST"
	on_exit "rmdir '$INST' 2>/dev/null || :"
	for ev in "$@"; do
		echo 1 >"$INST/events/$ev/enable"
		on_exit "echo 0 2>/dev/null > '$INST/events/$ev/enable' || :"
	done
	"$runner" "$n" >"$TK_TMP/run.out"
	for ev in "$@"; do
		echo 0 >"$INST/events/$ev/enable"
	done
	grep -v '^#' "$INST/trace" >"$TK_TMP/trace" || true
	rmdir "$INST"
}

# check_target BIN RUNNER GROUP EVENT [ARG...]: the whole life of one probe.
check_target() {
	local bin=$1 runner=$2 group=$3 event=$4
	shift 4

	"$runner" 2 >"$TK_TMP/before"
	assert_eq "$bin: guarded code before the probe" \
		"$(sort -u "$TK_TMP/before")" "sema=0"

	on_exit "'$TRACEKIT' probe -d '$group:*' || :"
	"$TRACEKIT" probe -x "$bin" "sdt_${group#sdt_}:$event" "$@" >"$TK_TMP/add" 2>&1 ||
		{ cat "$TK_TMP/add"; fail "$bin: add $group:$event"; }
	assert_grep "^  $group:$event \(on $bin:0x[0-9a-f]+\)" "$TK_TMP/add"
	"$TRACEKIT" probe -l "$group:$event" >"$TK_TMP/list"
	assert_grep "^  $group:$event +\(on $bin:0x[0-9a-f]+\(0x[0-9a-f]+\) " "$TK_TMP/list"

	trace_run "$bin" "$runner" 3 "$group/$event"
	assert_eq "$bin: calls seeing the semaphore set" "$(grep -c '^sema=[1-9]' "$TK_TMP/run.out")" 3
	grep '^args: ' "$TK_TMP/run.out" | sed 's/^args: //' >"$TK_TMP/want"
	grep " $event: (0x[0-9a-f]*) " "$TK_TMP/trace" | sed 's/.*) //' >"$TK_TMP/got"
	echo "program printed:"; cat "$TK_TMP/want"
	echo "kernel recorded:"; cat "$TK_TMP/got"
	assert_eq "$bin: recorded events" "$(wc -l <"$TK_TMP/got")" 3
	cmp -s "$TK_TMP/want" "$TK_TMP/got" || fail "$bin: recorded arguments differ from the printed ones"

	"$TRACEKIT" probe -d "$group:$event" >"$TK_TMP/del"
	assert_grep "^Removed event: $group:$event$" "$TK_TMP/del"
	grep -q "$group/$event " "$TRACEFS/uprobe_events" && fail "$group:$event still defined"
	"$runner" 2 >"$TK_TMP/after"
	assert_eq "$bin: guarded code after -d" "$(sort -u "$TK_TMP/after")" "sema=0"
	return 0
}

d=$TK_TMP
check_target "$d/sdtprog" "$d/sdtprog" sdt_tkapp req arg6:string
check_target "$d/sdtprog_nopie" "$d/sdtprog_nopie" sdt_tkapp req arg6:string
check_target "$d/libtksdt.so" "$d/uselib" sdt_tklib ev arg2:string

# Two sites of tkapp:tick: one event each, the second suffixed.
on_exit "'$TRACEKIT' probe -d 'sdt_tkapp:tick*' || :"
"$TRACEKIT" probe -x "$d/sdtprog" '%tkapp:tick' >"$TK_TMP/add" 2>&1 ||
	{ cat "$TK_TMP/add"; fail "add tick"; }
assert_grep '^  sdt_tkapp:tick \(on ' "$TK_TMP/add"
assert_grep '^  sdt_tkapp:tick_1 \(on ' "$TK_TMP/add"
trace_run "$d/sdtprog" "$d/sdtprog" 3 sdt_tkapp/tick sdt_tkapp/tick_1
# work() passes i, main() passes -i: 0 1 2 at one site, 0 -1 -2 at the other.
got=$(grep -o ' tick[_1]*: (0x[0-9a-f]*) arg1=-*[0-9]*' "$TK_TMP/trace" |
	sed 's/ \(tick[_1]*\): ([^)]*) arg1=/\1=/' | sort | tr '\n' ' ')
assert_eq "both sites traced" "$got" "tick=0 tick=1 tick=2 tick_1=-1 tick_1=-2 tick_1=0 "
"$TRACEKIT" probe -d 'sdt_tkapp:tick*' >"$TK_TMP/del"
assert_eq "both deleted" "$(grep -c '^Removed event' "$TK_TMP/del")" 2

# Hand-written operands: %ah is the second byte (perf reads the first),
# a double arrives as its bits, a constant as itself.
on_exit "'$TRACEKIT' probe -d 'sdt_tkasm:*' || :"
# The SIB arguments of tkasm:sib are left out, the others keep their numbers.
"$TRACEKIT" probe -x "$d/sdtasm" 'sdt_tkasm:*' >/dev/null 2>"$TK_TMP/warn"
assert_grep 'warning: tkasm:sib arg[0-9] .* left out: base\+index\*scale' "$TK_TMP/warn"
left=$(sed -n 's/.*tkasm:sib \(arg[0-9]\) .* left out: .*/\1/p' "$TK_TMP/warn")
trace_run "$d/sdtasm" "$d/sdtasm" 1 sdt_tkasm/regs sdt_tkasm/sib
for ev in regs sib; do
	if [ $ev = regs ]; then
		sed -n 's/^args: //p' "$TK_TMP/run.out" >"$TK_TMP/want"
	else
		sed -n 's/^sib: //p' "$TK_TMP/run.out" | tr ' ' '\n' |
			grep -v -E "^($(echo $left | tr ' ' '|'))=" | paste -s -d' ' >"$TK_TMP/want"
	fi
	grep " $ev: (0x[0-9a-f]*) " "$TK_TMP/trace" | sed 's/.*) //' >"$TK_TMP/got"
	echo "program: $(cat "$TK_TMP/want")"; echo "kernel:  $(cat "$TK_TMP/got")"
	cmp -s "$TK_TMP/want" "$TK_TMP/got" || fail "tkasm:$ev: recorded arguments differ"
done
"$TRACEKIT" probe -d 'sdt_tkasm:*' >/dev/null

# A probe at the same place without the semaphore: the kernel would
# refuse ours with a bare EINVAL; we name the culprit instead.
off=$("$TRACEKIT" probe -x "$d/sdtprog" -D sdt_tkapp:req | sed -n 's/.*:0x\([0-9a-f]*\)(0x.*/\1/p')
[ -n "$off" ] || fail "no offset for sdt_tkapp:req"
on_exit "echo '-:tktest_sdtc/plain' >> '$TRACEFS/uprobe_events' 2>/dev/null || :"
echo "p:tktest_sdtc/plain $d/sdtprog:0x$off" >>"$TRACEFS/uprobe_events"
expect_fail "$TRACEKIT" probe -x "$d/sdtprog" sdt_tkapp:req
assert_grep "tktest_sdtc:plain probes $d/sdtprog:0x$off without semaphore offset" "$TK_TMP/out"
echo '-:tktest_sdtc/plain' >>"$TRACEFS/uprobe_events"

# All or nothing: a request the kernel refuses leaves nothing behind.
expect_fail "$TRACEKIT" probe -x "$d/sdtprog" 'sdt_tkapp:req' 'arg1:nosuchtype'
assert_grep 'Unknown type|nosuchtype' "$TK_TMP/out"
grep -q 'sdt_tkapp' "$TRACEFS/uprobe_events" && fail "a refused add left a probe"
exit 0
