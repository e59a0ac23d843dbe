#!/bin/bash
# description: ubifs: verify and extract an image the Debian kernel wrote (VM)
# tracefs: untouched
. "$(dirname "$0")/lib/common.sh"

# The kernel's UBIFS on a RAM-backed MTD writes the image: journal, xattrs
# and all, the way a device would; then verify and extract must agree with
# what was written.  Runs the guest itself, so it is host-only.
need_vm_host ubimkvol

cat >"$TK_TMP/guest.sh" <<'GUEST'
set -x
modprobe zstd && modprobe mtdram total_size=16384 erase_size=128 &&
	modprobe ubi mtd=0 && ubimkvol /dev/ubi0 -N fs -m >/dev/null &&
	modprobe ubifs || { echo NO-UBIFS; exit 1; }
mkdir -p /mnt /tmp/src/d
mount -t ubifs -o compr=zstd ubi0:fs /mnt || { echo NO-UBIFS; exit 1; }
echo hello >/tmp/src/a
dd if=/dev/urandom of=/tmp/src/d/big bs=1024 count=700 2>/dev/null
seq 1 30000 >/tmp/src/d/text
ln -s a /tmp/src/l
cp -a /tmp/src/. /mnt/
mkdir /mnt/gone && echo x >/mnt/gone/f && sync && rm -r /mnt/gone
umount /mnt || exit 1
dd if=/dev/ubi0_0 of=/tmp/k.img bs=126976 2>/dev/null
tracekit ubifs info /tmp/k.img >/tmp/info && cat /tmp/info &&
	grep -q '^journal: .* 0 uncommitted' /tmp/info && echo "CHECK info"
tracekit ubifs verify /tmp/k.img && echo "CHECK verify"
tracekit ubifs extract /tmp/k.img /tmp/x && diff -r /tmp/src /tmp/x &&
	[ "$(readlink /tmp/x/l)" = a ] && echo "CHECK extract"
# fsync writes a bud but does not commit: the index lags the journal.
mount -t ubifs ubi0:fs /mnt || exit 1
dd if=/dev/urandom of=/mnt/new bs=1024 count=40 conv=fsync 2>/dev/null
dd if=/dev/ubi0_0 of=/tmp/j.img bs=126976 2>/dev/null
tracekit ubifs info /tmp/j.img >/tmp/info && cat /tmp/info &&
	! grep -q '^journal: .* 0 uncommitted' /tmp/info && echo "CHECK journal"
tracekit ubifs verify /tmp/j.img && echo "CHECK verify-journal"
tracekit ubifs extract /tmp/j.img /tmp/y 2>&1 | grep -q 'not yet in the index' &&
	[ ! -e /tmp/y ] && echo "CHECK extract-refuses"
umount /mnt
GUEST
set +e
"$VM_RUN" --tracekit "$TRACEKIT" --timeout 300 --bin /usr/sbin/ubimkvol \
	-- sh -c "$(cat "$TK_TMP/guest.sh")" >"$TK_TMP/console" 2>&1
rc=$?
set -e
cat "$TK_TMP/console"
grep -q '^NO-UBIFS' "$TK_TMP/console" && fail "the guest could not set up UBIFS on mtdram"
for c in info verify extract journal verify-journal extract-refuses; do
	grep -q "^CHECK $c" "$TK_TMP/console" || fail "guest check '$c' failed (rc $rc)"
done
exit 0
