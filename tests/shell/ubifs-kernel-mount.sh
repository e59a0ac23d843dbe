#!/bin/bash
# description: ubifs: the kernel mounts a tracekit --hmac-key image only with its key (VM)
# tracefs: untouched
# timeout: 600
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs-kernel.sh"

# tracekit ubifs sign --hmac-key must make an image the kernel's own
# authentication accepts with that key, and only with it.
uk_make_image
cat >"$TK_TMP/script" <<'GUEST'
put $S/hmac.img || exit 1
mount -t ubifs -o ro,$AUTH ubi0:fs /mnt && echo "CHECK mount-with-key"
readall && echo "CHECK files-read-back"
cat /tmp/got
umount /mnt
dmesg -c >/dev/null
# Refused, and for the reason the kernel's authenticate_sb_node() gives.
if mount -t ubifs -o ro,auth_hash_name=sha256,auth_key=ubifs:wrong ubi0:fs /mnt; then
	umount /mnt
else
	dmesg | grep -q 'UBIFS error.*provided key does not fit' &&
		echo "CHECK wrong-key-refused"
fi
dmesg -c | grep 'UBIFS error' | head -3
if mount -t ubifs -o ro ubi0:fs /mnt; then
	umount /mnt
else
	dmesg | grep -q 'UBIFS error.*authenticated FS found, but no key given' &&
		echo "CHECK no-key-refused"
fi
dmesg -c | grep 'UBIFS error' | head -3
GUEST
uk_run 500 "$TK_TMP/script"
grep -E "UBIFS error|^CHECK" "$TK_TMP/console"
uk_checks mount-with-key files-read-back wrong-key-refused no-key-refused
echo "checked: the image mounts with its key, $(wc -l <"$SHIP/sums") files read back equal, a wrong key of the same length and no key are refused"
