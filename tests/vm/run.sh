#!/bin/bash
# Boots Debian's own kernel (the linux-image-amd64 metapackage's version)
# under QEMU with a busybox initramfs carrying tracekit, its libraries, the
# tests and the test kernel modules, runs a command inside, streams the
# console, and exits with the guest command's exit status.
#
#   tests/vm/run.sh [--arch x86_64|arm64] [--tracekit BIN] [--timeout SEC]
#                   [--bin PATH]... [--file PATH]... [--deb PKG]... [--smp N]
#                   [--suite-tools] [--ubifs-auth]
#                   [--btf-out FILE | [--] CMD...]
#
# --arch arm64 boots Debian's arm64 kernel of the same version
# (linux-image-VERSION-arm64-unsigned) on qemu-system-aarch64's virt
# machine with busybox-static:arm64, both downloaded once; tracekit goes
# in only when --tracekit names an arm64 build.  --file ships PATH into
# /tracekit/files/, with the shared libraries it needs (for an arm64
# ELF, those of the cross toolchain's /usr/aarch64-linux-gnu).
# --suite-tools ships what the test suite's guest tests need: trace-cmd,
# jq, mkfs.ubifs (mtd-utils), openssl and (arm64) GNU diff (x86: the
# host's; arm64: Debian's arm64 packages, as --deb).
# --deb PKG (arm64) puts Debian's arm64 package PKG in the guest as
# dpkg would, its files only, with the packages it needs but libc's.
# --btf-out FILE copies the guest kernel's /sys/kernel/btf/vmlinux to
# FILE instead of running a command: read once through the console,
# then kept beside the kernel in the cache.
#
# CMD runs under the guest's sh in /tracekit with PATH including tracekit.
# --ubifs-auth ships /tracekit/kmod-auth/ubifs.ko, fs/ubifs with
# authentication on (tests/vm/ubifs-auth-module.sh), for guests to insmod.
# --smp: the guest's CPUs (default 2).  Under TCG one host thread runs
# them in turn, so a task's CPU time also counts the slices the other
# vCPUs ran while it was running: measure CPU time with --smp 1.
# Default CMD: tracekit test -v.  Environment:
#   TRACEKIT_VM_CACHE  download/build folder (default ~/.cache/tracekit-vm,
#                      tests/vm/cache.sh)
#   TRACEKIT_VM_ACCEL  kvm or tcg, to skip detection
#   TRACEKIT_VM_MAC    the MAC address of the guest's NIC (default: a random
#                      52:54:00:xx:xx:xx); the guest finds it on its kernel
#                      command line as tracekit.mac=
#   TRACEKIT_VM_MONITOR  a path: QEMU's monitor listens there (for
#                      "info registers" on a hung guest) and the kernel
#                      boots with nokaslr, so addresses stay those of the
#                      guest's /proc/kallsyms from any other such boot
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/cache.sh"
cache=$TRACEKIT_VM_CACHE
tracekit=$src/tracekit
timeout=900
extra_bins=(/bin/bash)
files=()
ubifs_auth=
smp=2
arch=x86_64
tracekit_given=
btf_out=
debs=()
suite_tools=

die() { echo "vm: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--arch) arch=$2; shift 2 ;;
	--tracekit) tracekit=$(realpath "$2"); tracekit_given=1; shift 2 ;;
	--file) files+=("$(realpath "$2")"); shift 2 ;;
	--btf-out) btf_out=$2; shift 2 ;;
	--deb) debs+=("$2"); shift 2 ;;
	--suite-tools) suite_tools=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--bin) extra_bins+=("$2"); shift 2 ;;
	--ubifs-auth) ubifs_auth=1; shift ;;
	--smp) smp=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- tracekit test -v
# The oracles and tools the suite's tests need in the guest.
if [ -n "$suite_tools" ]; then
	case $arch in
	x86_64) extra_bins+=(trace-cmd jq mkfs.ubifs openssl) ;;
	# diffutils: busybox's diff has no --no-dereference.
	arm64) debs+=(trace-cmd jq mtd-utils openssl diffutils) ;;
	esac
