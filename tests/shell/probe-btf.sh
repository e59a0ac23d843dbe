#!/bin/bash
# description: probe: BTF-only kernel probes match pahole's offsets and bpftool's prototypes
# tracefs: untouched
# With no vmlinux with DWARF in the usual places, `tracekit probe -D` on
# the running kernel takes its types from /sys/kernel/btf/vmlinux.  The
# member offsets and bitfields it writes must be those pahole prints, the
# parameters and types those bpftool dumps; what BTF cannot describe is
# refused before anything is written.  That the kernel accepts them is
# probe-btf-kprobe.sh, in the VM guest.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/probe-btf.sh"

need_cap btf "this kernel has no /sys/kernel/btf/vmlinux"
need_host_cmd pahole bpftool
BTF=/sys/kernel/btf/vmlinux
need_btf_only
bpftool btf dump file "$BTF" >"$TK_TMP/btf" 2>/dev/null || fail "bpftool btf dump failed"

# off STRUCT MEMBER: the byte offset pahole gives MEMBER in struct STRUCT
# ("TYPE NAME[N];", "TYPE NAME:W;" or "TYPE (*NAME)(ARGS);").
off() {
	pahole -C "$1" "$BTF" 2>/dev/null |
		sed -n -E "s/^[[:space:]]+[^;]*[ *(]$2(\[[0-9]+\])?(:[0-9]+)?(\)\([^;]*\))?;[[:space:]]+\/\*[[:space:]]+([0-9]+)[:[:space:]].*/\4/p" |
		head -n 1
}

# bitfield STRUCT MEMBER: "BYTE BIT WIDTH SIZE" of a bitfield, as pahole
# prints it: its container's offset and size, its bit in the container.
bitfield() {
	pahole -C "$1" "$BTF" 2>/dev/null |
		sed -n -E "s/^[[:space:]]+[^;]*[[:space:]]$2:([0-9]+);[[:space:]]+\/\*[[:space:]]+([0-9]+):[[:space:]]*([0-9]+)[[:space:]]+([0-9]+) \*\/.*/\2 \3 \1 \4/p" |
		head -n 1
}

# proto FUNC: the FUNC_PROTO lines bpftool dumps for FUNC.
proto() {
	local id
	id=$(sed -n "s/^\[[0-9]*\] FUNC '$1' type_id=\([0-9]*\) .*/\1/p" "$TK_TMP/btf" | head -n 1)
	[ -n "$id" ] || fail "bpftool: no FUNC $1"
	sed -n "/^\[$id\] FUNC_PROTO/,/^\[/p" "$TK_TMP/btf" | sed '$d'
}

# scalar ID: the kernel fetch type of BTF type ID, the compiler's layout as BTF records it.
scalar() {
	local id=$1 line
	while :; do
		line=$(grep -m 1 "^\[$id\] " "$TK_TMP/btf")
		case "$line" in
		*" TYPEDEF "* | *" CONST "* | *" VOLATILE "*)
			id=$(echo "$line" | sed -n 's/.* type_id=\([0-9]*\).*/\1/p') ;;
		*" PTR "*) echo x64; return ;;
		*" INT "*)
			local size sign=u
			size=$(echo "$line" | sed -n 's/.* size=\([0-9]*\).*/\1/p')
			case "$line" in *encoding=SIGNED*) sign=s ;; esac
			echo "$sign$((size * 8))"
			return ;;
		*) fail "scalar: type $id: $line" ;;
		esac
	done
}

# def SPEC: the one definition tracekit prints for SPEC.
def() {
	"$TRACEKIT" probe -D "$@" >"$TK_TMP/def" 2>"$TK_TMP/err" ||
		{ cat "$TK_TMP/err"; fail "probe -D $*"; }
	assert_eq "$*: one line" "$(wc -l <"$TK_TMP/def")" 1
	cat "$TK_TMP/def"
}

