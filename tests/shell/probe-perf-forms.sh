#!/bin/bash
# description: probe: perf probe's wildcards, lines (FUNC:LINE, SRC:LINE), lazy lines (FUNC;PATTERN, SRC;PATTERN), $vars and options, side by side with perf probe 6.1: the same probe points and fetch chains; each difference listed
# tracefs: untouched
# probe-forms.c (and probe-forms-aux.c) built -O0 and -O2, DWARF 4 and 5,
# and probe-forms-aux.c as a shared library;
# each spec below goes through `perf probe -D` and `tracekit probe -D`:
# the sorted "PLACE CHAIN..." lines (event names aside: perf -D prints
# one name for all of a lazy pattern's points, which it numbers only as
# it adds them) must be equal, and so must the verdict.  The differences
# tracekit-probe(1) lists are checked one by one after, so that the list
# stays true.
. "$(dirname "$0")/lib/common.sh"

need_host_cmd gcc perf
srcs=("$(dirname "$0")/probe-forms.c" "$(dirname "$0")/probe-forms-aux.c")

specs=(
	'handle*' 'first_*' 'h*_len' '*_sum' 'handle_[al]*' 'handle_?ame'
	'handle*%return' 'handle* $params' '*handle_len* k'
	'handle_name $vars' 'handle_len $vars' 'handle_len:5 $vars' 'main $vars'
	'first_weight head scale' 'first_weight $params'
	'handle_name;*len*' 'handle_all;*weight*' 'handle_len;total*'
	'weight;*scale*' 'handle_all;sum*' 'aux_sum;*acc*' 'main;*main*'
	'handle_len;*step* $vars' 'handle_len;*step* i step'
	'handle_name@probe-forms.c;*res*'
	'handle_len:4' 'handle_len:3' 'weight:2' 'handle_all:5 w'
	'probe-forms.c:22' 'probe-forms.c:35' 'forms.c:22' 'probe-forms.c:60'
	'probe-forms.c:22 scale' 'x=probe-forms.c:22' 'probe-forms.c:59 w sum'
	'probe-forms-aux.c:14 acc' 'probe-forms-aux.c;*acc*' 'probe-forms.c;*scale*'
)
# A shared library (probe-forms-aux.c alone, -shared -fPIC).
lib_specs=(
	'aux_*' 'aux_s?m' 'aux_sum $params' 'aux_sum r->len scale' 'aux_sum%return'
	'aux_sum:3' 'aux_sum:4' 'aux_sum;*acc*' 'probe-forms-aux.c:14 acc'
	'probe-forms-aux.c;*r->*'
)
# Options, with specs, the same way.
opt_specs=(
	'--no-inlines *weight*' '--no-inlines handle_all;*weight*'
	'-q handle*'
)

# "p:G/E PLACE [NAME=]CHAIN[:TYPE]..." -> "PLACE CHAIN[:TYPE]...", sorted.
points() {
	grep -E '^[pr]:' "$1" | awk '{ printf "%s %s", substr($1, 1, 1), $2
		for (i = 3; i <= NF; i++) { a = $i; sub(/^[A-Za-z0-9_]+=/, "", a); printf " %s", a }
		print "" }' | LC_ALL=C sort
}

agree=0 total=0 bad=0
# compare BIN LABEL SPEC [OPTION...]
compare() {
	local bin=$1 label=$2 spec=$3 prc=0 trc=0
	shift 3
	perf probe -x "$bin" "$@" -D "$spec" >"$TK_TMP/perf" 2>"$TK_TMP/perf.err" || prc=$?
	"$TRACEKIT" probe -x "$bin" "$@" -D "$spec" >"$TK_TMP/ours" 2>"$TK_TMP/ours.err" ||
		trc=$?
	total=$((total + 1))
	# Both refuse, or both give the same points.
	if { [ "$prc" != 0 ] && [ "$trc" != 0 ]; } ||
	   { [ "$prc" = 0 ] && [ "$trc" = 0 ] && [ -s "$TK_TMP/ours" ] &&
	     [ "$(points "$TK_TMP/perf")" = "$(points "$TK_TMP/ours")" ]; }; then
		agree=$((agree + 1))
		return
	fi
	echo "$label $* $spec: perf exit $prc, tracekit exit $trc"
	sed 's/^/  perf:     /' "$TK_TMP/perf" "$TK_TMP/perf.err"
	sed 's/^/  tracekit: /' "$TK_TMP/ours" "$TK_TMP/ours.err"
	bad=$((bad + 1))
}

