#!/bin/bash
# description: make install: binary, manuals and completion where man, help and bash find them; uninstall removes them all
# tracefs: untouched
# A copy of the source tree without its build products is built and
# installed into a DESTDIR, as on a clean clone; the pages are rendered
# by man itself and compared with what tracekit help shows through
# MANPATH (into a pipe: no pager, no terminal needed).
. "$(dirname "$0")/lib/common.sh"

need_host_cmd make man asciidoctor
src=$TK_TMP/src
dest=$TK_TMP/dest
mkdir "$src" "$dest"
tar -C "$TRACEKIT_SRCDIR" --exclude=./build --exclude=./tracekit --exclude=./.git \
	-cf - . | tar -C "$src" -xf - || fail "cannot copy the source tree"
make -C "$src" -j2 install DESTDIR="$dest" >"$TK_TMP/make" 2>&1 ||
	{ tail -n 30 "$TK_TMP/make"; fail "make install failed"; }

# What must be there: the binary, a page per Documentation/*.txt, the
# completion, and nothing else.
prefix=$dest/usr/local
{
	echo "$prefix/bin/tracekit"
	for t in "$TRACEKIT_SRCDIR"/Documentation/*.txt; do
		t=${t##*/}
		echo "$prefix/share/man/man1/${t%.txt}.1"
	done
	echo "$prefix/share/bash-completion/completions/tracekit"
} | sort >"$TK_TMP/want"
assert_eq "pages" "$(grep -c '/man1/' "$TK_TMP/want")" 8
find "$dest" -type f -o -type l | sort >"$TK_TMP/got"
diff -u "$TK_TMP/want" "$TK_TMP/got" || fail "make install installed other files"
[ -x "$prefix/bin/tracekit" ] || fail "the binary is not executable"

# Every page renders on an 80-column terminal without a warning from
# man or groff (a table too wide, a line that cannot be broken).
export MANPAGER=cat PAGER=cat MANWIDTH=80
for p in "$prefix"/share/man/man1/*.1; do
	man -l "$p" >"$TK_TMP/page" 2>"$TK_TMP/man.err" ||
		{ cat "$TK_TMP/man.err"; fail "man -l ${p##*/} failed"; }
	[ -s "$TK_TMP/man.err" ] && { cat "$TK_TMP/man.err"; fail "man warns about ${p##*/}"; }
done
man -l "$prefix/share/man/man1/tracekit-probe.1" >"$TK_TMP/page" 2>&1
assert_grep '^TRACEKIT-PROBE\(1\) +Tracekit Manual +TRACEKIT-PROBE\(1\)$' "$TK_TMP/page"
# The NAME line of the source, rendered.
name=$(sed -n '/^NAME$/,/^SYNOPSIS$/p' "$TRACEKIT_SRCDIR/Documentation/tracekit-probe.txt" |
	grep '^tracekit-probe - ')
grep -qF "       $name" "$TK_TMP/page" || { cat "$TK_TMP/page"; fail "no NAME line '$name'"; }
assert_grep '^SYNOPSIS$' "$TK_TMP/page"
assert_grep '^OPTIONS$' "$TK_TMP/page"

# help probe and probe --help show that page where MANPATH leads man to
# it, -h stays the usage; the installed binary and the tested one alike.
for tk in "$prefix/bin/tracekit" "$TRACEKIT"; do
	MANPATH=$prefix/share/man "$tk" help probe >"$TK_TMP/help" ||
		fail "$tk help probe failed"
	diff -u "$TK_TMP/page" "$TK_TMP/help" || fail "$tk help probe is not the installed page"
	MANPATH=$prefix/share/man "$tk" probe --help >"$TK_TMP/help" ||
		fail "$tk probe --help failed"
	cmp -s "$TK_TMP/page" "$TK_TMP/help" || fail "$tk probe --help is not the installed page"
	MANPATH=$prefix/share/man "$tk" probe -h >"$TK_TMP/help" || fail "$tk probe -h failed"
	assert_grep '^usage: tracekit probe ' "$TK_TMP/help"
done

# The installed completion, as bash-completion loads it: a bash that
# sources it completes with the installed binary.
PATH=$prefix/bin:$PATH bash -c '
	. "$1"
	complete -p tracekit || exit 1
	COMP_WORDS=(tracekit ubifs "")
	COMP_CWORD=2
	_tracekit
	printf "%s\n" "${COMPREPLY[@]}"' bash \
	"$prefix/share/bash-completion/completions/tracekit" >"$TK_TMP/comp" ||
	fail "the installed completion does not load"
assert_grep '^complete -F _tracekit tracekit$' "$TK_TMP/comp"
for v in info verify sign extract; do
	assert_grep "^$v\$" "$TK_TMP/comp"
done

make -C "$src" uninstall DESTDIR="$dest" >"$TK_TMP/make" 2>&1 ||
	{ cat "$TK_TMP/make"; fail "make uninstall failed"; }
find "$dest" -type f -o -type l >"$TK_TMP/left"
[ -s "$TK_TMP/left" ] && { cat "$TK_TMP/left"; fail "make uninstall left files"; }

# PREFIX moves all of it; uninstall needs the same PREFIX.
make -C "$src" install PREFIX=/usr DESTDIR="$dest" >"$TK_TMP/make" 2>&1 ||
	{ cat "$TK_TMP/make"; fail "make install PREFIX=/usr failed"; }
sed "s|$prefix/|$dest/usr/|" "$TK_TMP/want" >"$TK_TMP/want.usr"
find "$dest" -type f -o -type l | sort >"$TK_TMP/got"
diff -u "$TK_TMP/want.usr" "$TK_TMP/got" || fail "PREFIX=/usr: other files"
make -C "$src" uninstall PREFIX=/usr DESTDIR="$dest" >"$TK_TMP/make" 2>&1 ||
	fail "make uninstall PREFIX=/usr failed"
find "$dest" -type f -o -type l >"$TK_TMP/left"
[ -s "$TK_TMP/left" ] && { cat "$TK_TMP/left"; fail "make uninstall PREFIX=/usr left files"; }
exit 0
