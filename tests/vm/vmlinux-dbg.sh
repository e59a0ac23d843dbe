#!/bin/bash
# Prints the path of the VM guest kernel's vmlinux with DWARF, from
# Debian's linux-image-VERSION-amd64-dbg, downloading it once per cache.
#
#   tests/vm/vmlinux-dbg.sh [--version]
#
# Only usr/lib/debug/boot/vmlinux-VERSION is kept (the package is ~860 MB
# and mostly module debuginfo); --version prints the kernel version instead.
# Environment: TRACEKIT_VM_CACHE, as tests/vm/run.sh (tests/vm/cache.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cache.sh"
cache=$TRACEKIT_VM_CACHE

die() { echo "vmlinux-dbg: $*" >&2; exit 1; }

img_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n 1)
[ -n "$img_pkg" ] || die "apt-cache does not know linux-image-amd64 (run apt-get update)"
kver=${img_pkg#linux-image-}
if [ "${1:-}" = --version ]; then
	echo "$kver"
	exit 0
fi
out=$cache/$kver-dbg/vmlinux-$kver
mkdir -p "$cache" || die "cannot create $cache"
exec 9>"$cache/download-dbg.lock"
flock 9
if [ ! -f "$out" ]; then
	echo "vmlinux-dbg: downloading $img_pkg-dbg" >&2
	dl=$cache/dl-dbg
	rm -rf "$dl" "$out.tmp"
	mkdir -p "$dl" "$(dirname "$out")"
	(cd "$dl" && apt-get download -q "$img_pkg-dbg" >&2) ||
		die "apt-get download $img_pkg-dbg failed"
	# Extracting one member still reads the whole archive, but writes 1 file.
	dpkg-deb --fsys-tarfile "$dl/$img_pkg-dbg"_*.deb |
		tar -xO "./usr/lib/debug/boot/vmlinux-$kver" >"$out.tmp" ||
		die "no usr/lib/debug/boot/vmlinux-$kver in $img_pkg-dbg"
	mv "$out.tmp" "$out"
	rm -rf "$dl"
fi
echo "$out"
