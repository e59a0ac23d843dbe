# bash completion for tracekit: installed by `make install` as
# share/bash-completion/completions/tracekit; or source it.
#
# It keeps no list of its own.  The commands come from `tracekit
# --list-cmds`, the options from `tracekit CMD --list-opts` (the command's
# option table, one spelling a line, "=ARGH" where the next word is the
# argument), and the argument an option takes is completed by its ARGH:
# events, functions and probes from tracekit, files where a file is meant.
# So a new command completes its name and options with no change here;
# the per-command `case` arms below are only for what a command needs
# beyond that (ubifs's verbs, record's and trace's EVENT, the positional
# words).

# Readline splits words at COMP_WORDBREAKS, ':' and '=' among them:
# "sched:sched_sw" arrives as "sched" ":" "sched_sw".  Glue such pieces
# back into __tk_words, as bash-completion's __reassemble_comp_words_by_ref
# does; __tk_cword is the index of the word being completed.
__tracekit_reassemble()
{
	local i w
	__tk_words=()
	__tk_cword=0
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((i > 1)) && [[ $w == [:=] || ${COMP_WORDS[i - 1]} == [:=] ]]; then
			__tk_words[${#__tk_words[@]} - 1]+=$w
		else
			__tk_words+=("$w")
		fi
		((i == COMP_CWORD)) && __tk_cword=$((${#__tk_words[@]} - 1))
	done
}

# __tracekit_add WORD...: those that start with $cur go to COMPREPLY.
__tracekit_add()
{
	local w
	for w; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
}

__tracekit_files()
{
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY+=($(compgen -f -- "$cur"))
}

# __tracekit_argh OPT: the ARGH of OPT in $opts when it takes the next
# word as its argument, else nothing.
__tracekit_argh()
{
	local l
	for l in $opts; do
		[[ $l == "$1="* ]] && { printf '%s\n' "${l#*=}"; return; }
	done
}

__tracekit_spellings()
{
	local l
	for l in $opts; do
		printf '%s\n' "${l%%=*}"
	done
}

# Walks the words but the current one (those after it name files too,
# report's): the positional ones to __tk_pos, each option's argument to
# __tk_vals as OPT=VALUE.  __tk_before: how many positional words come
# before the current one.
__tracekit_scan()
{
	local i w argh dashdash=
	__tk_pos=()
	__tk_vals=()
	__tk_before=0
	for ((i = first; i < ${#words[@]}; i++)); do
		((i == cword)) && { __tk_before=${#__tk_pos[@]}; continue; }
		w=${words[i]}
		if [[ -n $dashdash || $w != -?* ]]; then
			__tk_pos+=("$w")
		elif [[ $w == -- ]]; then
			dashdash=1
		elif [[ $w == --*=* ]]; then
			__tk_vals+=("$w")
		elif [[ -n $(__tracekit_argh "$w") ]]; then
			((i + 1 != cword)) && __tk_vals+=("$w=${words[i + 1]}")
			((i++))
		elif [[ $w == -[a-zA-Z]?* && -n $(__tracekit_argh "${w:0:2}") ]]; then
			__tk_vals+=("${w:0:2}=${w:2}")
		fi
	done
}

# __tracekit_vals OPT...: the arguments given to any of these options.
__tracekit_vals()
{
	local v o
	for v in "${__tk_vals[@]}"; do
		for o; do
			[[ $v == "$o="* ]] && printf '%s\n' "${v#*=}"
		done
	done
}

# The functions `probe -F` lists for the target of -x, -m or -k.
__tracekit_probe_funcs()
{
	local target=() v
	for v in $(__tracekit_vals -x --exec); do target+=(-x "$v"); done
	for v in $(__tracekit_vals -m --module); do target+=(-m "$v"); done
	for v in $(__tracekit_vals -k --vmlinux); do target+=(-k "$v"); done
	# Without a target probe -F searches for the kernel's debug info,
	# which may take long or not be there: nothing is offered.  '*':
	# the _* names too, which -F alone leaves out as perf does.
	((${#target[@]})) || return
	__tracekit_add $("$tk" probe "${target[@]}" -F '*' 2>/dev/null)
}

# __tracekit_arg ARGH: completes $cur as the argument of an option.  The
# ARGHs every command shares are matched as *:ARGH; an arm names its
# command only where the values depend on it.
__tracekit_arg()
{
	local files
	case $cmd:$1 in
	record:EVENT | trace:EVENT)
		__tracekit_add $("$tk" record --list-events 2>/dev/null) ;;
	report:GLOB)
		files=($(__tracekit_vals -i --input) "${__tk_pos[@]}")
		__tracekit_add $("$tk" report --list-events "${files[@]}" 2>/dev/null |
				 sort -u) ;;
	probe:GROUP:EVENT)
		__tracekit_add $("$tk" probe -l 2>/dev/null | awk '{ print $1 }') ;;
	probe:FUNC | probe:SPEC | probe:LINE)
		__tracekit_probe_funcs ;;
	*:FILE | *:PATH | *:VMLINUX | *:MODULE | *:*.pem | *:HMACKEY)
		__tracekit_files ;;
	esac
}

# The positional words after "--" before the current one, -1 without
# "--".
__tracekit_after_dashdash()
{
	local i n=-1
	for ((i = first; i < cword; i++)); do
		if ((n >= 0)); then
			((n++))
		elif [[ ${words[i]} == -- ]]; then
			n=0
		fi
	done
	echo $n
}

# What a word that is no option is, by command: record's and stack's
# first is the COMMAND to run, then its arguments; trace's are the
# PROBE-SPECs, and after "--" its COMMAND and arguments.  A command
# without an arm here (test) has nothing offered for its positional
# words.
__tracekit_positional()
{
	local n
	case $cmd in
	trace)
		n=$(__tracekit_after_dashdash)
		if ((n < 0)); then
			__tracekit_probe_funcs
		elif ((n == 0)); then
			local IFS=$'\n'
			COMPREPLY+=($(compgen -c -- "$cur"))
		else
			__tracekit_files
		fi ;;
	record | stack)
		if ((__tk_before)); then
			__tracekit_files
		else
			local IFS=$'\n'
			COMPREPLY+=($(compgen -c -- "$cur"))
		fi ;;
	probe)
		__tracekit_probe_funcs ;;
	report | ubifs)
		__tracekit_files ;;
	esac
}

_tracekit()
{
	local tk=${COMP_WORDS[0]} words cword cur cmd first=2 opts argh
	local raw=${COMP_WORDS[COMP_CWORD]} sub=()
	local __tk_words __tk_cword __tk_pos __tk_vals __tk_before
	__tracekit_reassemble
	words=("${__tk_words[@]}")
	cword=$__tk_cword
	cur=${words[cword]}
	COMPREPLY=()

	cmd=${words[1]}
	if ((cword == 1)); then
		__tracekit_add $("$tk" --list-cmds 2>/dev/null)
	elif [[ $cmd == help ]]; then
		((cword == 2)) && __tracekit_add $("$tk" --list-cmds 2>/dev/null)
	elif [[ $cmd == ubifs && $cword == 2 ]]; then
		__tracekit_add $("$tk" ubifs --list-cmds 2>/dev/null)
	else
		if [[ $cmd == ubifs ]]; then
			sub=("${words[2]}")
			first=3
		fi
		opts=$("$tk" "$cmd" "${sub[@]}" --list-opts 2>/dev/null)
		__tracekit_scan
		argh=$(__tracekit_argh "${words[cword - 1]}")
		if [[ " ${words[*]:first:cword - first} " == *" -- "* ]] ||
		   { [[ $cmd == record || $cmd == stack ]] && ((__tk_before)); }; then
			__tracekit_positional
		elif [[ $cur == --*=* ]]; then
			argh=$(__tracekit_argh "${cur%%=*}")
			local pre=${cur%%=*}= i
			cur=${cur#*=}
			[[ -n $argh ]] && __tracekit_arg "$argh"
			for i in "${!COMPREPLY[@]}"; do
				COMPREPLY[i]=$pre${COMPREPLY[i]}
			done
			cur=$pre$cur
		elif [[ -n $argh && ${words[cword - 1]} == -* ]]; then
			__tracekit_arg "$argh"
		elif [[ $cur == -* ]]; then
			__tracekit_add $(__tracekit_spellings)
		else
			__tracekit_positional
		fi
	fi

	# Readline replaces only the last piece of the word, $raw: drop what
	# comes before it from each completion ("sched:" of "sched:sched_switch").
	local i pre=${cur%"$raw"}
	if [[ -n $pre ]]; then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"$pre"}
		done
	fi
}

complete -F _tracekit tracekit
