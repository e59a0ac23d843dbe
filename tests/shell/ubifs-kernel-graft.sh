#!/bin/bash
# description: ubifs: the journal of one image grafted onto another, the kernel's verdict and verify's agree (VM)
# tracefs: untouched
# timeout: 600
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/ubifs-kernel.sh"

# The journal's HMAC chain starts at the commit start node, and the log
# is tied to the master node by the commit number alone.  Two images the
# kernel wrote from the same committed image with the same key (A and B,
# each with its own files fsync'ed and dumped while mounted) share that
# number: B's log and buds copied over A's make a graft whose every node
# is genuine.  The kernel mounts the graft with the key (or not), reads
# every file (or not); verify --key-file must give the same verdict, on
# that graft, on B's journal grafted onto C, whose own journal was longer
# (a bud of C's stays in a LEB the LPT calls empty), and on B's journal
# grafted onto A after its commit.
uk_make_image
uk_build_mutate
cat >"$TK_TMP/script" <<'GUEST'
# dirty NAME FILE...: the committed image mounted, FILEs written and
# fsync'ed, the volume dumped to /tmp/NAME.img while mounted, the tree's
# checksums in /tmp/NAME.sums; after the unmount (a commit) the volume
# again in /tmp/NAME-committed.img.
# KIB (default 20) sets each file's size.
dirty() {
	local name=$1 f

	shift
	put $S/hmac.img && mount -t ubifs -o $AUTH ubi0:fs /mnt || return 1
	for f in "$@"; do
		dd if=/dev/urandom of=/mnt/$f bs=1024 count=${KIB:-20} conv=fsync \
			2>/dev/null || return 1
	done
	dump /tmp/$name.img
	(cd /mnt && find . -type f | sort | xargs md5sum) >/tmp/$name.sums
	umount /mnt && dump /tmp/$name-committed.img
}
# judge NAME IMG: the kernel's verdict on IMG (mounted with the key and
# every file read, the checksums in /tmp/got; or refused), then verify's,
# which must be the same.
judge() {
	local kernel=refused verify=refused rc

	dmesg -c >/dev/null
	put $2 || return 1
	if mount -t ubifs -o ro,$AUTH ubi0:fs /mnt; then
		(cd /mnt && find . -type f | sort | xargs md5sum) >/tmp/got \
			2>/dev/null && kernel=accepted
		umount /mnt
	fi
	dmesg | grep -i 'ubifs' | head -12
	tracekit ubifs verify $2 --key-file $S/key >/tmp/o 2>&1
	rc=$?
	sed 's/^/  | /' /tmp/o
	[ $rc = 0 ] && verify=accepted
	[ $rc = 0 ] || [ $rc = 1 ] || verify="failed ($rc)"
	echo "VERDICT $1 kernel: $kernel"
	echo "VERDICT $1 verify: $verify"
	[ "$kernel" = "$verify" ] && echo "CHECK $1-verify-agrees"
}
dirty A a1 a2 a3 && dirty B b1 b2 && echo "CHECK two-dirty-images"
tracekit ubifs info /tmp/A.img | grep '^journal'
tracekit ubifs info /tmp/B.img | grep '^journal'
$S/ubifs-mutate apply /tmp/A.img /tmp/graft.img graft:/tmp/B.img
cmp -s /tmp/graft.img /tmp/A.img || echo "CHECK graft-changed-A"
cmp -s /tmp/graft.img /tmp/B.img && echo "graft: the same bytes as B"
cmp -s /tmp/graft.img /tmp/B.img || echo "graft: differs from B"
judge same-commit /tmp/graft.img
cmp -s /tmp/got /tmp/B.sums && echo "CHECK same-commit-reads-B"
KIB=60 dirty C c1 c2 c3 || exit 1
tracekit ubifs info /tmp/C.img | grep '^journal'
$S/ubifs-mutate apply /tmp/C.img /tmp/graft3.img graft:/tmp/B.img
judge longer-journal /tmp/graft3.img
# The control: A's unmount commits, and the master node of the next
# commit points past B's log (the kernel: "no UBIFS nodes found at the
# log head"), whose buds now overwrite A's committed nodes.
$S/ubifs-mutate apply /tmp/A-committed.img /tmp/graft2.img graft:/tmp/B.img
judge next-commit /tmp/graft2.img
GUEST
uk_run 500 "$TK_TMP/script"
grep -E '^CHECK|^journal|^graft|^[0-9]+:0x0 graft|UBIFS|^VERDICT|^  \| ' "$TK_TMP/console"
checks="two-dirty-images graft-changed-A same-commit-verify-agrees next-commit-verify-agrees
	longer-journal-verify-agrees"
# What the kernel accepted must read as B wrote it.
grep -q '^VERDICT same-commit kernel: accepted' "$TK_TMP/console" &&
	checks="$checks same-commit-reads-B"
uk_checks $checks
echo "checked: B's journal grafted onto A (same key, same commit): verify's verdict is the kernel's ($(sed -n 's/^VERDICT same-commit kernel: //p' "$TK_TMP/console")); onto C, whose journal was longer: $(sed -n 's/^VERDICT longer-journal kernel: //p' "$TK_TMP/console") by both; onto A committed: $(sed -n 's/^VERDICT next-commit kernel: //p' "$TK_TMP/console") by both"
