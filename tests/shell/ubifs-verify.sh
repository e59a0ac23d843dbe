#!/bin/bash
# description: ubifs: info/verify on mkfs.ubifs images, wrong cert, bad input
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs.sh"

need_cmd mkfs.ubifs openssl
cd "$TK_TMP" || fail "no scratch dir"
mkdir -p root/sub && echo hello >root/a && ln -s a root/link &&
	head -c 200000 /dev/urandom >root/sub/big || fail "source tree"
ubifs_keypair key.pem cert.pem
ubifs_keypair key2.pem cert2.pem
G="-m 2048 -e 129024 -c 64"
ubifs_signed s.img root $G
mkfs.ubifs $G -r root p.img || fail "mkfs.ubifs plain"

"$TRACEKIT" ubifs info s.img >info || fail "info"
assert_grep '^authentication: sha256, signed' info
assert_grep '^inodes: +5 ' info
assert_grep '^geometry: +min I/O 2048, LEB size 129024' info
"$TRACEKIT" ubifs verify s.img --cert cert.pem >out || fail "verify --cert"
assert_grep 'OK: .*signature verified' out

# Same subject, other key: the signature must not verify.
expect_fail "$TRACEKIT" ubifs verify s.img --cert cert2.pem
assert_grep '^LEB 0:0x1000 signature node: signature does not verify' "$TK_TMP/out"
assert_grep 'verification FAILED: 1 problem$' "$TK_TMP/out"

"$TRACEKIT" ubifs verify p.img >out || fail "plain verify"
assert_grep 'not authenticated' out

# A signature the UBIFS fuzzer mutated (its digest algorithm unknown),
# signed with the certificate kept beside it: OpenSSL 3.0's CMS_verify()
# leaked on it (ubifs/auth.c).  Refused in one line; under
# SANITIZE=1 a leak report would be more lines.
gzip -dc "$TRACEKIT_SRCDIR/tests/data/ubifs-fuzz-cms.img.gz" >cms.img ||
	fail "tests/data/ubifs-fuzz-cms.img.gz"
"$TRACEKIT" ubifs verify cms.img --cert "$TRACEKIT_SRCDIR/tests/data/ubifs-fuzz-cms.pem" \
	>out 2>err
assert_eq "fuzzed signature: exit status" "$?" 1
assert_eq "fuzzed signature: one line on stderr: $(cat err)" "$(wc -l <err)" 1
assert_grep '^LEB 0:0x1000 signature node: signature does not verify: .*unknown digest algorithm' out

# A root index node above the level limit (CRC repaired): the message
# says the limit, UBIFS_MAX_LEVELS - 1 (fs/ubifs/ubifs-media.h).
test_helper poke ubifs-poke.c
set -- $("$TRACEKIT" ubifs info p.img |
	sed -n 's/^root index: *LEB \([0-9]*\):\(0x[0-9a-f]*\),.*/\1 \2/p')
[ $# = 2 ] || fail "no root index in info"
r=$(($1 * 129024 + $2))
cp p.img level.img && ./poke set level.img $((r + 26)) 2 522 >/dev/null &&
	./poke crc level.img $r >/dev/null || fail "poke level"
expect_fail "$TRACEKIT" ubifs verify level.img
assert_grep '^LEB [0-9]+:0x[0-9a-f]+ index node: level 522, the limit is 511$' "$TK_TMP/out"

# md5 and sha1: accepted, as the kernel accepts them, with a warning.
for h in md5 sha1; do
	mkfs.ubifs $G -r root --hash-algo=$h --auth-key=key.pem \
		--auth-cert=cert.pem $h.img || fail "mkfs.ubifs $h"
	"$TRACEKIT" ubifs verify $h.img --cert cert.pem >out 2>err || fail "verify $h"
	assert_grep 'OK: .*signature verified' out
	assert_grep "^tracekit ubifs: warning: $h.img: hash algorithm $h: collisions can be computed" err
done
"$TRACEKIT" ubifs verify s.img --cert cert.pem >out 2>err || fail "verify sha256"
assert_eq "sha256: no warning" "$(cat err)" ""

# A flipped byte in a data node: the index names it.
cp s.img t.img
# Flipped, not set: a byte set to a chosen value may have held it (an
# inode number of the arm64 guest's mkfs.ubifs run did).
./poke xor t.img $((10 * 129024 + 0x100)) ff >/dev/null || fail "poke xor"
expect_fail "$TRACEKIT" ubifs verify t.img --cert cert.pem
assert_grep '^LEB 10:0x[0-9a-f]+ [a-z]+ node: CRC mismatch' "$TK_TMP/out"

# Inside a UBI image (ubinize output) the volume is found through the
# UBI headers; its LEBs are not contiguous in the file.
if command -v ubinize >/dev/null; then
	printf '[fs]\nmode=ubi\nimage=s.img\nvol_id=0\nvol_type=dynamic\nvol_name=fs\nvol_size=8MiB\n' >ubi.cfg
	printf '[other]\nmode=ubi\nvol_id=1\nvol_type=dynamic\nvol_name=x\nvol_size=1MiB\n' >>ubi.cfg
	ubinize -o s.ubi -m 2048 -p 128KiB -s 512 ubi.cfg 2>/dev/null || fail "ubinize"
	"$TRACEKIT" ubifs verify s.ubi --cert cert.pem >out || { cat out; fail "verify UBI"; }
	assert_grep 'signature verified' out
	"$TRACEKIT" ubifs info s.ubi >out || fail "info UBI"
	assert_grep 'UBIFS volume of a UBI image' out
	# LEB 10 of the volume is the 11th PEB holding it, data at 0x800.
	cp s.ubi t.ubi
	./poke xor t.ubi $(((2 + 10) * 131072 + 2048 + 0x100)) ff >/dev/null ||
		fail "poke xor UBI"
	expect_fail "$TRACEKIT" ubifs verify t.ubi --cert cert.pem
	assert_grep '^LEB 10:0x[0-9a-f]+ [a-z]+ node: CRC mismatch' "$TK_TMP/out"
fi

# Bad input: one line on stderr, exit 1, no crash.
check_bad() {
	local what=$1 file=$2 rc
	"$TRACEKIT" ubifs info "$file" >bad.out 2>bad.err
	rc=$?
	assert_eq "$what: exit status" "$rc" 1
	assert_eq "$what: one line" "$(wc -l <bad.err)" 1
	assert_grep "$3" bad.err
}
head -c 1000 s.img >short.img
check_bad "too short" short.img 'superblock node: image too short'
head -c $((11 * 129024 + 77)) s.img >trunc.img
check_bad "truncated" trunc.img 'image: truncated'
cp s.img magic.img
printf '\x00' | dd of=magic.img bs=1 seek=0 conv=notrunc 2>/dev/null
check_bad "wrong magic" magic.img 'bad magic'
: >empty.img
check_bad "empty" empty.img 'empty file'
expect_fail "$TRACEKIT" ubifs verify trunc.img
assert_grep 'truncated' "$TK_TMP/out"
exit 0
