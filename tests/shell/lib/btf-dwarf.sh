# Sourced by probe-btf-dwarf.sh (x86-64 guest) and arm64-btf-dwarf.sh
# (arm64 guest), after common.sh: the specs of a kernel's BTF, their
# definitions from its vmlinux DWARF made on this host, and the
# classification of every difference between those and the guest's from
# BTF alone.  Each function sets or reads these variables:
#   vmlinux  the kernel's vmlinux with DWARF (tests/vm/vmlinux-dbg.sh)
#   stride   every stride-th spec of the BTF, in C sort order
# and writes its files in $TK_TMP.

lib=$TRACEKIT_SRCDIR/tests/shell/lib

# btf_dwarf_specs: $TK_TMP/specs (lib/btf-specs.awk over vmlinux's .BTF)
# and what the classification needs from the BTF.
btf_dwarf_specs() {
	bpftool btf dump file "$vmlinux" format raw >"$TK_TMP/btf.raw" || fail "bpftool cannot read $vmlinux"
	awk -f "$lib/btf-specs.awk" "$TK_TMP/btf.raw" |
		LC_ALL=C sort | awk -v s="$stride" 'NR % s == 0' >"$TK_TMP/specs"
	# The parameters from a struct passed by value on, which BTF cannot place.
	awk -v byval=1 -f "$lib/btf-specs.awk" "$TK_TMP/btf.raw" >"$TK_TMP/byval"
	# Each FUNC bpftool lists, "NAME<TAB>PARAM PARAM ", in its order; multi:
	# the names it lists more than once; differ: those whose prototypes name
	# other parameters, which tracekit must refuse ($params gives other
	# definitions).
	awk '/^\[[0-9]+\] / {
			cur = substr($1, 2, length($1) - 2)
			if ($2 == "FUNC") { n = $3; gsub(/\x27/, "", n); t = $4; sub(/type_id=/, "", t); fn[++nf] = n; ft[nf] = t }
			next
		}
		/^\t\x27/ { p = $1; gsub(/[\t\x27]/, "", p); params[cur] = params[cur] p " " }
		END { for (i = 1; i <= nf; i++) print fn[i] "\t" params[ft[i]] }' "$TK_TMP/btf.raw" >"$TK_TMP/fparams"
	cut -f1 "$TK_TMP/fparams" | sort | uniq -d >"$TK_TMP/multi"
	awk -F'\t' '!($1 in first) { first[$1] = $2; next }
		first[$1] != $2 && !($1 in seen) { seen[$1] = 1; print $1 }' "$TK_TMP/fparams" >"$TK_TMP/differ"
	[ -s "$TK_TMP/differ" ] || echo "note: no name in this BTF has prototypes with other parameters"
	[ -s "$TK_TMP/specs" ] || fail "no functions in the BTF of $vmlinux"
}

