#!/bin/bash
# description: ubifs: verify --key-file and the kernel agree on tampered HMAC images (VM; 100, 500 in check-full)
# tracefs: untouched
# timeout: 1500
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs-kernel.sh"

# The kernel's authentication is the oracle: each variant of two HMAC
# images (tracekit's signed image, and one the kernel wrote with an
# uncommitted journal) changes one byte (CRC repaired) anywhere in the used
# area, or swaps LEBs, rolls the master back, or forges the superblock.
# The kernel refuses a variant when the mount fails, a read of some file
# or directory fails, or it logs an error (a bad hash or HMAC, a read
# that failed: busybox's find hides readdir errors); verify --key-file
# must say the same.  UK_VARIANTS sets the count (default 100; 500 in make
# check-full; the plan's seed is fixed, so a sample is reproducible).  Crafted
# images beside them (SPECIAL) are judged the same way: an index node
# with two equal keys that are not hashed keys, which the kernel's
# read_znode() refuses (block 1 of a file renamed block 0, in its node
# and in its branch, CRCs repaired: plain, so that nothing but the index
# order can object; mounted without authentication).
n=${UK_VARIANTS:-$(sized 100 500)}
uk_make_image
uk_build_mutate
test_helper "$TK_TMP/poke" ubifs-poke.c
(
	cd "$TK_TMP" && cp in.img "$SHIP/eqkeys.img" &&
	e=$(./poke find in.img $UK_LEB dent text) &&
	t=$(od -An -tu4 -j $((e + 40)) -N4 in.img | tr -d ' ') &&
	set -- $(./poke branch in.img $UK_LEB "$t" 1) &&
	l=$(od -An -tu4 -j $(($2 - 16)) -N4 in.img | tr -d ' ') &&
	o=$(od -An -tu4 -j $(($2 - 12)) -N4 in.img | tr -d ' ') &&
	./poke set "$SHIP/eqkeys.img" "$2" 4 $((1 << 29)) >/dev/null &&
	./poke crc "$SHIP/eqkeys.img" "$1" >/dev/null &&
	./poke set "$SHIP/eqkeys.img" $((l * UK_LEB + o + 28)) 4 $((1 << 29)) >/dev/null &&
	./poke crc "$SHIP/eqkeys.img" $((l * UK_LEB + o)) >/dev/null
) || fail "the equal-keys image"
cat >"$TK_TMP/script" <<GUEST
N=$((n / 2))
GUEST
cat >>"$TK_TMP/script" <<'GUEST'
M=$S/ubifs-mutate
# kernel IMG [OPTS]: "accept" or "refuse", as the kernel's authentication
# (mounted with OPTS, default ro,$AUTH) says.
kernel() {
	put "$1" || { echo error; return; }
	dmesg -c >/dev/null
	if ! mount -t ubifs -o "${2:-ro,$AUTH}" ubi0:fs /mnt 2>/dev/null; then
		echo refuse
		return
	fi
	k=accept
	find /mnt >/tmp/list 2>/dev/null || k=refuse
	while read -r f; do
		if [ -L "$f" ]; then
			readlink "$f" >/dev/null || k=refuse
		elif [ -f "$f" ]; then
			cat "$f" >/dev/null 2>&1 || k=refuse
		fi
	done </tmp/list
	ls -laR /mnt >/dev/null 2>&1 || k=refuse
	umount /mnt || k=refuse
	# busybox find does not fail when readdir does: the kernel's own
	# report of a failed read (or of a bad hash or HMAC) counts.
	dmesg | grep -q 'UBIFS error' && k=refuse
	echo $k
}
# The second base: the kernel writes to the image, fsyncs, and the volume
# is dumped while mounted.
put $S/hmac.img && mount -t ubifs -o $AUTH ubi0:fs /mnt || exit 1
echo new >/mnt/new1 && rm /mnt/sub/text && mkdir /mnt/d2 && echo y >/mnt/d2/f &&
	dd if=/dev/urandom of=/mnt/synced bs=1024 count=40 conv=fsync 2>/dev/null ||
	exit 1
