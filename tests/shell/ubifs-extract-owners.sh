#!/bin/bash
# description: ubifs: extract as root restores uid/gid of files, dirs and symlinks
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

need_root
command -v mkfs.ubifs >/dev/null || fail "mkfs.ubifs is not installed (scripts/deps.sh)"
cd "$TK_TMP" || fail "no scratch dir"
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
exit 0
