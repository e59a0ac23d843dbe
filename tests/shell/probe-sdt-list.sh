#!/bin/bash
# description: probe: --sdt lists every marker with the offsets readelf implies
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/sdt-progs.sh"

need_host_cmd readelf
need_sdt_build
build_sdt_progs
set -e

# section_delta BIN NAME: sh_addr - sh_offset of section NAME.
section_delta() {
	local a o
	read -r a o < <(readelf -S -W "$1" |
		sed -n "s/.* $2 *PROGBITS *\\([0-9a-f]*\\) \\([0-9a-f]*\\) .*/\\1 \\2/p")
	[ -n "$a" ] || fail "$1: no section $2"
	echo $((16#$a - 16#$o))
}

# expected BIN: "PROVIDER NAME OFFSET SEMAPHORE | ARGS" per note, from
# readelf; file offsets through the sections holding probe and semaphore
# (perf's way, not ours).
expected() {
	local text probes prov name loc sema args
	text=$(section_delta "$1" .text)
	probes=$(section_delta "$1" .probes)
	readelf -n "$1" | sed -n 's/^ *Provider: //p; s/^ *Name: //p
		s/^ *Location: \(0x[0-9a-f]*\), Base: 0x[0-9a-f]*, Semaphore: \(0x[0-9a-f]*\)$/\1 \2/p
		s/^ *Arguments: *//p' |
	while read -r prov && read -r name && read -r loc sema && read -r args; do
		if [ $((sema)) = 0 ]; then
			sema=none
		else
			sema=$(printf '0x%x' $((sema - probes)))
		fi
		printf '%s %s 0x%x %s | %s\n' "$prov" "$name" $((loc - text)) "$sema" "$args"
	done
}

# listed BIN: the same from `tracekit probe --sdt`.
listed() {
	"$TRACEKIT" probe -x "$1" --sdt | sed -n \
		's/^[^ ]*  provider \([^ ]*\)  name \([^ ]*\)  offset \([^ ]*\)  semaphore \([^ ]*\)$/\1 \2 \3 \4/p
		 s/^  arguments: \(.*\)$/| \1/p' | paste -d' ' - -
}

d=$TK_TMP
for bin in "$d/sdtprog" "$d/sdtprog_nopie" "$d/libtksdt.so"; do
	expected "$bin" >"$TK_TMP/want"
	listed "$bin" >"$TK_TMP/got"
	echo "== $bin"; cat "$TK_TMP/got"
	[ -s "$TK_TMP/want" ] || fail "$bin: readelf shows no markers"
	diff -u "$TK_TMP/want" "$TK_TMP/got" || fail "$bin: --sdt differs from readelf"
done

# Event names, translations and what is left out.
"$TRACEKIT" probe -x "$d/sdtprog" --sdt 'sdt_tkapp:tick*' >"$TK_TMP/ticks"
assert_eq "tick sites" "$(grep -c '^sdt_tkapp:tick' "$TK_TMP/ticks")" 2
assert_grep '^sdt_tkapp:tick_1  provider tkapp  name tick ' "$TK_TMP/ticks"
"$TRACEKIT" probe -l --sdt -x "$d/sdtasm" >"$TK_TMP/asm"
assert_grep '^sdt_tkasm:regs  .*  semaphore none$' "$TK_TMP/asm"
assert_grep '^  fetchargs: arg1=%ax:b8@8/64 arg2=%r8:s16 arg3=%ax:u8 arg4=%dx:x64 arg5=\\-9:s32 arg6=%cx:s8$' "$TK_TMP/asm"
assert_grep '^  left out:  arg[0-9] \(-8@[^)]*,[^)]*\)\): base\+index\*scale' "$TK_TMP/asm"
exit 0
