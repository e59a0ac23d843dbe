#!/bin/bash
# description: probe: functions of Debian's vmlinux DWARF (100, 300 in check-full), same probe point and fetch chain as perf probe -k -D
# tracefs: untouched
# The guest kernel's own debuginfo (linux-image-VERSION-amd64-dbg, cached by
# tests/vm/vmlinux-dbg.sh): `FUNC $params` for 100 functions (300 in make
# check-full; TK_KERNEL_SAMPLE=N for N) drawn with a fixed seed from the
# vmlinux symbol table, by tracekit and by perf.  Each difference is put
# in a kind; the kinds below are the known ones (the manual's "Differences
# from perf probe"), anything else fails the test.
. "$(dirname "$0")/lib/common.sh"

need_host_cmd perf nm
vmlinux=$("$TRACEKIT_SRCDIR/tests/vm/vmlinux-dbg.sh") || fail "no vmlinux with DWARF"
n=${TK_KERNEL_SAMPLE:-$(sized 100 300)}

# Text symbols that are functions rather than section or alias labels.
nm "$vmlinux" | awk '$2 ~ /^[Tt]$/ { print $3 }' |
	grep -vE '\.|^__pfx_|^_+(x64|ia32)_sys_|_(start|end)$' | sort -u >"$TK_TMP/all"
shuf -n "$n" --random-source=<(yes 42) "$TK_TMP/all" >"$TK_TMP/sample"
[ "$(wc -l <"$TK_TMP/sample")" = "$n" ] || fail "fewer than $n functions in $vmlinux"

mkdir "$TK_TMP/out"
one() {
	local f=$1 o=$TK_TMP/out/$1
	"$TRACEKIT" probe -k "$vmlinux" -D "$f \$params" >"$o.tk" 2>"$o.tke"
	echo $? >"$o.tkrc"
	perf probe -q -k "$vmlinux" -D "$f \$params" >"$o.pf" 2>"$o.pfe"
	echo $? >"$o.pfrc"
}
export -f one
export TRACEKIT TK_TMP vmlinux
xargs -P "$(nproc)" -I{} bash -c 'one {}' <"$TK_TMP/sample"

# One line per function: KIND<TAB>DETAIL.  $argN is the ABI's register, or
# for N > 6 the stack slot the kernel reads it from (regs_get_kernel_argument).
while read -r f; do
	o=$TK_TMP/out/$f
	awk -v f="$f" -v tkrc="$(cat "$o.tkrc")" -v pfrc="$(cat "$o.pfrc")" '
	function norm(loc,   m, r) {
		split("%di %si %dx %cx %r8 %r9", r, " ")
		while (match(loc, /\$arg[0-9]+/)) {
			m = substr(loc, RSTART + 4, RLENGTH - 4) + 0
			loc = substr(loc, 1, RSTART - 1) (m <= 6 ? r[m] : "+" 8 * (m - 6) "(%sp)") \
			      substr(loc, RSTART + RLENGTH)
		}
		return loc
	}
	# ev[tool, point] = "name=chain ..." sorted by name; ty[tool, point, name] = type
	{
		tool = FILENAME ~ /\.tk$/ ? "tk" : "pf"
		if ($1 !~ /^[pr]:/) next
		nev[tool]++
		if (tool == "tk") tkpoint = $2
		# perf may define one point twice (two DWARF copies): keep the fuller.
		if (!seen[tool, $2]) npt[tool]++
		if (seen[tool, $2] && NF - 2 <= nargs[tool, $2]) next
		seen[tool, $2] = 1; nargs[tool, $2] = NF - 2; names[tool, $2] = ""
		split("", here)
		for (i = 3; i <= NF; i++) {
			a = $i; name = a; sub(/=.*/, "", name); sub(/^[^=]*=/, "", a)
			t = ""
			if (match(a, /:[^:()]*$/)) { t = substr(a, RSTART + 1); a = substr(a, 1, RSTART - 1) }
			if (name in here) { dup = 1; continue }
			here[name] = 1
			chain[tool, $2, name] = norm(a); ty[tool, $2, name] = t
			names[tool, $2] = names[tool, $2] " " name
		}
	}
	END {
		if (tkrc != 0 && pfrc != 0) { print "both refuse\t" f; exit }
		if (tkrc == 0 && pfrc != 0 && names["tk", tkpoint] == "") {
			print "no parameters (perf refuses $params)\t" f; exit }
		if (tkrc != 0 || pfrc != 0) { print "UNEXPLAINED refusal (tracekit " tkrc ", perf " pfrc ")\t" f; exit }
		if (nev["tk"] != 1) { print "UNEXPLAINED tracekit gave " nev["tk"] " events\t" f; exit }
		if (!seen["pf", tkpoint]) { print "UNEXPLAINED point\t" f " " tkpoint; exit }
		n = split(names["pf", tkpoint], pn, " ")
		m = split(names["tk", tkpoint], tn, " ")
		if (n != m) { print "UNEXPLAINED arguments\t" f ":" names["tk", tkpoint] " vs" names["pf", tkpoint]; exit }
		kind = "same point and chains"
		for (i = 1; i <= n; i++) {
			a = pn[i]
			if (!(("tk", tkpoint, a) in chain)) { print "UNEXPLAINED arguments\t" f " " a; exit }
			if (chain["tk", tkpoint, a] != chain["pf", tkpoint, a]) {
				print "UNEXPLAINED chain\t" f " " a ": " chain["tk", tkpoint, a] " vs " chain["pf", tkpoint, a]; exit }
			tt = ty["tk", tkpoint, a]; pt = ty["pf", tkpoint, a]
			if (tt == pt) continue
			if (tt == "symbol" && pt == "x64") kind = "same chains; code pointers typed symbol"
			else if (substr(tt, 1, 1) == "u" && pt == "x" substr(tt, 2) && kind !~ /symbol/)
				kind = "same chains; unsigned typed u, perf x"
			else if (!(substr(tt, 1, 1) == "u" && pt == "x" substr(tt, 2))) {
				print "UNEXPLAINED type\t" f " " a ": " tt " vs " pt; exit }
		}
		if (dup) kind = kind "; perf names a parameter twice"
		if (npt["pf"] > 1) kind = kind "; perf also probes inlined copies"
		print kind "\t" f
	}' "$o.tk" "$o.pf"
done <"$TK_TMP/sample" >"$TK_TMP/kinds"

echo "tracekit -k -D vs perf probe -k -D on $n functions of $(basename "$vmlinux"):"
cut -f1 "$TK_TMP/kinds" | sort | uniq -c | sort -rn
if grep '^UNEXPLAINED' "$TK_TMP/kinds"; then
	for f in $(grep '^UNEXPLAINED' "$TK_TMP/kinds" | cut -f2 | awk '{ sub(/:.*/, "", $1); print $1 }' | head -n 5); do
		echo "--- $f"; cat "$TK_TMP/out/$f.tk" "$TK_TMP/out/$f.tke" "$TK_TMP/out/$f.pf" "$TK_TMP/out/$f.pfe"
	done
	fail "differences of no known kind"
fi
exit 0
