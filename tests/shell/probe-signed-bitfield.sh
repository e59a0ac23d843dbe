#!/bin/bash
# description: probe, record, report: signed bitfields read signed in text, JSON and filters (DWARF 4, 5, split), as the program prints them; stale notes ignored, trace-cmd unchanged
# tests/shell/bitfield-target.c prints each member of a struct of signed
# bitfields; a uprobe fetches them all.  The kernel's b type has no sign:
# probe fetches the aligned ones as s8/s16 and notes the widths, record
# carries the note into the file, and report must print, in text and
# JSON, and filter on, what the program printed.  trace-cmd report reads
# the same file as it always did (a field's bits, unsigned), with nothing
# on stderr; a note whose event was defined again by hand is ignored, and
# probe -d removes the note.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc trace-cmd jq

fields='a b c m whole8 h whole16 k f top'
spec="use$(printf ' p->%s' $fields)"
jq_fields=$(for f in $fields; do printf '%s=\\(.fields.%s) ' "$f" "$f"; done)
note_dir=/run/tracekit/probes
cp "$TRACEKIT_SRCDIR/tests/shell/bitfield-target.c" "$TK_TMP/" || fail "cp"

# The info text of one event: "NAME=VALUE ..." after the probe's "(ip) ".
info() {
	sed -n 's/^.* use: *([0-9a-f]*) //p' "$1"
}

for build in dwarf4:-gdwarf-4 dwarf5:-gdwarf-5 split:'-gdwarf-5 -gsplit-dwarf'; do
	name=${build%%:*}
	bin=$TK_TMP/tksbf_$name group=probe_tksbf_$name
	(cd "$TK_TMP" && gcc -g ${build#*:} -O2 -o "$bin" bitfield-target.c) ||
		fail "gcc ${build#*:} failed"
	on_exit "'$TRACEKIT' probe -d '$group:*'"
	"$TRACEKIT" probe -x "$bin" -a "$spec" >"$TK_TMP/add" 2>&1 ||
		{ cat "$TK_TMP/add"; fail "$name: probe -a failed"; }
	def=$(grep "^p:$group/use " "$TRACEFS/uprobe_events")
	echo "$def"
	# The whole aligned byte and half are the kernel's signed types.
	case "$def" in
	*' whole8=+'*'(%di):s8 '*' whole16=+'*'(%di):s16 '*) ;;
	*) fail "$name: whole8 and whole16 are not fetched as s8 and s16" ;;
	esac
	[ -s "$note_dir/$group.use" ] || fail "$name: probe wrote no note"

	"$TRACEKIT" record -q -e "$group:use" -o "$TK_TMP/$name.dat" -- "$bin" \
		>"$TK_TMP/prog" 2>"$TK_TMP/rec" || { cat "$TK_TMP/rec"; fail "$name: record failed"; }
	want=$(cat "$TK_TMP/prog")
	echo "program: $want"
	"$TRACEKIT" report "$TK_TMP/$name.dat" >"$TK_TMP/text" || fail "$name: report failed"
	assert_eq "$name: report's text" "$(info "$TK_TMP/text")" "$want"
	"$TRACEKIT" report --format json "$TK_TMP/$name.dat" >"$TK_TMP/json" ||
		fail "$name: report --format json failed"
	assert_eq "$name: report's JSON fields" "$(jq -r "\"$jq_fields\"" "$TK_TMP/json" |
		sed 's/ $//')" "$want"
	assert_eq "$name: report's JSON info" "$(jq -r .info "$TK_TMP/json" |
		sed 's/^([0-9a-f]*) //')" "$want"
	# A filter reads the signed value: a negative field no longer equals
	# its bits.  (libtraceevent's filters take no negative number: 'a ==
	# -4' passes an a of -3, in trace-cmd report too; measured.)
	widths=$(sed -n 's/^signed \([a-z0-9]*\) \([0-9]*\)$/\1 \2/p' "$note_dir/$group.use")
	unsigned=
	for kv in $want; do
		k=${kv%%=*} v=${kv#*=}
		w=$(echo "$widths" | awk -v k="$k" '$1 == k { print $2 }')
		[ -n "$w" ] && v=$(((v % (1 << w) + (1 << w)) % (1 << w)))
		unsigned+="$k=$v "
		"$TRACEKIT" report -F "use: $k == $v" "$TK_TMP/$name.dat" >"$TK_TMP/out" ||
			fail "$name: report -F '$k == $v' failed"
		assert_eq "$name: events of -F '$k == $v'" "$(info "$TK_TMP/out" | wc -l)" \
			"$([ "$v" = "${kv#*=}" ] && echo 1 || echo 0)"
	done

	# trace-cmd: the bits of each field, unsigned, and nothing on stderr.
	trace-cmd report "$TK_TMP/$name.dat" >"$TK_TMP/tc" 2>"$TK_TMP/tc.err" ||
		fail "$name: trace-cmd report failed"
	[ -s "$TK_TMP/tc.err" ] && { cat "$TK_TMP/tc.err"; fail "$name: trace-cmd report wrote to stderr"; }
	assert_eq "$name: trace-cmd's text" "$(info "$TK_TMP/tc")" "${unsigned% }"

	# A stale note: the event deleted and defined again by hand, now
	# without whole8 (the kernel takes it while the note stays).
	"$TRACEKIT" probe -d "$group:use" >/dev/null || fail "$name: probe -d failed"
	[ -e "$note_dir/$group.use" ] && fail "$name: probe -d left the note"
	"$TRACEKIT" probe -x "$bin" -a "$spec" >/dev/null 2>&1 || fail "$name: probe -a again failed"
	echo "-:$group/use" >>"$TRACEFS/uprobe_events" || fail "cannot delete $group/use"
	echo "$def" | sed 's/ whole8=[^ ]*//' >>"$TRACEFS/uprobe_events" ||
		fail "cannot define $group/use by hand"
	"$TRACEKIT" record -q -e "$group:use" -o "$TK_TMP/stale.dat" -- "$bin" \
		>/dev/null 2>"$TK_TMP/rec" || { cat "$TK_TMP/rec"; fail "$name: record (stale) failed"; }
	trace-cmd report "$TK_TMP/stale.dat" 2>/dev/null | info /dev/stdin >"$TK_TMP/tc"
	"$TRACEKIT" report "$TK_TMP/stale.dat" | info /dev/stdin >"$TK_TMP/ours"
	[ -s "$TK_TMP/ours" ] || fail "$name: no event in the stale recording"
	diff -u "$TK_TMP/tc" "$TK_TMP/ours" || fail "$name: a stale note was applied"
	"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "$name: probe -d failed"
	[ -e "$note_dir/$group.use" ] && fail "$name: probe -d left the stale note"
done
exit 0
