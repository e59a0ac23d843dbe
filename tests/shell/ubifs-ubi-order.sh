#!/bin/bash
# description: ubifs: UBI dumps with PEBs in any order, stale and interrupted copies
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs.sh"

cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs ubinize openssl dd
mkdir -p src/sub && echo hello >src/a && ln -s a src/link &&
	head -c 400000 /dev/urandom >src/sub/big && seq 1 40000 >src/text ||
	fail "source tree"
ubifs_keypair key.pem cert.pem
ubifs_signed s.img src -m 2048 -e 129024 -c 100
# Two volumes, as in ubifs-verify.sh: 128 KiB PEBs, 2 KiB pages, 512-byte
# sub-pages: VID header at 512, data at 2048, LEBs of 129024 bytes.
cfg() {
	printf '[fs]\nmode=ubi\nimage=%s\nvol_id=0\nvol_type=dynamic\nvol_name=fs\nvol_size=16MiB\n' "$1"
	printf '[other]\nmode=ubi\nvol_id=1\nvol_type=dynamic\nvol_name=x\nvol_size=1MiB\n'
}
cfg s.img >ubi.cfg
ubinize -o orig.ubi -m 2048 -p 128KiB -s 512 ubi.cfg || fail "ubinize"
PEB=131072
n=$(($(stat -c %s orig.ubi) / PEB))

"$TRACEKIT" ubifs verify orig.ubi --cert cert.pem >out || { cat out; fail "verify orig"; }
assert_grep 'signature verified' out
"$TRACEKIT" ubifs extract orig.ubi x.orig --cert cert.pem >out || { cat out; fail "extract orig"; }
diff -r --no-dereference src x.orig || fail "orig: tree differs from the source"

# ubinize writes sqnum 0 everywhere; on flash every PEB write has its
# own.  Number them, then shuffle: PEB i of shuf.ubi is PEB (7i+3) mod n.
cp orig.ubi num.ubi
for ((i = 0; i < n; i++)); do
	./poke vid num.ubi $PEB $i sqnum=$((1000 + i)) || fail "sqnum of PEB $i"
done
[ $((n % 7)) != 0 ] || fail "$n PEBs: the shuffle needs n coprime with 7"
: >shuf.ubi
for ((i = 0; i < n; i++)); do
	dd if=num.ubi bs=$PEB skip=$(((7 * i + 3) % n)) count=1 2>/dev/null
done >shuf.ubi
cmp -s num.ubi shuf.ubi && fail "the shuffle changed nothing"

# peb_of LEB: PEB of num.ubi holding LEB of volume 0; copy_of LEB FILE
# copies it to FILE with junk in its data (which then fails the UBIFS CRC
# of the node at 0x100).
peb_of() {
	./poke peb num.ubi $PEB 0 "$1"
}
copy_of() {
	dd if=num.ubi of="$2" bs=$PEB skip=$(peb_of "$1") count=1 2>/dev/null &&
		printf 'junkjunk' | dd of="$2" bs=1 seek=$((2048 + 0x100)) \
			conv=notrunc 2>/dev/null || fail "copy of LEB $1"
}
copy_of 10 stale.peb && ./poke vid stale.peb $PEB 0 sqnum=5 || fail "stale"
# An interrupted wear-levelling copy: newest, copy_flag, data CRC of the
# original data, junk written after.
dd if=num.ubi of=wl.peb bs=$PEB skip=$(peb_of 11) count=1 2>/dev/null &&
	./poke vid wl.peb $PEB 0 sqnum=99999 copy_flag=1 data_size=129024 \
		data_crc=good &&
	printf 'junkjunk' | dd of=wl.peb bs=1 seek=$((2048 + 0x100)) \
		conv=notrunc 2>/dev/null || fail "wl copy"
cat stale.peb shuf.ubi wl.peb >dump.ubi

for f in shuf dump; do
	"$TRACEKIT" ubifs verify $f.ubi --cert cert.pem >out 2>&1 ||
		{ cat out; fail "verify $f"; }
	assert_grep 'OK: .*signature verified' out
	"$TRACEKIT" ubifs extract $f.ubi x.$f --cert cert.pem >out 2>&1 ||
		{ cat out; fail "extract $f"; }
	diff -r --no-dereference x.orig x.$f || fail "$f: tree differs"
done

# The same copies, but such that UBI reads the junk: verify must then
# fail at that LEB, or the runs above prove nothing.
newer() {
	cat shuf.ubi "$1" >"$2"
	expect_fail "$TRACEKIT" ubifs verify "$2" --cert cert.pem
	assert_grep "^LEB $3:0x[0-9a-f]+ .*(CRC mismatch|hash)" "$TK_TMP/out"
}
copy_of 10 new.peb && ./poke vid new.peb $PEB 0 sqnum=99999 || fail "new"
newer new.peb newer.ubi 10
copy_of 10 good.peb && ./poke vid good.peb $PEB 0 sqnum=99999 copy_flag=1 \
	data_size=129024 data_crc=good || fail "good copy"
newer good.peb goodcopy.ubi 10

# Two PEBs with one sqnum for a LEB: the kernel refuses to attach.
dd if=num.ubi of=same.peb bs=$PEB skip=$(peb_of 10) count=1 2>/dev/null
cat shuf.ubi same.peb >same.ubi
expect_fail "$TRACEKIT" ubifs verify same.ubi
assert_grep '^tracekit ubifs: same\.ubi: UBI image: PEBs [0-9]+ and [0-9]+ hold LEB 10 of volume 0 with the same sqnum 10[0-9][0-9]$' "$TK_TMP/out"

# A corrupt VID header: the PEB is left out, which is said, and the LEB
# it held reads as erased.
cp num.ubi badvid.ubi
p=$(peb_of 10)
printf '\x42' | dd of=badvid.ubi bs=1 seek=$((p * PEB + 512 + 12)) conv=notrunc 2>/dev/null
"$TRACEKIT" ubifs verify badvid.ubi --cert cert.pem >out 2>err && fail "badvid verified"
assert_grep "UBI image: 1 PEB with a corrupt header left out \(first: PEB $p\)$" err
assert_grep '^LEB 10:' out

# UBI geometry that the superblock contradicts (fs/ubifs/sb.c validate_sb).
# mismatch NAME "MKFS GEOMETRY" REGEX: an image made with that geometry,
# in the UBI volume above, is refused with one line matching REGEX.
mismatch() {
	# shellcheck disable=SC2086 # $2: the geometry options
	mkfs.ubifs $2 -c 100 -r src "$1.img" || fail "mkfs.ubifs $2"
	cfg "$1.img" >"$1.cfg"
	ubinize -o "$1.ubi" -m 2048 -p 128KiB -s 512 "$1.cfg" || fail "ubinize $1"
	"$TRACEKIT" ubifs verify "$1.ubi" >out 2>err && fail "$1: mismatch accepted"
	assert_eq "$1: one line" "$(wc -l <err)" 1
	assert_grep "^tracekit ubifs: $1\\.ubi: UBI image: superblock $3" err
}
mismatch leb "-m 2048 -e 126976" \
	'LEB size 126976, but the UBI volume.s LEBs hold 129024 bytes'
mismatch io "-m 512 -e 129024" \
	'min\. I/O unit 512 does not fit the UBI headers'
exit 0
