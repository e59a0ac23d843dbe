#!/bin/bash
# description: bash completion: commands, every documented option, report -e events, probe and trace -x functions, trace -- COMMAND, ubifs verbs, files
# tracefs: untouched
# The script is sourced into this bash and its function called as bash
# calls it, COMP_WORDS split at ':' and '=' as readline splits them.  What
# it must offer comes from elsewhere: the commands of tracekit.c's table
# (--list-cmds, which commands.sh holds README.md and the manual to),
# the options each manual documents, the events trace-cmd finds in a
# fixture, the functions of a program compiled here.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/completion.sh"

need_cmd trace-cmd
need_host_cmd gcc
src=$TRACEKIT_SRCDIR
script=$src/contrib/completion/tracekit-completion.bash
[ -f "$script" ] || fail "no $script"
load_completion
complete -p tracekit >"$TK_TMP/spec" || fail "complete -p tracekit: no completion"
assert_grep '^complete -F _tracekit tracekit$' "$TK_TMP/spec"

lines() {
	printf '%s\n' "$@" | sort -u >"$TK_TMP/want"
	echo "$TK_TMP/want"
}

# The commands of the command table, and help.
"$TRACEKIT" --list-cmds=summary | cut -f1 >"$TK_TMP/table"
[ -s "$TK_TMP/table" ] || fail "--list-cmds=summary printed no command"
{ cat "$TK_TMP/table"; echo help; } | sort -u >"$TK_TMP/cmds"
expect "commands" "$TK_TMP/cmds" tracekit ""
expect "commands after help" "$TK_TMP/cmds" tracekit help ""
grep '^re' "$TK_TMP/cmds" >"$TK_TMP/cmds.re" || fail "no command starts with re"
expect "commands by prefix" "$TK_TMP/cmds.re" tracekit re

# Every option the manual's OPTIONS list names, and -h and --help, for
# every command; ubifs documents the options of all its verbs in one page.
doc_opts() {
	{ grep -E '^-.*::$' "$src/Documentation/tracekit-$1.txt" |
		grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z-]*' | tr -d ' ,'
	  echo -h; echo --help; } | sort -u
}
for c in $(grep -vx ubifs "$TK_TMP/table"); do
	doc_opts $c >"$TK_TMP/opts.$c"
	expect "$c options" "$TK_TMP/opts.$c" tracekit $c -
done
doc_opts ubifs >"$TK_TMP/opts.ubifs"
for v in info verify sign extract; do
	comp tracekit ubifs $v -
done | sort -u >"$TK_TMP/got"
diff -u "$TK_TMP/opts.ubifs" "$TK_TMP/got" || fail "ubifs options differ from its manual"
expect "long options by prefix" "$(lines --start --stop)" tracekit stack --st

# ubifs verbs, from its manual's SYNOPSIS.
sed -n "s/^'tracekit ubifs \([a-z]*\)' .*/\1/p" "$src/Documentation/tracekit-ubifs.txt" |
	sort -u >"$TK_TMP/verbs"
assert_eq "ubifs verbs in the manual" "$(wc -l <"$TK_TMP/verbs")" 4
expect "ubifs verbs" "$TK_TMP/verbs" tracekit ubifs ""

# report -e: the events of the file given, as trace-cmd dumps its formats
# (the fixture's events are of one system, sched).
dat=$src/tests/data/report-sched-v7.dat
trace-cmd dump --events "$dat" 2>/dev/null | sed -n 's/^name: /sched:/p' | sort -u >"$TK_TMP/ev"
assert_eq "events in the fixture" "$(wc -l <"$TK_TMP/ev")" 2
trace-cmd dump --ftrace-events "$dat" 2>/dev/null | sed -n 's/^name: /ftrace:/p' |
	sort -u >"$TK_TMP/ftrace"
