#!/bin/bash
# description: probe: bad input gives one-line errors, exit 1, no tracefs write
. "$(dirname "$0")/lib/common.sh"

need_host_cmd gcc strip
src=$(dirname "$0")/probe-target.c
bin=$TK_TMP/tkerr
gcc -g -O2 -o "$bin" "$src" || fail "gcc failed"
gcc -O2 -o "$bin.nodebug" "$src" || fail "gcc failed"
cp "$bin" "$bin.stripped" && strip "$bin.stripped" || fail "strip failed"
echo 'not an elf' >"$TK_TMP/text"

# With tracefs, -a must be refused before anything reaches the kernel:
# uprobe_events and error_log stay as they were.
mode=-D
snapshot() { :; }
if [ "$(id -u)" = 0 ] && [ "$(cap uprobes)" = 1 ]; then
	mode=-a
	TRACEFS=$(cap tracefs)
	snapshot() {
		cat "$TRACEFS/uprobe_events" "$TRACEFS/error_log" 2>/dev/null
	}
fi
snapshot >"$TK_TMP/before"

# bad WHAT PATTERN BINARY SPEC...: exit 1 and one stderr line matching PATTERN.
bad() {
	local what=$1 pat=$2 b=$3 rc
	shift 3
	"$TRACEKIT" probe -x "$b" "$@" >"$TK_TMP/out" 2>"$TK_TMP/err"
	rc=$?
	[ "$rc" = 1 ] || { cat "$TK_TMP/err"; fail "$what: exit $rc, want 1"; }
	[ ! -s "$TK_TMP/out" ] || { cat "$TK_TMP/out"; fail "$what: wrote to stdout"; }
	assert_eq "$what: stderr lines" "$(wc -l <"$TK_TMP/err")" 1
	assert_grep "^tracekit probe: .*$pat" "$TK_TMP/err"
}

bad "unknown function" "no function 'nosuch_fn'" "$bin" $mode 'nosuch_fn'
bad "unknown field" "has no member 'nosuch' \(members: len, dev, s4, big, st\)" "$bin" \
	$mode 'ip_rcv skb->nosuch'
bad "unknown variable" "'nosuch': no such variable" "$bin" $mode 'ip_rcv nosuch'
# Without DWARF a function is still probed by its symbol (as perf does), not its variables.
bad "no debuginfo" "tkerr.nodebug: no DWARF debug info" "$bin.nodebug" $mode 'ip_rcv flags'
bad "stripped" "tkerr.stripped: no DWARF debug info" "$bin.stripped" $mode 'ip_rcv flags'
bad "non-ELF" "text: not an ELF file" "$TK_TMP/text" $mode 'ip_rcv'
bad "missing file" "nosuch: No such file" "$TK_TMP/nosuch" $mode 'ip_rcv'
bad "array > 64" "'skb->big' has 100 elements: the kernel fetches at most 64" "$bin" \
	$mode 'ip_rcv skb->big'
bad "index out of range" "index out of range \(4 elements\)" "$bin" $mode 'ip_rcv skb->s4[4]'
bad "'.' on a pointer" "a pointer: use '->'" "$bin" $mode 'ip_rcv skb.len'
bad "struct without member" "'skb->st' is a struct stats: choose a member \(rx, tx\)" "$bin" \
	$mode 'ip_rcv skb->st'
bad "string on an int" "only char pointers and char arrays can be strings" "$bin" \
	$mode 'ip_rcv flags:string'
bad "\$retval at entry" "\\\$retval needs FUNC%return" "$bin" $mode 'ip_rcv $retval'
bad "variable in a return probe" "a return probe sees only \\\$retval" "$bin" \
	$mode 'ip_rcv%return flags'
bad "63-char fetcharg" "the kernel takes at most 63" "$bin" $mode \
	'ip_rcv x=+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))))))))))'
bad "mid-instruction offset" "not at an instruction boundary" "$bin" $mode 'ip_rcv+1'
bad "second spec bad: nothing added" "no function 'nosuch_fn'" "$bin" \
	$mode 'ip_rcv flags' $mode 'nosuch_fn'

# Names: the kernel's rules, and nothing that could start another line.
bad "event name" "must be C identifiers" "$bin" $mode '9bad=ip_rcv'
bad "event name with ';'" "must be C identifiers" "$bin" $mode 'a;b=ip_rcv'
bad "group name" "must be C identifiers" "$bin" $mode 'g-x:ev=ip_rcv'
bad "newline in a spec" "control characters" "$bin" $mode $'ip_rcv\n-:probe_tkerr/ip_rcv'
bad "newline in an arg" "control characters" "$bin" $mode $'ip_rcv x=%di\np:g/e /bin/sh:0'
bad "quote" "quotes are not allowed" "$bin" $mode 'ip_rcv x=\"a"'
bad "arg name" "argument name must be a C identifier" "$bin" $mode 'ip_rcv a>b=flags'
bad "reserved arg name" "argument name must be a C identifier" "$bin" $mode 'ip_rcv common_pid=flags'
bad "long arg name" "argument name must be a C identifier" "$bin" \
	$mode 'ip_rcv a234567890123456789012345678901234=flags'