# refused WHAT PATTERN SPEC...: exit 1, one stderr line matching PATTERN, nothing on stdout.
refused() {
	local what=$1 pat=$2 rc
	shift 2
	"$TRACEKIT" probe "$@" >"$TK_TMP/out" 2>"$TK_TMP/err"
	rc=$?
	[ "$rc" = 1 ] || { cat "$TK_TMP/out" "$TK_TMP/err"; fail "$what: exit $rc, want 1"; }
	[ ! -s "$TK_TMP/out" ] || { cat "$TK_TMP/out"; fail "$what: wrote to stdout"; }
	assert_eq "$what: stderr lines" "$(wc -l <"$TK_TMP/err")" 1
	assert_grep "^tracekit probe: .*$pat" "$TK_TMP/err"
}

# The seed: the 4.20 merge's example, perm_addr of struct net_device.
o=$(off net_device perm_addr)
[ -n "$o" ] || fail "pahole: no perm_addr in struct net_device"
"$TRACEKIT" probe -v -D 'ip_rcv dev->perm_addr:x8[6]' >"$TK_TMP/seed" 2>"$TK_TMP/err" ||
	{ cat "$TK_TMP/err"; fail "seed"; }
assert_eq "seed" "$(cat "$TK_TMP/seed")" "p:probe/ip_rcv ip_rcv perm_addr=+$o(\$arg2):x8[6]"
assert_grep "BTF in $BTF" "$TK_TMP/err"

# A chain through two structs, and a function pointer typed symbol.
o1=$(off net_device netdev_ops)
o2=$(off net_device_ops ndo_open)
assert_eq "ndo_open" "$(def 'ip_rcv dev->netdev_ops->ndo_open')" \
	"p:probe/ip_rcv ip_rcv ndo_open=+$o2(+$o1(\$arg2)):symbol"
o1=$(off sk_buff dev)
assert_eq "skb->dev->perm_addr[1]" "$(def 'ip_rcv mac1=skb->dev->perm_addr[1]')" \
	"p:probe/ip_rcv ip_rcv mac1=+$(($(off net_device perm_addr) + 1))(+$o1(\$arg1)):u8"

# Bitfields from pahole's byte and bit: __u8 ones in anonymous structs of
# sk_buff, and an enum one in a 4-byte container of net_device.
for sm in sk_buff:skb:1:pkt_type sk_buff:skb:1:cloned net_device:dev:2:pcpu_stat_type; do
	IFS=: read -r st var k m <<<"$sm"
	read -r byte bit width size <<<"$(bitfield "$st" "$m")"
	[ -n "$size" ] || fail "pahole: no bitfield $m in struct $st"
	assert_eq "bitfield $m" "$(def "ip_rcv $var->$m")" \
		"p:probe/ip_rcv ip_rcv $m=+$byte(\$arg$k):b$width@$bit/$((size * 8))"
done

# An enum without negative values (bpftool) is unsigned.
grep -A 20 "ENUM 'netdev_ml_priv_type'" "$TK_TMP/btf" | sed '/^\[/{1!q}' | grep -q "val=-" &&
	fail "bpftool: netdev_ml_priv_type has a negative value"
assert_eq "unsigned enum" "$(def 'ip_rcv dev->ml_priv_type')" \
	"p:probe/ip_rcv ip_rcv ml_priv_type=+$(off net_device ml_priv_type)(\$arg2):u32"

# An enum with a negative value (bpftool) is signed.
grep -A 20 "ENUM 'perf_event_state'" "$TK_TMP/btf" | grep -q "val=-" ||
	fail "bpftool: perf_event_state has no negative value"
assert_eq "signed enum" "$(def 'perf_event_enable event->state')" \
	"p:probe/perf_event_enable perf_event_enable state=+$(off perf_event state)(\$arg1):s32"

# do_sys_openat2: filename as a string, $params, the return value.
proto do_sys_openat2 >"$TK_TMP/proto"
want=$(awk -v q="'" 'NR > 1 { gsub(q, "", $1); n++; printf " %s=$arg%d", $1, n }' "$TK_TMP/proto")
got=$(def 'do_sys_openat2 $params' | sed -E 's/:[a-z0-9]+//g; s/^[^ ]* [^ ]*//')
assert_eq "\$params names and slots" "$got" "$want"
types=$(awk 'NR > 1 { sub(/.*type_id=/, ""); print }' "$TK_TMP/proto" |
	while read -r id; do printf ' %s' "$(scalar "$id")"; done)
