#!/bin/bash
# Verify throughput and memory of `tracekit ubifs verify --cert` on a
# signed image of at least 64 MiB, against `openssl dgst -sha256` and
# `sha256sum` of the same file, in one run.  Prints the time ratios (peer
# time / ours: above 1 means tracekit is faster) and the peak RSS of each.
#
# Then verify's time per MiB on a hostile image against the same image
# untouched, as a ratio (goal: under 2): FILES small files (three index
# leaves each) and big files whose data LEBs become buds full of NODES
# small journal nodes (ubifs-mutate journal:NODES), every one a key, a
# deleted inode or a truncation that each leaf is looked up against.
# Without an index of those, the time grows as leaves times nodes.
#
#   bench/ubifs.sh [TRACEKIT] [MIB] [FILES] [NODES]
set -eu
tk=$(realpath "${1:-./tracekit}")
mib=${2:-80}
files=${3:-10000}
nodes=${4:-60000}
src=$(realpath "$(dirname "$0")/..")
for c in mkfs.ubifs openssl sha256sum /usr/bin/time cc; do
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

# Best of five wall times (all from the page cache), in microseconds,
# and the peak RSS in KiB of the last run.
best() {
	local b= t0 t1 i
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		/usr/bin/time -f %M -o rss "$@" >/dev/null
		t1=$(date +%s%N)
		t=$(((t1 - t0) / 1000))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b $(cat rss)"
}
read -r us us_rss < <(best "$tk" ubifs verify img --cert cert.pem)
read -r ossl ossl_rss < <(best openssl dgst -sha256 img)
read -r sum sum_rss < <(best sha256sum img)
awk -v s="$size" -v a="$us" -v b="$ossl" -v c="$sum" \
    -v ra="$us_rss" -v rb="$ossl_rss" -v rc="$sum_rss" 'BEGIN {
	printf "image %.1f MiB\n", s / 1048576
	printf "tracekit ubifs verify: %8.1f ms %7.1f MiB/s  peak RSS %6.1f MiB\n", a / 1000, s / a / 1.048576, ra / 1024
	printf "openssl dgst -sha256:  %8.1f ms %7.1f MiB/s  peak RSS %6.1f MiB\n", b / 1000, s / b / 1.048576, rb / 1024
	printf "sha256sum:             %8.1f ms %7.1f MiB/s  peak RSS %6.1f MiB\n", c / 1000, s / c / 1.048576, rc / 1024
	printf "time ratio openssl/tracekit:   %.2fx\n", b / a
	printf "time ratio sha256sum/tracekit: %.2fx\n", c / a
	printf "peak RSS ratio tracekit/openssl: %.2fx\n", ra / rb
}'

# The hostile journal: room for NODES nodes of 108 bytes on average.
cc -O2 -Wall -I"$src" -o mutate "$src/tests/shell/ubifs-mutate.c"
rm -rf root && mkdir -p root/s root/big
for i in $(seq 1 "$files"); do
	echo "file $i" >root/s/f$i
done
head -c $((nodes * 108 + (2 << 20))) /dev/urandom >root/big/data
mkfs.ubifs -m 2048 -e 129024 -c 4000 -x none -r root plain.img
./mutate apply plain.img hostile.img journal:"$nodes" >/dev/null
"$tk" ubifs info hostile.img | grep -E '^(tree|journal):'
"$tk" ubifs verify plain.img >/dev/null
"$tk" ubifs verify hostile.img >/dev/null
read -r plain _ < <(best "$tk" ubifs verify plain.img)
read -r hostile _ < <(best "$tk" ubifs verify hostile.img)
awk -v s="$(stat -c %s plain.img)" -v p="$plain" -v h="$hostile" 'BEGIN {
	printf "images %.1f MiB, verify of each\n", s / 1048576
	printf "plain:           %8.1f ms %7.2f ms/MiB\n", p / 1000, p / 1000 / (s / 1048576)
	printf "hostile journal: %8.1f ms %7.2f ms/MiB\n", h / 1000, h / 1000 / (s / 1048576)
	printf "time per MiB ratio hostile/plain: %.2fx (goal: under 2x)\n", h / p
}'
