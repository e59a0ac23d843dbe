#!/bin/bash
# Makes a sysroot for a cross build of tracekit (make CROSS_COMPILE=...):
# Debian's -dev packages of the build libraries for ARCH, with the
# libraries they need, fetched with apt-get download and unpacked into
# DIR.  Nothing is installed: multiarch (dpkg --add-architecture, then
# apt-get install PKG:arm64) would pin the host's own copies of these
# libraries to the same versions and upgrade them.  libc comes from the
# cross toolchain (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross).
#   scripts/cross-sysroot.sh ARCH DIR      (ARCH: arm64)
#   scripts/cross-sysroot.sh --closure ARCH PKG...
# --closure prints PKG and the libraries (lib*, zlib*) they need, recursively,
# but libc's, which the cross toolchain brings (the VM harness's --deb):
# bash brings libtinfo6, not the dpkg, tar and awk of its Pre-Depends.
set -eu

# closure ARCH PKG...: libc and what only libc's -dev needs are the
# toolchain's.
closure() {
	local arch=$1 libc out p
	shift
	libc='^(libc6|libc-dev|libc6-dev|libc-dev-bin|libcrypt|libnsl|libtirpc|rpcsvc-proto|linux-libc-dev|gcc-[0-9]+-base|libgcc-s1|libgssapi-krb5|libk5crypto|libkrb5|libkeyutils|libcom-err)'
	out=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances \
		$(printf '%s:'"$arch"' ' "$@") 2>/dev/null |
		sed -n "s/^\\([a-z0-9][^ <]*\\):$arch\$/\\1/p" | sort -u | grep -vE "$libc" |
		while read -r p; do
			case " $* " in
			*" $p "*) echo "$p"; continue ;;
			esac
			case $p in
			lib*|zlib*) echo "$p" ;;
			esac
		done)
	[ -n "$out" ] || {
		echo "cross-sysroot: apt knows no $arch packages (dpkg --add-architecture $arch; apt-get update)" >&2
		return 1
	}
	echo "$out"
}

if [ "${1:-}" = --closure ]; then
	shift
	closure "$@"
	exit
fi
arch=${1:?usage: scripts/cross-sysroot.sh ARCH DIR}
dir=${2:?usage: scripts/cross-sysroot.sh ARCH DIR}
here=$(cd "$(dirname "$0")" && pwd)

# The build packages of scripts/deps.sh but the tools.
pkgs=$("$here"/deps.sh --build --list | grep -v -x -e gcc -e make -e pkg-config)
all=$(closure "$arch" $pkgs)
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp/dl"
(cd "$dir.tmp/dl" && apt-get download -q $(printf '%s:'"$arch"' ' $all) >&2)
for f in "$dir.tmp"/dl/*.deb; do
	dpkg -x "$f" "$dir.tmp"
done
rm -rf "$dir.tmp/dl" "$dir"
mv "$dir.tmp" "$dir"
echo "cross-sysroot: $(echo $all | wc -w) $arch packages in $dir" >&2