# btf_dwarf_host: starts translating $TK_TMP/specs from vmlinux's DWARF
# on this host, into dwarf.out and dwarf.err; btf_dwarf_wait ends it.
btf_dwarf_host() {
	# The host's DWARF side runs while the guest boots and translates, in a
	# bash of its own (a subshell would inherit the EXIT trap's cleanups).
	cat >"$TK_TMP/dwarf.sh" <<-'EOS'
	args=()
	while IFS= read -r s; do
		args+=(-D "$s")
		if [ ${#args[@]} -ge 4000 ]; then
			"$1" probe -k "$2" --keep-going "${args[@]}"
			args=()
		fi
	done
	[ ${#args[@]} = 0 ] || "$1" probe -k "$2" --keep-going "${args[@]}"
	exit 0
	EOS
	bash "$TK_TMP/dwarf.sh" "$TRACEKIT" "$vmlinux" <"$TK_TMP/specs" >"$TK_TMP/dwarf.out" \
		2>"$TK_TMP/dwarf.err" &
	dwarf_pid=$!
	on_exit "kill $dwarf_pid 2>/dev/null || true"
}

btf_dwarf_wait() {
	wait "$dwarf_pid"
}

# btf_dwarf_results: the guest's definitions and refusals from BTF
# (lib/btf-guest.sh's markers in $TK_TMP/console) into btf.defs, btf.errs.
btf_dwarf_results() {
	local f
	for f in defs errs; do
		sed -n "/^BTF-$f-BEGIN/,/^BTF-$f-END/p" "$TK_TMP/console" | sed '1d;$d' | tr -d '\r' |
			base64 -d | gzip -dc >"$TK_TMP/btf.$f" || fail "the guest's $f did not come through"
	done
}

# btf_dwarf_classify REGS STACK_ARGS ENTRY_SKIP: puts each function of
# specs in a kind ($TK_TMP/kinds), prints the count of each and fails on
# a kind not known to come from the DWARF (an argument the compiler moved
# or dropped).  REGS: the machine's argument registers as the
# definitions name them, in order; STACK_ARGS: the offset of the first
# stack argument from %sp at the entry; ENTRY_SKIP: the bytes of
# patchable-entry NOPs between a function's symbol and its DWARF entry
# (empty if none).
btf_dwarf_classify() {
	local regs=$1 stack_args=$2 entry_skip=$3 kind f detail n
	# One line per function: KIND<TAB>FUNC<TAB>DETAIL.
	awk -F'\t' -v regs="$regs" -v stack_args="$stack_args" -v entry_skip="$entry_skip" -v specs="$TK_TMP/specs" -v byval="$TK_TMP/byval" -v multi="$TK_TMP/multi" -v differ="$TK_TMP/differ" '
	# m[NAME] = CHAIN:TYPE of each argument; seq the chains in order.
	function argmap(line, m,   n, a, i, k) {
		delete m
		seq = ""
		n = split(line, a, " ")
		for (i = 3; i <= n; i++) {
			k = a[i]; sub(/=.*/, "", k); m[k] = substr(a[i], length(k) + 2)
			seq = seq " " m[k]
		}
		return n - 2
	}
	function fname(line,   f) { f = line; sub(/^[pr]:probe\//, "", f); sub(/ .*/, "", f); return f }
	function errname(line,   f) { f = line; sub(/^tracekit probe: \x27/, "", f); sub(/[ \x27].*/, "", f); return f }
	FILENAME ~ /btf\.defs$/ { b[fname($0)] = $0; next }
	FILENAME ~ /btf\.errs$/ { if ($0 ~ /^tracekit probe: \x27/) be[errname($0)] = $0; next }
	FILENAME ~ /dwarf\.out$/ { f = fname($0); d[f] = d[f] ? d[f] "\n" $0 : $0; nd[f]++; next }
	FILENAME ~ /dwarf\.err$/ { if ($0 ~ /^tracekit probe: \x27/) de[errname($0)] = $0; next }
	END {
		nreg = split(regs, reg, " ")
		while ((getline s < multi) > 0) many[s] = 1
		while ((getline s < differ) > 0) differs[s] = 1
		while ((getline s < byval) > 0) {
			n = split(s, w, " ")
			for (i = 2; i <= n; i++) bv[w[1], w[i]] = 1
		}
		while ((getline s < specs) > 0) {
			split(s, w, " "); f = w[1]
			if ((f in differs) && !(f in be)) {
				print "UNEXPLAINED BTF took one of prototypes with other parameters\t" f; continue
			}
			if ((f in be) && (f in de)) { print "both refuse\t" f; continue }
			if (f in be) {
				e = be[f]; sub(/^[^:]*: [^:]*: /, "", e)
				if (e ~ /functions of that name in \/proc\/kallsyms/) k = "BTF refuses: a name kallsyms lists twice"
				else if (e ~ /passed as a float or holding one/) k = "BTF refuses: a parameter after a float, or a struct holding one"
				else if (e ~ /notrace \(not in available_filter_functions\)/) k = "BTF refuses: notrace, which kprobe events cannot take"
				else if (e ~ /on the kprobe blacklist/) k = "BTF refuses: on the kprobe blacklist"
				else if (e ~ /not all functions: the kernel puts no kprobe on a name that is not unique/) k = "BTF refuses: a name a data symbol shares, which kprobes refuse"
				else if (e ~ /not in \/proc\/kallsyms/) k = "BTF refuses: not in kallsyms (inlined everywhere)"
				else if (e ~ /BTF has [0-9]+ prototypes of that name/ && (f in many))
					k = "BTF refuses: several prototypes of one name (bpftool lists them), none tells which is kallsyms\x27"
				else k = "UNEXPLAINED BTF refuses"
				print k "\t" f "\t" e; continue
			}
			if (f in de) {
				e = de[f]
				if (e ~ /no function .* with code/) k = "DWARF has no out-of-line code (kallsyms has it)"
				else if (e ~ /is a declaration|has no members|incomplete|\(members: \)/) k = "DWARF sees only a declaration of the struct"
				else if (e ~ /\x27__unused\x27: no such variable/) k = "BTF has the weak sys_ni default (__unused), DWARF the syscall (regs)"
				else if (e ~ /is a symbol without debug info/) k = "DWARF describes no code at the symbol (perf finds none either)"
				else if (e ~ /optimized out at this address|computed at this address|no such variable at .*\(inlined copy/) k = "DWARF: a parameter moved or dropped, its member chain refused"
				else k = "UNEXPLAINED DWARF refuses"
				print k "\t" f "\t" e; continue
			}
			if (nd[f] > 1) { print "DWARF has " (nd[f] > 2 ? "several" : "2") " copies (static in several files, or inlined)\t" f; continue }
			bl = b[f]; dl = d[f]
			split(bl, bw, " "); split(dl, dw, " ")
			bp = bw[2]; dp = dw[2]; sub(/\+0$/, "", dp)
			# The same registers: no instruction of the function ran.
			nops = entry_skip != "" && dp == bp "+" entry_skip
			if (nops)
				dp = bp
			if (bp != dp && bp == f && dp != f) {
				print "DWARF has only an inlined copy, kallsyms an out-of-line symbol too\t" f; continue
			}
			if (bp != dp) { print "UNEXPLAINED point\t" f "\t" bp " vs " dw[2]; continue }
			nb = argmap(bl, B); bseq = seq; ndw = argmap(dl, D)
			kind = "same"
			names_differ = 0
			for (a in B) if (!(a in D)) names_differ = 1
			if (names_differ && nb == ndw && bseq == seq) {
				print "same chains, other parameter names (BTF has a declaration\x27s)\t" f; continue
			}
			for (a in B) {
				if (!(a in D)) { if (kind == "same") kind = "DWARF leaves out an optimized-out parameter"; continue }
				if (B[a] == D[a]) continue
				# $argN is slot N: a register or an 8-byte stack slot from
				# stack_args(%sp), which DWARF names where an earlier struct
				# by value stops it using $argN (arch/*/dwarf-regs.c,
				# arg_slot, and arch/arch.c).
				ba = B[a]
				if (match(ba, /\$arg[0-9]+/)) {
					k = substr(ba, RSTART + 4, RLENGTH - 4) + 0
					ba = substr(ba, 1, RSTART - 1) (k <= nreg ? reg[k] : "+" (stack_args + 8 * (k - nreg - 1)) "(%sp)") substr(ba, RSTART + RLENGTH)
				}
				if (ba == D[a]) { if (kind == "same") kind = "same slot, DWARF names its register or stack slot (after a struct by value)"; continue }
				if (D[a] !~ /\$arg/ && B[a] ~ /\$arg/ && D[a] ~ /%|\$stack|@/) {
					if (kind == "same") kind = "DWARF places the argument elsewhere at entry (registers, not its ABI slot)"
					continue
				}
				kind = "UNEXPLAINED chain"; detail = a ": BTF " B[a] " DWARF " D[a]
				break
			}
			for (a in D) {
				if ((a in B) || kind ~ /UNEXPLAINED/) continue
				if ((f, a) in bv) { kind = "BTF leaves out a struct passed by value and what follows"; continue }
				kind = "UNEXPLAINED DWARF has more arguments"; detail = a
			}
			if (kind == "same" && nops)
				kind = "same, DWARF\x27s entry past the patchable-entry NOPs (+" entry_skip ")"
			print kind "\t" f "\t" (kind ~ /UNEXPLAINED/ ? detail : "")
		}
	}' "$TK_TMP/btf.defs" "$TK_TMP/btf.errs" "$TK_TMP/dwarf.out" "$TK_TMP/dwarf.err" >"$TK_TMP/kinds"

	while IFS=$'\t' read -r kind f detail; do
		case $kind in
		UNEXPLAINED*)
			if other_function "$f"; then
				kind="BTF describes another function of that name than kallsyms' (DWARF has both)"
			fi ;;
		esac
		printf '%s\t%s\t%s\n' "$kind" "$f" "$detail"
	done <"$TK_TMP/kinds" >"$TK_TMP/kinds.2" && mv "$TK_TMP/kinds.2" "$TK_TMP/kinds"

	n=$(wc -l <"$TK_TMP/specs")
	echo "BTF (guest) vs DWARF (host) on $n functions of $(basename "$vmlinux") (every ${stride}th of its BTF):"
	cut -f1 "$TK_TMP/kinds" | sort | uniq -c | sort -rn
	[ "$(wc -l <"$TK_TMP/kinds")" = "$n" ] || fail "$(wc -l <"$TK_TMP/kinds") of $n functions classified"
	if grep '^UNEXPLAINED' "$TK_TMP/kinds" | head -n 20 | grep .; then
		fail "differences of no known kind"
	fi
}

# other_function F: 0 when F's differences come from BTF describing
# another function of that name than the one at F's symbol: among
# llvm-dwarfdump's DIEs named F, the one at the symbol's address (past
# ENTRY_SKIP, btf_dwarf_classify's, from the caller) has other
# parameters than BTF's prototype, and another DIE (inlined only, or
# elsewhere) has BTF's.  pahole before 1.25 encodes one function per name.
other_function() {
	local f=$1 addr btf
	addr=$(readelf -sW "$vmlinux" | awk -v f="$f" '$4 == "FUNC" && $8 == f { print "0x" $2 }')
	[ "$(wc -w <<<"$addr")" = 1 ] || return 1
	addr=$(printf '0x%x' $((addr + ${entry_skip:-0})))
	btf=$(awk -F'\t' -v f="$f" '$1 == f { n++; p = $2 } END { if (n == 1) print p; exit n != 1 }' \
		"$TK_TMP/fparams") || return 1
	# A parameter is named by DW_AT_name, or through its abstract origin.
	llvm-dwarfdump --name="$f" -c "$vmlinux" | awk -v addr="$addr" -v btf="$btf" '
		function done_die() {
			if (sub_ && !decl) { if (pc == addr) at = params; else if (params == btf) other = 1 }
			sub_ = 0
		}
		/^0x[0-9a-f]+: DW_TAG/ {
			done_die(); sub_ = ($2 == "DW_TAG_subprogram"); params = pc = ""; decl = 0; next
		}
		/^0x[0-9a-f]+:   DW_TAG/ { child = ($2 == "DW_TAG_formal_parameter"); next }
		/^0x[0-9a-f]+:    / { child = 0; next }
		sub_ && /^              DW_AT_declaration/ { decl = 1 }
		sub_ && /^              DW_AT_low_pc/ { pc = $2; gsub(/[()]/, "", pc); sub(/^0x0*/, "0x", pc) }
		sub_ && child && /^                DW_AT_(name|abstract_origin)/ && match($0, /"[^"]*"/) {
			params = params substr($0, RSTART + 1, RLENGTH - 2) " "; child = 0
		}
		END { done_die(); exit !(other && at != btf) }'
}

# btf_dwarf_batch: the guest's one tracekit probe -a of its definitions
# (BATCH-ADD and BATCH-LEFT in $TK_TMP/console): all accepted, none left.
btf_dwarf_batch() {
	local batch brc picked added
	# The batch: all accepted in one tracekit probe -a, and nothing left.
	batch=$(sed -n 's/^BATCH-ADD: //p' "$TK_TMP/console" | tr -d '\r')
	read -r brc picked added _ <<<"$batch"
	if [ "$brc" != rc=0 ] || [ "${picked#picked=}" != "${added#in_kprobe_events=}" ] ||
		{ [ "${picked#picked=}" -lt 1000 ] && [ "$stride" -le 16 ]; }; then
		grep -A5 '^BATCH-ADD' "$TK_TMP/console"
		fail "batch of BTF definitions: $batch"
	fi
	echo "one tracekit probe -a of ${picked#picked=} BTF definitions: all in kprobe_events"
	assert_eq "probes left in the guest" "$(sed -n 's/^BATCH-LEFT: //p' "$TK_TMP/console" | tr -d '\r')" 0
}
