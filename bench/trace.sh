#!/bin/bash
# bench/trace.sh [TRACEKIT]: tracekit trace against bpftrace and
# trace-cmd stream, in one run.
#
# Overhead, on the host: bench/trace-target.c (gcc -O1 -g) calls hit(v)
# BENCH_CALLS times (default 200000: a uprobe hit costs some 14 us of
# the workload's CPU on a VM host, so 1M calls take 15 s a run), run
#   untraced;
#   under `tracekit trace -x BIN 'hit v' --count=v -- BIN`;
#   under `bpftrace -e 'uprobe:BIN:hit { @[arg0] = count(); }' -c BIN`;
#   under `tracekit record` of the same probe (defined by `probe -a`,
#   deleted by `probe -d`), then `tracekit report --count=v`.
# The workload's loop times itself (wall and CPU): its slowdown against
# the untraced loop, and the overhead per call.  A tool's own CPU is its
# user + sys with the children it waited for (bash's time), less the
# workload's own (getrusage in the workload): for record, the CPU of
# probe -a, record, report and probe -d.  The three tables must be the
# same lines (bpftrace orders ties as its hash table does: sorted).
#
# Streaming, in the VM guest (tests/vm/run.sh, one CPU): `tracekit
# trace -e syscalls:sys_enter_read -f 'fd == 0 && count == 1' -- dd ...`
# against `trace-cmd stream` of the same event and filter with -F, on dd
# bs=1 count=BENCH_READS (default 20000): exactly that many reads of one
# byte from its standard input (the fd leaves out the one-byte read on a
# pipe by which tracekit's child waits before it execs dd).  Not on the
# host: its kernel refuses the writes to ftrace_enabled and
# set_ftrace_filter that trace-cmd stream makes first ("Can't enable
# ftrace").  Both print into a pipe that counts their event lines,
# against the known number of reads: the events lost.  CPU is the
# tool's alone (bash's time of it, not of the counting), per event
# printed.  Buffers of BENCH_BUF_KB per CPU for both (default 1410, the
# kernel's).  Under TCG the guest is slow, but both tools run the same
# load in it: their ratio is what is compared.
#
# BENCH_RUNS (default 3) runs of each, alternating; the median of each
# column.  The host part holds the test runner's tracefs lock, and
# checks that tracefs is left as it was found (the files the runner
# watches, the instances).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
TRACEKIT=$(realpath "${1:-$src/tracekit}")
CALLS=${BENCH_CALLS:-200000}
READS=${BENCH_READS:-20000}
BUF_KB=${BENCH_BUF_KB:-1410}
RUNS=${BENCH_RUNS:-3}
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$T" ] || { echo "bench/trace.sh: tracefs is not mounted" >&2; exit 3; }
for c in gcc bpftrace trace-cmd flock; do
	command -v $c >/dev/null ||
		{ echo "bench/trace.sh: needs $c" >&2; exit 3; }
done
TMP=$(mktemp -d /tmp/tkbench.XXXXXX)
GROUP=tkbench_$$
BIN=$TMP/trace-target

