# Sourced by the tests that compare tracekit's tables with bpftrace 0.17's.

# bpftrace_stop PID...: SIGINT, on which bpftrace prints its maps and
# exits; fails the test where one does not exit, or exits non-zero.
# bpftrace 0.17 now and then misses a SIGINT that comes soon after it
# attached, and waits on: each second it has not exited it is asked
# again (as one presses Ctrl-C again), for 30 s.
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
