#!/bin/bash
# description: probe: BTF-only kprobes the kernel accepts and fires; the blacklist refused first
# Runs for real in the VM guest (Debian's kernel has BTF and kprobes, and
# no vmlinux with DWARF): the definitions tracekit derives from BTF alone
# must be accepted by kprobe_events, do_sys_openat2's filename must record
# the path this test opens, a module's function (where a module with BTF
# is loaded) goes on MOD:FUNC, and a function on the kprobe blacklist is
# refused before anything is written.  probe-btf.sh checks the offsets
# against pahole.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/probe-btf.sh"
export LC_ALL=C

need_tracefs
need_cap kprobes "this kernel has no kprobe_events"
need_cap instances "this tracefs has no instances"
need_cap btf "this kernel has no /sys/kernel/btf/vmlinux"
need_btf_only

group=tkbtf
on_exit "'$TRACEKIT' probe -d '$group:*'"
btf_add "$group" -a "$group:seed=ip_rcv dev->perm_addr:x8[6]" \
	-a "$group:open=do_sys_openat2 filename:string" \
	-a "$group:params=do_sys_openat2 \$params" \
	-a "$group:ret=do_sys_openat2%return \$retval"
assert_eq "four definitions" "$(wc -l <"$TK_TMP/defs")" 4
assert_grep "^p:$group/seed ip_rcv perm_addr=\+[0-9]+\(\\\$arg2\):x8\[6\]$" "$TK_TMP/defs"
assert_grep "^p:$group/open do_sys_openat2 filename=\+0\(\\\$arg2\):string$" "$TK_TMP/defs"
# The kernel lists a return probe with its maxactive (r10:).
assert_grep "^r[0-9]*:$group/ret do_sys_openat2 ret=\\\$retval:s(32|64)$" "$TK_TMP/defs"

# The filename the kernel records is the one this test opens.
inst=tkbtf_$$
mkdir "$TRACEFS/instances/$inst" || fail "cannot create instance"
on_exit "rmdir '$TRACEFS/instances/$inst'"
echo 1 >"$TRACEFS/instances/$inst/events/$group/open/enable" || fail "cannot enable open"
on_exit "echo 0 >'$TRACEFS/instances/$inst/events/$group/open/enable'"
echo hello >"$TK_TMP/btf-opened"
cat "$TK_TMP/btf-opened" >/dev/null
echo 0 >"$TRACEFS/instances/$inst/events/$group/open/enable"
assert_grep "open: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) filename=\"$TK_TMP/btf-opened\"" \
	"$TRACEFS/instances/$inst/trace"

# A module's function, typed from /sys/kernel/btf/MOD.
for m in /sys/kernel/btf/*; do
	mod=${m##*/}
	[ "$mod" = vmlinux ] && continue
	f=$(awk -v mod="[$mod]" '($2 == "t" || $2 == "T") && $4 == mod { print $3 }' /proc/kallsyms |
		sort | uniq -u | while read -r fn; do
			"$TRACEKIT" probe -D "$fn \$params" >/dev/null 2>&1 && { echo "$fn"; break; }
		done)
	[ -n "$f" ] || continue
	"$TRACEKIT" probe -a "$group:mod=$f \$params" >"$TK_TMP/add" 2>&1 ||
		{ cat "$TK_TMP/add"; tail -n 5 "$TRACEFS/error_log"; fail "probe -a $mod:$f failed"; }
	assert_grep "^p:$group/mod $mod:$f( |$)" "$TRACEFS/kprobe_events"
	break
done

# The blacklist, where debugfs shows it: refused with nothing written.
bl=/sys/kernel/debug/kprobes/blacklist
if [ -r "$bl" ]; then
	# '*': the blacklist's __* functions too, which -F alone leaves out.
	"$TRACEKIT" probe -F '*' >"$TK_TMP/funcs" || fail "probe -F"
	awk '$2 == "t" || $2 == "T" { print $3 }' /proc/kallsyms | sort | uniq -u >"$TK_TMP/once"
	# awk, not comm: the guest's busybox has none.
	f=$(awk 'FILENAME == ARGV[1] { bl[$2] = 1; next }
		FILENAME == ARGV[2] { if ($1 in bl) btf[$1] = 1; next }
		$1 in btf { print $1; exit }' "$bl" "$TK_TMP/funcs" "$TK_TMP/once")
	[ -n "$f" ] || fail "no function of $bl is in BTF and once in kallsyms"
	cp "$TRACEFS/kprobe_events" "$TK_TMP/before"
	expect_fail "$TRACEKIT" probe -a "$group:bl=$f"
	assert_grep "^tracekit probe: $f: on the kprobe blacklist" "$TK_TMP/out"
	# Through a pipe: GNU cmp -s calls regular files of other sizes
	# different unread, and a tracefs file's size is 0.
	cat "$TRACEFS/kprobe_events" | cmp -s "$TK_TMP/before" - || fail "kprobe_events changed"
fi

"$TRACEKIT" probe -d "$group:*" >/dev/null || fail "probe -d failed"
! grep -q "$group/" "$TRACEFS/kprobe_events" || fail "probes left behind"
