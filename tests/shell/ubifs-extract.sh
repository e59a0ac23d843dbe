#!/bin/bash
# description: ubifs: extract images of every mkfs.ubifs compressor, diff against the source
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

# scripts/deps.sh installs all of these: missing is a failure.
cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs diff stat

# Text, random and zero-filled files around the 4 KiB block size, a
# sparse file, symlinks (one dangling), hard links, nested directories
# and modes with set-ID bits.
mkdir -p src/d1/d2/d3 src/empty || fail "mkdir"
for n in 0 1 4095 4096 4097 300000; do
	head -c $n /dev/zero >src/zero$n
	head -c $n /dev/urandom >src/d1/rand$n
	seq 1 100000 | head -c $n >src/d1/d2/text$n
done
truncate -s 10M src/sparse && printf x | dd of=src/sparse bs=1 seek=5000000 \
	conv=notrunc 2>/dev/null || fail "sparse file"
ln -s d1/d2/text4097 src/link && ln -s d1/d2 src/dlink &&
	ln -s nowhere src/dangling && ln src/d1/d2/text300000 src/hard1 &&
	ln src/d1/rand4097 src/d1/d2/d3/hard2 || fail "links"
chmod 4755 src/d1/rand1 && chmod 2750 src/d1 && chmod 0500 src/d1/d2/d3 &&
	chmod 0600 src/zero1 || fail "chmod"

modes() {
	(cd "$1" && find . | LC_ALL=C sort | while read -r f; do
		stat -c '%a %F %s %n' "$f"
	done)
}
modes src >modes.src

G="-m 2048 -e 129024 -c 300"
for x in default lzo zlib favor_lzo zstd none; do
	opt="-x $x"
	[ $x = default ] && opt=
	mkfs.ubifs $G $opt -r src $x.img || fail "mkfs.ubifs -x $x"
	./poke compr $x.img 129024 >compr.$x || fail "poke compr $x"
	"$TRACEKIT" ubifs extract $x.img out.$x >out 2>err ||
		{ cat out err; fail "extract -x $x"; }
	assert_grep '^out\.'$x': [0-9]+ files extracted$' out
	diff -r --no-dereference src out.$x >diff.$x ||
		{ cat diff.$x; fail "-x $x: extracted tree differs"; }
	modes out.$x >modes.$x
	diff modes.src modes.$x || fail "-x $x: modes differ"
done
# The images really hold what their names say (mkfs.ubifs stores a
# block uncompressed when compressing does not pay, hence none=).
assert_grep 'lzo=[1-9][0-9]* zlib=0 zstd=0' compr.default
assert_grep 'lzo=[1-9][0-9]* zlib=0 zstd=0' compr.lzo
assert_grep 'lzo=0 zlib=[1-9][0-9]* zstd=0' compr.zlib
assert_grep 'lzo=[1-9][0-9]* zlib=[1-9][0-9]* zstd=0' compr.favor_lzo
assert_grep 'lzo=0 zlib=0 zstd=[1-9]' compr.zstd
assert_grep '^none=[1-9][0-9]* lzo=0 zlib=0 zstd=0' compr.none
assert_eq "no temporary left" "$(ls | grep -c tmp)" 0
exit 0
