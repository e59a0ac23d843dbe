#!/bin/bash
# description: arm64: the arm64 build, in the arm64 guest, unwinds probe --call-graph stacks recorded on this x86 host (report --sysroot on a copy of its files) as this x86 build does, through libstdc++'s marker, a library and libc
# timeout: 600
# The reverse of arm64-unwind.sh: tests/shell/unwind-throw.cc (libstdc++'s
# SDT marker throw) and unwind-target.c through unwind-lib.c and qsort()
# are recorded on this host with --call-graph, as unwind-libstdcxx.sh and
# unwind-callgraph.sh record them; with the second, the PLT entry it
# calls the library through, by a definition given with --call-graph:
# the PLT's CFI is an expression, which the CFI rules leave to the
# unwinder library.  On this host each stack is held against
# backtrace()'s walk (the PLT's from rec() on against leaf()'s).  The
# files and a copy of every file they map go to the arm64 guest, whose
# arm64 build reports them with --sysroot: an x86 recording, whose PLT
# frames it steps with libdw's unwinder (libunwind there unwinds arm64
# only).  Its stacks, names and source lines must equal this host's,
# event for event.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arm64.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_unwind
need_vm_host qemu-system-aarch64 aarch64-linux-gnu-gcc readelf make g++ gcc
arm64_tracekit
src=$(dirname "$0")
files=$TK_TMP/files
mkdir -p "$files"
N=200

# The throws, from libstdc++'s own marker.
throw=$TK_TMP/unwind_throw
g++ -g -O2 -fomit-frame-pointer -o "$throw" "$src/unwind-throw.cc" || fail "g++ failed"
lib=$(realpath "$(ldd "$throw" | awk '$1 == "libstdc++.so.6" { print $3 }')")
[ -f "$lib" ] || fail "$throw does not load libstdc++.so.6"
on_exit "'$TRACEKIT' probe -d 'sdt_libstdcxx:*' -d 'probe_unwind_LIB:*'"
"$TRACEKIT" probe -x "$lib" --call-graph 'sdt_libstdcxx:throw' >/dev/null ||
	fail "probe --call-graph on libstdc++'s marker failed"
"$TRACEKIT" record -q -e sdt_libstdcxx:throw -o "$files/throw.dat" -- "$throw" $N \
	>"$TK_TMP/out.throw" 2>"$TK_TMP/log" || { cat "$TK_TMP/log"; fail "record of throws failed"; }
assert_eq "throws" "$(grep -c '^BT ' "$TK_TMP/out.throw")" $N

# The recursion, through a library and qsort().
gcc -g -O2 -fomit-frame-pointer -fPIC -shared -o "$TK_TMP/libunwind_lib.so" \
	"$src/unwind-lib.c" || fail "gcc -shared failed"
prog=$TK_TMP/unwind_LIB
gcc -g -O2 -fomit-frame-pointer -DUNWIND_LIB -o "$prog" "$src/unwind-target.c" \
	-L"$TK_TMP" -lunwind_lib -Wl,-rpath,"$TK_TMP" || fail "gcc failed"
"$TRACEKIT" probe -x "$prog" --call-graph 'leaf id depth' >/dev/null || fail "probe --call-graph failed"
# unwind_lib_sort(fn, id, depth) at its PLT entry, where .plt's file
# offset is its address (as ld lays out a PIE's text).
plt=$(objdump -d "$prog" | sed -n 's/^0*\([0-9a-f]*\) <unwind_lib_sort@plt>:$/\1/p')
[ -n "$plt" ] || fail "no unwind_lib_sort@plt in $prog"
readelf -SW "$prog" | awk '$2 == ".plt" { exit !($4 == $5) }' ||
	fail "$prog: .plt's offset is not its address"
on_exit "'$TRACEKIT' probe -d 'tkplt:*'"
"$TRACEKIT" probe --call-graph -a "p:tkplt/sort $prog:0x$plt id=%si depth=%dx" >/dev/null ||
	fail "probe --call-graph of the PLT definition failed"
"$TRACEKIT" record -q -e probe_unwind_LIB:leaf -e tkplt:sort -o "$files/LIB.dat" -- "$prog" $N \
	>"$TK_TMP/out.LIB" 2>"$TK_TMP/log" || { cat "$TK_TMP/log"; fail "record of LIB failed"; }
"$TRACEKIT" probe -d 'sdt_libstdcxx:*' -d 'probe_unwind_LIB:*' -d 'tkplt:*' >/dev/null ||
	fail "probe -d failed"

# What the processes mapped, by the names the kernel gave them (the
# recording's), copied with their paths into one archive.
paths=()
for f in "$throw" "$prog"; do
	paths+=("$f")
	for l in $(ldd "$f" | grep -oE '/[^ ]+'); do
		paths+=("$l" "$(realpath "$l")")
	done
