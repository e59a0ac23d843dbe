#!/bin/bash
# description: probe: corrupt SDT notes give one clear error, no crash, no output
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/sdt-progs.sh"

need_host_cmd readelf
need_cmd dd od
need_sdt_build
build_sdt_progs
set -e

src=$TK_TMP/sdtprog
read -r off size < <(readelf -S -W "$src" |
	sed -n 's/.*\.note\.stapsdt *NOTE *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\).*/\1 \2/p')
[ -n "$off" ] || fail "no .note.stapsdt in $src"
off=$((16#$off))
# The first note: namesz, descsz, type, "stapsdt\0", then pc, base, sema.
desc=$((off + 20))
descsz=$(od -An -t u4 -j $((off + 4)) -N 4 "$src" | tr -d ' ')

# put FILE OFFSET VALUE BYTES: little-endian store.
put() {
	local s= i
	for ((i = 0; i < $4; i++)); do
		s+=$(printf '\\x%02x' $((($3 >> (8 * i)) & 255)))
	done
	printf "$s" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# corrupt NAME EXPECTED-RE: runs --sdt and -D on $TK_TMP/NAME.
corrupt() {
	local f=$TK_TMP/$1 rc mode
	for mode in --sdt -D; do
		set +e
		if [ $mode = --sdt ]; then
			"$TRACEKIT" probe -x "$f" --sdt >"$TK_TMP/o" 2>"$TK_TMP/e"
		else
			"$TRACEKIT" probe -x "$f" -D 'sdt_tkapp:*' >"$TK_TMP/o" 2>"$TK_TMP/e"
		fi
		rc=$?
		set -e
		echo "$1 $mode: rc=$rc $(cat "$TK_TMP/e")"
		[ "$rc" -lt 128 ] || fail "$1 $mode: killed by a signal"
		assert_eq "$1 $mode: exit status" "$rc" 1
		[ -s "$TK_TMP/o" ] && fail "$1 $mode: printed to stdout: $(cat "$TK_TMP/o")"
		assert_eq "$1 $mode: one line" "$(wc -l <"$TK_TMP/e")" 1
		assert_grep "^tracekit probe: .*$2" "$TK_TMP/e"
	done
	return 0
}

cp "$src" "$TK_TMP/short"
put "$TK_TMP/short" $((off + 4)) 16 4
corrupt short "$TK_TMP/short: stapsdt note at 0x$(printf %x "$off"): descriptor of 16 bytes is shorter"

cp "$src" "$TK_TMP/nonul"
dd if=/dev/zero bs=1 count=$((descsz - 24)) status=none | tr '\0' A |
	dd of="$TK_TMP/nonul" bs=1 seek=$((desc + 24)) conv=notrunc status=none
corrupt nonul "stapsdt note at 0x[0-9a-f]+: descriptor ends before the NUL of its provider"

cp "$src" "$TK_TMP/farsema"
put "$TK_TMP/farsema" $((desc + 16)) $((0x7fff0000)) 8
corrupt farsema "semaphore address 0x7fff0000 is in no writable PT_LOAD"

cp "$src" "$TK_TMP/textsema"
put "$TK_TMP/textsema" $((desc + 16)) $((0x1000)) 8
corrupt textsema "semaphore address 0x1000 is in no writable PT_LOAD"

cp "$src" "$TK_TMP/farpc"
put "$TK_TMP/farpc" "$desc" $((0x7fff0000)) 8
corrupt farpc "probe address 0x7fff0000 is in no executable PT_LOAD"

cp "$src" "$TK_TMP/hugedesc"
put "$TK_TMP/hugedesc" $((off + 4)) $((0xfffffff0)) 4
corrupt hugedesc "truncated or malformed note header"

head -c $((off + 30)) "$src" >"$TK_TMP/truncated"
corrupt truncated "truncated: "

echo "not an ELF" >"$TK_TMP/text"
corrupt text "text: not an ELF file"

# A missing binary is a failure, as for a function spec (probe-errors.sh).
corrupt missing "missing: No such file"
exit 0
