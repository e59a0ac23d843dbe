#!/bin/bash
# description: ubifs: extract writes an inode once, however many entries name it, and bounds the size first
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs.sh"

# Entries that all name one large, well-compressed file: a small signed
# image that a copy per entry would turn into gigabytes.  Each inode is
# written once, the other entries are hard links, as the kernel shows
# them (one inode), and what the inodes declare is checked against
# --max-size or the free space before anything is written.
cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs openssl od
ubifs_keypair key.pem cert.pem
L=129024
n=20
mkdir src && yes tracekit | head -c 1048576 >src/big || fail "source tree"
for ((i = 1; i < n; i++)); do echo "small $i" >src/f$i; done
mkfs.ubifs -m 2048 -e $L -c 100 -r src plain.img || fail "mkfs.ubifs"
e=$(./poke find plain.img $L dent big) || fail "no entry big"
big=$(od -An -tu4 -j $((e + 40)) -N4 plain.img | tr -d ' ')
# Every f$i now names big's inode (nlink stays 1), CRCs repaired; then
# signed, so that the image verifies with the certificate.
for ((i = 1; i < n; i++)); do
	e=$(./poke find plain.img $L dent f$i) || fail "no entry f$i"
	./poke set plain.img $((e + 40)) 8 "$big" >/dev/null &&
		./poke crc plain.img $e >/dev/null || fail "poke f$i"
done
"$TRACEKIT" ubifs sign plain.img links.img --key key.pem --cert cert.pem >/dev/null ||
	fail "sign"
img_kib=$(($(stat -c %s links.img) / 1024))

"$TRACEKIT" ubifs extract links.img x --cert cert.pem >out 2>&1 || { cat out; fail "extract"; }
inodes=$(stat -c %i x/big x/f* | sort -u | wc -l)
assert_eq "one inode for all $n entries" "$inodes" 1
assert_eq "link count of big" "$(stat -c %h x/big)" $n
cmp -s src/big x/f7 || fail "f7 is not big's content"
kib=$(du -sk x | cut -f1)
echo "image $img_kib KiB, $n entries of a 1 MiB file: $kib KiB written"
[ "$kib" -lt 2048 ] || fail "$kib KiB written for one 1 MiB file"
rm -rf x

# The sizes the inodes declare, against --max-size, before any write.
"$TRACEKIT" ubifs extract links.img x --cert cert.pem --max-size 100K >out 2>err
assert_eq "--max-size 100K: exit status" "$?" 1
assert_grep "extract: the image's files declare [0-9]+ bytes, more than --max-size 102400$" err
[ -z "$(ls -d x x.* 2>/dev/null)" ] || fail "--max-size: left $(ls -d x x.*)"
"$TRACEKIT" ubifs extract links.img x --cert cert.pem --max-size 2M >out 2>&1 ||
	{ cat out; fail "--max-size 2M"; }
rm -rf x
"$TRACEKIT" ubifs extract links.img x --max-size 1X >out 2>err
assert_eq "--max-size 1X: exit status" "$?" 2
assert_grep "max-size 1X: not a positive size" err
# An inode declaring 4 PiB (a sparse file to be): more than any free
# space, refused without --max-size.
i=$(./poke find plain.img $L ino "$big") || fail "no inode $big"
./poke set plain.img $((i + 48)) 8 $((1 << 52)) >/dev/null &&
	./poke crc plain.img $i >/dev/null || fail "poke size"
"$TRACEKIT" ubifs extract plain.img x >out 2>err
assert_eq "4 PiB declared: exit status" "$?" 1
assert_grep "declare 450359962737[0-9]{4} bytes, more than the [0-9]+ free where x would go" err
[ -z "$(ls -d x x.* 2>/dev/null)" ] || fail "4 PiB: left $(ls -d x x.*)"
exit 0
