#!/bin/bash
# description: ubifs: extract restores uid/gid as root, works as another user too
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

need_root
cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs setpriv
mkdir -p src/d/e && echo a >src/a && echo b >src/d/b && echo c >src/d/e/c &&
	ln -s a src/l && ln -s nowhere src/d/l2 && ln src/a src/d/hard ||
	fail "source tree"
chown 1234:5678 src/a && chown 0:0 src/d/b && chown 65534:65534 src/d/e/c &&
	chown -h 4321:8765 src/l && chown -h 77:88 src/d/l2 &&
	chown 1000:100 src/d && chown 65534:0 src/d/e || fail "chown"
# chown clears set-ID bits: they must be set again after it.
chmod 6755 src/d/e/c && chmod 2775 src/d || fail "chmod"

owners() {
	(cd "$1" && find . | LC_ALL=C sort | while read -r f; do
		stat -c '%u:%g %a %n' "$f"
	done)
}
owners src >want
mkfs.ubifs -m 2048 -e 129024 -c 100 -r src o.img || fail "mkfs.ubifs"
"$TRACEKIT" ubifs extract o.img x >out 2>&1 || { cat out; fail "extract"; }
owners x >got
diff want got || fail "owners or modes differ"
# The source really has assorted owners, so the comparison means something.
assert_grep '^1234:5678 644 ./a$' got
assert_grep '^4321:8765 777 ./l$' got
assert_grep '^65534:65534 6755 ./d/e/c$' got

# As another user: owners are the caller's, and a directory without
# permissions (its mode is set after its entries) neither stops the
# extraction nor, on error, the removal of the partial tree.
mkdir -p nr/locked/inner && echo f >nr/locked/inner/f && echo g >nr/z &&
	chmod 0500 nr/locked/inner && chmod 0000 nr/locked || fail "nr tree"
mkfs.ubifs -m 2048 -e 129024 -c 100 -x none -r nr nr.img || fail "mkfs.ubifs nr"
chmod 711 "$TK_TMP" && mkdir user && chmod 777 user && chmod 644 nr.img ||
	fail "user dir"
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
as_nobody "$TRACEKIT" ubifs extract nr.img user/x >out 2>&1 || { cat out; fail "extract as nobody"; }
assert_eq "owner as nobody" "$(stat -c '%u:%g %a' user/x/locked)" "65534:65534 0"
chmod -R u+rwx user/x && rm -rf user/x
# Entry "z" (after "locked" in hash order or not) names a missing inode.
e=$("$TK_TMP/poke" find nr.img 129024 dent z) || fail "no entry z"
"$TK_TMP/poke" set nr.img $((e + 40)) 8 9999 && "$TK_TMP/poke" crc nr.img $e ||
	fail "poke"
as_nobody "$TRACEKIT" ubifs extract nr.img user/x >out 2>err && fail "bad entry accepted"
assert_grep 'inode 9999 does not exist$' err
assert_eq "nothing left as nobody" "$(ls -A user)" ""
exit 0