got=$(def 'do_sys_openat2 $params' | sed -E 's/^[^ ]* [^ ]*//; s/ [a-z_]+=\$arg[0-9]+:/ /g')
assert_eq "\$params types" "$got" "$types"
k=$(awk -v q="'" 'NR > 1 { n++; if ($1 == q "filename" q) print n }' "$TK_TMP/proto")
assert_eq "filename:string" "$(def 'do_sys_openat2 filename:string')" \
	"p:probe/do_sys_openat2 do_sys_openat2 filename=+0(\$arg$k):string"
ret=$(scalar "$(sed -n '1s/.*ret_type_id=\([0-9]*\).*/\1/p' "$TK_TMP/proto")")
assert_eq "%return" "$(def 'do_sys_openat2%return $retval')" \
	"r:probe/do_sys_openat2__return do_sys_openat2 ret=\$retval:$ret"

# A struct passed by value: $params fetches it (its first 8 bytes) in
# the argument slot the x86-64 ABI gives it, registers or stack, and
# every parameter after it; the slots themselves are held against the
# DWARF of the same kernel by probe-btf-dwarf.sh.  From bpftool: the
# first function kallsyms has whose parameter I (not the last) is a
# struct, and its parameters' names.
awk -v q="'" '
/^\[[0-9]+\] / {
	id = substr($1, 2, length($1) - 2); kind[id] = $2; cur = id
	if (match($0, / type_id=[0-9]+/))
		tid[id] = substr($0, RSTART + 9, RLENGTH - 9)
	if ($2 == "FUNC") { n = $3; gsub(q, "", n); fname[id] = n }
	next
}
/^\t/ && kind[cur] == "FUNC_PROTO" {
	n = $1; gsub(q, "", n); t = $2; sub(/type_id=/, "", t)
	np[cur]++; pn[cur, np[cur]] = n; pt[cur, np[cur]] = t
}
function real(t) {
	while (kind[t] == "TYPEDEF" || kind[t] == "CONST" || kind[t] == "VOLATILE")
		t = tid[t]
	return t
}
END {
	for (f in fname) {
		p = tid[f]
		for (i = 1; i < np[p]; i++) {
			k = kind[real(pt[p, i])]
			if (k == "STRUCT" || k == "UNION") {
				printf "%s %d", fname[f], i
				for (j = 1; j <= np[p]; j++)
					printf " %s", pn[p, j]
				print ""
				break
			}
		}
	}
}' "$TK_TMP/btf" | LC_ALL=C sort >"$TK_TMP/byvalue"
awk '$2 == "t" || $2 == "T" { print $3 }' /proc/kallsyms | LC_ALL=C sort -u >"$TK_TMP/ksyms"
read -r f i names <<<"$(LC_ALL=C join "$TK_TMP/byvalue" "$TK_TMP/ksyms" | head -n 1)"
[ -n "$f" ] || fail "bpftool: no function in kallsyms takes a struct by value before another argument"
set -- $names
got=$(def "$f \$params" | sed -E 's/^[^ ]* [^ ]*//; s/=[^ ]*//g')
assert_eq "$f \$params: every parameter" "$got" " $*"
# The parameter after the struct alone has the chain $params gives it.
k=$((i + 1))
after=${!k}
assert_eq "$f $after: as in \$params" "$(def "$f $after" | sed 's/^[^ ]* [^ ]* //')" \
	"$(def "$f \$params" | tr ' ' '\n' | grep "^$after=")"

# -V lists the parameters bpftool lists.
"$TRACEKIT" probe -V do_sys_openat2 >"$TK_TMP/vars" || fail "probe -V"
assert_eq "-V names" "$(awk -F '\t' 'NR > 2 { print $4 }' "$TK_TMP/vars")" \
	"$(awk -v q="'" 'NR > 1 { gsub(q, "", $1); print $1 }' "$TK_TMP/proto")"

