#!/bin/bash
# description: arm64: tracekit built for arm64 (make CROSS_COMPILE=aarch64-linux-gnu-) runs a bounded part of its own suite in Debian's arm64 kernel: the C suites, BTF kprobes, record and report, trace, the stack tracer, ubifs
# tracefs: untouched
# timeout: 1500
# The arm64 build (built here if it is not) boots in the arm64 guest with
# Debian's arm64 trace-cmd, jq, mtd-utils and openssl (run.sh
# --suite-tools) and runs the tests below, chosen by their descriptions:
# those that hold on arm64 as they are and need no compiler in the guest.
# The whole suite there is `make vmcheck ARCH=arm64`; under TCG it takes
# longer than CI has.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arm64.sh"

need_vm_host qemu-system-aarch64 aarch64-linux-gnu-gcc readelf make
arm64_tracekit

# Descriptions (grep -E on tracekit test --list), not numbers, which
# move as tests are added.  Not record's ENOSPC test: it needs the
# recording to fill 1400 KB in 15 s, which the guest under TCG, beside
# the rest of make check, once did not (it holds alone; the x86 guest
# runs it).
wanted='option parser|^ *[0-9]+: strbuf$|host capabilities|restore-on-exit|run-command|'
wanted+='trace.dat v7 writer|--cpus list|spec parser|SDT notes, x86-64|stack_trace parser|'
wanted+='verify mkfs.ubifs|HMAC key|journal lookup|compiled print formats|'
wanted+='ring-buffer pages walked|formats libtraceevent dies on|aggregate: buckets|'
wanted+='trace-hist|BTF-only kprobes the kernel accepts|-- COMMAND traces only|'
wanted+='^ *[0-9]+: stack: |kallsyms stored only|sched events match a trace-cmd|'
wanted+='function and function_graph side by side|round trip|'
# Not extract's uid/gid test: busybox's setpriv has no --reuid.
wanted+='ubifs: (forged|extract (refuses|writes|images)|sign a plain|UBI dumps|a UBI volume|a UBI image|info/verify)'
nums=$("$TRACEKIT" test --list | grep -E "$wanted" | sed 's/^ *\([0-9]*\):.*/\1/' | tr '\n' ' ')
[ "$(echo $nums | wc -w)" -ge 20 ] || fail "only these tests match: $nums"
echo "in the arm64 guest: $nums"

# The C programs the ubifs tests build (test_helper), built here for the
# guest, which has no compiler.
src=$(dirname "$0")
aarch64-linux-gnu-gcc -O2 -Wall -o "$TK_TMP/poke" "$src/ubifs-poke.c" &&
	aarch64-linux-gnu-gcc -O2 -Wall -o "$TK_TMP/swap.so" "$src/ubifs-swap.c" -shared -fPIC -ldl ||
	fail "cannot cross-build the ubifs tests' programs"

set +e
"$VM_RUN" --arch arm64 --tracekit "$ARM64_TRACEKIT" --suite-tools --timeout 1400 \
	--file "$TK_TMP/poke" --file "$TK_TMP/swap.so" -- \
	env OPENSSL_CONF=/dev/null TRACEKIT_HELPERS=/tracekit/files TRACEKIT_SRCDIR=/tracekit \
	tracekit test -v --timeout 300 $nums 2>&1 |
	tee "$TK_TMP/console" | sed -u 's/^/  | /'
rc=${PIPESTATUS[0]}
set -e
sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$TK_TMP/console")
echo "arm64 guest: $sum"
[ -n "$sum" ] || fail "the guest printed no summary"
echo "$sum" | grep -q ' 0 failed, ' || fail "arm64 guest: a test failed"
grep -E '^ *[0-9]+: ubifs: .*: Skip' "$TK_TMP/console" && fail "arm64 guest: a ubifs test skipped"
assert_grep '^TRACEKIT-VM: booted [0-9.-]*-arm64$' "$TK_TMP/console"
assert_eq "guest exit status" "$rc" 0
exit 0
