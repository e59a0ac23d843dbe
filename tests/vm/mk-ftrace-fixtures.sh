#!/bin/bash
# Makes tests/data/report-ftrace-*.dat.gz: trace.dat files that trace-cmd
# itself recorded with the function and function_graph tracers, which the
# host refuses (EPERM), in the VM on Debian's kernel with 2 CPUs.  Each
# comes back over the console, gzip'ed and base64'ed.  The commands are
# the table below; tests/shell/report-ftrace.sh compares `tracekit report`
# with `trace-cmd report` on every file.
#
#   tests/vm/mk-ftrace-fixtures.sh      (from the source tree, as root)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
export TRACEKIT=${TRACEKIT:-$src/tracekit} TRACEKIT_SRCDIR=$src
. "$src/tests/shell/lib/common.sh"

# NAME: the trace-cmd record options.  The traced command, the same for
# every file, runs two tasks at once so that both CPUs have events.
fixtures=(
	"fgraph:-p function_graph -g do_sys_openat2"
	"fgraph-depth:-p function_graph -g do_sys_openat2 -g __x64_sys_newfstatat --max-graph-depth 2"
	"fgraph-sched:-p function_graph -g do_sys_openat2 -e sched:sched_switch"
	"function:-p function -l 'vfs_*'"
	"function-notrace:-p function -l 'vfs_*' -n 'vfs_getattr*' -n vfs_statx"
	"function-stack:-p function -l do_sys_openat2 --func-stack"
)
work='cat /proc/version >/dev/null & cat /proc/self/stat >/dev/null; wait'

# Each file would carry the guest's whole kallsyms, a megabyte after
# compression.  So every command runs twice: the first run's files, read
# by tracekit report, name the functions a run touches; the second run
# has trace-cmd read a /proc/kallsyms (bind-mounted) cut down to those
# symbols and the symbol after each, which keeps every address of such a
# run resolving to the name the whole table gives it.
record() {
	local f
	for f in "${fixtures[@]}"; do
		printf 'trace-cmd record -q %s -o /tmp/%s%s.dat -- sh -c %q >/dev/null 2>&1 || exit 1\n' \
			"${f#*:}" "$1" "${f%%:*}" "$work"
	done
}
need_cmd trace-cmd
{
	record pass1-
	cat <<'GUEST'
for f in /tmp/pass1-*.dat; do tracekit report -N "$f"; done | tr -cs 'A-Za-z0-9_.' '\n' |
	sort -u >/tmp/names
sort -s -k1,1 /proc/kallsyms | awk '
	NR == FNR { want[$1] = 1; next }
	{ hit = ($3 in want) }
	after != "" && $1 != after { if (!hit) print; after = "" }
	hit { print; after = $1 }' /tmp/names - >/tmp/kallsyms || exit 1
mount -o bind /tmp/kallsyms /proc/kallsyms || exit 1
echo "kallsyms cut to $(wc -l </tmp/kallsyms) symbols"
GUEST
	record ""
	for f in "${fixtures[@]}"; do
		printf 'echo BEGIN-%s\ngzip -9 -c /tmp/%s.dat | base64\necho END-%s\n' \
			"${f%%:*}" "${f%%:*}" "${f%%:*}"
	done
} >"$TK_TMP/guest.sh"
"$src/tests/vm/run.sh" --tracekit "$TRACEKIT" --timeout 600 --bin trace-cmd \
	-- sh -c "$(cat "$TK_TMP/guest.sh")" >"$TK_TMP/console" 2>&1 ||
	{ cat "$TK_TMP/console"; fail "the guest run failed"; }
grep '^kallsyms cut' "$TK_TMP/console"
for f in "${fixtures[@]}"; do
	n=${f%%:*}
	out=$src/tests/data/report-ftrace-$n.dat.gz
	sed -n "/^BEGIN-$n\$/,/^END-$n\$/p" "$TK_TMP/console" | sed '1d;$d' |
		base64 -d >"$out" && gzip -t "$out" || fail "$n came back broken"
	gzip -dc "$out" >"$TK_TMP/$n.dat" && trace-cmd report "$TK_TMP/$n.dat" >/dev/null ||
		fail "trace-cmd cannot read $n"
	printf '%-28s %7d bytes  trace-cmd record %s\n' "${out##*/}" "$(stat -c %s "$out")" "${f#*:}"
done
