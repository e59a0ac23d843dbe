#!/bin/bash
# description: unwind: side by side with perf record --call-graph dwarf on the same uprobe, both against the program's backtrace()
# The same --call-graph probe is recorded twice, by tracekit (record
# --proc-map, report --format json) and by perf (perf_events' own user
# stack sampling, `perf record -e GROUP:EVENT --call-graph dwarf`, with
# 8 MB of buffer so that it loses no sample, then `perf script`), each on
# its own run of the target, which prints its own backtrace() at the
# probe.  Each stack is held against that run's backtrace() (perf's
# file-relative addresses against the program's, made file-relative with
# dladdr(); perf prints a return address less one): both must match for
# >= 95% of the events, and the counts, and which tool is right where
# they differ, are printed.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/unwind.sh"

need_unwind
need_host_cmd gcc perf
src=$(dirname "$0")/unwind-target.c
bin=$TK_TMP/unwind_perf
group=probe_unwind_perf
N=200
gcc -g -O2 -fomit-frame-pointer -o "$bin" "$src" || fail "gcc failed"
on_exit "'$TRACEKIT' probe -d '$group:*'"
"$TRACEKIT" probe -x "$bin" --call-graph 'leaf id depth' >/dev/null || fail "probe failed"

# tracekit: "ID RET1 RET2 ..." absolute, against the BT lines.
"$TRACEKIT" record -q --proc-map -e "$group:leaf" -o "$TK_TMP/tk.dat" -- "$bin" $N \
	>"$TK_TMP/tk.out" || fail "tracekit record failed"
awk '$1 == "BT" { printf "%s", $2; for (i = 5; i <= NF; i++) printf " %s", $i; print "" }' \
	"$TK_TMP/tk.out" | sort >"$TK_TMP/tk.want"
"$TRACEKIT" report -i "$TK_TMP/tk.dat" --format json |
	jq -r 'select(.callchain) | "\(.fields.id) " +
		([.callchain | map(select(.inlined | not)) | .[1:][] | .ip | tostring] |
		 join(" "))' | sort >"$TK_TMP/tk.got"

# perf: the same, file-relative, events in the order the program made them.
perf record -q -m 2048 -e "$group:leaf" --call-graph dwarf -o "$TK_TMP/perf.data" -- "$bin" $N \
	>"$TK_TMP/perf.out" 2>"$TK_TMP/perf.err" || { cat "$TK_TMP/perf.err"; fail "perf record failed"; }
awk '$1 == "BTREL" { printf "%s", $2; for (i = 5; i <= NF; i++) printf " %s", $i; print "" }' \
	"$TK_TMP/perf.out" | sort >"$TK_TMP/perf.want"
perf script -i "$TK_TMP/perf.data" -F comm,ip,dso --no-inline 2>/dev/null | awk '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(tolower(s), i, 1)) - 1
		return v
	}
	function flush() { if (line != "") print line; line = "" }
	/^[^ \t]/ { flush(); line = ev++; f = 0; next }
	/^[ \t]+[0-9a-f]+ / { if (f++) line = line " " sprintf("%.0f", hex($1) + 1); next }
	END { flush() }' | sort >"$TK_TMP/perf.got"

assert_eq "tracekit events" "$(wc -l <"$TK_TMP/tk.got")" $N
assert_eq "perf events" "$(wc -l <"$TK_TMP/perf.got")" $N
tk=$(comm -12 "$TK_TMP/tk.want" "$TK_TMP/tk.got" | wc -l)
pf=$(comm -12 "$TK_TMP/perf.want" "$TK_TMP/perf.got" | wc -l)
# Where one is right and the other is not (by event id: one run each).
join <(comm -23 "$TK_TMP/tk.want" "$TK_TMP/tk.got" | cut -d' ' -f1 | sort) \
     <(comm -12 "$TK_TMP/perf.want" "$TK_TMP/perf.got" | cut -d' ' -f1 | sort) >"$TK_TMP/perf.only"
join <(comm -23 "$TK_TMP/perf.want" "$TK_TMP/perf.got" | cut -d' ' -f1 | sort) \
     <(comm -12 "$TK_TMP/tk.want" "$TK_TMP/tk.got" | cut -d' ' -f1 | sort) >"$TK_TMP/tk.only"
echo "of $N events each: tracekit $tk match backtrace(), perf $pf;" \
	"only tracekit right: $(wc -l <"$TK_TMP/tk.only"), only perf right: $(wc -l <"$TK_TMP/perf.only")"
[ $((tk * 100)) -ge $((N * 95)) ] || fail "tracekit: $tk of $N stacks match backtrace()"
[ $((pf * 100)) -ge $((N * 95)) ] || { diff "$TK_TMP/perf.want" "$TK_TMP/perf.got" | head;
	fail "perf: $pf of $N stacks match backtrace(): the comparison itself is broken"; }
