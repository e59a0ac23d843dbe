# Sourced by tests/shell/arm64-*.sh after common.sh and need_vm_host:
# the arm64 build of tracekit and the cross compiler the guests need.

# arm64_tracekit: builds tracekit for arm64 (make
# CROSS_COMPILE=aarch64-linux-gnu-, a no-op when it is up to date) and
# sets ARM64_TRACEKIT to it.
arm64_tracekit() {
	local src
	src=$(cd "$(dirname "$VM_RUN")/../.." && pwd)
	ARM64_TRACEKIT=$src/build/aarch64/tracekit
	make -s -C "$src" CROSS_COMPILE=aarch64-linux-gnu- >"$TK_TMP/make" 2>&1 ||
		{ tail -n 30 "$TK_TMP/make"; fail "make CROSS_COMPILE=aarch64-linux-gnu- failed"; }
	[ -x "$ARM64_TRACEKIT" ] || fail "no $ARM64_TRACEKIT after the cross build"
	readelf -h "$ARM64_TRACEKIT" | grep -q 'AArch64' ||
		fail "$ARM64_TRACEKIT is not an arm64 ELF"
}

# guest_file TAG NAME: the file a guest script sent through the console
# ($TK_TMP/console) as "TAG-BEGIN NAME", its base64, "TAG-END NAME".
guest_file() {
	sed -n "/^$1-BEGIN $2\$/,/^$1-END $2\$/p" "$TK_TMP/console" | sed '1d;$d' | base64 -d
}

# arm64_cc: sets ARM64_CC to the cross compiler with <sys/sdt.h>, which
# is installed for the host's multiarch triplet only; it is the same
# text for every machine.
arm64_cc() {
	local sdth
	mkdir -p "$TK_TMP/inc/sys"
	sdth=$(echo '#include <sys/sdt.h>' | gcc -M -x c - | grep -o '/[^ ]*/sys/sdt\.h')
	cp "$sdth" "$(dirname "$sdth")/sdt-config.h" "$TK_TMP/inc/sys/" ||
		fail "cannot copy <sys/sdt.h>"
	ARM64_CC=(aarch64-linux-gnu-gcc -I"$TK_TMP/inc")
}
