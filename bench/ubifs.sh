#!/bin/bash
# Verify throughput of `tracekit ubifs verify --cert` on a signed image of
# at least 64 MiB against `sha256sum` of the same file, in one run; prints
# the ratio (ours / sha256sum, higher is better; the goal is >= 0.9).
#
#   bench/ubifs.sh [TRACEKIT] [MIB]
set -eu
tk=$(realpath "${1:-./tracekit}")
mib=${2:-80}
for c in mkfs.ubifs openssl sha256sum; do
	command -v $c >/dev/null || { echo "bench: $c is not installed" >&2; exit 2; }
done
work=$(mktemp -d /tmp/tk-bench-ubifs.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p root/a root/b
for i in $(seq 1 $((mib / 4))); do
	head -c $((4 << 20)) /dev/urandom >root/a/f$i
done
seq 1 200000 >root/b/text
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem \
	-days 2 -subj /CN=bench >/dev/null 2>&1
mkfs.ubifs -m 2048 -e 129024 -c $((mib * 10)) -x none -r root \
	--hash-algo=sha256 --auth-key=key.pem --auth-cert=cert.pem img
size=$(stat -c %s img)
[ "$size" -ge $((64 << 20)) ] || { echo "bench: image only $size bytes" >&2; exit 1; }
"$tk" ubifs verify img --cert cert.pem >/dev/null

# Best of five, both from the page cache.
best() {
	local b= t0 t1 i
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		t=$(((t1 - t0) / 1000))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b"
}
us=$(best "$tk" ubifs verify img --cert cert.pem)
peer=$(best sha256sum img)
awk -v s="$size" -v a="$us" -v b="$peer" 'BEGIN {
	printf "image %.1f MiB\n", s / 1048576
	printf "tracekit ubifs verify: %8.1f ms  %7.1f MiB/s\n", a / 1000, s / a / 1.048576
	printf "sha256sum:             %8.1f ms  %7.1f MiB/s\n", b / 1000, s / b / 1.048576
	printf "ratio (throughput ours/sha256sum): %.2fx\n", b / a
}'
