#!/bin/bash
# description: arm64: probe --call-graph stacks recorded in the arm64 guest equal the program's own backtrace(), unwound there by the arm64 build and here by this x86 build (report --sysroot), -O2 without frame pointers, through a library and libc
# tracefs: untouched
# timeout: 900
# tests/shell/unwind-target.c is cross-built (-O2 -fomit-frame-pointer,
# and through a library of its own and libc's qsort()); its leaf() prints
# the stack glibc's backtrace() walks in-process, the oracle.  The
# --call-graph definitions are made on this host (probe --sysroot -D), so
# the capture is the cross path's; the arm64 build of tracekit records
# the calls in the guest and reports them there (its libunwind and
# libdw's CFI), and the file comes back to be reported by this x86 build,
# which reads the guest's files under --sysroot and steps arm64 frames
# with libdw.  Both must equal backtrace() for >= 95% of the events and
# be wrong for none, and agree with each other event for event.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arm64.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_vm_host qemu-system-aarch64 aarch64-linux-gnu-gcc readelf make
need_cmd jq
arm64_tracekit
arm64_cc
N=500
root=$TK_TMP/root
files=$root/tracekit/files
mkdir -p "$files" "$root/lib/aarch64-linux-gnu"
src=$(dirname "$0")
# The guest's libc and loader are the cross toolchain's (tests/vm/run.sh);
# backtrace() dlopen()s libgcc_s, shipped with the programs.
cross=/usr/aarch64-linux-gnu/lib
cp -L $cross/libc.so.6 "$root/lib/aarch64-linux-gnu/" &&
	cp -L $cross/ld-linux-aarch64.so.1 "$root/lib/" &&
	cp -L $cross/libgcc_s.so.1 "$files/" || fail "no arm64 libc or libgcc_s in $cross"

"${ARM64_CC[@]}" -g -O2 -fomit-frame-pointer -fPIC -shared -o "$files/libunwind_lib.so" \
	"$src/unwind-lib.c" || fail "cross gcc -shared failed"
ships=(--file "$files/libunwind_lib.so" --file "$files/libgcc_s.so.1")
names=()
# NAME SPEC CROSS-GCC-FLAGS...
build() {
	local name=$1 spec=$2 bin=/tracekit/files/unwind_$1
	shift 2
	"${ARM64_CC[@]}" -o "$root$bin" "$src/unwind-target.c" "$@" ||
		fail "$name: cross gcc $* failed"
	"$TRACEKIT" probe --sysroot "$root" -x "$bin" --call-graph -D "$spec" \
		>"$files/defs.$name" 2>"$TK_TMP/err" || { cat "$TK_TMP/err"; fail "$name: probe -D failed"; }
	sed 's/^/  | /' "$files/defs.$name" | cut -c1-160
	grep -q ' __pc=%pc __sp=%sp __x29=%x29 __x30=%x30 ' "$files/defs.$name" ||
		fail "$name: no arm64 registers captured"
	sed 's|^p:\([^/]*\)/\([^ ]*\) .*|\1:\2|' "$files/defs.$name" >"$files/event.$name"
	names+=("$name")
	ships+=(--file "$root$bin" --file "$files/defs.$name" --file "$files/event.$name")
}
build O2 'leaf id depth' -g -O2 -fomit-frame-pointer
build LIB 'leaf id depth' -g -O2 -fomit-frame-pointer -DUNWIND_LIB -L"$files" -lunwind_lib \
	-Wl,-rpath,/tracekit/files