fi
case $arch in
x86_64)
	qemu=qemu-system-x86_64
	[ -x "$tracekit" ] || die "no tracekit binary at $tracekit (run make)"
	[ -x /bin/busybox ] || die "busybox-static is not installed" ;;
arm64)
	qemu=qemu-system-aarch64
	[ -z "$tracekit_given" ] || [ -x "$tracekit" ] || die "no tracekit binary at $tracekit"
	extra_bins=() ;;
*) die "--arch: x86_64 or arm64, not '$arch'" ;;
esac
command -v $qemu >/dev/null || die "$qemu is not installed"
mkdir -p "$cache" || die "cannot create $cache"
# The kernel is shared by concurrent runs; everything else is per run.
work=$(mktemp -d "$cache/run.XXXXXX") || die "cannot create a run folder in $cache"
trap 'rm -rf "$work"' EXIT

# --- the kernel: Debian's, downloaded once and cached ---
img_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n 1)
[ -n "$img_pkg" ] || die "apt-cache does not know linux-image-amd64 (run apt-get update)"
kver=${img_pkg#linux-image-}
dl_pkg=$img_pkg
if [ "$arch" = arm64 ]; then
	# The same kernel ABI and build for arm64 (6.1.0-57-amd64 ->
	# linux-image-6.1.0-57-arm64-unsigned:arm64).
	kver=${kver%-amd64}-arm64
	dl_pkg=linux-image-$kver-unsigned:arm64
fi
kdir=$cache/$kver
exec 9>"$cache/download.lock"
flock 9
if [ ! -f "$kdir/boot/vmlinuz-$kver" ]; then
	echo "vm: downloading $dl_pkg" >&2
	rm -rf "$cache/dl" "$kdir.tmp"
	mkdir -p "$cache/dl"
	(cd "$cache/dl" && apt-get download -q "$dl_pkg" >&2) ||
		die "apt-get download $dl_pkg failed (for arm64: dpkg --add-architecture arm64; apt-get update)"
	dpkg -x "$cache"/dl/*.deb "$kdir.tmp" || die "dpkg -x failed"
	# The package leaves modules.dep to its postinst.
	/sbin/depmod -b "$kdir.tmp" "$kver" || die "depmod failed"
	mv "$kdir.tmp" "$kdir"
	rm -rf "$cache/dl"
fi
# arm64_deb PKG: the folder PKG:arm64 (the archive's version) is
# extracted in, downloaded once; nothing of it is installed here.
arm64_deb() {
	local ver dir
	ver=$(apt-cache show --no-all-versions "$1:arm64" 2>/dev/null |
		sed -n 's/^Version: //p' | tr ':' '_')
	[ -n "$ver" ] || die "apt-cache knows no $1:arm64 (dpkg --add-architecture arm64; apt-get update)"
	dir=$cache/arm64-debs/$1_$ver
	if [ ! -d "$dir" ]; then
		echo "vm: downloading $1:arm64" >&2
		rm -rf "$cache/dl" "$dir.tmp"
		mkdir -p "$cache/dl" "$cache/arm64-debs"
		(cd "$cache/dl" && apt-get download -q "$1:arm64" >&2) ||
			die "apt-get download $1:arm64 failed"
		dpkg -x "$cache"/dl/*.deb "$dir.tmp" || die "dpkg -x failed"
		mv "$dir.tmp" "$dir"
		rm -rf "$cache/dl"
	fi
	echo "$dir"
}
busybox=/bin/busybox
deb_dirs=()
if [ "$arch" = arm64 ]; then
	busybox=$(arm64_deb busybox-static)/bin/busybox || exit 1
	# bash, as --bin /bin/bash gives the x86 guest: the shell tests' own.
	debs=($("$src/scripts/cross-sysroot.sh" --closure arm64 bash "${debs[@]}")) || exit 1
	for d in "${debs[@]}"; do
		deb_dirs+=("$(arm64_deb "$d")") || exit 1
	done
fi
flock -u 9
vmlinuz=$kdir/boot/vmlinuz-$kver
if [ -n "$btf_out" ]; then
	if [ -s "$kdir/btf-vmlinux" ]; then
		cp "$kdir/btf-vmlinux" "$btf_out" || die "cannot write $btf_out"
		exit 0
	fi
	set -- sh -c 'echo TRACEKIT-BTF-BEGIN; base64 /sys/kernel/btf/vmlinux; echo TRACEKIT-BTF-END'
fi
moddir=$kdir/lib/modules/$kver

# --- test modules, built against the matching headers when installed ---
kmods=()
headers=/usr/src/linux-headers-$kver
if [ "$arch" = arm64 ]; then
	: # the headers are amd64's: no test modules
elif [ -d "$headers" ] && ls "$src"/tests/kmod/*.c >/dev/null 2>&1; then
	kb=$work/kmod
	mkdir -p "$kb"
	cp "$src"/tests/kmod/*.c "$src"/tests/kmod/Kbuild "$kb"/
	if make -s -C "$headers" M="$kb" modules >"$kb/build.log" 2>&1; then
		kmods=("$kb"/*.ko)
	else
		cat "$kb/build.log" >&2
		die "building tests/kmod against $headers failed"
	fi
else
	echo "vm: no $headers: test modules not built" >&2
fi

if [ -n "$ubifs_auth" ]; then
	ubifs_ko=$("$here/ubifs-auth-module.sh" "$kver" "$cache") || exit 1
fi

# --- the initramfs ---
root=$work/initramfs
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,tracekit/kmod,lib/modules}
cp "$busybox" "$root/bin/busybox"
cp "$here/init" "$root/init"
chmod 755 "$root/init"

# Copies an arm64 ELF's shared libraries (DT_NEEDED, recursively) and
# its interpreter from the cross toolchain's tree or the cross build's
# sysroot (make CROSS_COMPILE=aarch64-linux-gnu-), where the arm64
# loader looks: /lib/aarch64-linux-gnu, /lib.  With a second argument
# a library found in neither is left out (a package's file that no test
# runs: libpython's nis module and libnsl), else it ends the run.
cross=/usr/aarch64-linux-gnu/lib
sysroot=${TRACEKIT_SYSROOT:-$src/build/sysroot-arm64}
copy_arm64_libs() {
	local f=$1 optional=${2:-} lib from d
	readelf -h "$f" 2>/dev/null | grep -q 'AArch64' || return 0
	if [ ! -e "$root/lib/ld-linux-aarch64.so.1" ]; then
		mkdir -p "$root/lib/aarch64-linux-gnu"
		cp -L "$cross/ld-linux-aarch64.so.1" "$root/lib/" ||
			die "no $cross/ld-linux-aarch64.so.1 (install libc6-arm64-cross)"
	fi
	for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ -e "$root/lib/aarch64-linux-gnu/$lib" ] && continue
		# A library of a --deb package, or of the test's own shipped
		# before its user.
		[ -e "$root/usr/lib/aarch64-linux-gnu/$lib" ] && continue
		[ -e "$root/tracekit/files/$lib" ] && continue
		from=
		for d in "$cross" "$sysroot/usr/lib/aarch64-linux-gnu" \
			 "$sysroot/lib/aarch64-linux-gnu"; do
			[ -e "$d/$lib" ] && { from=$d/$lib; break; }
		done
		if [ -z "$from" ] && [ -n "$optional" ]; then
			continue
		fi
		[ -n "$from" ] || die "$f needs $lib, in neither $cross nor $sysroot"
		cp -L "$from" "$root/lib/aarch64-linux-gnu/$lib"
		copy_arm64_libs "$from" $optional
	done
}

# Copies a binary and the libraries ldd names, keeping their paths.
copy_with_libs() {
	local bin=$1 dest=$2 lib
	mkdir -p "$(dirname "$root$dest")"
	cp -L "$bin" "$root$dest"
	if [ "$arch" = arm64 ]; then
		copy_arm64_libs "$bin"
		return
	fi
	for lib in $(ldd "$bin" 2>/dev/null | grep -oE '/[^ ]+'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
if [ "$arch" = x86_64 ] || [ -n "$tracekit_given" ]; then
	copy_with_libs "$tracekit" /tracekit/tracekit
fi
# Debian's arm64 packages, as dpkg would lay them out (usr/lib/... too:
# the arm64 loader searches /usr/lib/aarch64-linux-gnu as well), before
# the files, so that a library of theirs is not taken from the cross
# toolchain instead (its libstdc++ has no SDT markers, Debian's has).
for d in "${deb_dirs[@]}"; do
	cp -a "$d"/. "$root"/ || die "cannot copy $d"
done
# Then what their programs and libraries need of libc, from the cross
# toolchain (libstdc++ needs libm).
for d in "${deb_dirs[@]}"; do
	while read -r f; do
		copy_arm64_libs "$f" optional
	done < <(find "$d" -type f \( -perm -u+x -o -name '*.so*' \))
done
for f in "${files[@]}"; do
	copy_with_libs "$f" "/tracekit/files/$(basename "$f")"
done
for b in "${extra_bins[@]}"; do
	p=$(command -v "$b") || die "--bin $b: not found"
	copy_with_libs "$p" "$p"
done
mkdir -p "$root/usr/bin"
ln -sf /bin/bash "$root/usr/bin/bash" 2>/dev/null
cp -r "$src/tests" "$root/tracekit/tests"
rm -rf "$root/tracekit/tests/vm"
# The manuals: tests check the JSON members they list.
cp -r "$src/Documentation" "$root/tracekit/Documentation"
for m in "${kmods[@]}"; do cp "$m" "$root/tracekit/kmod/"; done
if [ -n "$ubifs_auth" ]; then
	mkdir -p "$root/tracekit/kmod-auth"
	cp "$ubifs_ko" "$root/tracekit/kmod-auth/ubifs.ko"
fi
# Kernel modules the tests may modprobe (UBIFS on MTD, the NIC's driver),
# with their deps.
if [ -d "$moddir" ]; then
	mkdir -p "$root/lib/modules/$kver"
	cp "$moddir"/modules.* "$root/lib/modules/$kver/" 2>/dev/null
	for want in ubifs ubi nandsim mtdram mtdblock zstd lzo lzo-rle deflate e1000 \
		virtio_pci virtio_net; do
		grep -E "/$want\.ko(\.xz)?:" "$moddir/modules.dep" | tr -d ':' |
			tr ' ' '\n'
	done | sort -u | while read -r rel; do
		[ -n "$rel" ] || continue
		mkdir -p "$root/lib/modules/$kver/$(dirname "$rel")"
		cp "$moddir/$rel" "$root/lib/modules/$kver/$rel"
	done
fi
printf '%s\n' "$(printf '%q ' "$@")" >"$root/tracekit/vm-cmd"
initrd=$work/initramfs.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd" ||
	die "cannot build the initramfs"

# --- boot ---
# KVM is present but broken on these machines (MSR assertion, firmware
# hang): try it once with a short timeout, remember the verdict per host.
# One NIC (QEMU's e1000; Debian builds its driver as a module), on user
# networking with restrict=on: the guest reaches QEMU's own DHCP server
# and nothing beyond, so no packet leaves this machine.  Without -nic,
# QEMU would add an e1000 on unrestricted user networking.
mac=${TRACEKIT_VM_MAC:-$(printf '52:54:00:%02x:%02x:%02x' $((RANDOM % 256)) \
	$((RANDOM % 256)) $((RANDOM % 256)))}
qemu_base=(qemu-system-x86_64 -m 1G -smp "$smp" -kernel "$vmlinuz" -initrd "$initrd"
	-display none -serial stdio -no-reboot
	-nic "user,restrict=on,model=e1000,mac=$mac")
append="console=ttyS0 quiet loglevel=3 panic=-1 tracekit.mac=$mac"
if [ "$arch" = arm64 ]; then
	# Debian's arm64 kernel signs return addresses (pointer
	# authentication): QEMU's own cheap algorithm (pauth-impdef) boots in
	# a third of the time of the architected one.  The NIC is a
	# virtio one (the virt machine has no e1000 slot to spare), on the
	# same restricted user networking.
	qemu_base=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -m 1G
		-smp "$smp" -kernel "$vmlinuz" -initrd "$initrd"
		-display none -serial stdio -no-reboot
		-nic "user,restrict=on,model=virtio-net-pci,mac=$mac")
	append="console=ttyAMA0 quiet loglevel=3 panic=-1 tracekit.mac=$mac"
fi
if [ -n "${TRACEKIT_VM_MONITOR:-}" ]; then
	qemu_base+=(-monitor "unix:$TRACEKIT_VM_MONITOR,server,nowait")
	append+=" nokaslr"
else
	qemu_base+=(-monitor none)
fi
accel=${TRACEKIT_VM_ACCEL:-}
# An arm64 guest on an x86 host is emulated (TCG, a thread per vCPU).
[ "$arch" = arm64 ] && accel=tcg
verdict=$cache/accel-$(uname -r)
if [ -z "$accel" ] && [ -f "$verdict" ]; then
	accel=$(cat "$verdict")
fi
if [ -z "$accel" ]; then
	accel=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		echo "vm: trying KVM" >&2
		if timeout --foreground -k 2 30 "${qemu_base[@]}" -accel kvm -cpu host \
			-append "$append tracekit.probe" </dev/null 2>/dev/null |
			tr -d '\r' | grep -q '^TRACEKIT-VM: booted'; then
			accel=kvm
		fi
	fi
	echo "$accel" >"$verdict"
	echo "vm: using $accel" >&2
fi
if [ "$accel" = kvm ]; then
	cpu=(-accel kvm -cpu host)
elif [ "$arch" = arm64 ]; then
	cpu=(-accel tcg)
else
	# With one host thread per vCPU (QEMU 7.2's default), two of four runs
	# of the suite under load hung for good (none of four without load):
	# both vCPUs looping through exc_int3 at syscall_trace_enter+0xe9,
	# where memory held a jmp, not an int3 (caught with
	# TRACEKIT_VM_MONITOR).  That is the int3 text_poke_bp()
	# sets on a static branch while a tracepoint is switched, still being
	# executed after it was written away, and the kprobes int3 handler
	# retrying it forever.  One thread runs the vCPUs in turn, so each
	# sees the other's writes to code before it runs on.
	cpu=(-accel tcg,thread=single -cpu max)
fi

log=$work/console.log
# The console as it comes, but for --btf-out's 6 MB of base64.
show() {
	if [ -n "$btf_out" ]; then
		cat >/dev/null
	else
		cat
	fi
}
echo "vm: booting $kver ($accel), running: $*" >&2
# --foreground keeps QEMU in our process group, so the signal that stops
# a test run (its timeout, Ctrl-C) stops the guest too.
timeout --foreground -k 5 "$timeout" "${qemu_base[@]}" "${cpu[@]}" -append "$append" \
	</dev/null 2>&1 | tr -d '\r' | tee "$log" | show
status=${PIPESTATUS[0]}
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
	echo "vm: guest did not finish within $timeout s: killed" >&2
	exit 1
fi
rc=$(sed -n 's/^TRACEKIT-VM-EXIT=\([0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ -n "$btf_out" ] && [ "$rc" = 0 ]; then
	sed -n '/^TRACEKIT-BTF-BEGIN$/,/^TRACEKIT-BTF-END$/p' "$log" | sed '1d;$d' |
		base64 -d >"$work/btf" || die "the guest's BTF did not decode"
	# BTF's magic, 0xeb9f, little-endian on both machines.
	[ "$(od -An -tx1 -N2 "$work/btf" | tr -d ' ')" = 9feb ] ||
		die "what the guest printed is not BTF"
	mv "$work/btf" "$kdir/btf-vmlinux.$$" && mv "$kdir/btf-vmlinux.$$" "$kdir/btf-vmlinux" &&
		cp "$kdir/btf-vmlinux" "$btf_out" || die "cannot write $btf_out"
fi
if [ -z "$rc" ]; then
	echo "vm: guest ended without reporting a result (qemu exit $status)" >&2
	exit 1
fi
exit "$rc"