cleanup() {
	grep -q "^[pr]:$GROUP/" "$T/uprobe_events" 2>/dev/null &&
		"$TRACEKIT" probe -d "$GROUP:*" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What the test runner checks for residue (tests/runner.c).
snapshot() {
	local f
	for f in tracing_on current_tracer set_event set_event_pid \
		uprobe_events kprobe_events trace_clock buffer_size_kb \
		trace_options stack_trace_filter tracing_cpumask; do
		echo "$f:"
		cat "$T/$f" 2>/dev/null || true
	done
	echo "instances:"
	ls "$T/instances"
}

fail() {
	echo "bench/trace.sh: $*" >&2
	exit 1
}

# target_times NAME: the loop's "wall cpu process_cpu" of the last run.
target_times() {
	[ -s "$TMP/wl" ] || fail "$1: the workload wrote no times"
	cat "$TMP/wl"
}

# timed FILE CMD...: CMD, its user and sys seconds (with the children it
# waited for) into FILE; bash's time, to the ms (GNU time's are 10 ms).
timed() {
	local f=$1 TIMEFORMAT='%3U %3S'
	shift
	{ time "$@" 2>&3; } 3>&2 2>"$f"
}

# tool_cpu: user + sys of the last timed run, less the workload's.
tool_cpu() {
	awk -v w="$(cut -d' ' -f3 "$TMP/wl")" '{ printf "%.3f", $1 + $2 - w }' \
		"$TMP/time"
}

# The table's entries, one per line, sorted.
entries() {
	grep '^@' "$1" | sort
}

untraced() {
	rm -f "$TMP/wl"
	"$BIN" "$CALLS" "$TMP/wl"
	echo "$(target_times untraced) 0"
}

ours() {
	rm -f "$TMP/wl"
	timed "$TMP/time" "$TRACEKIT" trace -x "$BIN" \
		'hit v' --count=v -- "$BIN" "$CALLS" "$TMP/wl" \
		>"$TMP/table.trace" 2>"$TMP/log" ||
		{ cat "$TMP/log" >&2; fail "tracekit trace failed"; }
	echo "$(target_times trace) $(tool_cpu)"
}

peer() {
	rm -f "$TMP/wl"
	timed "$TMP/time" bpftrace \
		-e "uprobe:$BIN:hit { @[arg0] = count(); }" \
		-c "$BIN $CALLS $TMP/wl" >"$TMP/table.bpftrace" 2>"$TMP/log" ||
		{ cat "$TMP/log" >&2; fail "bpftrace failed"; }
	echo "$(target_times bpftrace) $(tool_cpu)"
}

# record: probe -a, record, report --count=v, probe -d; the CPU of all.
offline() {
	local c
	rm -f "$TMP/wl"
	timed "$TMP/time.a" "$TRACEKIT" probe \
		-x "$BIN" -a "$GROUP:hit=hit v" >"$TMP/log" 2>&1 ||
		{ cat "$TMP/log" >&2; fail "probe -a failed"; }
	timed "$TMP/time" "$TRACEKIT" record -q \
		-e "$GROUP:hit" -o "$TMP/rec.dat" -- "$BIN" "$CALLS" "$TMP/wl" \
		>"$TMP/log" 2>&1 || { cat "$TMP/log" >&2; fail "record failed"; }
	c=$(tool_cpu)
	timed "$TMP/time.r" "$TRACEKIT" report \
		--count=v "$TMP/rec.dat" >"$TMP/table.record" 2>"$TMP/log" ||
		{ cat "$TMP/log" >&2; fail "report failed"; }
	timed "$TMP/time.d" "$TRACEKIT" probe \
		-d "$GROUP:*" >"$TMP/log" 2>&1 ||
		{ cat "$TMP/log" >&2; fail "probe -d failed"; }
	echo "$(target_times record) $(cat "$TMP/time.a" "$TMP/time.r" \
		"$TMP/time.d" | awk -v c="$c" '{ c += $1 + $2 }
		END { printf "%.3f", c }') $(awk '{ printf "%.3f", $1 + $2 }' \
		"$TMP/time.r")"
	rm -f "$TMP/rec.dat"
}

# median FILE COLUMN
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'
}

overhead() {
	local run v want
	gcc -O1 -g -o "$BIN" "$src/bench/trace-target.c" ||
		fail "gcc failed"
	for ((run = 1; run <= RUNS; run++)); do
		untraced >>"$TMP/untraced.runs"
		ours >>"$TMP/trace.runs"
		peer >>"$TMP/bpftrace.runs"
		offline >>"$TMP/record.runs"
		# Every call counted, and the same table by each.
		want=$(entries "$TMP/table.bpftrace")
		[ "$(echo "$want" | awk -F': ' '{ n += $2 } END { print n }')" = \
		  "$CALLS" ] || fail "bpftrace did not count $CALLS calls"
		for v in trace record; do
			[ "$(entries "$TMP/table.$v")" = "$want" ] || {
				diff <(echo "$want") <(entries "$TMP/table.$v") >&2
				fail "$v's table differs from bpftrace's"
			}
		done
	done
	echo "overhead: $CALLS calls of a uprobed function (gcc -O1 -g); median of $RUNS runs"
	echo "the workload's loop: wall and CPU, slowdown against untraced, overhead per call; the tool's own CPU"
	printf "%-24s %9s %9s %9s %9s %9s %9s\n" "" "wall ms" "cpu ms" \
		"x wall" "x cpu" "us/call" "tool cpu"
	for v in untraced trace bpftrace record; do
		echo "$v $(median "$TMP/$v.runs" 1) $(median "$TMP/$v.runs" 2)" \
			"$(median "$TMP/$v.runs" 4) $(median "$TMP/untraced.runs" 1)" \
			"$(median "$TMP/untraced.runs" 2)"
	done | awk -v calls="$CALLS" '
	BEGIN {
		name["untraced"] = "untraced"
		name["trace"] = "tracekit trace --count"
		name["bpftrace"] = "bpftrace count()"
		name["record"] = "record + report --count"
	}
	{
		printf "%-24s %9.3f %9.3f %9.0f %9.0f %9.2f %9.3f\n", name[$1],
		       $2 * 1e3, $3 * 1e3, $5 ? $2 / $5 : 0, $6 ? $3 / $6 : 0,
		       ($2 - $5) / calls * 1e6, $4
		us[$1] = ($2 - $5) / calls * 1e6
		cpu[$1] = $4
	}
	END {
		printf "ratio trace/bpftrace: overhead per call %.2f, tool cpu %.2f\n",
		       us["bpftrace"] ? us["trace"] / us["bpftrace"] : 0,
		       cpu["bpftrace"] ? cpu["trace"] / cpu["bpftrace"] : 0
		printf "ratio trace/(record + report): tool cpu %.2f\n",
		       cpu["record"] ? cpu["trace"] / cpu["record"] : 0
		r = us["bpftrace"] ? us["trace"] / us["bpftrace"] : 0
		printf "goal: overhead no more than bpftrace'"'"'s: %.2f, %s\n",
		       r, us["trace"] <= us["bpftrace"] ? "met" : "NOT met"
	}'
	echo "(report's part of record + report: $(median "$TMP/record.runs" 5) s)"
}

