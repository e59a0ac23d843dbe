#!/bin/bash
# Installs (as root) or names (otherwise) the Debian packages tracekit's
# build, tests and VM harness need.
#   scripts/deps.sh           install what is missing (build, test and VM)
#   scripts/deps.sh --build   the same for the build packages only (`make`)
#   scripts/deps.sh --check   exit 1 if anything is missing, install nothing
#   scripts/deps.sh --list    print the package names
# --build goes before --check or --list to narrow them too.
set -u

build_pkgs="gcc make pkg-config libelf-dev libdw-dev
libtraceevent-dev libtracefs-dev libzstd-dev libssl-dev liblzo2-dev
zlib1g-dev libbpf-dev libunwind-dev"
# libkshark-dev's libkshark.pc requires json-c and libtracecmd, which the
# package does not depend on (Debian 12): without them pkg-config fails.
# chromium renders report --flamegraph's SVG (report-flamegraph.sh).
# libc6-dbg is libc's DWARF, whose aliases probe-alias.sh probes.
# bpftrace (0.17 on Debian 12) prints the maps report-aggregate.sh's
# tables are held against.
test_pkgs="trace-cmd linux-perf systemtap-sdt-dev mtd-utils openssl xxd
busybox-static cpio kmod qemu-system-x86 keyutils time jq clang binutils
asciidoctor man-db libkshark-dev libtracecmd-dev libjson-c-dev pahole bpftool
llvm g++ chromium libc6-dbg bpftrace
gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"
# The arm64 guest (tests/vm/run.sh --arch arm64) downloads Debian's arm64
# kernel and busybox-static:arm64 with apt-get download, which needs the
# arm64 package lists: dpkg must know the architecture.  Nothing of arm64
# is installed (multiarch would pin both architectures' libraries to one
# version and upgrade the host's).
foreign_arch=arm64

# The VM boots the kernel behind Debian's linux-image-amd64 metapackage;
# its headers build tests/kmod, and with its source (linux-source-X.Y, of
# the same version: tests/vm/ubifs-auth-module.sh checks) fs/ubifs with
# authentication.  Needs the apt lists to be present.
vm_kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n 1
}

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

build_only=
all_pkgs() {
	local img
	echo $build_pkgs
	[ -n "$build_only" ] && return
	echo $test_pkgs
	img=$(vm_kernel_pkg)
	[ -n "$img" ] || return 0
	echo "${img/linux-image-/linux-headers-}"
	# linux-image-6.1.0-57-amd64 -> linux-source-6.1
	echo "$img" | sed -n 's/^linux-image-\([0-9]*\.[0-9]*\)\..*/linux-source-\1/p'
}

if [ "${1:-}" = --build ]; then
	build_only=1
	shift
fi
case "${1:-}" in
--list)
	all_pkgs | tr ' ' '\n'
	exit 0 ;;
--check)
	[ -z "$(missing $(all_pkgs))" ] || exit 1
	[ -n "$build_only" ] || dpkg --print-foreign-architectures | grep -qx $foreign_arch
	exit ;;
"") ;;
*)
	echo "usage: scripts/deps.sh [--build] [--check | --list]" >&2
	exit 2 ;;
esac

need=$(missing $(all_pkgs))
add_arch=
[ -n "$build_only" ] ||
	dpkg --print-foreign-architectures | grep -qx $foreign_arch || add_arch=1
[ -z "$need" ] && [ -z "$add_arch" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "tracekit: missing packages; as root run:" >&2
	[ -z "$add_arch" ] || echo "  dpkg --add-architecture $foreign_arch" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends" $need >&2
	exit 1
fi
if [ -n "$add_arch" ]; then
	echo "tracekit: dpkg --add-architecture $foreign_arch" >&2
	dpkg --add-architecture $foreign_arch || exit 1
fi
echo "tracekit: installing:" $need >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2 || exit 1
# The lists may only now name the VM kernel: recompute.
need=$(missing $(all_pkgs))
apt-get install -y -q --no-install-recommends $need >&2