bad "raw fetcharg" "not a variable and not a valid fetcharg" "$bin" $mode 'ip_rcv x=%di>y'
bad "bad type" "invalid type" "$bin" $mode 'ip_rcv flags:s32>x'
# Types and arguments the kernel refuses for uprobes, refused first.
bad "type s99" "'x': unknown type 's99'" "$bin" $mode 'ip_rcv x=%di:s99'
bad "type badtype" "'flags': unknown type 'badtype'" "$bin" $mode 'ip_rcv flags:badtype'
bad "bitfield past its container" "unknown type 'b40@0/32'" "$bin" $mode 'ip_rcv x=%di:b40@0/32'
bad "array of 100000" "array type 's32\[100000\]': the kernel takes 1 to 64" "$bin" \
	$mode 'ip_rcv x=%di:s32[100000]'
bad "array of 65" "the kernel takes 1 to 64 elements" "$bin" $mode 'ip_rcv x=+0(%di):s32[65]'
bad "symbol on a uprobe" "type 'symbol' names kernel symbols: kprobes only" "$bin" \
	$mode 'ip_rcv x=%di:symbol'
bad "\$arg1 on a uprobe" "\\\$argN is for kprobes" "$bin" $mode 'ip_rcv a=$arg1'
many=ip_rcv
for i in $(seq 130); do many+=" a$i=%di"; done
bad "130 arguments" "130 arguments, the kernel takes at most 128" "$bin" $mode "$many"

snapshot >"$TK_TMP/after"
cmp -s "$TK_TMP/before" "$TK_TMP/after" || fail "tracefs changed by refused specs"

# The kernel is the judge of those refusals: written directly, it refuses
# each such line and takes the limits tracekit lets through.
if [ "$mode" = -a ]; then
	place=$("$TRACEKIT" probe -x "$bin" -D ip_rcv | awk '{print $2}')
	kernel_takes() {
		local r=0
		echo "p:tkerr_oracle/e $place x=$1" >>"$TRACEFS/uprobe_events" 2>/dev/null || r=1
		[ $r = 1 ] || echo "-:tkerr_oracle/e" >>"$TRACEFS/uprobe_events"
		return $r
	}
	for t in %di:s99 %di:badtype %di:b40@0/32 '%di:s32[100000]' '+0(%di):s32[65]' \
		 %di:symbol '$arg1'; do
		kernel_takes "$t" && fail "the kernel takes x=$t, which tracekit refuses"
	done
	for t in '+0(%di):s32[64]' %di:b3@2/32 %di:x8 '+0(%di):ustring'; do
		kernel_takes "$t" || fail "the kernel refuses x=$t, which tracekit lets through"
	done
	echo "the kernel agrees on 7 refused and 4 accepted fetchargs"
fi

# Usage errors exit 2.
set +e
"$TRACEKIT" probe -x "$bin" >/dev/null 2>&1
assert_eq "no spec" "$?" 2
"$TRACEKIT" probe -x "$bin" -m foo.ko -D ip_rcv >/dev/null 2>&1
assert_eq "-x with -m" "$?" 1
set -e

# The listings.
"$TRACEKIT" probe -x "$bin" -V ip_rcv >"$TK_TMP/vars" || fail "-V failed"
assert_grep '^Available variables at ip_rcv$' "$TK_TMP/vars"
assert_grep $'^\t\tstruct pkt\\*\tskb$' "$TK_TMP/vars"
# Types as perf -V spells them: qualifiers dropped.
assert_grep $'^\t\tchar\\*\twho$' "$TK_TMP/vars"
"$TRACEKIT" probe -x "$bin" -L ip_rcv >"$TK_TMP/lines" || fail "-L failed"
assert_grep '^<ip_rcv@.*probe-target.c:0>$' "$TK_TMP/lines"
# At -O2 the line of s_total has no code of its own: perf -L numbers 0 and 3.
assert_grep '^      0  .*int ip_rcv\(struct pkt \*skb' "$TK_TMP/lines"
assert_grep '^      3  .*return skb->dev->handler\(flags\)' "$TK_TMP/lines"
"$TRACEKIT" probe -x "$bin" -F 'ip_*' >"$TK_TMP/funcs" || fail "-F failed"
assert_eq "-F ip_*" "$(cat "$TK_TMP/funcs")" "ip_rcv"
"$TRACEKIT" probe -x "$bin" -F >"$TK_TMP/funcs" || fail "-F failed"
assert_grep '^many_args$' "$TK_TMP/funcs"
assert_grep '^main$' "$TK_TMP/funcs"
