# Helpers for the completion tests (sourced after common.sh): load the
# bash completion script with the tracekit under test first in PATH, and
# call its function as bash calls it.

# load_completion: sources contrib/completion's script into this bash.
load_completion() {
	mkdir "$TK_TMP/bin"
	ln -s "$(realpath "$TRACEKIT")" "$TK_TMP/bin/tracekit"
	PATH=$TK_TMP/bin:$PATH
	set +u
	. "$TRACEKIT_SRCDIR/contrib/completion/tracekit-completion.bash"
	set -u
}

# [CW=N] comp WORD...: completes the last word (word N); COMPREPLY one
# a line, sorted.  COMP_WORDS come split at ':' and '=' as readline
# splits them.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=${CW:-$((${#COMP_WORDS[@]} - 1))}
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_tracekit
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}

# [CW=N] expect WHAT WANT-FILE WORD...: fails unless the completion of
# WORD... is exactly the lines of WANT-FILE.
expect() {
	local what=$1 want=$2
	shift 2
	comp "$@" >"$TK_TMP/got"
	diff -u "$want" "$TK_TMP/got" >"$TK_TMP/diff" ||
		{ cat "$TK_TMP/diff"; fail "$what: completion of '$*' differs"; }
}
