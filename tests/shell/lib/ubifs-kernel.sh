# Sourced by tests/shell/ubifs-kernel*.sh after common.sh: the kernel's
# own UBIFS authentication as the oracle.  The guest loads fs/ubifs built
# with CONFIG_UBIFS_FS_AUTHENTICATION (run.sh --ubifs-auth) on a UBI
# volume over mtdram; the host makes the images and a folder of files the
# guest reads ($SHIP, shipped with --bin at the same path).

need_vm_host
# Installed by scripts/deps.sh: their absence is a failure, not a skip.
for c in mkfs.ubifs ubimkvol ubiupdatevol keyctl md5sum cc; do
	command -v "$c" >/dev/null || fail "$c is not installed (scripts/deps.sh)"
done

# mtdram of 4 MiB with 128 KiB erase blocks: UBI gives 28 LEBs of 130944
# bytes (min I/O 1), which is what mkfs.ubifs must be told.
UK_MTD_KIB=4096
UK_LEB=130944
UK_LEBS=28

# The guest's /tmp is a tmpfs: shipped files live elsewhere.
SHIP=$(mktemp -d /var/tmp/tkubifs.XXXXXX) || fail "no ship folder"
on_exit "rm -rf '$SHIP'"

# uk_make_image: a small tree (files, a symlink, a 300 KB random file)
# in $TK_TMP/root, its checksums in $SHIP/sums, HMAC keys $SHIP/key and
# $SHIP/wrong (same length), and $SHIP/hmac.img signed by tracekit.
uk_make_image() {
	local r=$TK_TMP/root

	mkdir -p "$r/sub/deep" && echo hello >"$r/a" && ln -s a "$r/link" &&
		head -c 300000 /dev/urandom >"$r/sub/big" &&
		seq 1 20000 >"$r/sub/text" && echo x >"$r/sub/deep/c" &&
		: >"$r/empty" || fail "source tree"
	(cd "$r" && find . -type f | sort | xargs md5sum) >"$SHIP/sums"
	head -c 32 /dev/urandom >"$SHIP/key"
	head -c 32 /dev/urandom >"$SHIP/wrong"
	mkfs.ubifs -m 1 -e $UK_LEB -c $UK_LEBS -r "$r" "$TK_TMP/in.img" ||
		fail "mkfs.ubifs"
	"$TRACEKIT" ubifs sign "$TK_TMP/in.img" "$SHIP/hmac.img" \
		--hmac-key "$SHIP/key" >"$TK_TMP/sign.out" ||
		{ cat "$TK_TMP/sign.out"; fail "tracekit ubifs sign --hmac-key"; }
}

# uk_build_mutate: the tampering helper, compiled for the guest.
uk_build_mutate() {
	local src=${TRACEKIT_SRCDIR:-$(dirname "$0")/../..}

	cc -O2 -Wall -Wextra -I"$src" -o "$SHIP/ubifs-mutate" \
		"$src/tests/shell/ubifs-mutate.c" || fail "cc ubifs-mutate.c"
}

# The guest's preamble: modules, the volume, the keys.  Sets S (the ship
# folder) and the shell functions the test scripts use.
uk_guest_lib() {
	cat <<GUEST
S=$SHIP
LEB=$UK_LEB
GUEST
	cat <<'GUEST'
for m in crc16 zstd lzo deflate; do modprobe $m 2>/dev/null; done
modprobe mtdram total_size=__MTD__ erase_size=128 && modprobe ubi mtd=0 &&
	ubimkvol /dev/ubi0 -N fs -m >/dev/null || { echo SETUP-FAILED ubi; exit 1; }
insmod /tracekit/kmod-auth/ubifs.ko || { echo SETUP-FAILED insmod; exit 1; }
grep -q ubifs /proc/filesystems || { echo SETUP-FAILED ubifs; exit 1; }
keyctl padd logon ubifs:tk @u <$S/key >/dev/null &&
	keyctl padd logon ubifs:wrong @u <$S/wrong >/dev/null ||
	{ echo SETUP-FAILED keyctl; exit 1; }
mkdir -p /mnt
AUTH=auth_hash_name=sha256,auth_key=ubifs:tk
# put IMG: the volume's contents become IMG.
put() { ubiupdatevol /dev/ubi0_0 "$1"; }
# dump OUT: the whole volume.
dump() { dd if=/dev/ubi0_0 of="$1" bs=$LEB 2>/dev/null; }
# readall: every file read fully, checksums as on the host.
readall() {
	(cd /mnt && find . -type f | sort | xargs md5sum) >/tmp/got 2>/dev/null &&
		[ "$(readlink /mnt/link)" = a ] && cmp -s /tmp/got $S/sums
}
GUEST
}

# uk_run TIMEOUT SCRIPT: boots the guest on SCRIPT (after the preamble);
# the console goes to $TK_TMP/console.
uk_run() {
	local timeout=$1 script=$2 b bins=()

	for b in "$SHIP"/*; do
		chmod +x "$b"
		bins+=(--bin "$b")
	done
	{ uk_guest_lib | sed "s/__MTD__/$UK_MTD_KIB/"; cat "$script"; } \
		>"$TK_TMP/guest.sh"
	"$VM_RUN" --tracekit "$TRACEKIT" --timeout "$timeout" --ubifs-auth \
		--bin /usr/sbin/ubimkvol --bin /usr/sbin/ubiupdatevol \
		--bin /usr/bin/keyctl "${bins[@]}" \
		-- sh -c "$(cat "$TK_TMP/guest.sh")" >"$TK_TMP/console" 2>&1
	UK_RC=$?
	grep -q '^SETUP-FAILED' "$TK_TMP/console" && {
		cat "$TK_TMP/console"
		fail "the guest could not set up authenticated UBIFS on mtdram"
	}
	return 0
}

# uk_checks NAME...: every guest check must have printed "CHECK NAME".
uk_checks() {
	local c bad=0

	for c in "$@"; do
		if grep -q "^CHECK $c\$" "$TK_TMP/console"; then
			echo "ok: $c"
		else
			echo "FAILED check: $c"
			bad=1
		fi
	done
	[ $bad = 0 ] || { cat "$TK_TMP/console"; fail "guest checks failed (rc $UK_RC)"; }
}
