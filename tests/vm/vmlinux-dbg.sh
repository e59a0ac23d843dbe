#!/bin/bash
# Prints the path of the VM guest kernel's vmlinux with DWARF, from
# Debian's linux-image-VERSION-amd64-dbg, downloading it once per cache.
#
#   tests/vm/vmlinux-dbg.sh [--arch amd64|arm64] [--version]
#
# Only usr/lib/debug/boot/vmlinux-VERSION is kept (the package is ~800 MB
# and mostly module debuginfo); --version prints the kernel version instead.
# --arch arm64 takes the arm64 kernel of the same ABI, the one
# tests/vm/run.sh --arch arm64 boots (linux-image-VERSION-arm64-dbg:arm64).
# Environment: TRACEKIT_VM_CACHE, as tests/vm/run.sh (tests/vm/cache.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cache.sh"
cache=$TRACEKIT_VM_CACHE

die() { echo "vmlinux-dbg: $*" >&2; exit 1; }

arch=amd64
if [ "${1:-}" = --arch ]; then
	arch=${2:-}
	shift 2 || die "--arch needs amd64 or arm64"
fi
case $arch in
amd64|arm64) ;;
*) die "unknown --arch '$arch' (amd64 or arm64)" ;;
esac

img_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n 1)
[ -n "$img_pkg" ] || die "apt-cache does not know linux-image-amd64 (run apt-get update)"
kver=${img_pkg#linux-image-}
dbg_pkg=$img_pkg-dbg
if [ "$arch" = arm64 ]; then
	kver=${kver%-amd64}-arm64
	dbg_pkg=linux-image-$kver-dbg:arm64
fi
if [ "${1:-}" = --version ]; then
	echo "$kver"
	exit 0
fi
out=$cache/$kver-dbg/vmlinux-$kver
mkdir -p "$cache" || die "cannot create $cache"
exec 9>"$cache/download-dbg.lock"
flock 9
if [ ! -f "$out" ]; then
	echo "vmlinux-dbg: downloading $dbg_pkg" >&2
	dl=$cache/dl-dbg
	rm -rf "$dl" "$out.tmp"
	mkdir -p "$dl" "$(dirname "$out")"
	(cd "$dl" && apt-get download -q "$dbg_pkg" >&2) ||
		die "apt-get download $dbg_pkg failed"
	# Extracting one member still reads the whole archive, but writes 1 file.
	dpkg-deb --fsys-tarfile "$dl/linux-image-$kver-dbg"_*.deb |
		tar -xO "./usr/lib/debug/boot/vmlinux-$kver" >"$out.tmp" ||
		die "no usr/lib/debug/boot/vmlinux-$kver in $dbg_pkg"
	mv "$out.tmp" "$out"
	rm -rf "$dl"
fi
echo "$out"
