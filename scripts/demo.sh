#!/bin/bash
# `make demo`: what tracekit is for, as a short tutorial.  It builds the
# small program scripts/demo-prog.c, probes it by source-level names
# (struct members through a pointer, an array, strings), records it and
# reports the events as text and JSON; records its call stacks and
# writes them as a flame graph, whose path it prints at the end; and,
# where the kernel has kprobes and BTF, probes the kernel with the
# example of the Linux 4.20 merge that brought arrays to kprobe events.
# Each command is printed before it runs.  The probes it defined and its
# files are removed on exit, on error and on Ctrl-C or SIGTERM; the
# probes that were there before are left alone.
#
#   scripts/demo.sh [TRACEKIT]
#
# The files go to a folder from mktemp (under $TMPDIR, else /tmp).
set -eu
tk=$(realpath "${1:-./tracekit}")
prog=$(cd "$(dirname "$0")" && pwd)/demo-prog.c
# The events this demo defines; none may exist before it starts.
user_ev=probe_shop:ship
stack_ev=probe_shop_O2:ship
kernel_ev=probe:ip_rcv

probes=()
tmp=
svg=
finished=
cleanup() {
	local e

	for e in "${probes[@]}"; do
		"$tk" probe -d "$e" >/dev/null 2>&1 || true
	done
	[ -z "$tmp" ] || rm -rf "$tmp"
	[ -n "$finished" ] || [ -z "$svg" ] || rm -f "$svg"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The commands as a reader would type them.
tracekit() {
	"$tk" "$@"
}

# say LINE...: what the next commands show.
say() {
	echo
	printf '# %s\n' "$@"
}

# run COMMAND-LINE: print it, then run it.
run() {
	printf '$ %s\n' "$1"
	eval "$1"
}

# define EVENT COMMAND-LINE: run a command that adds EVENT, deleted at exit.
define() {
	probes+=("$1")
	run "$2"
}

caps=$("$tk" test --caps)
cap() {
	sed -n "s/^$1=//p" <<<"$caps"
}
if [ "$(cap uprobes)" != 1 ]; then
	echo "demo: this kernel has no uprobe_events (tracekit test --caps: uprobes=0)" >&2
	exit 3
fi
for e in "$user_ev" "$stack_ev" "$kernel_ev"; do
	if [ -n "$("$tk" probe -l "$e")" ]; then
		echo "demo: the probe $e exists already; delete it (tracekit probe -d $e) first" >&2
		exit 1
	fi
done

tmp=$(mktemp -d -t tracekit-demo.XXXXXX)
svg=$(mktemp -t --suffix=.svg tracekit-demo.XXXXXX)
cp "$prog" "$tmp/demo-prog.c"
cd "$tmp"
echo "# in $tmp"

say "A program with a struct, a pointer to another, an array and strings" \
    "(scripts/demo-prog.c), built with and without optimization."
run "gcc -g -O0 -o shop demo-prog.c"
run "gcc -g -O2 -o shop_O2 demo-prog.c"

say "Probe ship(const struct order *o) by the names in its source: the" \
    "DWARF gives each one's place and type.  -D shows the definition."
spec='ship o->number customer=o->customer->name:string o->customer->id o->items o->city:string'
run "tracekit probe -x shop -D '$spec'"
define "$user_ev" "tracekit probe -x shop '$spec'"

say "Record it while the program runs; the program prints what it passes."
run "tracekit record -q -e $user_ev -o shop.dat -- ./shop"
run "tracekit report shop.dat"
run "tracekit report --format json shop.dat | head -n 2"

say "The call stacks of the -O2 build, which has no frame pointers: the" \
    "probe copies the registers and the stack, report unwinds them by the" \
    "binary's DWARF call frame information."
define "$stack_ev" "tracekit probe -x shop_O2 --call-graph 'ship o->number'"
run "tracekit record -q --proc-map -e $stack_ev -o stacks.dat -- ./shop_O2"
run "tracekit report --format folded stacks.dat"
run "tracekit report --flamegraph $svg stacks.dat"

say "The kernel, from its BTF: the array example of the Linux 4.20 merge."
if [ "$(cap btf)" != 1 ]; then
	echo "skipped: this kernel has no BTF (tracekit test --caps: btf=0)"
else
	run "tracekit probe -D 'ip_rcv dev->perm_addr:x8[6]'"
	if [ "$(cap kprobes)" != 1 ]; then
		echo "not recorded: this kernel has no kprobe_events (tracekit test --caps: kprobes=0)"
	else
		define "$kernel_ev" "tracekit probe 'ip_rcv dev->perm_addr:x8[6]'"
		say "A second of it, while connections to 127.0.0.1 come and go."
		run "(for i in 1 2 3 4 5 6; do : 2>/dev/null </dev/tcp/127.0.0.1/9; sleep 0.2; done) &"
		run "tracekit record -q -e $kernel_ev --duration 1 -o net.dat"
		wait
		run "tracekit report net.dat | head -n 6"
	fi
fi

finished=1
say "The flame graph, to open in a web browser: $svg"