for dw in 4 5; do
	for opt in O0 O2; do
		bin=$TK_TMP/forms_${opt}_d$dw
		gcc -g -gdwarf-$dw -"$opt" -o "$bin" "${srcs[@]}" || fail "gcc -$opt failed"
		for s in "${specs[@]}"; do
			compare "$bin" "-$opt DWARF $dw" "$s"
		done
		for s in "${opt_specs[@]}"; do
			read -r o spec <<<"$s"
			compare "$bin" "-$opt DWARF $dw" "$spec" "$o"
		done
		lib=$TK_TMP/libforms_${opt}_d$dw.so
		gcc -g -gdwarf-$dw -"$opt" -shared -fPIC -o "$lib" "${srcs[1]}" ||
			fail "gcc -shared -$opt failed"
		for s in "${lib_specs[@]}"; do
			compare "$lib" "-$opt DWARF $dw library" "$s"
		done
	done
done
echo "$agree of $total specs and option uses (executables and a library) agree with perf probe $(perf version | cut -d' ' -f3)"
[ "$bad" = 0 ] || fail "$bad disagree (above)"

# The differences tracekit-probe(1) lists, each as it stands.
bin=$TK_TMP/forms_O2_d5
# A wildcard's function that lacks a variable: perf fetches the dummy
# constant \deade12d there; tracekit leaves it out, with a warning.
perf probe -x "$bin" -D '*handl* k' >"$TK_TMP/perf" 2>/dev/null
assert_grep '/handle_name .* k=\\deade12d:' "$TK_TMP/perf"
"$TRACEKIT" probe -x "$bin" -D '*handl* k' >"$TK_TMP/ours" 2>"$TK_TMP/ours.err" ||
	fail "'*handl* k' refused"
assert_grep "warning: \*handl\*: handle_name left out: 'k': no such variable" "$TK_TMP/ours.err"
if grep -q handle_name "$TK_TMP/ours"; then fail "handle_name probed without k"; fi
# $vars: a variable whose value is a constant there, which perf cannot
# fetch ("we don't support this variable location"), is fetched as \N.
perf probe -x "$bin" -D 'handle_all $vars' >"$TK_TMP/perf" 2>/dev/null
"$TRACEKIT" probe -x "$bin" -D 'handle_all $vars' >"$TK_TMP/ours" || fail "\$vars refused"
assert_grep ' sum=\\0:s32$' "$TK_TMP/ours"
if grep -q ' sum=' "$TK_TMP/perf"; then fail "perf fetches sum now: update the manual"; fi
# A wildcard matching two functions with a point at one address (weight()
# inlined at first_weight()'s first instruction, -O2): perf keeps the
# first function's and leaves the other's out; tracekit probes both.
entry=$(perf probe -x "$bin" -D first_weight 2>/dev/null | awk '{ print $2 }')
perf probe -x "$bin" -D '*weight*' >"$TK_TMP/perf" 2>/dev/null
"$TRACEKIT" probe -x "$bin" -D '*weight*' >"$TK_TMP/ours" || fail "'*weight*' refused"
assert_eq "tracekit's points at $entry" "$(grep -c " $entry\$" "$TK_TMP/ours")" 2
assert_eq "perf's points at $entry" "$(grep -c " $entry\$" "$TK_TMP/perf")" 1
# A lazy pattern that matches no line: perf probes the function's entry
# instead; tracekit refuses.
perf probe -x "$bin" -D 'handle_name;nothing' >"$TK_TMP/perf" 2>/dev/null
assert_grep '/handle_name ' "$TK_TMP/perf"
expect_fail "$TRACEKIT" probe -x "$bin" -D 'handle_name;nothing'
assert_grep "handle_name;nothing: no line of .*probe-forms.c with code matches" "$TK_TMP/out"
# A line of a wildcard: perf makes the event name "handle_len*_L4" and
# fails.
expect_fail perf probe -x "$bin" -D 'handle_len*:4'
"$TRACEKIT" probe -x "$bin" -D 'handle_len*:4' >"$TK_TMP/ours" ||
	fail "'handle_len*:4' refused"
assert_grep '^p:probe_forms_O2_d5/handle_len_L4 ' "$TK_TMP/ours"

# Options: --max-probes refuses as perf does; -n adds nothing; -q on -a
# says nothing; --no-demangle is refused with what tracekit does instead.
expect_fail perf probe -x "$bin" --max-probes 2 -D 'handle*'
expect_fail "$TRACEKIT" probe -x "$bin" --max-probes 2 -D 'handle*'
assert_grep "handle\*: 3 probe points, more than 2 \(--max-probes\)" "$TK_TMP/out"
expect_fail "$TRACEKIT" probe -x "$bin" --no-demangle -D main
assert_grep "no-demangle: tracekit demangles nothing" "$TK_TMP/out"

# Every long option perf probe -h lists is tracekit's too, or refused
# with a reason: never "unknown option".
n=0
for o in $(perf probe -h 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	"$TRACEKIT" probe -x "$bin" "$o" </dev/null >"$TK_TMP/opt" 2>&1
	if grep -q "unknown option" "$TK_TMP/opt"; then
		cat "$TK_TMP/opt"
		fail "perf's $o: unknown option"
	fi
	n=$((n + 1))
done
[ "$n" -ge 25 ] || fail "only $n options in perf probe -h"
echo "$n of perf probe's long options known to tracekit probe"
exit 0