done
# Their separate debug files too, where this host has them (libc6-dbg),
# which report finds under --sysroot as here under /.
for f in "${paths[@]}"; do
	id=$(readelf -n "$f" 2>/dev/null | sed -n 's/^ *Build ID: //p')
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[ -z "$id" ] || [ ! -e "$dbg" ] || paths+=("$dbg" "$(realpath "$dbg")")
done
tar -chf "$files/x86root.tar" -C / $(printf '%s\n' "${paths[@]#/}" | sort -u) 2>"$TK_TMP/tar" ||
	{ cat "$TK_TMP/tar"; fail "tar of the x86 files failed"; }

cat >"$files/guest.sh" <<'GUEST'
cd /tracekit/files
mkdir x86root && tar -xf x86root.tar -C x86root || echo "REFUSED: tar"
for n in throw LIB; do
	tracekit report -i $n.dat --sysroot /tracekit/files/x86root --format json >json.$n 2>err.$n ||
		{ echo "REFUSED $n: report"; cat err.$n; }
	echo "JSON-BEGIN $n"
	base64 json.$n
	echo "JSON-END $n"
done
GUEST
rc=0
"$VM_RUN" --arch arm64 --tracekit "$ARM64_TRACEKIT" --timeout 500 \
	--file "$files/x86root.tar" --file "$files/throw.dat" --file "$files/LIB.dat" \
	--file "$files/guest.sh" -- sh /tracekit/files/guest.sh >"$TK_TMP/console" 2>&1 || rc=$?
[ "$rc" = 0 ] || { tail -n 40 "$TK_TMP/console"; fail "guest exit status $rc"; }
assert_grep '^TRACEKIT-VM: booted [0-9.-]*-arm64$' "$TK_TMP/console"
if grep -A5 '^REFUSED' "$TK_TMP/console"; then
	fail "the arm64 guest refused a step"
fi
for name in throw LIB; do
	guest_file JSON "$name" >"$TK_TMP/guest.json.$name"
	"$TRACEKIT" report -i "$files/$name.dat" --format json >"$TK_TMP/host.json.$name" ||
		fail "$name: report --format json failed"
	for who in guest host; do
		# Frame by frame: the address, the symbol, the file, the line.
		jq -c 'select(.callchain) | [.callchain[] | [.ip, .sym, .dso, .srcline, .inlined]]' \
			"$TK_TMP/$who.json.$name" >"$TK_TMP/$who.$name"
	done
	# LIB: leaf()'s and the PLT entry's.
	want=$N
	[ $name = throw ] || want=$((2 * N))
	assert_eq "$name: events with a stack, host" "$(wc -l <"$TK_TMP/host.$name")" $want
	same=$(paste -d'|' "$TK_TMP/guest.$name" "$TK_TMP/host.$name" | awk -F'|' '$1 == $2' | wc -l)
	echo "$name: $same of $want stacks unwound and named in the arm64 guest as on this host"
	diff "$TK_TMP/host.$name" "$TK_TMP/guest.$name" | head -6
	assert_eq "$name: stacks equal to this host's" "$same" $want
done
# What makes the comparison worth having: stacks that are right.
jq -c 'select(.event == "leaf")' "$TK_TMP/host.json.LIB" | unwind_json >"$TK_TMP/host.LIB.stacks"
read -r m t w fn fm <<<"$(unwind_classify "$TK_TMP/out.LIB" "$TK_TMP/host.LIB.stacks" 60)"
assert_eq "LIB: host stacks as backtrace() walked them" "$m" $N
# stacks_from EVENT FIRST: "ID IP..." of EVENT's stacks from frame FIRST on, or
# ("rec") from the first frame of rec().
stacks_from() {
	jq -r --arg ev "$1" --arg first "$2" 'select(.event == $ev and .callchain) |
		(.callchain | map(select(.inlined | not))) as $c |
		(if $first == "rec" then ($c | map(.sym) | index("rec")) else ($first | tonumber) end) as $i |
		"\(.fields.id) " + ([$c[$i:][] | .ip | tostring] | join(" "))' "$TK_TMP/host.json.LIB" | sort -n
}
stacks_from leaf rec >"$TK_TMP/leaf.rec"
stacks_from sort 1 >"$TK_TMP/plt.rec"
assert_eq "PLT entry: events" "$(wc -l <"$TK_TMP/plt.rec")" $N
diff "$TK_TMP/leaf.rec" "$TK_TMP/plt.rec" | head -4
cmp -s "$TK_TMP/leaf.rec" "$TK_TMP/plt.rec" || fail "PLT entry: a stack differs from leaf()'s"
assert_grep '"sym":"thrower"' "$TK_TMP/guest.json.throw"
exit 0