dump /tmp/dirty.img
umount /mnt
start=$(date +%s)
for sp in $S/eqkeys.img; do
	t=$(tracekit ubifs verify $sp >/tmp/o 2>&1; echo $?)
	case $t in 0) t=accept ;; 1) t=refuse ;; *) t=error ;; esac
	echo "SPECIAL ${sp##*/} tracekit=$t kernel=$(kernel $sp ro)"
	sed "s|^|WHY ${sp##*/}: |" /tmp/o | head -2
	dmesg | grep "UBIFS error" | head -3 | sed "s|^|WHY ${sp##*/}: kernel: |"
done
for base in $S/hmac.img /tmp/dirty.img; do
	t=$(tracekit ubifs verify $base --key-file $S/key >/dev/null 2>&1; echo $?)
	echo "BASE $base tracekit=$t kernel=$(kernel $base)"
	$M plan $base $N ${SEED:-7} >/tmp/plan || exit 1
	while read -r spec; do
		d=$($M apply $base /tmp/var.img $spec) || { echo "VAR $spec - - error error"; continue; }
		tracekit ubifs verify /tmp/var.img --key-file $S/key >/tmp/o 2>&1
		case $? in
		0) t=accept ;;
		1) t=refuse ;;
		*) t=error ;;
		esac
		k=$(kernel /tmp/var.img)
		echo "VAR $spec $d $t $k ${base##*/}"
		if [ $t != $k ]; then
			sed "s|^|WHY $spec: |" /tmp/o | head -4
			dmesg | grep -i ubifs | tail -3 | sed "s|^|WHY $spec: kernel: |"
		fi
	done </tmp/plan
done
echo "GUEST-TIME $(($(date +%s) - start))"
GUEST
uk_run 1400 "$TK_TMP/script"
grep -E '^BASE|^SPECIAL|^GUEST-TIME' "$TK_TMP/console"
grep -q '^GUEST-TIME' "$TK_TMP/console" || { tail -40 "$TK_TMP/console"; fail "the guest did not finish (rc $UK_RC)"; }
grep -q '^BASE .*tracekit=0 kernel=accept' "$TK_TMP/console" &&
	[ "$(grep -c '^BASE .*tracekit=0 kernel=accept' "$TK_TMP/console")" = 2 ] ||
	fail "a base image is not accepted by both"
# The kernel's verdict on each crafted image is the expected one.
[ "$(grep -c '^SPECIAL ' "$TK_TMP/console")" = 1 ] || fail "a crafted image was not judged"
grep '^SPECIAL ' "$TK_TMP/console" | grep -v 'tracekit=\([a-z]*\) kernel=\1$' &&
	fail "tracekit and the kernel disagree on a crafted image"
# VAR spec LEB:offs node tracekit kernel
awk '/^VAR / {
	total++
	by[$4]++
	if ($5 == "accept" && $6 == "accept") { acc++; bacc[$4]++ }
	else if ($5 == "refuse" && $6 == "refuse") { ref++; bref[$4]++ }
	else { dis++; bdis[$4]++
		list = list sprintf("  LEB %-10s %-14s %-14s %-10s tracekit=%s kernel=%s\n", $3, $4, $2, $7, $5, $6) }
}
END {
	printf "%-18s %6s %12s %12s %14s\n", "node", "total", "both-accept", "both-refuse", "disagreements"
	for (t in by)
		printf "%-18s %6d %12d %12d %14d\n", t, by[t], bacc[t], bref[t], bdis[t]
	printf "%-18s %6d %12d %12d %14d\n", "all", total, acc, ref, dis
	if (dis) printf "disagreements (LEB:offset, node, variant, base, verdicts):\n%s", list
}' "$TK_TMP/console" >"$TK_TMP/table"
cat "$TK_TMP/table"
grep '^WHY ' "$TK_TMP/console"
total=$(awk '$1 == "all" { print $2 }' "$TK_TMP/table")
dis=$(awk '$1 == "all" { print $5 }' "$TK_TMP/table")
[ "${total:-0}" -ge "$((n - 10))" ] || fail "only ${total:-0} of $n variants ran"
[ "$dis" = 0 ] || fail "$dis variants where tracekit and the kernel disagree"
echo "checked: $total tampered images, tracekit ubifs verify --key-file agrees with the kernel on each"
