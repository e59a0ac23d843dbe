#!/bin/bash
# description: deps: scripts/deps.sh installs every tool the tests need; --build only the build packages
# tracefs: untouched
# The tests fail when a tool they need is missing, so the tools must come
# from the packages `make check` installs, or from the base system.
. "$(dirname "$0")/lib/common.sh"

need_cap '!in_vm' "the guest has neither dpkg nor scripts/"
need_cmd dpkg dpkg-query
src=${TRACEKIT_SRCDIR:-$(dirname "$0")/../..}
"$src/scripts/deps.sh" --list | sort >"$TK_TMP/all" || fail "deps.sh --list"
"$src/scripts/deps.sh" --build --list | sort >"$TK_TMP/build" || fail "deps.sh --build --list"
assert_eq "build packages are among all" "$(comm -23 "$TK_TMP/build" "$TK_TMP/all")" ""
for p in trace-cmd jq qemu-system-x86; do
	! grep -qx "$p" "$TK_TMP/build" || fail "plain make would install the test package $p"
	grep -qx "$p" "$TK_TMP/all" || fail "make check would not install $p"
done

# The tools the shell tests require (need_cmd, need_host_cmd, need_vm_host)
# and the C suites' (tests/record.c, tests/report.c: cc, trace-cmd, jq).
tools=$({ sed -n 's/^[[:space:]]*need_\(cmd\|host_cmd\|vm_host\) \([^#"$]*\).*/\2/p' \
	"$src"/tests/shell/*.sh "$src"/tests/shell/lib/*.sh; echo gcc trace-cmd jq clang; } |
	tr ' ' '\n' | sort -u)
for t in $tools; do
	path=$(command -v "$t") || fail "$t is not installed"
	# Debian lists /usr-merged files under their old /bin, /sbin paths;
	# "diversion by ..." lines name no owner.
	pkg=$({ dpkg -S "$path" || dpkg -S "${path#/usr}"; } 2>/dev/null |
		sed -n '/^diversion /d; s/[:,].*//p' | head -n 1)
	[ -n "$pkg" ] || fail "no package owns $path"
	grep -qx "$pkg" "$TK_TMP/all" && continue
	case $(dpkg-query -W -f='${Priority}' "$pkg") in
	required|important) ;;
	*) fail "$t comes from $pkg, which scripts/deps.sh does not install" ;;
	esac
done
echo "tools checked:" $tools
