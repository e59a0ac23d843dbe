#!/bin/bash
# description: report: a corrupted event format prints as trace-cmd report prints it, with one warning naming the file and event
# tracefs: untouched
# trace-cmd keeps an event whose format does not parse: its name, and
# "[FAILED TO PARSE]" with the fields read before the fault (or its
# plugin's text).  Each case breaks sched_wakeup's format in a copy of
# trace-cmd's v6 fixture, whose formats are stored uncompressed.
. "$(dirname "$0")/lib/common.sh"
need_cmd trace-cmd
# The fixture is patched at offsets GNU grep -ob finds; busybox's has no -b.
[ -z "${TRACEKIT_IN_VM:-}" ] || skip_cap '!in_vm' "GNU grep -b is not in the VM guest"

data=$(cd "$(dirname "$0")/../data" && pwd)
v6=$data/report-sched-v6.dat
[ -r "$v6" ] || fail "committed fixture missing in $data"
f=$TK_TMP/bad.dat

# The byte offset of the first STRING after sched_wakeup's "name:" line.
offset_of() {
	local start rel
	start=$(grep -obUa 'name: sched_wakeup' "$v6" | head -n 1 | cut -d: -f1)
	[ -n "$start" ] || fail "no sched_wakeup format in $v6"
	rel=$(tail -c +"$((start + 1))" "$v6" | grep -obUaF -- "$1" | head -n 1 | cut -d: -f1)
	[ -z "$rel" ] || echo $((start + rel))
}

# breaks NAME STRING REPLACEMENT: the same length, replacing STRING in
# sched_wakeup's format.
breaks() {
	local off
	off=$(offset_of "$2")
	[ -n "$off" ] || fail "$1: '$2' not in sched_wakeup's format"
	[ "${#2}" = "$(printf '%b' "$3" | wc -c)" ] || fail "$1: replacement of another length"
	cp "$v6" "$f"
	printf '%b' "$3" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# same NAME [FILE]: every form of report equals trace-cmd's on FILE
# (default the broken copy itself), exit 0, one warning naming the file
# and the event.
same() {
	local opts rc
	for opts in "" "-N" "-R" "-l"; do
		# shellcheck disable=SC2086
		trace-cmd report $opts "${2:-$f}" >"$TK_TMP/want" 2>/dev/null ||
			fail "$1: trace-cmd report $opts failed"
		set +e
		# shellcheck disable=SC2086
		"$TRACEKIT" report $opts "$f" >"$TK_TMP/got" 2>"$TK_TMP/err"
		rc=$?
		set -e
		[ "$rc" = 0 ] || { cat "$TK_TMP/err"; fail "$1: report $opts exit $rc"; }
		diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
			{ head -n 20 "$TK_TMP/diff"; fail "$1: report $opts differs from trace-cmd's"; }
		assert_eq "$1: warnings of report $opts" "$(wc -l <"$TK_TMP/err")" 1
		assert_grep "^tracekit report: warning: $f: event sched:sched_wakeup: " "$TK_TMP/err"
	done
}

set -e
# A file of every format of the kernel: some do not parse (xen's,
# maple_tree's), none of their events occur, so there is nothing to say.
gzip -dc "$data/report-ftrace-fgraph.dat.gz" >"$TK_TMP/all.dat"
"$TRACEKIT" report "$TK_TMP/all.dat" >/dev/null 2>"$TK_TMP/err" || fail "fgraph fixture: exit $?"
[ ! -s "$TK_TMP/err" ] || { cat "$TK_TMP/err"; fail "warnings for events that do not occur"; }

# The print fmt: its opening quote, its argument list.
breaks "print fmt quote" 'print fmt: "comm' 'print fmt: (comm'
same "print fmt quote"
assert_grep 'sched_wakeup: *\[FAILED TO PARSE\] comm=memfd:sealed-91 pid=11464 prio=120 target_cpu=0$' \
	<(trace-cmd report -N "$f")
breaks "print fmt args" '", REC->comm' '"( REC->comm'
same "print fmt args"
# libtraceevent 1.7.1 reads a NULL operand when an operator it does not
# know follows a "?:" or a "]" (issue #40): trace-cmd dies of SIGSEGV on
# these.  A "?:" inside "[]" it refuses without harm, so that is what
# the others must print as.
breaks "cond in index" 'REC->pid, REC->prio' 'REC->pid[1?1:0]    '
same "cond in index"
cp "$f" "$TK_TMP/refused.dat"
for shape in 'REC->pid?"+":""=0  ' 'REC->pid?1:0[0]    ' 'REC->pid[-0[0]]    '; do
	breaks "$shape" 'REC->pid, REC->prio' "$shape"
	same "$shape" "$TK_TMP/refused.dat"
done
# A crash the checks do not recognise (tep-parse-crash.c makes
# tep_parse_format() die on sched_wakeup's format): the child that tries
# each format first dies, and the event prints as for a print fmt that
# fails.
gcc -shared -fPIC -o "$TK_TMP/crash.so" "$(dirname "$0")/tep-parse-crash.c" -ldl ||
	fail "cannot build tep-parse-crash.so"
cat >"$TK_TMP/tk-crash" <<END
#!/bin/sh
LD_PRELOAD=$TK_TMP/crash.so TK_CRASH_EVENT=sched_wakeup ASAN_OPTIONS=verify_asan_link_order=0 \
	exec $TRACEKIT "\$@"
END
chmod +x "$TK_TMP/tk-crash"
cp "$v6" "$f"
TRACEKIT=$TK_TMP/tk-crash same "crash in the parser" "$TK_TMP/refused.dat"
assert_grep "sched_wakeup: format does not parse at line 14 \(libtraceevent dies on it\)" \
	"$TK_TMP/err"
# A field line: libtraceevent keeps the fields before it, and the
# plugin's handler is not attached.
breaks "field bracket" 'field:int prio;' 'field:int pri[;'
same "field bracket"
assert_grep 'sched_wakeup: *\[FAILED TO PARSE\] comm=memfd:sealed-91 pid=11464$' "$TK_TMP/got"
breaks "field byte" 'field:int prio;' 'field:int pr\xffo;'
same "field byte"
breaks "field keyword" 'field:int prio;' 'fie:d:int prio;'
same "field keyword"
breaks "format line" 'format:' 'formax:'
same "format line"
assert_grep 'sched_wakeup: *\[FAILED TO PARSE\]$' "$TK_TMP/got"

# An event id libtraceevent would misread: no event, still one warning.
breaks "id" 'ID: 374' 'ID: 3x4'
"$TRACEKIT" report -N "$f" >"$TK_TMP/got" 2>"$TK_TMP/err" || fail "id: exit $?"
assert_eq "id: warnings" "$(wc -l <"$TK_TMP/err")" 1
assert_grep "^tracekit report: warning: $f: event sched:sched_wakeup: malformed format" "$TK_TMP/err"
assert_eq "id: events" "$(wc -l <"$TK_TMP/got")" "$(trace-cmd report -N "$v6" | wc -l)"
exit 0
