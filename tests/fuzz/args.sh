# The arguments of the libFuzzer run scripts that take RUNS and SAN
# (sourced after `set -eu`, with the script's own "$@"): sets runs,
# sanflags, out and srcarch (the arch folder as the Makefile picks it),
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
srcarch=${SRCARCH:-$(uname -m | sed 's/^x86_64$/x86/')}
