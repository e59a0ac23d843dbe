#!/bin/bash
# Builds fs/ubifs of Debian's linux-source for the guest kernel with
# CONFIG_UBIFS_FS_AUTHENTICATION on (Debian's own ubifs.ko has it off), as
# an external module against the guest's headers, once per kernel and
# source version, and prints the path of the cached ubifs.ko.
#
#   tests/vm/ubifs-auth-module.sh KVER CACHE_DIR
#
# Fails (exit 1, reason on stderr) when the source or the headers are
# missing or are not of the guest kernel's version.
set -u
kver=${1:?kernel version}
cache=${2:?cache folder}

die() { echo "vm: ubifs-auth module: $*" >&2; exit 1; }

img_pkg=linux-image-$kver
series=${kver%%-*}		# 6.1.0-57-amd64 -> 6.1.0
series=${series%.*}		# -> 6.1
src_pkg=linux-source-$series
headers=/usr/src/linux-headers-$kver
tarball=/usr/src/$src_pkg.tar.xz

pkg_version() {
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
		sed -n 's/^install ok installed //p'
}
img_ver=$(apt-cache show --no-all-versions "$img_pkg" 2>/dev/null |
	sed -n 's/^Version: //p' | head -n 1)
[ -n "$img_ver" ] || die "apt-cache does not know $img_pkg (run apt-get update)"
src_ver=$(pkg_version "$src_pkg")
[ -n "$src_ver" ] && [ -f "$tarball" ] ||
	die "$src_pkg is not installed (scripts/deps.sh installs it)"
[ "$src_ver" = "$img_ver" ] ||
	die "$src_pkg is $src_ver but the guest kernel $img_pkg is $img_ver:" \
		"the module would not be the guest's code (update both)"
hdr_ver=$(pkg_version "linux-headers-$kver")
[ -d "$headers" ] && [ "$hdr_ver" = "$img_ver" ] ||
	die "linux-headers-$kver ${hdr_ver:-is not installed}, want $img_ver"

out=$cache/ubifs-auth-$kver-$src_ver
if [ ! -f "$out/ubifs.ko" ]; then
	exec 8>"$cache/ubifs-auth.lock"
	flock 8
fi
if [ ! -f "$out/ubifs.ko" ]; then
	echo "vm: building ubifs.ko with authentication from $src_pkg $src_ver" >&2
	b=$out.tmp
	rm -rf "$b" && mkdir -p "$b" || die "cannot create $b"
	tar -xJf "$tarball" -C "$b" --strip-components=3 \
		"$src_pkg/fs/ubifs" || die "cannot extract fs/ubifs from $tarball"
	# The headers' autoconf.h has the option off, so the C code needs it
	# defined too, not only Kbuild (which picks auth.o).
	if ! make -C "$headers" M="$b" CONFIG_UBIFS_FS=m \
		CONFIG_UBIFS_FS_AUTHENTICATION=y CONFIG_FS_ENCRYPTION=y \
		CONFIG_UBIFS_FS_XATTR=y \
		KCFLAGS=-DCONFIG_UBIFS_FS_AUTHENTICATION=1 modules \
		>"$b/build.log" 2>&1; then
		tail -n 30 "$b/build.log" >&2
		die "building fs/ubifs against $headers failed"
	fi
	vm=$(/sbin/modinfo -F vermagic "$b/ubifs.ko" | cut -d' ' -f1)
	[ "$vm" = "$kver" ] || die "built ubifs.ko has vermagic $vm, want $kver"
	/sbin/modinfo "$b/ubifs.ko" >/dev/null &&
		nm "$b/ubifs.ko" | grep -q ' authenticate_sleb' ||
		die "built ubifs.ko lacks the authentication code"
	mkdir -p "$out" && cp "$b/ubifs.ko" "$b/build.log" "$out/" &&
		rm -rf "$b" || die "cannot store the module in $out"
fi
echo "$out/ubifs.ko"