expect "report -e FILE" "$TK_TMP/ev" tracekit report "$dat" -e sched
# Readline replaces the piece after the last ':' only.
sed 's/^sched//' "$TK_TMP/ev" >"$TK_TMP/ev.tail"
expect "report -e SYSTEM:" "$TK_TMP/ev.tail" tracekit report "$dat" -e sched :
expect "report -e SYSTEM:EV" "$(lines sched_wakeup)" tracekit report "$dat" -e sched : sched_w
expect "report -i FILE --event=" "$TK_TMP/ftrace" tracekit report -i "$dat" --event = ftrace
sort -u "$TK_TMP/ev" "$TK_TMP/ftrace" >"$TK_TMP/all"
CW=3 expect "report -e before FILE" "$TK_TMP/all" tracekit report -e "" "$dat"

# probe -x BIN: the functions of BIN, as its source defines them.
cat >"$TK_TMP/prog.c" <<'EOC'
int tkcomp_alpha(int x) { return x + 1; }
int tkcomp_alpine(int x) { return x * 2; }
int tkcomp_beta(int x) { return x - 1; }
int main(int argc, char **argv) { (void)argv; return tkcomp_alpha(argc) + tkcomp_alpine(argc) + tkcomp_beta(argc); }
EOC
gcc -g -O0 -o "$TK_TMP/prog" "$TK_TMP/prog.c" || fail "gcc failed"
want=$(lines tkcomp_alpha tkcomp_alpine)
expect "probe -x BIN FUNC" "$want" tracekit probe -x "$TK_TMP/prog" tkcomp_al
CW=3 expect "probe -V FUNC -x BIN" "$want" tracekit probe -V tkcomp_al -x "$TK_TMP/prog"
expect "probe -x BIN -V FUNC" "$want" tracekit probe -x "$TK_TMP/prog" -V tkcomp_al
expect "probe --exec=BIN -D SPEC" "$want" tracekit probe --exec = "$TK_TMP/prog" -D tkcomp_al
expect "trace -x BIN SPEC" "$want" tracekit trace -x "$TK_TMP/prog" tkcomp_al

# Files where a file is meant: options whose argument is a FILE, PATH,
# CERT.pem..., report's and ubifs's arguments, record's COMMAND's.
touch "$TK_TMP/one.dat" "$TK_TMP/one.pem" "$TK_TMP/other"
mkdir "$TK_TMP/onedir"
want=$(lines "$TK_TMP/one.dat" "$TK_TMP/one.pem" "$TK_TMP/onedir")
expect "record -o FILE" "$want" tracekit record -o "$TK_TMP/one"
expect "record --output=FILE" "$want" tracekit record --output = "$TK_TMP/one"
expect "report FILE" "$want" tracekit report --stat "$TK_TMP/one"
expect "probe -x PATH" "$want" tracekit probe -x "$TK_TMP/one"
expect "ubifs verify IMAGE" "$want" tracekit ubifs verify "$TK_TMP/one"
expect "ubifs sign --cert CERT.pem" "$want" tracekit ubifs sign --cert "$TK_TMP/one"
expect "record -- COMMAND ARG" "$want" tracekit record -e sched -- ls "$TK_TMP/one"
# A COMMAND is a command name, not a file; its options are its own.
comp tracekit record -e sched -- tracek >"$TK_TMP/got"
assert_grep '^tracekit$' "$TK_TMP/got"
comp tracekit record -- "" >"$TK_TMP/got"
assert_grep '^tracekit$' "$TK_TMP/got"
expect "record COMMAND -OPTION" /dev/null tracekit record -e sched ls --ev
comp tracekit trace -e sched -- tracek >"$TK_TMP/got"
assert_grep '^tracekit$' "$TK_TMP/got"
expect "trace -- COMMAND ARG" "$want" tracekit trace -e sched -- ls "$TK_TMP/one"
comp tracekit stack bas >"$TK_TMP/got"
assert_grep '^bash$' "$TK_TMP/got"
# An option's argument that is no file is not completed as one.
expect "record -C CLOCK" /dev/null tracekit record -C "$TK_TMP/one"
exit 0
