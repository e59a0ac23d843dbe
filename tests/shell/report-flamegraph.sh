#!/bin/bash
# description: report: --flamegraph SVG rendered by headless Chromium: frame names, counts and widths read back from the page equal --format folded and the workload's known calls; hover, click-to-zoom and reset work; bad output paths fail cleanly
# The workload (flame-target.c) calls the probed target() 7 times from
# from_a(), 5 from from_b() and 3 from from_c() through from_b(): those
# counts are known before anything runs.  Chromium loads the SVG with
# flamegraph-probe.js added, which reports every frame as the browser
# laid it out, then hovers, clicks from_b and clicks reset through the
# page's own handlers.  The expected frames are built here by awk from
# the same recording's --format folded: each stack's prefixes, summed.
. "$(dirname "$0")/lib/common.sh"
need_tracefs
need_cap uprobes "this kernel has no uprobe_events"
need_host_cmd gcc chromium
dir=$(dirname "$0")

bin=$TK_TMP/flame_svg
gcc -g -O2 -fomit-frame-pointer -o "$bin" "$dir/flame-target.c" || fail "gcc failed"
on_exit "'$TRACEKIT' probe -d 'probe_flame_svg:*'"
"$TRACEKIT" probe -x "$bin" --call-graph target >/dev/null || fail "probe --call-graph failed"
"$TRACEKIT" record -q -e probe_flame_svg:target -o "$TK_TMP/u.dat" -- "$bin" 7 5 3 \
	>"$TK_TMP/log" 2>&1 || { cat "$TK_TMP/log"; fail "record failed"; }
"$TRACEKIT" report --format folded "$TK_TMP/u.dat" >"$TK_TMP/folded" ||
	fail "--format folded failed"
cat "$TK_TMP/folded"
# The issue's acceptance: folded counts exactly as the workload made them.
assert_grep '^flame_svg;.*;main;from_a;target 7$' "$TK_TMP/folded"
assert_grep '^flame_svg;.*;main;from_b;target 5$' "$TK_TMP/folded"
assert_grep '^flame_svg;.*;main;from_b;from_c;target 3$' "$TK_TMP/folded"
assert_eq "folded lines" "$(wc -l <"$TK_TMP/folded")" 3

"$TRACEKIT" report --flamegraph "$TK_TMP/u.svg" "$TK_TMP/u.dat" >"$TK_TMP/stdout" ||
	fail "--flamegraph failed"
[ -s "$TK_TMP/stdout" ] && fail "--flamegraph alone printed to stdout"
ls "$TK_TMP"/u.svg.tmp* 2>/dev/null && fail "a temporary file is left"
"$TRACEKIT" report --format folded --flamegraph "$TK_TMP/u2.svg" "$TK_TMP/u.dat" |
	cmp - "$TK_TMP/folded" || fail "--format folded --flamegraph: other stacks on stdout"
cmp "$TK_TMP/u.svg" "$TK_TMP/u2.svg" || fail "the SVG differs with --format folded"
grep -Eq 'https?://[^"]*\.(js|css)|<(image|use|a) |href=' "$TK_TMP/u.svg" &&
	fail "the SVG refers to outside resources"

# render SVG [QUERY]: the probe's lines from Chromium's DOM after the page ran.
render() {
	[ "$(tail -n 1 "$1")" = "</svg>" ] || fail "$1 does not end with </svg>"
	{ head -n -1 "$1"; echo '<script type="text/ecmascript"><![CDATA['
	  cat "$dir/flamegraph-probe.js"; echo ']]></script>'; echo '</svg>'; } >"$TK_TMP/probe.svg"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1400,900 \
		--user-data-dir="$TK_TMP/chromium" --dump-dom "file://$TK_TMP/probe.svg${2:+?$2}" \
		>"$TK_TMP/dom" 2>"$TK_TMP/chromium.log" ||
		{ tail "$TK_TMP/chromium.log"; fail "chromium failed"; }
	# The text as the DOM serializes it: &, <, > escaped.
	sed -n '/<desc id="tk-out">/,/<\/desc>/p' "$TK_TMP/dom" | sed '1d;$d' |
		sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g'
}
# same_frames FOLDED PAGE: the page shows every prefix of every folded
# stack as a frame, with the samples of the stacks under it, and no other.
same_frames() {
	awk '{ c = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); p = "all"; s["all"] += c
	       for (i = 1; i <= n; i++) { p = p ";" f[i]; s[p] += c } }
	     END { for (p in s) print p, s[p] }' "$1" | LC_ALL=C sort >"$TK_TMP/want"
	awk '$1 == "FRAME" { print $2, $3 }' "$2" | LC_ALL=C sort >"$TK_TMP/got"
	[ -s "$TK_TMP/got" ] || { cat "$TK_TMP/dom"; fail "the probe reported nothing"; }
	diff -u "$TK_TMP/want" "$TK_TMP/got" || fail "the rendered frames differ from --format folded"
}
render "$TK_TMP/u.svg" 'hover=from_a&zoom=from_b' >"$TK_TMP/page"
same_frames "$TK_TMP/folded" "$TK_TMP/page"
# And from the workload, without tracekit's folded output.
for f in 'main 15' 'main;from_a 7' 'main;from_a;target 7' 'main;from_b 8' \
	 'main;from_b;target 5' 'main;from_b;from_c 3' 'main;from_b;from_c;target 3'; do
	grep -q "^all;flame_svg;.*;$f\$" "$TK_TMP/got" || fail "no frame ...;$f in the page"
