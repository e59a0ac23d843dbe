#!/bin/bash
# description: ubifs: sign a plain mkfs.ubifs image like mkfs.ubifs --auth-key would
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs.sh"

cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs openssl md5sum
mkdir -p root/sub/deep && echo hello >root/a && ln -s a root/link &&
	echo x >root/sub/deep/c && head -c 700000 /dev/urandom >root/big &&
	seq 1 50000 >root/sub/text || fail "source tree"
setfattr -n user.tk -v 1 root/a 2>/dev/null
ubifs_keypair key.pem cert.pem
ubifs_keypair key2.pem cert2.pem
head -c 32 /dev/urandom >hmac.key
head -c 32 /dev/urandom >other.key
G="-m 2048 -e 129024 -c 64"
# A first run settles the directories' atime, which both images record.
mkfs.ubifs $G -r root warmup.img || fail "mkfs.ubifs"
mkfs.ubifs $G -r root p.img || fail "mkfs.ubifs plain"
ubifs_signed m.img root $G
before=$(md5sum <p.img)

"$TRACEKIT" ubifs sign p.img s.img --key key.pem --cert cert.pem >out ||
	{ cat out; fail "sign"; }
assert_eq "IN untouched" "$(md5sum <p.img)" "$before"
assert_eq "no temporary left" "$(ls | grep -c tmp)" 0
"$TRACEKIT" ubifs verify s.img --cert cert.pem >out || { cat out; fail "verify"; }
assert_grep 'signature verified' out
expect_fail "$TRACEKIT" ubifs verify s.img --cert cert2.pem
assert_grep 'signature node: signature does not verify' "$TK_TMP/out"

# openssl is the oracle of the signature: it verifies over the
# superblock with the certificate, and not with another one.
dd if=s.img of=sb.bin bs=4096 count=1 2>/dev/null
siglen=$(od -An -tu4 -j $((4096 + 28)) -N4 s.img | tr -d ' ')
dd if=s.img of=sig.der bs=1 skip=$((4096 + 64)) count="$siglen" 2>/dev/null
openssl cms -verify -binary -inform DER -in sig.der -content sb.bin \
	-certfile cert.pem -nointern -noverify -out /dev/null 2>cms.err ||
	{ cat cms.err; fail "openssl cms -verify of our signature"; }
openssl cms -verify -binary -inform DER -in sig.der -content sb.bin \
	-certfile cert2.pem -nointern -noverify -out /dev/null 2>/dev/null &&
	fail "openssl cms -verify accepts our signature with another certificate"

# mkfs.ubifs is the oracle of the layout: every node where mkfs.ubifs
# --auth-key put it, with the same type and length, as a walker that
# shares no code with tracekit finds them.
./poke nodes m.img 129024 >m.nodes && ./poke nodes s.img 129024 >s.nodes ||
	fail "listing nodes"
[ "$(wc -l <m.nodes)" -gt 20 ] || fail "too few nodes listed in m.img"
diff m.nodes s.nodes || fail "layout differs from mkfs.ubifs --auth-key"

# The same in the big LPT model (many LEBs allowed, small ones); there the
# LPT area must even be byte for byte what mkfs.ubifs writes.
B="-m 512 -e 15872 -c 8000"
mkfs.ubifs $B -r root bp.img || fail "mkfs.ubifs big LPT"
ubifs_signed bm.img root $B
"$TRACEKIT" ubifs sign bp.img bs.img --key key.pem --cert cert.pem >/dev/null ||
	fail "sign big LPT"
"$TRACEKIT" ubifs verify bs.img --cert cert.pem >/dev/null || fail "verify big LPT"
"$TRACEKIT" ubifs info bs.img >bs.info || fail "info big LPT"
assert_grep 'big LPT' bs.info
./poke nodes bm.img 15872 >bm.nodes && ./poke nodes bs.img 15872 >bs.nodes ||
	fail "listing nodes"
diff bm.nodes bs.nodes || fail "big LPT layout differs from mkfs.ubifs"
lpt=$(sed -n 's/.*LPT \([0-9]*\)-\([0-9]*\),.*/\1 \2/p' bs.info)
set -- $lpt
cmp <(dd if=bs.img bs=15872 skip=$1 count=$(($2 - $1 + 1)) 2>/dev/null) \
	<(dd if=bm.img bs=15872 skip=$1 count=$(($2 - $1 + 1)) 2>/dev/null) ||
	fail "LPT area (LEBs $1-$2) differs from mkfs.ubifs"

# The contents survive: extract what the re-laid index points to (zstd
# data, which the extractor decompresses) and compare with the source.
mkfs.ubifs $G -x zstd -r root pz.img || fail "mkfs.ubifs zstd"
"$TRACEKIT" ubifs sign pz.img sz.img --key key.pem --cert cert.pem >/dev/null ||
	fail "sign zstd image"
"$TRACEKIT" ubifs extract sz.img x --cert cert.pem >out || { cat out; fail "extract"; }
diff -r --no-dereference root x || fail "extracted tree differs from the source"
assert_eq "symlink" "$(readlink x/link)" "a"
assert_eq "modes" "$(cd x && find . -printf '%m %s %p\n' | sort)" \
	"$(cd root && find . -printf '%m %s %p\n' | sort)"
# The default compressor, LZO, as well.
"$TRACEKIT" ubifs extract s.img y --cert cert.pem >out || { cat out; fail "extract LZO"; }
diff -r --no-dereference root y || fail "extracted LZO tree differs from the source"

# HMAC-authenticated, another hash.
"$TRACEKIT" ubifs sign p.img h.img --hmac-key hmac.key --hash-algo sha512 \
	>/dev/null || fail "sign --hmac-key"
"$TRACEKIT" ubifs verify h.img --key-file hmac.key >out || { cat out; fail "verify --key-file"; }
assert_grep 'HMACs verified' out
expect_fail "$TRACEKIT" ubifs verify h.img --key-file other.key
assert_grep 'the HMAC key does not fit' "$TK_TMP/out"
# The HMAC covers the common header from byte 8: sign must write it first
# (the fuzzer found a superblock with a stray group type byte signed
# before its header was rewritten).
cp p.img g.img && ./poke xor g.img 21 5b && ./poke crc g.img 0 || fail "poke"
"$TRACEKIT" ubifs sign g.img gh.img --hmac-key hmac.key >/dev/null || fail "sign g.img"
"$TRACEKIT" ubifs verify gh.img --key-file hmac.key >out || { cat out; fail "verify gh.img"; }

# Refusals leave no OUT behind.
expect_fail "$TRACEKIT" ubifs sign s.img again.img --key key.pem --cert cert.pem
assert_grep 'already authenticated' "$TK_TMP/out"
expect_fail "$TRACEKIT" ubifs sign p.img x.img --key key2.pem --cert cert.pem
assert_grep 'does not match the certificate' "$TK_TMP/out"
[ ! -e again.img ] && [ ! -e x.img ] || fail "OUT left after a failure"
exit 0
