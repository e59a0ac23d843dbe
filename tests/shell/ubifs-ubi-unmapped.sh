#!/bin/bash
# description: ubifs: a UBI volume whose trailing LEBs are unmapped, as on a device, is whole
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd ubinize
# The kernel wrote this volume over mtdram (tests/vm/mk-ubifs-kernel-image.sh):
# 28 LEBs of 130944 bytes in its superblock, the last ten of them erased.
gzip -dc "$TRACEKIT_SRCDIR/tests/data/ubifs-kernel-hmac.img.gz" >k.img ||
	fail "fixture"
KEY=$TRACEKIT_SRCDIR/tests/data/ubifs-kernel-hmac.key
LEB=130944
PEB=131072
assert_eq "fixture LEBs" $(($(stat -c %s k.img) / LEB)) 28
erased=$(head -c $LEB /dev/zero | tr '\0' '\377' | md5sum)
for l in $(seq 18 27); do
	[ "$(dd if=k.img bs=$LEB skip="$l" count=1 2>/dev/null | md5sum)" = "$erased" ] ||
		fail "LEB $l of the fixture is not erased"
done
# The same geometry as mtdram's: min. I/O 8 (UBIFS's least), VID header at
# 64, data at 128.  ubinize maps every LEB of the image, erased or not.
printf '[fs]\nmode=ubi\nimage=k.img\nvol_id=0\nvol_type=dynamic\nvol_name=fs\nvol_size=4MiB\n' >k.cfg
ubinize -o full.ubi -m 8 -p 128KiB k.cfg || fail "ubinize"
"$TRACEKIT" ubifs extract k.img x.raw --key-file "$KEY" >out 2>&1 ||
	{ cat out; fail "extract the raw volume"; }

# On flash, UBI never maps what was not written: the PEBs of LEBs 18-27
# hold only an erase counter header, and a dump may end before the last
# of them.
cp full.ubi dev.ubi
for l in $(seq 18 27); do
	p=$(./poke peb dev.ubi $PEB 0 "$l") && [ -n "$p" ] || fail "PEB of LEB $l"
	head -c $((PEB - 64)) /dev/zero | tr '\0' '\377' |
		dd of=dev.ubi bs=1 seek=$((p * PEB + 64)) conv=notrunc 2>/dev/null ||
		fail "unmap LEB $l"
done
truncate -s $((28 * PEB)) dev.ubi
[ -z "$(./poke peb dev.ubi $PEB 0 17)" ] && fail "LEB 17 went too"
"$TRACEKIT" ubifs verify dev.ubi --key-file "$KEY" >out 2>&1 ||
	{ cat out; fail "verify: unmapped LEBs refused"; }
assert_grep '^dev\.ubi: OK: .*HMACs verified$' out
"$TRACEKIT" ubifs extract dev.ubi x.dev --key-file "$KEY" >out 2>&1 ||
	{ cat out; fail "extract: unmapped LEBs refused"; }
diff -r --no-dereference x.raw x.dev || fail "extract: trees differ"

# An attacker's superblock claiming 2^24 LEBs (2 TB): refused in one line
# before anything of that size is allocated.
cp dev.ubi big.ubi
./poke set big.ubi $((2 * PEB + 128 + 40)) 4 16777216 >/dev/null &&
	./poke set big.ubi $((2 * PEB + 128 + 44)) 4 16777216 >/dev/null &&
	./poke crc big.ubi $((2 * PEB + 128)) >/dev/null || fail "poke leb_cnt"
"$TRACEKIT" ubifs verify big.ubi --key-file "$KEY" >out 2>&1 && fail "2^24 LEBs accepted"
assert_eq "2^24 LEBs: lines" "$(wc -l <out)" 1
assert_grep '^tracekit ubifs: big\.ubi: UBI image: volume 0: 16777216 LEBs \(superblock 16777216, LEB 17 mapped\), more than the image.s 28 PEBs$' out

# The volume table's reserved PEBs: 2^24 allocates nothing (the superblock
# sizes the volume); fewer than the superblock's 28 LEBs is what
# fs/ubifs/sb.c validate_sb() refuses to mount.
cp dev.ubi vt.ubi
./poke vtbl vt.ubi $PEB both 0 reserved_pebs=16777216 >/dev/null || fail "vtbl"
"$TRACEKIT" ubifs verify vt.ubi --key-file "$KEY" >out 2>&1 ||
	{ cat out; fail "reserved_pebs 2^24"; }
./poke vtbl vt.ubi $PEB both 0 reserved_pebs=20 >/dev/null || fail "vtbl"
"$TRACEKIT" ubifs verify vt.ubi --key-file "$KEY" >out 2>&1 && fail "20 reserved PEBs accepted"
assert_grep '^tracekit ubifs: vt\.ubi: UBI image: volume 0: 28 LEBs \(superblock 28, LEB 17 mapped\), but the volume table reserves 20$' out
exit 0
