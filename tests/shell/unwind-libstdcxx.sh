#!/bin/bash
# description: unwind: probe --call-graph on the host libstdc++'s SDT marker throw, stacks equal the throwing program's backtrace()
# libstdc++ (Debian's libstdc++6) has SDT markers of its own:
# sdt_libstdcxx:throw fires in __cxa_throw() for every C++ throw.  A
# program built here throws from thrower() at the end of a recursion of
# rec() (depths 3 and 9, alternately), caught in catcher(); thrower()
# first prints its own backtrace() (glibc, in-process).  Probed with
# --call-graph in libstdc++ itself, each event's offline stack must be
# __cxa_throw, the return address into thrower(), then the return
# addresses backtrace() found from thrower(), frame for frame, events
# and throws taken in order.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_unwind
need_host_cmd g++
N=200
bin=$TK_TMP/unwind_throw
g++ -g -O2 -fomit-frame-pointer -o "$bin" "$(dirname "$0")/unwind-throw.cc" || fail "g++ failed"
lib=$(ldd "$bin" | awk '$1 == "libstdc++.so.6" { print $3 }')
[ -n "$lib" ] || fail "$bin does not load libstdc++.so.6"
lib=$(realpath "$lib")
"$TRACEKIT" probe -x "$lib" --sdt | grep -q '^sdt_libstdcxx:throw ' ||
	fail "$lib has no SDT marker libstdcxx:throw"
on_exit "'$TRACEKIT' probe -d 'sdt_libstdcxx:*'"
"$TRACEKIT" probe -x "$lib" --call-graph 'sdt_libstdcxx:throw' >/dev/null ||
	fail "probe --call-graph on the marker failed"
"$TRACEKIT" record -q -e sdt_libstdcxx:throw -o "$TK_TMP/throw.dat" -- "$bin" $N \
	>"$TK_TMP/out" 2>"$TK_TMP/log" || { cat "$TK_TMP/log"; fail "record failed"; }
"$TRACEKIT" probe -d 'sdt_libstdcxx:*' >/dev/null || fail "probe -d failed"
assert_eq "throws" "$(grep -c '^BT ' "$TK_TMP/out")" $N
sed -n 's/^BT //p' "$TK_TMP/out" >"$TK_TMP/want"
"$TRACEKIT" report -i "$TK_TMP/throw.dat" --comm unwind_throw --format json |
	jq -r '(.callchain | map(select(.inlined | not))) as $c |
		"\($c[0].sym) \($c[1].sym) " + ([$c[2:][] | .ip | tostring] | join(" "))' >"$TK_TMP/got"
assert_eq "events" "$(wc -l <"$TK_TMP/got")" $N
assert_eq "frame 0 and 1 of every event" "$(cut -d' ' -f1,2 "$TK_TMP/got" | sort -u)" \
	"__cxa_throw thrower"
cut -d' ' -f3- "$TK_TMP/got" >"$TK_TMP/got.ret"
diff -u "$TK_TMP/want" "$TK_TMP/got.ret" | head -20
match=$(paste -d'|' "$TK_TMP/want" "$TK_TMP/got.ret" | awk -F'|' '$1 == $2' | wc -l)
echo "$match of $N throws unwound from libstdc++'s marker as backtrace() walked them"
assert_eq "stacks equal to backtrace()" "$match" $N
# The folded stacks: one per depth, each with its count.
"$TRACEKIT" report -i "$TK_TMP/throw.dat" --comm unwind_throw --format folded >"$TK_TMP/folded"
cat "$TK_TMP/folded"
assert_grep "^unwind_throw;.*;main;catcher(;rec){4};thrower;__cxa_throw $((N / 2))\$" "$TK_TMP/folded"
assert_grep "^unwind_throw;.*;main;catcher(;rec){10};thrower;__cxa_throw $((N / 2))\$" "$TK_TMP/folded"
