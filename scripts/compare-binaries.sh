#!/bin/bash
# compare-binaries.sh OLD NEW [TEST...]: for a change that must not change
# what tracekit prints (a refactor), runs the test suite with NEW (or the
# tests named, as `tracekit test` takes them), and at each invocation of
# tracekit that a test makes and that changes nothing (report, probe's
# definitions and listings, ubifs verify, help, usage errors, test --list
# and --caps), runs OLD too, with the same arguments, working directory
# and environment (and no input, which no command reads), and compares
# stdout, stderr and exit status byte for byte.  The tests' shell scripts
# reach tracekit through $TRACEKIT, which the runner leaves alone when
# set: it names a wrapper here.
#
# Invocations that change things (record, probe's add and delete, stack,
# ubifs sign and extract) run NEW alone: running them twice would change
# what the second run sees.  OLD runs first, so that what a compared
# invocation leaves behind (report --flamegraph's file) is NEW's.  The C
# tests call util/ directly and are not compared; neither is what runs
# inside the VM guest (the guest has only NEW): a test that boots the
# guest with $TRACEKIT (need_vm_host) takes the wrapper there, where it
# cannot run, and is to be left out.  A test that reads
# $TRACEKIT as an ELF file (the exit-code test probes it) fails here, and
# one that counts invocations may: compare its invocations by hand.
#
# Prints each difference and a count; exit 0 when there is none, 1 when
# there is, 2 on a usage error.  The suite's own verdicts are printed as
# usual: a test that fails here fails with NEW alone too.
set -u

if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
	echo "usage: scripts/compare-binaries.sh OLD NEW [TEST...]" >&2
	echo "(OLD and NEW: built tracekit binaries, e.g. OLD from a" \
	     "worktree of the commit before the change)" >&2
	exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
shift 2

work=$(mktemp -d /tmp/tkcompare.XXXXXX)
# Tests run tracekit as another user too (ubifs extract).
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
mkdir "$work/runs"

cat >"$work/tracekit" <<'EOF'
#!/bin/bash
# Run by the tests as $TRACEKIT: see scripts/compare-binaries.sh.
pure=0
cmd=
for a in "$@"; do
	case $a in -h|--help) pure=1 ;; esac
done
for a in "$@"; do
	case $a in -*) ;; *) cmd=$a; break ;; esac
done
has() {
	local a w
	for a in "${@:2}"; do
		for w in $1; do
			case $a in "$w"|"$w"=*) return 0 ;; esac
		done
	done
	return 1
}
case $cmd in
"" | help) pure=1 ;;
report) pure=1 ;;
probe)
	if has "-D --definition -V --vars -L --line -F --funcs -l --list --sdt" "$@" &&
	   ! has "-a --add -d --del" "$@"; then
		pure=1
	fi ;;
ubifs)
	has "sign extract" "$@" || pure=1 ;;
test)
	has "-l --list --caps" "$@" && pure=1 ;;
record | stack) ;;
*) pure=1 ;;	# a mistyped command: the usage error
esac
# A write error is provoked with /dev/full, which a copy would hide.
[ "$(readlink /proc/$$/fd/1)" = /dev/full ] && pure=0
[ $pure = 1 ] || exec "$TK_COMPARE_NEW" "$@"

run=$(mktemp -d "$TK_COMPARE_DIR/runs/XXXXXX")
# No command reads its standard input, which is the caller's to keep (a
# loop reading specs): both runs get none.
"$TK_COMPARE_OLD" "$@" </dev/null >"$run/old.out" 2>"$run/old.err"
echo $? >"$run/old.rc"
"$TK_COMPARE_NEW" "$@" </dev/null >"$run/new.out" 2>"$run/new.err"
rc=$?
echo $rc >"$run/new.rc"
printf '%q ' "$@" >"$run/args"
pwd >"$run/cwd"
cat "$run/new.out"
cat "$run/new.err" >&2
exit $rc
EOF
chmod +x "$work/tracekit"

TK_COMPARE_OLD=$old TK_COMPARE_NEW=$new TK_COMPARE_DIR=$work \
TRACEKIT=$work/tracekit "$new" test "$@"
echo "test suite exit status: $?"

n=0
diffs=0
for r in "$work"/runs/*/; do
	[ -f "$r/new.rc" ] || continue
	n=$((n + 1))
	same=1
	for f in out err rc; do
		cmp -s "$r/old.$f" "$r/new.$f" || same=0
	done
	[ $same = 1 ] && continue
	diffs=$((diffs + 1))
	echo "DIFFERS: (cd $(cat "$r/cwd") && tracekit $(cat "$r/args"))"
	for f in out err rc; do
		diff -u --label "old $f" --label "new $f" "$r/old.$f" "$r/new.$f" |
			head -20
	done
done
echo "$n invocations compared, $diffs differ"
[ $diffs = 0 ]
