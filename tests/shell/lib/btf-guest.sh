#!/bin/bash
# Runs in the VM guest for probe-btf-dwarf.sh: a spec for the functions
# of the guest kernel's own BTF (lib/btf-specs.awk), translated by
# tracekit from BTF alone, printed between markers as gzip+base64; then
# BATCH of them added to kprobe_events at once and removed.
#   btf-guest.sh STRIDE BATCH [SPECS]   (every STRIDE-th spec, in C sort
#                                        order; or those of the file SPECS)
# SPECS is for a guest without bpftool (arm64): the host made them from
# the same BTF.
set -u
stride=$1 batch=$2
lib=$(dirname "$0")
tmp=$(mktemp -d)
if [ -n "${3:-}" ]; then
	cp "$3" "$tmp/specs"
else
	bpftool btf dump file /sys/kernel/btf/vmlinux format raw | awk -f "$lib/btf-specs.awk" |
		LC_ALL=C sort | awk -v s="$stride" 'NR % s == 0' >"$tmp/specs"
fi
echo "BTF-SPECS: $(wc -l <"$tmp/specs") $(md5sum <"$tmp/specs" | cut -d' ' -f1)"
# Chunks keep each command line far below ARG_MAX.
define() {
	[ $# = 0 ] || tracekit probe --keep-going "$@" >>"$tmp/defs" 2>>"$tmp/errs"
}
args=()
while IFS= read -r s; do
	args+=(-D "$s")
	[ ${#args[@]} -lt 4000 ] || { define "${args[@]}"; args=(); }
done <"$tmp/specs"
define "${args[@]}"
: >>"$tmp/defs"
: >>"$tmp/errs"
for f in defs errs; do
	echo "BTF-$f-BEGIN"
	gzip -c "$tmp/$f" | base64
	echo "BTF-$f-END"
done
# Every BATCH-th translated spec, in one tracekit probe -a: all or none.
sed -n "s/^tracekit probe: '\([^']*\)': .*/\1/p" "$tmp/errs" >"$tmp/failed"
awk 'NR == FNR { bad[$0] = 1; next } !($0 in bad)' "$tmp/failed" "$tmp/specs" >"$tmp/okspecs"
n=$(wc -l <"$tmp/okspecs")
step=$((n / batch))
[ "$step" -ge 1 ] || step=1
awk -v s="$step" -v b="$batch" 'NR % s == 0 && c < b { print; c++ }' "$tmp/okspecs" >"$tmp/pick"
args=()
while IFS= read -r s; do args+=(-a "$s"); done <"$tmp/pick"
before=$(wc -l </sys/kernel/tracing/kprobe_events)
start=$(date +%s)
tracekit probe "${args[@]}" >"$tmp/add" 2>&1
rc=$?
added=$(grep -c '^p:probe/' /sys/kernel/tracing/kprobe_events)
echo "BATCH-ADD: rc=$rc picked=$(wc -l <"$tmp/pick") in_kprobe_events=$added seconds=$(($(date +%s) - start))"
[ $rc = 0 ] || tail -n 5 "$tmp/add"
tracekit probe -d 'probe:*' >/dev/null 2>&1
echo "BATCH-LEFT: $(($(wc -l </sys/kernel/tracing/kprobe_events) - before))"
rm -rf "$tmp"
