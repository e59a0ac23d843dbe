#!/bin/bash
# Builds tests/fuzz/ubifs.c with libFuzzer (clang -fsanitize=fuzzer plus
# ASan/UBSan), seeds a corpus with small mkfs.ubifs images (plain, signed,
# inside UBI) and fuzzes for SECONDS (default 60), or for RUNS executions
# when FUZZ_RUNS=RUNS is set.  Not part of make check.
#
#   tests/fuzz/run-ubifs.sh [SECONDS] [WORKDIR]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
work=${2:-$src/build/fuzz-ubifs}
mkdir -p "$work/corpus"
cd "$work"

for c in clang mkfs.ubifs ubinize openssl; do
	command -v $c >/dev/null || { echo "fuzz: $c is not installed" >&2; exit 2; }
done
clang -g -O1 -std=gnu11 -D_GNU_SOURCE -I"$src" \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-o ubifs-fuzz "$src/tests/fuzz/ubifs.c" "$src"/ubifs/*.c \
	"$src/util/strbuf.c" "$src/util/usage.c" "$src/util/wrapper.c" \
	-lcrypto -lzstd -llzo2 -lz

if [ -z "$(ls corpus)" ]; then
	rm -rf tree && mkdir -p tree/d && echo hi >tree/a && ln -s a tree/l &&
		echo yo >tree/d/b && head -c 9000 /dev/urandom >tree/d/r
	openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem \
		-days 2 -subj /CN=fuzz >/dev/null 2>&1
	G="-m 8 -e 16256 -c 30"
	mkfs.ubifs $G -r tree corpus/plain.img
	mkfs.ubifs $G -x none -r tree corpus/plain-none.img
	mkfs.ubifs $G -x zlib -r tree corpus/plain-zlib.img
	mkfs.ubifs $G -x favor_lzo -r tree corpus/plain-favor.img
	mkfs.ubifs $G -r tree --hash-algo=sha256 --auth-key=key.pem \
		--auth-cert=cert.pem corpus/signed.img
	printf '[ubifs]\nmode=ubi\nimage=corpus/signed.img\nvol_id=0\nvol_type=dynamic\nvol_name=fs\n' >ubi.cfg
	ubinize -o corpus/signed.ubi -m 8 -p 16KiB ubi.cfg
	# PEBs out of order, as in a flash dump.
	n=$(($(stat -c %s corpus/signed.ubi) / 16384))
	for ((i = n - 1; i >= 0; i--)); do
		dd if=corpus/signed.ubi bs=16384 skip=$i count=1 2>/dev/null
	done >corpus/reversed.ubi
	# Several UBIFS volumes, named in the volume table: the signed one
	# and an unsigned decoy, as a flash dump may hold them.
	printf '[rootfs]\nmode=ubi\nimage=corpus/plain.img\nvol_id=1\nvol_type=dynamic\nvol_name=rootfs\n' >>ubi.cfg
	ubinize -o corpus/two.ubi -m 8 -p 16KiB ubi.cfg
fi
limit=(-max_total_time="$secs")
[ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
./ubifs-fuzz -max_len=600000 "${limit[@]}" -print_final_stats=1 \
	-rss_limit_mb=2048 corpus 2>&1 | tail -n 25
