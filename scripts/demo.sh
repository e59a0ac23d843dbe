#!/bin/bash
# `make demo`: the main job on a real default.  Once record and report
# exist this records a second of scheduler events and reports them.
set -eu
tk=${1:-./tracekit}
if "$tk" record -h >/dev/null 2>&1 && "$tk" report -h >/dev/null 2>&1; then
	out=$(mktemp /tmp/tracekit-demo.XXXXXX.dat)
	trap 'rm -f "$out"' EXIT
	"$tk" record -e sched:sched_switch -e sched:sched_wakeup -o "$out" -- sleep 1
	"$tk" report -i "$out" | head -n 40
	"$tk" report -i "$out" --stat
else
	"$tk" test --list
fi
