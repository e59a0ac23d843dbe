# The arguments of the libFuzzer run scripts that take RUNS and SAN
# (sourced after `set -eu`, with the script's own "$@"): sets runs,
# sanflags and out,
# defines fuzz_build and tracedat_srcs,
# leaves in "$@" the arguments for libFuzzer, and moves to the top of
# the tree.
#   [SAN=asan|ubsan] SCRIPT [RUNS] [-- LIBFUZZER_ARGS...]
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs=${1:-1000000}
shift || true
[ "${1:-}" = "--" ] && shift
san=${SAN:-asan}
case $san in
asan) sanflags=fuzzer,address,undefined ;;
ubsan) sanflags=fuzzer,undefined ;;
*) echo "SAN must be asan or ubsan" >&2; exit 2 ;;
esac
out=build/fuzz-$san

# The files of the trace.dat reader (util/tracedat-read and its merge).
tracedat_srcs="util/tracedat-read.c util/tracedat-format.c
	util/tracedat-events.c util/tracedat-kallsyms.c util/tracedat-options.c
	util/tracedat-tsync.c util/tracedat-compress.c util/tracedat-info.c
	util/tracedat-merge.c"

# fuzz_build BINARY "PKGS" SOURCE...: BINARY, a libFuzzer program with
# SAN's sanitizers, from the sources, the floor (util/strbuf.c,
# util/usage.c) and the packages' libraries.
fuzz_build() {
	local bin=$1 pkgs=$2

	shift 2
	# shellcheck disable=SC2046,SC2086
	clang -g -O1 -std=gnu11 -D_GNU_SOURCE -I. $(pkg-config --cflags $pkgs) \
		-fsanitize=$sanflags -fno-sanitize-recover=undefined \
		-o "$bin" "$@" util/strbuf.c util/usage.c \
		$(pkg-config --libs $pkgs)
}