# The guest's part: prints "BENCH TOOL RUN CPU_S EVENTS" lines.
guest=$(cat <<'EOF'
set -u
cd /tmp
TIMEFORMAT='%3U %3S'
stream() {
	local tool=$1 run=$2 cmd
	case $tool in
	tracekit) cmd=(tracekit trace -b "$BUF_KB" -e syscalls:sys_enter_read \
		-f "$FILTER" --) ;;
	trace-cmd) cmd=(trace-cmd stream -b "$BUF_KB" \
		-e syscalls:sys_enter_read -f "$FILTER" -F) ;;
	esac
	# The tool's time alone, not the counting's.
	{ time "${cmd[@]}" dd if=/dev/zero of=/dev/null bs=1 count="$READS" \
		2>"/tmp/log.$tool.$run"; } 2>/tmp/time | grep -c 'sys_enter_read:' \
		>/tmp/count
	echo "BENCH $tool $run $(awk '{ printf "%.3f", $1 + $2 }' /tmp/time) $(cat /tmp/count)"
}
i=1
while [ $i -le "$RUNS" ]; do
	stream tracekit $i
	stream trace-cmd $i
	i=$((i + 1))
done
EOF
)

streaming() {
	local out=$TMP/vm
	"$src/tests/vm/run.sh" --tracekit "$TRACEKIT" --bin trace-cmd --smp 1 \
		--timeout 900 -- env READS="$READS" BUF_KB="$BUF_KB" \
		RUNS="$RUNS" FILTER='fd == 0 && count == 1' bash -c "$guest" \
		>"$out" 2>&1 ||
		{ cat "$out" >&2; fail "the guest failed"; }
	grep -q '^BENCH trace-cmd ' "$out" ||
		{ cat "$out" >&2; fail "no results from the guest"; }
	for t in tracekit trace-cmd; do
		awk -v t=$t '$1 == "BENCH" && $2 == t { print $4, $5,
			$5 ? $4 / $5 * 1e6 : 0 }' "$out" >"$TMP/$t.stream"
	done
	echo "streaming, in the guest (1 CPU, TCG): syscalls:sys_enter_read of dd bs=1 count=$READS, buffer $BUF_KB KB/CPU; median of $RUNS runs"
	printf "%-22s %9s %9s %9s %9s\n" "" "events" "lost" "cpu s" "us/event"
	for t in tracekit trace-cmd; do
		echo "$t $(median "$TMP/$t.stream" 2) $(median "$TMP/$t.stream" 1)" \
			"$(median "$TMP/$t.stream" 3)"
	done | awk -v reads="$READS" '
	BEGIN {
		name["tracekit"] = "tracekit trace"
		name["trace-cmd"] = "trace-cmd stream"
	}
	{
		printf "%-22s %9d %9d %9.3f %9.2f\n", name[$1], $2, reads - $2,
		       $3, $4
		us[$1] = $4
		lost[$1] = reads - $2
	}
	END {
		r = us["trace-cmd"] ? us["tracekit"] / us["trace-cmd"] : 0
		printf "ratio trace/stream: cpu per event %.2f\n", r
		printf "goal: cpu per event <= 0.5x trace-cmd stream'"'"'s: %.2f, %s\n",
		       r, r && r <= 0.5 ? "met" : "NOT met"
		met = lost["tracekit"] <= 0 || lost["trace-cmd"] > 0
		printf "goal: no loss where trace-cmd loses none: %s\n",
		       met ? "met" : "NOT met"
	}'
}

[ -d /run/lock ] && {
	exec 9>/run/lock/tracekit-test.lock
	flock -n 9 || {
		echo "bench/trace.sh: waiting for the test runner's tracefs lock" >&2
		flock 9
	}
}
snapshot >"$TMP/before"
overhead
snapshot >"$TMP/after"
diff "$TMP/before" "$TMP/after" >&2 || fail "tracefs is not as it was found"
echo "tracefs: as found"
exec 9>&-
echo
streaming
