#!/bin/bash
# description: probe: SDT definitions side by side with perf probe -D (offsets, ref_ctr, args)
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/sdt-progs.sh"

need_host_cmd perf readelf
need_sdt_build
build_sdt_progs
set -e

# perf finds SDT markers through its build-id cache: keep it out of ~/.debug.
export HOME=$TK_TMP/home
mkdir -p "$HOME"

# compare BIN EVENT [ARG...]: every perf line has our line at the same
# place (offset and ref_ctr), and every argument perf emits is ours too,
# except the ARGs named, where perf is known wrong: those must differ.
compare() {
	local bin=$1 event=$2 line place ours tok n=0 wrong
	shift 2
	wrong=" $* "
	"$TRACEKIT" probe -x "$bin" -D "$event" >"$TK_TMP/ours" 2>"$TK_TMP/ours.err" ||
		{ cat "$TK_TMP/ours.err"; fail "tracekit -D $event on $bin"; }
	perf probe -x "$bin" -D "$event" >"$TK_TMP/perf" 2>"$TK_TMP/perf.err" ||
		{ cat "$TK_TMP/perf.err"; fail "perf -D $event"; }
	echo "perf:"; cat "$TK_TMP/perf"
	echo "tracekit:"; cat "$TK_TMP/ours"
	while read -r line; do
		place=$(echo "$line" | cut -d' ' -f2)
		ours=$(awk -v p="$place" '$2 == p' "$TK_TMP/ours")
		[ -n "$ours" ] || fail "$event: no definition of ours at $place"
		for tok in $(echo "$line" | cut -d' ' -f3-); do
			if [ "${wrong#* ${tok%%=*} }" != "$wrong" ]; then
				case " $ours " in
				*" $tok "*) fail "$event: $tok is expected to differ from perf" ;;
				esac
				continue
			fi
			case " $ours " in
			*" $tok "*) ;;
			*) fail "$event at $place: perf has $tok, we have: $ours" ;;
			esac
		done
		n=$((n + 1))
	done <"$TK_TMP/perf"
	[ "$n" -gt 0 ] || fail "perf printed nothing for $event"
	assert_eq "$event: number of sites" "$(wc -l <"$TK_TMP/ours")" "$n"
	return 0
}

d=$TK_TMP
for bin in "$d/sdtprog" "$d/sdtprog_nopie" "$d/libtksdt.so"; do
	perf buildid-cache --add "$bin" || fail "perf buildid-cache --add $bin failed"
done
for bin in "$d/sdtprog" "$d/sdtprog_nopie"; do
	compare "$bin" sdt_tkapp:req
	# perf drops the rip-relative global and the constant; we fetch them.
	assert_grep ' arg4=@\+0x[0-9a-f]+:s64 arg5=\\42:s32 ' "$TK_TMP/ours"
	if [ "$(cap ref_ctr)" = 1 ]; then
		assert_grep ':0x[0-9a-f]+\(0x[0-9a-f]+\) ' "$TK_TMP/ours"
	fi
	compare "$bin" sdt_tkapp:tick
	assert_eq "two tick sites" "$(wc -l <"$TK_TMP/ours")" 2
done
compare "$d/libtksdt.so" sdt_tklib:ev
compare "$d/sdtprog" 'sdt_tkapp:*'
# perf reads %ah as %ax:u8 (the low byte) and a double as u64.
perf buildid-cache --add "$d/sdtasm"
compare "$d/sdtasm" sdt_tkasm:regs arg1 arg4
assert_grep ' arg1=%ax:u8 ' "$TK_TMP/perf"
assert_grep ' arg1=%ax:b8@8/64 .* arg4=%dx:x64 arg5=\\-9:s32 ' "$TK_TMP/ours"
# perf drops the SIB arguments too and takes the double for an integer.
compare "$d/sdtasm" sdt_tkasm:sib arg3
assert_grep ' arg3=%[a-z0-9]+:x64$' "$TK_TMP/ours"
compare "$d/sdtprog_nopie" '%sdt_tkapp:tick'

# Real-world markers where the host has them: libpython's (with
# semaphores) and libstdc++'s.
for lib in /usr/lib/x86_64-linux-gnu/libpython3.*.so.1.0 \
	   /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
	[ -f "$lib" ] && readelf -n "$lib" 2>/dev/null | grep -q 'Provider:' || continue
	perf buildid-cache --add "$lib"
	for p in $(readelf -n "$lib" | sed -n 's/ *Provider: //p' | sort -u); do
		compare "$(readlink -f "$lib")" "sdt_$p:*"
	done
done
exit 0
