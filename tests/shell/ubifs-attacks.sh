#!/bin/bash
# description: ubifs: forged, unsigned and wrongly keyed images are refused, extract writes nothing
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs.sh"

# The threat model of UBIFS authentication: an attacker who can rewrite
# the flash offline, who holds a key and certificate of their own and a
# genuine image signed by the victim.  Every image here must be refused
# with the credentials the victim's user gives, and extract must leave
# nothing behind.  The images are mkfs.ubifs's; the forging tool is
# ubifs-poke.c, which shares no code with tracekit.
cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs openssl
LEB=129024
G="-m 2048 -e $LEB -c 64"
tree() {
	mkdir -p "$1/sub" && head -c 50000 /dev/urandom >"$1/data" &&
		echo "$2" >"$1/sub/who" && ln -s data "$1/link"
}
tree victim "the victim's file" && tree attacker "the attacker's file" ||
	fail "source trees"
for k in victim attacker; do
	ubifs_keypair $k.key $k.crt $k
	head -c 32 /dev/urandom >$k.hmac
done
mkfs.ubifs $G -r victim --hash-algo=sha256 --auth-key=victim.key \
	--auth-cert=victim.crt v.img || fail "mkfs.ubifs victim"
mkfs.ubifs $G -r attacker --hash-algo=sha256 --auth-key=attacker.key \
	--auth-cert=attacker.crt a.img || fail "mkfs.ubifs attacker"
mkfs.ubifs $G -r attacker p.img || fail "mkfs.ubifs plain"
"$TRACEKIT" ubifs sign p.img ah.img --hmac-key attacker.hmac >/dev/null ||
	fail "sign --hmac-key"
"$TRACEKIT" ubifs sign p.img vh.img --hmac-key victim.hmac >/dev/null ||
	fail "sign --hmac-key"

# The genuine images pass, so that each refusal below is the attack's.
"$TRACEKIT" ubifs verify v.img --cert victim.crt >out || { cat out; fail "genuine signed image"; }
assert_grep 'authenticated: signature verified$' out
"$TRACEKIT" ubifs verify vh.img --key-file victim.hmac >out || { cat out; fail "genuine HMAC image"; }
assert_grep 'authenticated: HMACs verified$' out

# refused WHAT PATTERN IMAGE OPTIONS...: verify exits 1 naming PATTERN,
# and extract exits 1 and creates nothing.
n=0
refused() {
	local what=$1 pat=$2 img=$3 rc
	shift 3
	"$TRACEKIT" ubifs verify "$img" "$@" >out 2>&1
	rc=$?
	[ $rc = 1 ] || { cat out; fail "$what: verify exit $rc, want 1"; }
	grep -q -E -- "$pat" out || { cat out; fail "$what: no '$pat'"; }
	grep -q 'OK' out && { cat out; fail "$what: says OK"; }
	"$TRACEKIT" ubifs extract "$img" x "$@" >out 2>&1
	rc=$?
	[ $rc = 1 ] || { cat out; fail "$what: extract exit $rc, want 1"; }
	[ -z "$(ls -d x* 2>/dev/null)" ] || fail "$what: extract left files"
	n=$((n + 1))
}

# 1. Not authenticated at all, yet a certificate or key was given.
refused "unsigned image, --cert" 'not authenticated .*--cert cannot be checked' \
	p.img --cert victim.crt
refused "unsigned image, --key-file" 'not authenticated .*HMAC key cannot' \
	p.img --key-file victim.hmac
# 2. HMAC-authenticated with the attacker's own key.
refused "attacker's HMAC image, --cert" 'signature node: missing' \
	ah.img --cert victim.crt
refused "attacker's HMAC image, --key-file" 'the HMAC key does not fit' \
	ah.img --key-file victim.hmac
# 3. Signed by the victim, checked with a key only: the signature, which
#    authenticates this superblock, needs the certificate.
refused "signed image, --key-file only" 'authenticated by its signature, give --cert' \
	v.img --key-file victim.hmac