# A module's function from its split BTF, when a module with BTF is loaded.
for m in /sys/kernel/btf/*; do
	mod=${m##*/}
	[ "$mod" = vmlinux ] && continue
	bpftool btf dump file "$m" base "$BTF" 2>/dev/null |
		sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)' .*/\1/p" | sort -u >"$TK_TMP/mfuncs"
	awk -v mod="[$mod]" '($2 == "t" || $2 == "T") && $4 == mod { print $3 }' /proc/kallsyms |
		sort | uniq -u | comm -12 - "$TK_TMP/mfuncs" >"$TK_TMP/mboth"
	f=$(head -n 1 "$TK_TMP/mboth")
	[ -n "$f" ] || continue
	assert_eq "module $mod: $f" "$(def "$f")" "p:probe/$f $mod:$f"
	break
done

# A function in a module without BTF (this host's kallsyms has
# [__builtin__ftrace]) is refused with the file that is missing.
read -r f mod <<<"$(awk '($2 == "t" || $2 == "T") && $4 ~ /^\[/ { print $3, substr($4, 2, length($4) - 2) }' \
	/proc/kallsyms | while read -r fn m; do
		[ -e "/sys/kernel/btf/$m" ] || { echo "$fn $m"; break; }
	done)"
if [ -n "$f" ] && [ "$(grep -c " $f\([[:space:]]\|$\)" /proc/kallsyms)" = 1 ]; then
	refused "$f in $mod without BTF" \
		"$f: in module $mod, whose BTF cannot be read \(/sys/kernel/btf/$mod: No such file" -D "$f"
fi

# Refused, with the reason: what needs DWARF, and what the kernel cannot probe.
refused "line probe" "ip_rcv:3: a line probe: needs DWARF debuginfo \(only BTF found: $BTF\)" \
	-D 'ip_rcv:3'
refused "offset" "an offset into a function: needs DWARF debuginfo" -D 'ip_rcv+4'
refused "local" "'iph': not a parameter of ip_rcv \(params: skb dev pt orig_dev\); globals and locals: needs DWARF" \
	-D 'ip_rcv iph'
refused "-L" "needs DWARF debuginfo" -L ip_rcv
sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)' .*/\1/p" "$TK_TMP/btf" | LC_ALL=C sort -u >"$TK_TMP/bfuncs"
sed -n -E 's/^(.*)\.(isra|constprop|part)\.[0-9]+$/\1 &/p' "$TK_TMP/ksyms" | LC_ALL=C sort -k1,1 -u >"$TK_TMP/clones"
LC_ALL=C comm -23 "$TK_TMP/bfuncs" "$TK_TMP/ksyms" >"$TK_TMP/absent"

# -F '*': the functions bpftool dumps that kallsyms has code for (-F
# alone leaves out _* as perf's default filter does).
"$TRACEKIT" probe -F '*' >"$TK_TMP/funcs" || fail "probe -F"
LC_ALL=C comm -12 "$TK_TMP/bfuncs" "$TK_TMP/ksyms" | diff - "$TK_TMP/funcs" >"$TK_TMP/diff" ||
	{ head "$TK_TMP/diff"; fail "-F differs from bpftool's FUNCs in kallsyms"; }
"$TRACEKIT" probe -F 'do_sys_open*' >"$TK_TMP/funcs" || fail "probe -F GLOB"
LC_ALL=C comm -12 "$TK_TMP/bfuncs" "$TK_TMP/ksyms" | grep '^do_sys_open' | diff - "$TK_TMP/funcs" ||
	fail "-F do_sys_open* differs"
f=$(cut -d' ' -f1 "$TK_TMP/clones" | LC_ALL=C comm -23 "$TK_TMP/absent" - | head -n 1)
[ -n "$f" ] || fail "no BTF function is absent from kallsyms (inlined everywhere)"
refused "inlined everywhere: $f" "$f: not in /proc/kallsyms" -D "$f"
read -r f clone <<<"$(LC_ALL=C join "$TK_TMP/absent" "$TK_TMP/clones" | head -n 1)"
[ -n "$clone" ] || fail "no BTF function is in kallsyms only as a clone"
refused "clone of $f" "$f: only its compiler clone $clone is in /proc/kallsyms" -D "$f"
refused "the clone $clone" "$clone: a compiler clone: BTF does not describe its arguments" -D "$clone"