done

# geometry TAG ZOOM [FOLDED PAGE [noleft]]: each frame's rendered width and left edge in px
# against the samples of folded stacks: inside the frame ZOOM (a path
# from "all"), scaled to it; its callers across the graph; the rest not
# drawn (width 0).  A frame starts at the samples of the stacks sorted
# before its first, the order the graph keeps.
geometry() {
	awk -v tag="$1" -v zp="$2" -v noleft="${5:-}" -v W=1200 -v PAD=10 '
	function abs(v) { return v < 0 ? -v : v }
	FNR == NR { c = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); p = "all"
		for (i = 0; i <= n; i++) { if (i) p = p ";" f[i]; if (!(p in x)) x[p] = o; s[p] += c }
		o += c; next }
	$1 != tag { next }
	{ p = $2; w = $4; l = $5; frames++
	  if (p == zp || index(p, zp ";") == 1) {
		ww = s[p] / s[zp] * W; wl = PAD + (x[p] - x[zp]) / s[zp] * W }
	  else if (index(zp, p ";") == 1) { ww = W; wl = PAD }
	  else { ww = 0; wl = l }
	  if (abs(w - ww) > 0.02 || (!noleft && abs(l - wl) > 0.02)) {
		bad++; print tag ": " p ": width " w " left " l ", want " ww " " wl }
	}
	END { if (bad || !frames) exit 1 }' "${3:-$TK_TMP/folded}" "${4:-$TK_TMP/page}"
}
from_b=$(awk '$1 == "FRAME" && $2 ~ /;main;from_b$/ { print $2 }' "$TK_TMP/page")
geometry FRAME all || fail "the frames as loaded are not where their samples put them"
geometry ZOOM "$from_b" || fail "a click on from_b did not zoom into it"
geometry RESET all || fail "reset did not restore the graph"
assert_grep '^DETAILS from_a \(7 samples, 46\.67%\)$' "$TK_TMP/page"
assert_grep '^RESETSHOWN 1$' "$TK_TMP/page"
# The labels the page drew: whole names where they fit, none cut wrong.
for f in main from_a from_b target; do
	grep -q ">$f</text></g>" "$TK_TMP/dom" || fail "no label $f in the rendered page"
done

# A real recording of many stacks: sched_switch's kernel stacks (-T),
# "_[k]" frames, names with dots.  Only the widths are checked: where a
# name sorts before ";" (foo.constprop.0 beside foo) the awk here would
# place the frames otherwise than by their first stack.
"$TRACEKIT" record -q -T -e sched:sched_switch -o "$TK_TMP/sw.dat" \
	-- sh -c 'for i in 1 2 3 4 5; do sleep 0.01; done' >/dev/null 2>&1 ||
	fail "record -T of sched_switch failed"
"$TRACEKIT" report --format folded --flamegraph "$TK_TMP/sw.svg" "$TK_TMP/sw.dat" \
	>"$TK_TMP/sw.folded" || fail "--flamegraph of the sched_switch recording failed"
assert_grep '_\[k\] [0-9]+$' "$TK_TMP/sw.folded"
render "$TK_TMP/sw.svg" >"$TK_TMP/sw.page"
same_frames "$TK_TMP/sw.folded" "$TK_TMP/sw.page"
geometry FRAME all "$TK_TMP/sw.folded" "$TK_TMP/sw.page" noleft ||
	fail "sched_switch: frames not as wide as their samples"
echo "sched_switch: $(grep -c '^FRAME' "$TK_TMP/sw.page") frames rendered as folded"

# Bad output: one line naming the file, exit 1, no file left behind.
expect_fail "$TRACEKIT" report --flamegraph "$TK_TMP/no/such/dir/x.svg" "$TK_TMP/u.dat"
assert_grep "^tracekit report: $TK_TMP/no/such/dir/x.svg: cannot create a temporary file: " \
	"$TK_TMP/out"
assert_eq "error lines" "$(wc -l <"$TK_TMP/out")" 1
# A recording without stacks has nothing to draw.
"$TRACEKIT" record -q -e sched:sched_switch -o "$TK_TMP/plain.dat" -- true >/dev/null 2>&1 ||
	fail "record of sched_switch failed"
expect_fail "$TRACEKIT" report --flamegraph "$TK_TMP/plain.svg" "$TK_TMP/plain.dat"
assert_grep "^tracekit report: $TK_TMP/plain.svg: no call stacks to draw$" "$TK_TMP/out"
[ -e "$TK_TMP/plain.svg" ] && fail "an SVG of nothing was written"
# A truncated input: its error, and no SVG.
head -c 300000 "$TK_TMP/u.dat" >"$TK_TMP/cut.dat"
expect_fail "$TRACEKIT" report --flamegraph "$TK_TMP/cut.svg" "$TK_TMP/cut.dat"
assert_grep "^tracekit report: $TK_TMP/cut.dat: " "$TK_TMP/out"
ls "$TK_TMP"/cut.svg* 2>/dev/null && fail "an SVG of a bad input was written"
expect_fail "$TRACEKIT" report --flamegraph "$TK_TMP/j.svg" --format json "$TK_TMP/u.dat"
assert_grep "^tracekit report: --flamegraph: not with --format json$" "$TK_TMP/out"
exit 0
