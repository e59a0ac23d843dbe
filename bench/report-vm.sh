#!/bin/bash
# bench/report-vm.sh [TRACEKIT]: bench/report.sh run inside the VM guest
# (tests/vm/run.sh), where it records its three files itself: tracekit
# report against trace-cmd report on the guest's kernel, in the same run.
# BENCH_ARCH=arm64 (default x86_64): in the arm64 guest, with the arm64
# build (default build/aarch64/tracekit) and Debian's arm64 trace-cmd
# and GNU time.  BENCH_RUNS (default 2: the guest runs under TCG) is
# passed on, BENCH_SMP (default 1) is the guest's CPUs.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
case ${BENCH_ARCH:-x86_64} in
x86_64) tk=$(realpath "${1:-$src/tracekit}")
	vm=(--bin trace-cmd --bin /usr/bin/time) ;;
arm64)	tk=$(realpath "${1:-$src/build/aarch64/tracekit}")
	vm=(--arch arm64 --suite-tools --deb time) ;;
*)	echo "bench/report-vm.sh: BENCH_ARCH is x86_64 or arm64" >&2; exit 2 ;;
esac
[ -x "$tk" ] || { echo "bench/report-vm.sh: no tracekit at $tk" >&2; exit 2; }
"$src/tests/vm/run.sh" --tracekit "$tk" "${vm[@]}" --smp "${BENCH_SMP:-1}" \
	--file "$src/bench/report.sh" --timeout 3000 -- \
	env BENCH_RUNS="${BENCH_RUNS:-2}" bash /tracekit/files/report.sh /tracekit/tracekit |
	grep -v '^\[ *[0-9.]*\]'
