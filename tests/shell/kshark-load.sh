#!/bin/bash
# description: KernelShark's loader (libkshark 2.2.1) reads tracekit record files: entries per CPU, task names, uprobe arrays and strings
# A client of the file format that is not trace-cmd: kshark-load.c, built
# here against Debian's libkshark-dev, opens the file with kshark_open()
# and loads it with kshark_load_entries(), as the KernelShark GUI does.
# It must find the events tracekit report --stat counts on each CPU, the
# tasks (pid and name) of tracekit report's events, and, for a uprobe
# with an unsigned char[6] array and a string, the text tracekit report
# prints after the event name.
. "$(dirname "$0")/lib/common.sh"

need_tracefs
need_cap instances "this tracefs has no instances"
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc trace-cmd jq
# pkg-config builds tracekit itself (scripts/deps.sh --build).
pkg-config --exists libkshark ||
	fail "pkg-config: no libkshark (scripts/deps.sh installs libkshark-dev and what its .pc requires)"
here=$(dirname "$0")
# -isystem: libkshark.h itself is not -Wextra clean.
gcc -Wall -Wextra -Werror -o "$TK_TMP/kshark-load" "$here/kshark-load.c" \
	$(pkg-config --cflags libkshark | sed 's/-I/-isystem /g') \
	$(pkg-config --libs libkshark) || fail "cannot build kshark-load.c"

# compare FILE [SYSTEM/EVENT]
compare() {
	local f=$1 ev=${2:-}
	"$TK_TMP/kshark-load" "$f" ${ev:+"$ev"} >"$TK_TMP/ks" || fail "libkshark cannot load $f"
	# CPUs without events: --stat names only the CPUs the file has data for.
	sed -n 's/^cpu \([0-9]*\) \([1-9][0-9]*\)$/\1 \2/p' "$TK_TMP/ks" >"$TK_TMP/ks.cpu"
	"$TRACEKIT" report --stat "$f" >"$TK_TMP/stat" || fail "report --stat $f failed"
	sed -n 's/^  CPU \([0-9]*\): \([1-9][0-9]*\) events.*/\1 \2/p' "$TK_TMP/stat" >"$TK_TMP/tk.cpu"
	[ -s "$TK_TMP/tk.cpu" ] || { cat "$TK_TMP/stat"; fail "$f: no events"; }
	diff -u "$TK_TMP/tk.cpu" "$TK_TMP/ks.cpu" || fail "$f: entries per CPU differ (-tracekit +libkshark)"
	sed -n 's/^task //p' "$TK_TMP/ks" | sort -u >"$TK_TMP/ks.task"
	# A task missing from the file's saved cmdlines (one that ran by
	# chance next to the traced ones) is "<...>" to libkshark, which
	# names tasks from those alone.  tracekit report, as trace-cmd
	# report, also learns its name from the sched_switch and
	# sched_wakeup events it prints (libtraceevent's sched_switch
	# plugin), from then on: there only the pid is compared.
	# A task that exec'd while recorded has its old name before the
	# exec and its new one after, and which of them a tool shows depends
	# on which event it saw last (libkshark: the saved cmdlines, taken
	# at the end): there too only the pid is compared.
	"$TRACEKIT" report --format json "$f" >"$TK_TMP/json" || fail "report --format json $f"
	jq -r 'select(.event == "sched_process_exec") | .pid' "$TK_TMP/json" | sort -u >"$TK_TMP/exec"
	# names: the "PID COMM" lines of stdin with those names put aside.
	names() {
		awk 'FILENAME == ARGV[1] { exec[$1] = 1; next }
		     FILENAME == ARGV[2] { if ($2 == "<...>") unnamed[$1] = 1; next }
		     { print ($1 in exec) ? $1 " (exec)" : ($1 in unnamed) ? $1 " <...>" : $0 }' \
			"$TK_TMP/exec" "$TK_TMP/ks.task" - | sort -u
	}
	jq -r '"\(.pid) \(.comm)"' "$TK_TMP/json" >"$TK_TMP/tk.task"
	diff -u <(names <"$TK_TMP/tk.task") <(names <"$TK_TMP/ks.task") ||
		fail "$f: tasks differ (-tracekit +libkshark)"
	[ -n "$ev" ] || return 0
	sed -n 's/^info //p' "$TK_TMP/ks" >"$TK_TMP/ks.info"
	"$TRACEKIT" report -e "$ev" "$f" | sed -n "s/^.*: ${ev#*/}: *//p" >"$TK_TMP/tk.info"
	[ -s "$TK_TMP/tk.info" ] || fail "$f: no $ev event"
	diff -u "$TK_TMP/tk.info" "$TK_TMP/ks.info" || fail "$f: $ev differs (-tracekit +libkshark)"
}

# sched events of a command and its children, on every CPU.
"$TRACEKIT" record -q -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_process_exec \
	-o "$TK_TMP/sched.dat" -- sh -c 'for c in 0 1; do taskset -c $c ls / >/dev/null; done; sleep 0.05' \
	2>"$TK_TMP/rec" || { cat "$TK_TMP/rec"; fail "record sched failed"; }
compare "$TK_TMP/sched.dat" sched/sched_process_exec

# A uprobe with an array (unsigned char mac[6]: x8[6]) and a string.
gcc -g -O0 -o "$TK_TMP/tkks" "$here/probe-target.c" || fail "gcc probe-target.c failed"
group=probe_tkks
on_exit "'$TRACEKIT' probe -d '$group:*'"
"$TRACEKIT" probe -x "$TK_TMP/tkks" -a 'ip_rcv len=skb->len mac=skb->dev->mac who:string' \
	>"$TK_TMP/add" 2>&1 || { cat "$TK_TMP/add"; fail "probe -a failed"; }
grep -q "^p:$group/ip_rcv .*:x8\\[6\\] .*:u\\?string$" "$TRACEFS/uprobe_events" ||
	{ cat "$TRACEFS/uprobe_events"; fail "the probe has no x8[6] array and no string"; }
"$TRACEKIT" record -q -e "$group:*" -o "$TK_TMP/uprobe.dat" -- "$TK_TMP/tkks" \
	>"$TK_TMP/prog" 2>"$TK_TMP/rec" || { cat "$TK_TMP/rec"; fail "record the uprobe failed"; }
compare "$TK_TMP/uprobe.dat" "$group/ip_rcv"
grep -q 'mac={' "$TK_TMP/ks.info" || { cat "$TK_TMP/ks.info"; fail "libkshark printed no array"; }
assert_eq "the MAC tracekit report prints" "$(grep -o 'mac={[^}]*}' "$TK_TMP/tk.info")" \
	"$(sed -n 's/^EXPECT ip_rcv: .*\(mac={[^}]*}\).*/\1/p' "$TK_TMP/prog")"
exit 0