# The guest: each definition written as is, the program recorded with
# its maps, the file reported by the arm64 build; the program's output,
# the file and the report come back through the console.
cat >"$files/guest.sh" <<'GUEST'
T=/sys/kernel/tracing
cd /tracekit/files
echo 0 >/proc/sys/kernel/randomize_va_space
export LD_LIBRARY_PATH=/tracekit/files
send() {	# TAG NAME FILE
	echo "$1-BEGIN $2"
	base64 "$3"
	echo "$1-END $2"
}
for n in "$@"; do
	cat defs.$n >>$T/uprobe_events || echo "REFUSED $n: definition"
	tracekit record -q --proc-map -b 8192 -e "$(cat event.$n)" -o $n.dat \
		-- ./unwind_$n 500 >out.$n 2>rec.$n || { echo "REFUSED $n: record"; cat rec.$n; }
	tracekit report -i $n.dat --format json >json.$n 2>rep.$n ||
		{ echo "REFUSED $n: report"; cat rep.$n; }
	echo >$T/uprobe_events
	send OUT $n out.$n
	send DAT $n $n.dat
	send JSON $n json.$n
done
GUEST
rc=0
"$VM_RUN" --arch arm64 --tracekit "$ARM64_TRACEKIT" --timeout 800 "${ships[@]}" \
	--file "$files/guest.sh" -- sh /tracekit/files/guest.sh "${names[@]}" >"$TK_TMP/console" 2>&1 || rc=$?
[ "$rc" = 0 ] || { tail -n 40 "$TK_TMP/console"; fail "guest exit status $rc"; }
assert_grep '^TRACEKIT-VM: booted [0-9.-]*-arm64$' "$TK_TMP/console"
if grep -A5 '^REFUSED ' "$TK_TMP/console"; then
	fail "the arm64 guest refused a step"
fi
for name in "${names[@]}"; do
	guest_file OUT "$name" >"$TK_TMP/out.$name"
	guest_file DAT "$name" >"$TK_TMP/$name.dat"
	guest_file JSON "$name" | unwind_json >"$TK_TMP/guest.$name"
	unwind_stacks "$TK_TMP/$name.dat" --sysroot "$root" >"$TK_TMP/host.$name"
	assert_eq "$name: calls made" "$(grep -c '^BT ' "$TK_TMP/out.$name")" $N
	for who in guest host; do
		got=$TK_TMP/$who.$name
		assert_eq "$name, $who: events unwound" "$(wc -l <"$got")" $N
		read -r m t w fn fm <<<"$(unwind_classify "$TK_TMP/out.$name" "$got" 60)"
		echo "$name, unwound in the $who: $m of $N events as backtrace() walked them," \
			"$t cut short by the dump ([unknown]), $w wrong"
		assert_eq "$name, $who: wrong stacks" "$w" 0
		[ $((fm * 100)) -ge $((fn * 95)) ] ||
			fail "$name, $who: $fm of $fn stacks match, want >= 95%"
	done
	diff "$TK_TMP/guest.$name" "$TK_TMP/host.$name" >/dev/null ||
		fail "$name: the x86 host's stacks differ from the arm64 guest's"
	# Named on this host from the guest's files, the capture not shown.
	"$TRACEKIT" report -i "$TK_TMP/$name.dat" --sysroot "$root" >"$TK_TMP/text.$name"
	assert_grep '^  => rec\+0x[0-9a-f]+ \(unwind_'"$name"'\) unwind-target\.c:[0-9]+$' \
		"$TK_TMP/text.$name"
	assert_grep '^  => main\+0x[0-9a-f]+ ' "$TK_TMP/text.$name"
	grep -q '__stack0\|__pc=' "$TK_TMP/text.$name" && fail "$name: capture fields printed"
done
assert_grep '^  => [a-z_]*qsort[a-z_]*\+0x[0-9a-f]+ \(libc\.so\.6\)' "$TK_TMP/text.LIB"
assert_grep '^  => cmp\+0x[0-9a-f]+ \(libunwind_lib\.so\) unwind-lib\.c:[0-9]+$' "$TK_TMP/text.LIB"

# Without --sysroot this host has none of those files: the stacks end
# at once, unknown, never named from this machine's files.
unwind_stacks "$TK_TMP/O2.dat" >"$TK_TMP/nosys"
assert_eq "without --sysroot: stacks of one frame" \
	"$(awk 'NF == 2 || (NF == 3 && $3 == "[unknown]")' "$TK_TMP/nosys" | wc -l)" $N
exit 0
