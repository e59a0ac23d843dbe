#!/bin/bash
# description: ubifs: extract refuses corrupt images with one line, leaves nothing behind
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

# Run under the ASan binary too (make check SANITIZE=1): a leak or any
# other report would be extra lines on stderr and fail the line count.
cd "$TK_TMP" || fail "no scratch dir"
test_helper poke ubifs-poke.c
need_cmd mkfs.ubifs od
mkdir -p src/sub && echo hello >src/ab && echo x >src/sub/name1 &&
	ln -s ab src/sl && head -c 20000 /dev/urandom >src/r &&
	seq 1 3000 >src/text && mkdir outside &&
	ln -s "$TK_TMP/outside" src/out || fail "source tree"
L=129024
G="-m 2048 -e $L -c 100"
mkfs.ubifs $G -r src lzo.img && mkfs.ubifs $G -x zlib -r src zlib.img &&
	mkfs.ubifs $G -x none -r src none.img || fail "mkfs.ubifs"

# bad NAME IMG PATTERN: extract fails with exit 1 and one line on stderr
# matching PATTERN, and neither DIR nor a temporary of it exists.
bad() {
	local rc
	"$TRACEKIT" ubifs extract "$2" x >bad.out 2>bad.err
	rc=$?
	assert_eq "$1: exit status" "$rc" 1
	assert_eq "$1: lines on stderr" "$(wc -l <bad.err)" 1
	assert_grep "$3" bad.err
	[ -z "$(ls -d x x.* 2>/dev/null)" ] || fail "$1: left $(ls -d x x.*)"
}

# poke IMG NODE_OFFSET FIELD_OFFSET BYTES VALUE: edit and repair the CRC.
poke() {
	cp "${1%%-*}.img" "$1.img" &&
		./poke set "$1.img" $(($2 + $3)) $4 $5 >/dev/null &&
		./poke crc "$1.img" $2 >/dev/null || fail "poke $1"
}

# Data nodes: payloads that do not decompress, a size that is not what
# the payload holds (all with valid CRCs), and a truncated image.
d=$(./poke find lzo.img $L data lzo) || fail "no LZO data node"
poke lzo-payload $d 48 8 0xffffffffffffffff
bad "LZO payload" lzo-payload.img '^tracekit ubifs: lzo-payload.img: extract: LEB [0-9]+:0x[0-9a-f]+ data node \(inode [0-9]+ block 0\): lzo: '
d=$(./poke find zlib.img $L data zlib) || fail "no zlib data node"
poke zlib-payload $d 48 4 0xffffffff
bad "zlib payload" zlib-payload.img 'LEB [0-9]+:0x[0-9a-f]+ data node .*: zlib: '
d=$(./poke find none.img $L data none) || fail "no plain data node"
poke none-size $d 40 4 4000
bad "size" none-size.img 'LEB [0-9]+:0x[0-9a-f]+ data node .*: 4096 bytes, size says 4000$'
head -c $((d + 100)) none.img >trunc.img
bad "truncated data node" trunc.img 'verification FAILED.*nothing extracted'

# Directory entries: a missing inode, names that would leave the
# directory, a second entry for a directory (here the root: a loop).
e=$(./poke find none.img $L dent ab) || fail "no entry ab"
poke none-missing $e 40 8 9999
bad "missing inode" none-missing.img 'LEB [0-9]+:0x[0-9a-f]+ directory entry "ab": inode 9999 does not exist$'
poke none-slash $e 57 1 0x2f
bad "slash" none-slash.img 'dentry node: name "a/" is not a file name$'
poke none-dotdot $e 56 2 0x2e2e
bad "dot-dot" none-dotdot.img 'dentry node: name "\.\." is not a file name$'
poke none-dot $e 50 2 1
./poke set none-dot.img $((e + 56)) 1 0x2e && ./poke crc none-dot.img $e >/dev/null
bad "dot" none-dot.img 'dentry node: name "\." is not a file name$'
poke none-nul $e 57 1 0
bad "NUL" none-nul.img 'dentry node: name contains a NUL byte$'
e=$(./poke find none.img $L dent sub) || fail "no entry sub"
poke none-loop $e 40 8 1
bad "loop" none-loop.img 'extract: x/sub: directory inode 1 has a second entry$'
# Directory "sub" renamed "out", as the symlink to $TK_TMP/outside is
# called: whichever comes first, the other must not be made through it.
poke none-dup $e 56 3 0x74756f
bad "same name" none-dup.img 'extract: x/out: File exists$'
assert_eq "nothing written through the symlink" "$(ls -A outside)" ""

# Two data nodes of one key: block 1 of text renamed block 0, in its node
# and its index branch (CRCs repaired).  The kernel's read_znode() refuses
# equal keys that are not hashed keys; extract would write block 1's data
# at block 0.
e=$(./poke find none.img $L dent text) || fail "no entry text"
t=$(od -An -tu4 -j $((e + 40)) -N4 none.img | tr -d ' ')
set -- $(./poke branch none.img $L "$t" 1) || fail "no branch of block 1"
l=$(od -An -tu4 -j $(($2 - 16)) -N4 none.img | tr -d ' ')
o=$(od -An -tu4 -j $(($2 - 12)) -N4 none.img | tr -d ' ')
cp none.img none-eqkey.img && ./poke set none-eqkey.img "$2" 4 $((1 << 29)) >/dev/null &&
	./poke crc none-eqkey.img "$1" >/dev/null &&
	./poke set none-eqkey.img $((l * L + o + 28)) 4 $((1 << 29)) >/dev/null &&
	./poke crc none-eqkey.img $((l * L + o)) >/dev/null || fail "poke equal keys"
bad "equal keys" none-eqkey.img 'verification FAILED: 1 problem, nothing extracted'
assert_grep '^LEB [0-9]+:0x[0-9a-f]+ index node: branch [0-9]+ key equals the previous one and is not a hashed key$' bad.out

# A symlink inode whose target runs past the end of the node.
s=$(./poke find none.img $L symlink) || fail "no symlink inode"
poke none-symlink $s 112 4 5000
bad "symlink target" none-symlink.img 'LEB [0-9]+:0x[0-9a-f]+ inode node: data_len 5000 beyond the node$'

# DIR exists: refused, and what is there is untouched.
mkdir x && echo keep >x/f
"$TRACEKIT" ubifs extract none.img x >bad.out 2>bad.err
assert_eq "existing DIR: exit status" "$?" 1
assert_eq "existing DIR: one line" "$(wc -l <bad.err)" 1
assert_grep 'extract: x already exists$' bad.err
assert_eq "existing DIR untouched" "$(ls x)" f
rm -rf x

# The unmodified images extract, so the failures above are the edits'.
for i in lzo zlib none; do
	"$TRACEKIT" ubifs extract $i.img x >out 2>&1 || { cat out; fail "$i.img"; }
	diff -r --no-dereference src x || fail "$i.img: tree differs"
	rm -rf x
done
exit 0
