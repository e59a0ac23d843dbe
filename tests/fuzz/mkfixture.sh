#!/bin/bash
# Writes the small trace.dat fixtures of tests/data/ (fuzz seeds and the
# bad-input tests) with trace-cmd itself: sched events of a tracefs
# instance, extracted in a private mount namespace where kallsyms,
# printk_formats, saved_cmdlines and the events directory are replaced by
# tiny stand-ins, so the files stay a few KB.  Needs root and tracefs.
#   tests/fuzz/mkfixture.sh [OUTDIR]
set -eu
out=${1:-$(dirname "$0")/../data}
T=/sys/kernel/tracing
inst=tkfixture_$$
work=$(mktemp -d /tmp/tkfixture.XXXXXX)
cleanup() {
	rmdir "$T/instances/$inst" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$work/ev/sched/sched_switch" "$work/ev/sched/sched_wakeup" "$work/ev/ftrace/print"
cp "$T/events/header_page" "$T/events/header_event" "$work/ev/"
for e in sched_switch sched_wakeup; do
	cp "$T/events/sched/$e/format" "$work/ev/sched/$e/"
done
cp "$T/events/ftrace/print/format" "$work/ev/ftrace/print/"
printf '0 <idle>\n1 systemd\n' >"$work/cmdlines"

mkdir "$T/instances/$inst"
echo 1 >"$T/instances/$inst/events/sched/sched_switch/enable"
echo 1 >"$T/instances/$inst/events/sched/sched_wakeup/enable"
sleep 0.02
echo 0 >"$T/instances/$inst/tracing_on"
unshare -m sh -c "mount --bind /dev/null /proc/kallsyms &&
	mount --bind /dev/null $T/printk_formats &&
	mount --bind $work/ev $T/events &&
	mount --bind $work/cmdlines $T/saved_cmdlines &&
	trace-cmd extract -B $inst -o $work/v7.dat >/dev/null 2>&1"
trace-cmd convert --file-version 6 -i "$work/v7.dat" -o "$work/v6.dat" >/dev/null 2>&1
cp "$work/v7.dat" "$out/report-sched-v7.dat"
cp "$work/v6.dat" "$out/report-sched-v6.dat"
trace-cmd report -i "$out/report-sched-v7.dat" >"$out/report-sched.txt"
