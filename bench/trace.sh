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
# the untraced loop, and the overhead per call in CPU time (the probe's
# cost is the workload's, in its context; the wall clock is the shared
# machine's).  A tool's own CPU is its user + sys with the children it
# waited for (bash's time), less the workload's own (getrusage in the
# workload): for record, the CPU of probe -a, record, report and probe
# -d.  The three tables must be the same lines (sorted: bpftrace orders
# ties as its hash table does).
#
# Streaming: `tracekit trace -e syscalls:sys_enter_read -f 'fd == 0 &&
# count == 1' -- dd bs=1 count=N ...`, whose events are exactly dd's N
# one-byte reads of its standard input (the fd leaves out the one-byte
# read on a pipe by which tracekit's child waits before it execs).  dd
# runs under a bash that says dd's CPU time and its own (`times`), which
# are taken off the tool's; each tool writes to a file whose event lines
# are counted after, against N: the events lost.  Buffers of BENCH_BUF_KB
# per CPU (default 1410, the kernel's) for all.
#  - On the host, against `tracekit record` of the same (N is
#    BENCH_HOST_READS, default 200000, dd pinned to CPU 1): trace-cmd
#    stream cannot run here, this kernel refuses the writes to
#    ftrace_enabled and set_ftrace_filter that it makes first ("Can't
#    enable ftrace").
#  - In the VM guest (tests/vm/run.sh, one CPU, TCG), against
#    `trace-cmd stream ... -F -c` (N is BENCH_READS, default 20000).
#    The guest is slow, but both tools run the same load in it: their
#    ratio is what is compared.
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
HOST_READS=${BENCH_HOST_READS:-200000}
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
	echo "the workload's loop: wall and CPU, slowdown against untraced, CPU overhead per call (wall is the shared machine's); the tool's own CPU s"
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
		       ($3 - $6) / calls * 1e6, $4
		us[$1] = ($3 - $6) / calls * 1e6
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

# The streaming runs, by bash on the host or in the guest: prints
# "BENCH TOOL RUN CPU_S EVENTS" lines.  Each tool runs dd as its
# COMMAND, under a bash that writes the CPU time of dd and of itself
# (`times`): the tool's own is its time, children waited for included,
# less that.  The tool writes to a file, its events counted after.
streamer=$(cat <<'EOF'
set -u
cd "$DIR" || exit
TIMEFORMAT='%3U %3S'
# The seconds of `times`' "XmY.YYYs" fields, summed.
seconds() {
	awk '{ for (i = 1; i <= NF; i++) { split($i, a, /[ms]/);
		t += a[1] * 60 + a[2] } } END { printf "%.3f", t }' "$1"
}
stream() {
	local tool=$1 run=$2 cmd
	case $tool in
	trace) cmd=("$TRACEKIT" trace) ;;
	record) cmd=("$TRACEKIT" record -q -o rec.dat) ;;
	stream) cmd=(trace-cmd stream) ;;
	esac
	cmd+=(-b "$BUF_KB" -e syscalls:sys_enter_read -f "$FILTER")
	# trace-cmd: -F the command, -c its children (dd), as ours by default.
	[ "$tool" = stream ] && cmd+=(-F -c) || cmd+=(--)
	rm -f out rec.dat wl
	# shellcheck disable=SC2086,SC2016
	{ time "${cmd[@]}" $PIN bash -c 'dd if=/dev/zero of=/dev/null bs=1 \
		count="$1" 2>/dev/null; times >wl' sh "$READS" >out \
		2>"log.$tool.$run"; } 2>cpu
	[ "$tool" = record ] && "$TRACEKIT" report rec.dat >out
	echo "BENCH $tool $run $(awk -v wl="$(seconds wl)" '
		{ u = $1; s = $2 } END { printf "%.3f", u + s - wl }' cpu)" \
		"$(grep -c 'sys_enter_read:' out)"
}
i=1
while [ $i -le "$RUNS" ]; do
	for t in $TOOLS; do
		stream "$t" $i
	done
	i=$((i + 1))
done
EOF
)

# stream_table WHERE OUTPUT READS TOOL_A TOOL_B: the medians of each, and
# the ratio of A to B.
stream_table() {
	local where=$1 out=$2 reads=$3 a=$4 b=$5 t
	grep -q "^BENCH $b " "$out" ||
		{ cat "$out" >&2; fail "no results $where"; }
	for t in "$a" "$b"; do
		awk -v t="$t" '$1 == "BENCH" && $2 == t { print $4, $5,
			$5 ? $4 / $5 * 1e6 : 0 }' "$out" >"$TMP/$t.stream"
	done
	echo "streaming $where: syscalls:sys_enter_read of dd bs=1 count=$reads, -f '$FILTER', buffer $BUF_KB KB/CPU; median of $RUNS runs"
	printf "%-24s %9s %9s %9s %9s\n" "" "events" "lost" "cpu s" "us/event"
	for t in "$a" "$b"; do
		echo "$t $(median "$TMP/$t.stream" 2) $(median "$TMP/$t.stream" 1)" \
			"$(median "$TMP/$t.stream" 3)"
	done | awk -v reads="$reads" -v a="$a" -v b="$b" '
	BEGIN {
		name["trace"] = "tracekit trace"
		name["record"] = "tracekit record"
		name["stream"] = "trace-cmd stream"
	}
	{
		printf "%-24s %9d %9d %9.3f %9.2f\n", name[$1], $2, reads - $2,
		       $3, $4
		us[$1] = $4
		lost[$1] = reads - $2
	}
	END {
		r = us[b] ? us[a] / us[b] : 0
		printf "ratio %s/%s: cpu per event %.2f\n", a, b, r
		if (b != "stream")
			exit
		printf "goal: cpu per event <= 0.5x trace-cmd stream'"'"'s: %.2f, %s\n",
		       r, r && r <= 0.5 ? "met" : "NOT met"
		met = lost[a] <= 0 || lost[b] > 0
		printf "goal: no loss where trace-cmd loses none: %s\n",
		       met ? "met" : "NOT met"
	}'
}

FILTER='fd == 0 && count == 1'

# On the host, trace against record: the same events, the same buffer.
host_streaming() {
	mkdir "$TMP/stream"
	env DIR="$TMP/stream" TRACEKIT="$TRACEKIT" READS="$HOST_READS" \
		BUF_KB="$BUF_KB" RUNS="$RUNS" FILTER="$FILTER" \
		PIN="taskset -c 1" TOOLS="trace record" bash -c "$streamer" \
		>"$TMP/host" 2>&1 || { cat "$TMP/host" >&2; fail "streaming failed"; }
	stream_table "on the host (dd on CPU 1)" "$TMP/host" "$HOST_READS" \
		trace record
}

guest_streaming() {
	"$src/tests/vm/run.sh" --tracekit "$TRACEKIT" --bin trace-cmd --smp 1 \
		--timeout 900 -- env DIR=/tmp TRACEKIT=tracekit READS="$READS" \
		BUF_KB="$BUF_KB" RUNS="$RUNS" FILTER="$FILTER" PIN= \
		TOOLS="trace stream" bash -c "$streamer" >"$TMP/vm" 2>&1 ||
		{ cat "$TMP/vm" >&2; fail "the guest failed"; }
	stream_table "in the guest (1 CPU, TCG)" "$TMP/vm" "$READS" trace stream
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
echo
host_streaming
snapshot >"$TMP/after"
diff "$TMP/before" "$TMP/after" >&2 || fail "tracefs is not as it was found"
echo "tracefs: as found"
exec 9>&-
echo
guest_streaming
