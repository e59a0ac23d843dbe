#!/bin/bash
# description: ubifs: verify and extract a raw flash dump the kernel wrote, unmapped LEBs, decoy volume and all (VM)
# tracefs: untouched
# timeout: 600
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs-kernel.sh"

# A device's flash, as dd reads it from the MTD: UBI maps only the LEBs
# written, so the volume's trailing LEBs are unmapped, and a second volume
# may hold another file system.  The kernel mounts tracekit's HMAC image
# read-write (growing it to the volume's 28 LEBs) and writes files; the
# dump must then verify and extract, files equal to what was written, and
# an attacker's unsigned UBIFS in a second volume named rootfs must fail
# verify, named, however good the first volume is.
need_cmd ubirsvol
# 8 MiB: room for the 28-LEB volume "fs" and a second one.
# shellcheck disable=SC2034 # read by uk_run
UK_MTD_KIB=8192
uk_make_image
mkdir -p "$TK_TMP/evil" && echo 'root::0:0::/root:/bin/sh' >"$TK_TMP/evil/passwd" &&
	mkfs.ubifs -m 1 -e $UK_LEB -c $UK_LEBS -r "$TK_TMP/evil" "$SHIP/plain.img" ||
	fail "mkfs.ubifs attacker"
cp "$(command -v ubirsvol)" "$SHIP/ubirsvol" || fail "ubirsvol"
cat >"$TK_TMP/script" <<'GUEST'
v() { tracekit ubifs "$@" >/tmp/o 2>&1; rc=$?; sed 's/^/  | /' /tmp/o; return $rc; }
# sums DIR: the checksums of every file under DIR.
sums() { (cd "$1" && find . -type f | sort | xargs md5sum); }
# flash OUT: the whole MTD device, UBI headers and all.
flash() {
	[ -c /dev/mtd0 ] || echo "no /dev/mtd0"
	dd if=/dev/mtd0 of="$1" bs=131072 2>/dev/null && echo "dumped $(wc -c <"$1") bytes of /dev/mtd0"
}
$S/ubirsvol /dev/ubi0 -N fs -s $((28 * LEB)) >/dev/null || exit 1
put $S/hmac.img || exit 1
mount -t ubifs -o $AUTH ubi0:fs /mnt || exit 1
echo new >/mnt/new1 && dd if=/dev/urandom of=/mnt/sub/rand bs=1024 count=300 2>/dev/null &&
	mkdir /mnt/d2 && seq 1 5000 >/mnt/d2/f && rm /mnt/sub/text &&
	sums /mnt >/tmp/written && umount /mnt && echo "CHECK rw-clean-umount"
flash /tmp/one.ubi
v info /tmp/one.ubi | grep -E '^  \| (geometry|volume):'
v verify /tmp/one.ubi --key-file $S/key && echo "CHECK one-verifies"
v extract /tmp/one.ubi /tmp/x1 --key-file $S/key && sums /tmp/x1 >/tmp/got1 &&
	cmp -s /tmp/got1 /tmp/written && echo "CHECK one-extract-md5"
ubimkvol /dev/ubi0 -N rootfs -m >/dev/null && ubiupdatevol /dev/ubi0_1 $S/plain.img ||
	exit 1
mount -t ubifs -o ro ubi0:rootfs /mnt && [ -f /mnt/passwd ] && echo "CHECK kernel-mounts-rootfs"
umount /mnt
flash /tmp/two.ubi
v verify /tmp/two.ubi --key-file $S/key
[ $rc = 1 ] && grep -q '^/tmp/two.ubi: volume 0 "fs": OK: .*HMACs verified$' /tmp/o &&
	grep -q '^/tmp/two.ubi: volume 1 "rootfs": LEB 0:0x0 superblock node' /tmp/o &&
	grep -q 'FAILED: 1 "rootfs"$' /tmp/o && echo "CHECK decoy-caught"
v verify /tmp/two.ubi --volume fs --key-file $S/key && echo "CHECK volume-fs-verifies"
v verify /tmp/two.ubi --volume rootfs --key-file $S/key; [ $rc = 1 ] && echo "CHECK volume-rootfs-fails"
v extract /tmp/two.ubi /tmp/x2 --key-file $S/key
[ $rc = 2 ] && [ ! -e /tmp/x2 ] && echo "CHECK extract-refused"
v extract /tmp/two.ubi /tmp/x2 --volume fs --key-file $S/key && sums /tmp/x2 >/tmp/got2 &&
	cmp -s /tmp/got2 /tmp/written && echo "CHECK two-extract-md5"
echo "written: $(wc -l </tmp/written) files"
GUEST
uk_run 500 "$TK_TMP/script"
grep -E '^CHECK|^dumped|^no /dev|^written|UBIFS error|^  \| ' "$TK_TMP/console"
uk_checks rw-clean-umount one-verifies one-extract-md5 kernel-mounts-rootfs \
	decoy-caught volume-fs-verifies volume-rootfs-fails extract-refused \
	two-extract-md5
echo "checked: raw MTD dumps the kernel wrote verify and extract with the key, files equal to what was written; a second, unsigned UBIFS volume fails verify by name and makes extract ask for --volume"
