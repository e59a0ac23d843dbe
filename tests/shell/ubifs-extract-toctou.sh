#!/bin/bash
# description: ubifs: extract writes only bytes that verified, whatever becomes of the file after
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs.sh"

# The attacker rewrites the image file after `extract` verified it and
# before it is read again (a writer racing extract, or a FUSE, NFS or USB
# source answering a second read differently).  tests/shell/ubifs-swap.c,
# preloaded, does that at a libc call extract makes after verifying:
# lstat() (before the index is read again) or mkdtemp() (before the files
# are).  Extract must then refuse, one line and nothing left, or write
# the tree that verified: never the attacker's bytes, never a crash.
cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
test_helper swap.so ubifs-swap.c -shared -fPIC -ldl
need_cmd mkfs.ubifs openssl
ubifs_keypair key.pem cert.pem
# A, the victim's image, and B, another genuine image of the same signer
# and geometry (the attacker may hold such images).
for v in a b; do
	mkdir -p src.$v/sub && echo "genuine $v" >src.$v/f &&
		seq 1 3000 | sed "s/^/$v /" >src.$v/sub/text &&
		head -c 30000 /dev/urandom >src.$v/r || fail "source tree $v"
	ubifs_signed $v.img src.$v -m 2048 -e 129024 -c 100 -x none
done
# Unauthenticated, where only CRCs can be checked again: B with more
# files, so that its index differs in shape too.
echo more >src.b/g
mkfs.ubifs -m 2048 -e 129024 -c 100 -x none -r src.a pa.img &&
	mkfs.ubifs -m 2048 -e 129024 -c 100 -x none -r src.b pb.img ||
	fail "mkfs.ubifs plain"
# A with one data node of f changed and its CRC repaired: only the hash in
# its index branch tells.
d=$(./poke find a.img 129024 data none) || fail "no data node"
cp a.img evil.img && ./poke set evil.img $((d + 48)) 7 0x6c697665 >/dev/null &&
	./poke crc evil.img $d >/dev/null || fail "poke"
"$TRACEKIT" ubifs verify evil.img --cert cert.pem >/dev/null 2>&1
assert_eq "the edited image alone fails verify" "$?" 1

# attack NAME AT [WITH [IMAGE [OPTION]]]: extract a copy of IMAGE (a.img),
# rewritten at AT.
attack() {
	local rc img=${4:-a.img}

	cp $img victim.img
	rm -rf x
	env LD_PRELOAD="$PWD/swap.so" ASAN_OPTIONS=verify_asan_link_order=0 \
		TK_SWAP_AT="$2" TK_SWAP_IMAGE="$PWD/victim.img" ${3:+TK_SWAP_WITH="$3"} \
		"$TRACEKIT" ubifs extract victim.img x ${5---cert cert.pem} >out 2>err
	rc=$?
	cmp -s victim.img $img && fail "$1: the image was not rewritten"
	if [ "$rc" = 0 ]; then
		diff -r --no-dereference src.a x >/dev/null ||
			fail "$1: extract wrote what did not verify: $(diff -r src.a x | head -3)"
		echo "$1: the verified tree"
		return
	fi
	assert_eq "$1: exit status" "$rc" 1
	assert_eq "$1: one line on stderr: $(cat err)" "$(wc -l <err)" 1
	assert_grep "not what was verified.*changed after verification" err
	[ -z "$(ls -d x x.* 2>/dev/null)" ] || fail "$1: left $(ls -d x x.*)"
	echo "$1: refused: $(cat err)"
}
attack "another signed image, before the index is read" lstat b.img
attack "another signed image, before the files are read" mkdtemp b.img
attack "a data node changed, before the files are read" mkdtemp evil.img
attack "the file cut short, before the files are read" mkdtemp
attack "unauthenticated, another image, before the index is read" lstat pb.img pa.img ""
# Without an attacker the shim changes nothing, and a.img extracts.
rm -rf x
LD_PRELOAD=$PWD/swap.so ASAN_OPTIONS=verify_asan_link_order=0 \
	"$TRACEKIT" ubifs extract a.img x --cert cert.pem >out 2>&1 || { cat out; fail "a.img"; }
diff -r --no-dereference src.a x || fail "a.img: tree differs"
exit 0
