#!/bin/bash
# description: arm64: files Debian's arm64 trace-cmd records in the arm64 guest (events, function, function_graph) report on this x86 host as this host's trace-cmd report prints them
# tracefs: untouched
# trace-cmd 3.1.6 of Debian's arm64 packages (run.sh --deb, nothing
# installed here) records in the arm64 guest: scheduler, syscall and
# uprobe-free events of a busybox workload, the function tracer and the
# function_graph tracer on vfs_read.  The files come back through the
# console; every report of them by tracekit must equal this host's
# trace-cmd report of the same file, with the options report-ftrace.sh
# uses: a file of the other machine (its page size, its kallsyms, its
# event formats) read as trace-cmd reads it.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arm64.sh"

need_vm_host qemu-system-aarch64 trace-cmd
files=$TK_TMP/files
mkdir -p "$files"
cat >"$files/guest.sh" <<'GUEST'
cd /tmp
rec() {	# NAME TRACE-CMD-RECORD-ARGS...
	local name=$1
	shift
	# 4 MB a CPU: under TCG the recorder lags, and the boot's small
	# buffers would be overwritten before it reads them.
	trace-cmd record -q -b 4096 -o $name.dat "$@" >/dev/null 2>rec.err ||
		{ echo "REFUSED $name: $(cat rec.err)"; return; }
	echo "FILE-BEGIN $name"
	base64 $name.dat
	echo "FILE-END $name"
}
rec events -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_process_exec \
	-e syscalls:sys_enter_openat -e syscalls:sys_exit_read \
	-- sh -c 'cat /proc/version >/dev/null; ls / >/dev/null; sleep 0.1'
rec function -p function -l 'vfs_*' -- cat /proc/version
rec fgraph -p function_graph -g vfs_read -- cat /proc/version
GUEST
set +e
"$VM_RUN" --arch arm64 --timeout 300 --deb trace-cmd --deb libtraceevent1 \
	--deb libtracefs1 --deb libzstd1 --deb libtraceevent1-plugin \
	--file "$files/guest.sh" -- sh /tracekit/files/guest.sh >"$TK_TMP/console" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { tail -n 40 "$TK_TMP/console"; fail "guest exit status $rc"; }
if grep '^REFUSED' "$TK_TMP/console"; then
	fail "trace-cmd record failed in the arm64 guest"
fi
n=0
for name in events function fgraph; do
	f=$TK_TMP/arm64-$name.dat
	guest_file FILE "$name" >"$f" || fail "$name: the file did not come back"
	[ -s "$f" ] || fail "$name: empty file"
	for opts in "" "-N" "-l" "-R"; do
		# shellcheck disable=SC2086
		trace-cmd report $opts "$f" >"$TK_TMP/want" 2>"$TK_TMP/err" ||
			{ cat "$TK_TMP/err"; fail "trace-cmd report $opts $name"; }
		# shellcheck disable=SC2086
		"$TRACEKIT" report $opts "$f" >"$TK_TMP/got" || fail "tracekit report $opts $name"
		diff -u "$TK_TMP/want" "$TK_TMP/got" >"$TK_TMP/diff" ||
			{ head -n 30 "$TK_TMP/diff"; fail "report $opts of arm64's $name differs from trace-cmd's"; }
		n=$((n + 1))
	done
	trace-cmd report "$f" >"$TK_TMP/want"
	# What makes each file worth reading: it is arm64's, and traced.
	case $name in
	events) assert_grep ' sys_enter_openat: ' "$TK_TMP/want"
		assert_grep ' sched_switch: ' "$TK_TMP/want" ;;
	# Which functions land in the graph depends on the run under TCG
	# (at times two entries, at times a nest of them): that it is the
	# tracer's is what the comparison needs.
	function) assert_grep ' function: ' "$TK_TMP/want" ;;
	fgraph) assert_grep ' funcgraph_entry: ' "$TK_TMP/want" ;;
	esac
	trace-cmd dump --summary "$f" 2>&1 | grep -qi 'aarch64\|arm64' ||
		trace-cmd report --uname "$f" 2>/dev/null | grep -q 'arm64\|aarch64' ||
		fail "$name: not an arm64 recording"
done
echo "$n reports of arm64 files equal trace-cmd's"