# 4. Signed by the attacker.
refused "attacker's signed image" 'signature node: signature does not verify' \
	a.img --cert victim.crt

# 5. The victim's superblock and signature (LEB 0) on the attacker's
#    image: the attacker's masters do not hash to the victim's hash_mst.
cp a.img f.img
dd if=v.img of=f.img bs=$LEB count=1 conv=notrunc 2>/dev/null
refused "victim's LEB 0 on attacker's image" "LEB 1:0x0 master node: hash does not match" \
	f.img --cert victim.crt
#    ... and with an HMAC claimed in both master copies, which once made
#    verify skip hash_mst when no key was given.
for l in 1 2; do
	./poke xor f.img $((l * LEB + 296)) 01 && ./poke crc f.img $((l * LEB)) ||
		fail "poke"
done
refused "victim's LEB 0, masters claim an HMAC" \
	"LEB 1:0x0 master node: carries an HMAC .*give --key-file" f.img --cert victim.crt
refused "victim's LEB 0, masters claim an HMAC, a key" \
	"LEB 1:0x0 master node: HMAC mismatch" f.img --cert victim.crt --key-file victim.hmac

# 6. Every byte of the authenticated master's HMAC field and of the
#    superblock's HMAC field, CRC repaired.  (LEB 2's copy counts through
#    its equality with LEB 1's outside that field, as in the kernel.)
for b in $(seq 296 359); do
	cp v.img t.img
	./poke xor t.img $((LEB + b)) 5a && ./poke crc t.img $LEB || fail "poke"
	"$TRACEKIT" ubifs verify t.img --cert victim.crt >out 2>&1 &&
		{ cat out; fail "master byte $b accepted"; }
	grep -q "^LEB 1:0x0 master node:" out || { cat out; fail "master byte $b not named"; }
done
for b in $(seq 128 191); do
	cp v.img t.img
	./poke xor t.img $b a5 && ./poke crc t.img 0 || fail "poke"
	"$TRACEKIT" ubifs verify t.img --cert victim.crt >out 2>&1 &&
		{ cat out; fail "superblock byte $b accepted"; }
	grep -q '^LEB 0:0x1000 signature node: signature does not verify' out ||
		{ cat out; fail "superblock byte $b: not the signature"; }
done
echo "128 HMAC-field flips refused"

# 7. Signatures that verify cryptographically but are not of the form the
#    kernel takes: another digest than the superblock's, content that is
#    not id-data.  The first, made the same way with the right digest,
#    must pass, so the refusals are the checks' doing.
dd if=v.img of=sb.bin bs=4096 count=1 2>/dev/null
sig() {
	openssl cms -sign -binary -noattr -nocerts -outform DER -in sb.bin \
		-signer victim.crt -inkey victim.key -out "$1.der" "${@:2}" ||
		fail "openssl cms -sign $*"
	cp v.img "$1.img" && ./poke setsig "$1.img" "$1.der" || fail "poke setsig"
}
sig good -md sha256
"$TRACEKIT" ubifs verify good.img --cert victim.crt >out || { cat out; fail "openssl-made signature"; }
sig sha1 -md sha1
refused "sha1 signature over a sha256 image" 'signer 0 digests with SHA1, the superblock.s hash is sha256' \
	sha1.img --cert victim.crt
sig econt -md sha256 -econtent_type 1.2.840.113549.1.7.5
refused "content type not id-data" 'signed content type is not id-data' \
	econt.img --cert victim.crt

# 8. Without credentials verify checks integrity only, and says so last:
#    the forgery is consistent in itself, which is all it can tell.
"$TRACEKIT" ubifs verify f.img >out 2>&1 || { cat out; fail "integrity of f.img"; }
assert_grep 'authenticity NOT checked, give --cert or --key-file$' out
"$TRACEKIT" ubifs verify p.img >out 2>&1 || { cat out; fail "integrity of p.img"; }
[ "$(tail -n 1 out | grep -c 'authenticity NOT checked')" = 1 ] || { cat out; fail "last line"; }
echo "$n attacks refused by verify and extract"
exit 0
