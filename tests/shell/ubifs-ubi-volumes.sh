#!/bin/bash
# description: ubifs: a UBI image of several UBIFS volumes: verify checks each, --volume chooses
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs.sh"

cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs ubinize openssl
mkdir -p src/sub evil && echo hello >src/a && seq 1 20000 >src/sub/text &&
	echo 'root::0:0::/root:/bin/sh' >evil/passwd || fail "source trees"
ubifs_keypair key.pem cert.pem
G="-m 2048 -e 129024 -c 100"
# shellcheck disable=SC2086 # $G: the geometry options
ubifs_signed s.img src $G
# shellcheck disable=SC2086
mkfs.ubifs $G -r evil p.img || fail "mkfs.ubifs attacker"
# The genuine signed file system in volume 0, an attacker's unsigned one
# in volume 1 named as the device's root file system.
vol() {
	printf '[%s]\nmode=ubi\nimage=%s\nvol_id=%s\nvol_type=dynamic\nvol_name=%s\nvol_size=4MiB\n' \
		"$3" "$1" "$2" "$3"
}
{ vol s.img 0 fs; vol p.img 1 rootfs; } >ubi.cfg
ubinize -o decoy.ubi -m 2048 -p 128KiB -s 512 ubi.cfg || fail "ubinize"
PEB=131072

# verify goes through both, one verdict per volume, and fails.
"$TRACEKIT" ubifs verify decoy.ubi --cert cert.pem >out 2>err &&
	{ cat out err; fail "the decoy volume 1 went unchecked"; }
assert_grep '^decoy\.ubi: volume 0 "fs": OK: .*signature verified$' out
assert_grep '^decoy\.ubi: volume 1 "rootfs": LEB 0:0x0 superblock node: the image is not authenticated' out
assert_grep '^tracekit ubifs: decoy\.ubi: volume 1 "rootfs": verification FAILED: 1 problem$' err
assert_grep '^tracekit ubifs: decoy\.ubi: 1 of 2 UBIFS volumes FAILED: 1 "rootfs"$' err
assert_eq "verdict lines naming no volume" \
	"$(grep -Evc '^(tracekit ubifs: )?decoy\.ubi: volume [01] "(fs|rootfs)": ' out)" 0

# --volume by ID or name: one volume, its verdict alone.
"$TRACEKIT" ubifs verify decoy.ubi --volume 0 --cert cert.pem >out 2>&1 ||
	{ cat out; fail "--volume 0"; }
assert_grep '^decoy\.ubi: volume 0 "fs": OK: .*signature verified$' out
assert_eq "--volume 0: lines" "$(wc -l <out)" 1
"$TRACEKIT" ubifs verify decoy.ubi --volume fs --cert cert.pem >out 2>&1 ||
	{ cat out; fail "--volume fs"; }
assert_grep '^decoy\.ubi: volume 0 "fs": OK: ' out
expect_fail "$TRACEKIT" ubifs verify decoy.ubi --volume rootfs --cert cert.pem
assert_grep '^decoy\.ubi: volume 1 "rootfs": LEB 0:0x0 superblock node' "$TK_TMP/out"
grep -q 'volume 0' "$TK_TMP/out" && fail "--volume rootfs checked volume 0"
expect_fail "$TRACEKIT" ubifs verify decoy.ubi --volume 7
assert_grep 'no UBIFS volume 7; UBIFS volumes: 0 "fs", 1 "rootfs"$' "$TK_TMP/out"

# extract and info work on one volume: without --volume they refuse,
# naming the volumes, a usage error; nothing is written.
before=$(ls -A -I out)
"$TRACEKIT" ubifs extract decoy.ubi x --cert cert.pem >out 2>&1
assert_eq "extract without --volume: exit" $? 2
assert_eq "extract without --volume: files left" "$(ls -A -I out)" "$before"
assert_eq "extract without --volume: lines" "$(wc -l <out)" 1
assert_grep '^tracekit ubifs: decoy\.ubi: 2 UBIFS volumes \(0 "fs", 1 "rootfs"\): choose one with --volume$' out
"$TRACEKIT" ubifs info decoy.ubi >out 2>&1
assert_eq "info without --volume: exit" $? 2
"$TRACEKIT" ubifs info decoy.ubi --volume rootfs >out || { cat out; fail "info --volume"; }
assert_grep '^volume: +1 "rootfs" \(of 2 UBIFS volumes\)$' out
"$TRACEKIT" ubifs extract decoy.ubi x --volume fs --cert cert.pem >out 2>&1 ||
	{ cat out; fail "extract --volume fs"; }
diff -r src x || fail "extract --volume fs: tree differs from the source"
expect_fail "$TRACEKIT" ubifs extract decoy.ubi y --volume 1 --cert cert.pem
[ -e y ] && fail "extract of the failing volume left y behind"

# The volume table: with copy 0 corrupt, copy 1 still names the volumes
# (drivers/mtd/ubi/vtbl.c process_lvol()); with both, they go unnamed,
# which is said once, and verify still goes through both.
cp decoy.ubi vt0.ubi
# ubinize puts the layout volume in PEBs 0 and 1, its data at 2048.
./poke xor vt0.ubi $((2048 + 172 + 40)) 01 >/dev/null ||
	fail "corrupt volume table copy 0"
expect_fail "$TRACEKIT" ubifs verify vt0.ubi --cert cert.pem
assert_grep '^vt0\.ubi: volume 1 "rootfs": ' "$TK_TMP/out"
grep -q 'volume table' "$TK_TMP/out" && fail "copy 1 is good, yet a warning"
cp vt0.ubi vt01.ubi
./poke xor vt01.ubi $((PEB + 2048 + 172 + 40)) 01 >/dev/null || fail "copy 1"
expect_fail "$TRACEKIT" ubifs verify vt01.ubi --cert cert.pem
assert_grep '^tracekit ubifs: warning: vt01\.ubi: UBI image: no good volume table \(copy 0: record 1: bad CRC; copy 1: record 1: bad CRC\): volumes unnamed$' "$TK_TMP/out"
assert_eq "one warning" "$(grep -c 'volume table' "$TK_TMP/out")" 1
assert_grep '^vt01\.ubi: volume 0: OK: ' "$TK_TMP/out"
assert_grep '^vt01\.ubi: volume 1: LEB 0:0x0 superblock node' "$TK_TMP/out"
"$TRACEKIT" ubifs verify vt01.ubi --volume 0 --cert cert.pem >out 2>&1 ||
	{ cat out; fail "--volume 0 without a volume table"; }

# A name is the attacker's text too: a line break in it must not forge a
# verdict line.
cp decoy.ubi nl.ubi
./poke vtbl nl.ubi $PEB both 1 "name=x\": OK
decoy.ubi: volume 1 \"rootfs" >/dev/null || fail "name with a newline"
expect_fail "$TRACEKIT" ubifs verify nl.ubi --cert cert.pem
assert_grep '^nl\.ubi: volume 1 "x\?: OK\?decoy\.ubi: volume 1 \?rootfs": LEB 0:0x0' "$TK_TMP/out"
grep -q '^decoy' "$TK_TMP/out" && fail "a volume name forged a line"
exit 0
