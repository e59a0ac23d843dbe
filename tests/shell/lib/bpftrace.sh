# Sourced by the tests that compare tracekit's tables with bpftrace 0.17's.

# bpftrace_stop PID...: SIGINT, on which bpftrace prints its maps and
# exits; fails the test where one does not exit, or exits non-zero.
# bpftrace 0.17 now and then misses a SIGINT that comes soon after it
# attached, and waits on: each second it has not exited it is asked
# again (as one presses Ctrl-C again), for 30 s.
# bpftrace_misses PID...: how many times the kernel skipped the BPF
# programs of these bpftrace processes because another BPF program was
# running on the CPU (bpf_prog_active: recursion_misses in the fdinfo of
# each program, since 5.12): events the ring buffer has and they lack.
bpftrace_misses() {
	local p f n=0 m
	for p in "$@"; do
		for f in /proc/"$p"/fdinfo/*; do
			m=$(sed -n 's/^recursion_misses:[[:space:]]*//p' "$f" 2>/dev/null)
			n=$((n + ${m:-0}))
		done
	done
	echo "$n"
}

bpftrace_stop() {
	local p t
	for p in "$@"; do
		kill -INT "$p"
	done
	for p in "$@"; do
		for ((t = 1; t <= 300; t++)); do
			kill -0 "$p" 2>/dev/null || break
			((t % 10)) || kill -INT "$p" 2>/dev/null
			sleep 0.1
		done
		kill -0 "$p" 2>/dev/null &&
			fail "bpftrace $p did not exit at SIGINT"
		wait "$p" || fail "bpftrace $p exited $?"
	done
}

# bpftrace_start NAME [OPTION...] -e PROGRAM: bpftrace in the background,
# its output in $TK_TMP/bt.NAME and its errors in bt.NAME.err; its pid
# goes in BT_PIDS, NAME in BT_NAMES, and it is killed at the end.
BT_PIDS=()
BT_NAMES=()
bpftrace_start() {
	local name=$1
	shift
	bpftrace "$@" >"$TK_TMP/bt.$name" 2>"$TK_TMP/bt.$name.err" &
	BT_PIDS+=($!)
	BT_NAMES+=("$name")
	on_exit "kill $!"
}

# bpftrace_wait: until each bpftrace_start() has said it attached (text
# or JSON), 60 s at most; one that exits fails the test.
bpftrace_wait() {
	local t i n
	for ((t = 0; t < 600; t++)); do
		n=0
		for ((i = 0; i < ${#BT_PIDS[@]}; i++)); do
			grep -qsE '^Attaching |"attached_probes"' \
				"$TK_TMP/bt.${BT_NAMES[i]}" && n=$((n + 1))
			kill -0 "${BT_PIDS[i]}" 2>/dev/null ||
				{ cat "$TK_TMP/bt.${BT_NAMES[i]}.err"
				  fail "bpftrace ${BT_NAMES[i]} exited"; }
		done
		[ "$n" = ${#BT_PIDS[@]} ] && return 0
		sleep 0.1
	done
	fail "bpftrace did not attach in 60 s"
}
