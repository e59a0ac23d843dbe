#!/bin/bash
# description: ubifs: verify --key-file checks the journal the kernel wrote, HMAC chain and all (VM)
# tracefs: untouched
# timeout: 600
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs-kernel.sh"

# The kernel mounts tracekit's HMAC image read-write and writes to it: once
# unmounted cleanly (a commit), once dumped while mounted after an fsync
# (buds with authentication nodes not yet committed).  verify --key-file
# must accept both with the key, refuse a wrong key, and find a byte
# changed in a bud node (CRC repaired), as the kernel's replay does.
uk_make_image
uk_build_mutate
cat >"$TK_TMP/script" <<'GUEST'
v() { tracekit ubifs verify "$@" >/tmp/o 2>&1; rc=$?; sed 's/^/  | /' /tmp/o; return $rc; }
put $S/hmac.img || exit 1
mount -t ubifs -o $AUTH ubi0:fs /mnt || exit 1
echo new >/mnt/new1 && dd if=/dev/urandom of=/mnt/sub/rand bs=1024 count=50 2>/dev/null &&
	rm /mnt/sub/text && mkdir /mnt/d2 && echo y >/mnt/d2/f && mv /mnt/a /mnt/d2/a &&
	umount /mnt && echo "CHECK rw-clean-umount"
dump /tmp/clean.img
v /tmp/clean.img --key-file $S/key && echo "CHECK clean-verifies"
v /tmp/clean.img --key-file $S/wrong; [ $? = 1 ] && echo "CHECK clean-wrong-key"
mount -t ubifs -o $AUTH ubi0:fs /mnt || exit 1
echo more >/mnt/more && rm -r /mnt/d2 &&
	dd if=/dev/urandom of=/mnt/synced bs=1024 count=40 conv=fsync 2>/dev/null &&
	echo "CHECK fsync"
dump /tmp/dirty.img
md5sum /mnt/synced >/tmp/synced.sum
umount /mnt
tracekit ubifs info /tmp/dirty.img | grep '^journal' | tee /tmp/info
grep -q '^journal: .* 0 uncommitted' /tmp/info || echo "CHECK journal-uncommitted"
v /tmp/dirty.img --key-file $S/key && echo "CHECK dirty-verifies"
v /tmp/dirty.img --key-file $S/wrong; [ $? = 1 ] && echo "CHECK dirty-wrong-key"
v /tmp/dirty.img && tail -n 1 /tmp/o | grep -q 'authenticity NOT checked' &&
	echo "CHECK dirty-integrity-only"
# The kernel replays that journal: the fsync'ed file is there.
put /tmp/dirty.img && mount -t ubifs -o ro,$AUTH ubi0:fs /mnt &&
	md5sum -c /tmp/synced.sum >/dev/null && echo "CHECK kernel-replays-dirty"
umount /mnt
set -- $($S/ubifs-mutate budnode /tmp/dirty.img)
L=$1 O=$2
echo "flipping a byte of the data node at LEB $L:$(printf 0x%x $O)"
$S/ubifs-mutate apply /tmp/dirty.img /tmp/flip.img flip:$((L * LEB + O + 51))
[ -f /tmp/flip.img ] && v /tmp/flip.img --key-file $S/key; [ $? = 1 ] && echo "CHECK flip-refused"
# The problem names the LEB and a range of nodes holding the offset.
sed -n "s/^LEB $L:0x[0-9a-f]* authentication node: HMAC mismatch: the nodes at LEB $L:\(0x[0-9a-f]*\)\.\.\(0x[0-9a-f]*\) .*/\1 \2/p" /tmp/o >/tmp/range
read lo hi </tmp/range && [ $((lo)) -le $O ] && [ $O -lt $((hi)) ] &&
	echo "CHECK flip-located"
dmesg -c >/dev/null
put /tmp/flip.img || exit 1
if mount -t ubifs -o ro,$AUTH ubi0:fs /mnt; then
	readall || echo "CHECK kernel-refuses-flip"
	umount /mnt
else
	echo "CHECK kernel-refuses-flip"
fi
dmesg | grep -i 'ubifs.*error' | head -3
GUEST
uk_run 500 "$TK_TMP/script"
grep -E '^CHECK|^journal|^flipping|UBIFS error|^  \| ' "$TK_TMP/console"
uk_checks rw-clean-umount clean-verifies clean-wrong-key fsync journal-uncommitted \
	dirty-verifies dirty-wrong-key dirty-integrity-only kernel-replays-dirty \
	flip-refused flip-located kernel-refuses-flip
echo "checked: images the kernel wrote (clean and with an uncommitted journal) verify with the key, not with a wrong one; a flipped bud byte is found at its LEB and refused by the kernel too"
