#!/bin/bash
# Makes tests/data/ubifs-kernel-hmac.img.gz and tests/data/ubifs-kernel-
# hmac.key: an HMAC-authenticated UBIFS image that the Debian kernel
# wrote.  tracekit signs a mkfs.ubifs image with a fresh key; in the VM,
# fs/ubifs built with authentication mounts it read-write, files are
# written, renamed and deleted, and it is unmounted (a commit), so the
# master nodes, index, LPT and log are the kernel's.  The image comes back
# over the console, gzip'ed and base64'ed.  tests/ubifs-tamper.c flips
# bytes in it; tests/ubifs.c checks it still verifies.
#
#   tests/vm/mk-ubifs-kernel-image.sh      (from the source tree, as root)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
export TRACEKIT=${TRACEKIT:-$src/tracekit} TRACEKIT_SRCDIR=$src
. "$src/tests/shell/lib/common.sh"
. "$src/tests/shell/lib/ubifs-kernel.sh"

uk_make_image
cat >"$TK_TMP/script" <<'GUEST'
put $S/hmac.img || exit 1
mount -t ubifs -o $AUTH ubi0:fs /mnt || exit 1
echo new >/mnt/new1 && dd if=/dev/urandom of=/mnt/sub/rand bs=1024 count=50 2>/dev/null &&
	rm /mnt/sub/text && mkdir /mnt/d2 && echo y >/mnt/d2/f && mv /mnt/a /mnt/d2/a &&
	ln -s d2/f /mnt/l2 && umount /mnt || exit 1
dump /tmp/k.img
tracekit ubifs verify /tmp/k.img --key-file $S/key || exit 1
echo BEGIN-IMAGE
gzip -9 -c /tmp/k.img | base64
echo END-IMAGE
GUEST
uk_run 300 "$TK_TMP/script"
[ "$UK_RC" = 0 ] || { cat "$TK_TMP/console"; fail "the guest run failed (rc $UK_RC)"; }
sed -n '/^BEGIN-IMAGE$/,/^END-IMAGE$/p' "$TK_TMP/console" | sed '1d;$d' |
	base64 -d >"$TK_TMP/k.img.gz" || fail "no image on the console"
gzip -dc "$TK_TMP/k.img.gz" >"$TK_TMP/k.img" || fail "the image came back broken"
"$TRACEKIT" ubifs verify "$TK_TMP/k.img" --key-file "$SHIP/key" ||
	fail "the kernel's image does not verify on the host"
cp "$TK_TMP/k.img.gz" "$src/tests/data/ubifs-kernel-hmac.img.gz" &&
	cp "$SHIP/key" "$src/tests/data/ubifs-kernel-hmac.key" || fail "copy"
"$TRACEKIT" ubifs info "$TK_TMP/k.img"
echo "wrote tests/data/ubifs-kernel-hmac.img.gz ($(stat -c %s "$TK_TMP/k.img.gz") bytes) and its key"
