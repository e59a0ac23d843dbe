#!/bin/bash
# description: arm64: SDT markers of cross-built programs, a library, hand-written operands (x, w, [sp, N], [sp], [xN, N], constants) and Debian's arm64 libstdc++ and libpython defined on this host (--sysroot) record in Debian's arm64 kernel what the programs print, semaphores raised while enabled
# tracefs: untouched
# The SDT programs of lib/sdt-progs.sh (their C is any machine's) and an
# arm64 one whose operands are written by hand in each form gcc and clang
# emit are cross-built into a copy of the guest's tree; `tracekit probe
# --sysroot TREE -x /PATH -D` turns their markers into definitions here.
# The arm64 guest writes them into uprobe_events, runs each program
# before (the semaphore 0), while (set: the arguments it prints) and
# after (0 again) the events are enabled: the kernel is the oracle.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/sdt-progs.sh"
. "$(dirname "$0")/lib/arm64.sh"

need_vm_host qemu-system-aarch64 aarch64-linux-gnu-gcc readelf
need_sdt_build
root=$TK_TMP/root
files=$root/tracekit/files
mkdir -p "$files"
arm64_cc
cc=("${ARM64_CC[@]}")

sdt_sources
cat >"$TK_TMP/asm64.c" <<'ASM'
#include <stdio.h>

/*
 * Each operand form with a value the program prints; x22 is restored.
 * The note is written out as <sys/sdt.h> writes it (STAP_PROBE_ASM
 * would split the operands at their commas): the site, .stapsdt.base,
 * no semaphore, provider, name, arguments.
 */
__asm__(".text\n.globl tk_regs\n.type tk_regs,%function\ntk_regs:\n"
	"sub sp, sp, #128\n"
	"stp x22, x30, [sp, #112]\n"
	"mov x4, #-3\n"
	"mov w2, #-7\n"
	"mov w9, #1234\n"
	"str w9, [sp, #96]\n"
	"mov w9, #-99\n"
	"str w9, [sp]\n"
	"mov x22, sp\n"
	"mov w9, #40000\n"
	"strh w9, [x22, #20]\n"
	"990: nop\n"
	".pushsection .note.stapsdt,\"?\",\"note\"\n"
	".balign 4\n"
	".4byte 992f-991f, 994f-993f, 3\n"
	"991: .asciz \"stapsdt\"\n"
	"992: .balign 4\n"
	"993: .8byte 990b\n"
	".8byte _.stapsdt.base\n"
	".8byte 0\n"
	".asciz \"tkasm\"\n"
	".asciz \"regs\"\n"
	".asciz \"-8@x4 -4@w2 -4@[sp, 96] -4@[sp] 2@[x22, 20] 4@5\"\n"
	"994: .balign 4\n"
	".popsection\n"
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"
	".weak _.stapsdt.base\n"
	".hidden _.stapsdt.base\n"
	"_.stapsdt.base: .space 1\n"
	".size _.stapsdt.base, 1\n"
	".popsection\n"
	"ldp x22, x30, [sp, #112]\n"
	"add sp, sp, #128\n"
	"ret\n.size tk_regs, .-tk_regs\n");
void tk_regs(void);

int main(void)
{
	printf("args: arg1=-3 arg2=-7 arg3=1234 arg4=-99 arg5=40000 arg6=5\n");
	tk_regs();
	return 0;
}
ASM
"${cc[@]}" -O2 -g -o "$files/sdtprog" "$TK_TMP/prog.c" || fail "cannot cross-build prog.c"
"${cc[@]}" -O2 -g -no-pie -o "$files/sdtprog_nopie" "$TK_TMP/prog.c" ||
	fail "cannot cross-build prog.c -no-pie"
"${cc[@]}" -O2 -g -shared -fPIC -o "$files/libtksdt.so" "$TK_TMP/lib.c" ||
	fail "cannot cross-build lib.c"
"${cc[@]}" -O2 -g -o "$files/uselib" "$TK_TMP/uselib.c" -L"$files" -ltksdt \
	-Wl,-rpath,/tracekit/files || fail "cannot cross-build uselib.c"
"${cc[@]}" -O2 -o "$files/sdtasm" "$TK_TMP/asm64.c" || fail "cannot cross-build asm64.c"

# A real arm64 library's markers: Debian's libstdc++6:arm64 (the cross
# toolchain's has none), its libstdcxx:throw fired by a program that
# prints what __cxa_throw gets: the exception object (the address a
# catch by reference sees) and the type_info.
cat >"$TK_TMP/throw.cc" <<'CXX'
#include <cstdio>
#include <cstdlib>
#include <typeinfo>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++) {
		try {
			throw i;
		} catch (int &e) {
			printf("args: arg1=%lu arg2=%lu\n", (unsigned long)&e,
			       (unsigned long)&typeid(int));
		}
	}
	return 0;
}
CXX
aarch64-linux-gnu-g++ -O2 -o "$files/throwprog" "$TK_TMP/throw.cc" ||
	fail "cannot cross-build throw.cc"
mkdir -p "$TK_TMP/debroot"
for p in libstdc++6 libpython3.11; do
	(cd "$TK_TMP" && apt-get download -q $p:arm64 >/dev/null 2>&1) ||
		fail "apt-get download $p:arm64 failed"
	dpkg -x "$TK_TMP"/${p}_*_arm64.deb "$TK_TMP/debroot" || fail "dpkg -x $p failed"
done

# Python embedded in a program: Debian's libpython3.11 enters tkfunc() N
# times, and tkfunc() prints what sdt_python:function__entry records of
# it (file, function, line), as Python itself sees it.  Python fires the
# marker only while its semaphore is raised, and (3.11, measured in the
# guest) only where its eval loop enters a frame anew: a generator's,
# once, at the line of its yield; not a call from Python code, which it
# runs inline, nor one from map().  So the line tkfunc() prints is its
# yield's.  Every other function entered is filtered out in the guest.
cat >"$TK_TMP/pyembed.c" <<'PY'
#include <stdio.h>
#include <stdlib.h>

/* Python's stable C API, Python.h being Debian's -dev package. */
void Py_Initialize(void);
int PyRun_SimpleString(const char *command);
int Py_FinalizeEx(void);

int main(int argc, char **argv)
{
	char code[512];

	snprintf(code, sizeof(code),
		 "import sys\n"
		 "def tkfunc(i):\n"
		 "    f = sys._getframe()\n"
		 "    yield print('args: arg1=\"%%s\" arg2=\"%%s\" arg3=%%d' %% (f.f_code.co_filename, f.f_code.co_name, f.f_lineno), flush=True)\n"
		 "for i in range(%d):\n"
		 "    next(tkfunc(i))\n", argc > 1 ? atoi(argv[1]) : 1);
	Py_Initialize();
	if (PyRun_SimpleString(code))
		return 1;
	return Py_FinalizeEx() ? 1 : 0;
}
PY
pylib=$TK_TMP/debroot/usr/lib/aarch64-linux-gnu
aarch64-linux-gnu-gcc -O2 -o "$files/pyembed" "$TK_TMP/pyembed.c" -L"$pylib" \
	-l:libpython3.11.so.1.0 -Wl,--allow-shlib-undefined 2>"$TK_TMP/err" ||
	{ cat "$TK_TMP/err"; fail "cannot cross-build pyembed.c"; }
echo 'arg2 == "tkfunc"' >"$files/filter.py"

# NAME|SYSROOT|BINARY (the target's path)|RUNNER|SPEC: each traced on
# its own.
cases=(
	"prog|$root|/tracekit/files/sdtprog|sdtprog|sdt_tkapp:req arg6:string"
	"nopie|$root|/tracekit/files/sdtprog_nopie|sdtprog_nopie|sdt_tkapp:req arg6:string"
	"lib|$root|/tracekit/files/libtksdt.so|uselib|sdt_tklib:ev arg2:string"
	"asm|$root|/tracekit/files/sdtasm|sdtasm|sdt_tkasm:regs"
	"cxx|$TK_TMP/debroot|/usr/lib/aarch64-linux-gnu/libstdc++.so.6|throwprog|sdt_libstdcxx:throw"
	"py|$TK_TMP/debroot|/usr/lib/aarch64-linux-gnu/libpython3.11.so.1.0|pyembed|sdt_python:function__entry arg1:string arg2:string"
)
names=()
for c in "${cases[@]}"; do
	IFS='|' read -r name sysroot bin runner spec <<<"$c"
	"$TRACEKIT" probe --sysroot "$sysroot" -x "$bin" -D "$spec" \
		>"$files/defs.$name" 2>"$TK_TMP/err.$name" ||
		{ cat "$TK_TMP/err.$name"; fail "$name: probe -D $spec failed"; }
	sed 's/^/  | /' "$files/defs.$name"
	[ -s "$TK_TMP/err.$name" ] && { cat "$TK_TMP/err.$name"; fail "$name: warnings"; }
	assert_eq "$name: definitions" "$(wc -l <"$files/defs.$name")" 1
	# Semaphore offsets ride on every marker of these programs but asm's
	# and libstdc++'s.
	case $name in
	asm|cxx) ;;
	py) assert_grep "^p:sdt_python/function__entry $bin:0x[0-9a-f]*\(0x[0-9a-f]*\) " \
		"$files/defs.$name" ;;
	*) assert_grep "^p:sdt_[a-z]*/[a-z]* $bin:0x[0-9a-f]*\(0x[0-9a-f]*\) " \
		"$files/defs.$name" ;;
	esac
	echo "$name $runner $(sed 's|^p:\([^ ]*\) .*|\1|' "$files/defs.$name")" >>"$files/cases"
	names+=("$name")
done
# The definitions tracekit writes for the operand forms, each fetched.
assert_grep ' arg1=%x4:s64 arg2=%x2:s32 arg3=\+96\(%sp\):s32 arg4=\+0\(%sp\):s32 arg5=\+20\(%x22\):u16 arg6=\\5:u32$' \
	"$files/defs.asm"

cat >"$files/guest.sh" <<'GUEST'
T=/sys/kernel/tracing
cd /tracekit/files
while read -r name runner ev; do
	./$runner 2 | sed "s/^/BEFORE $name /"
	cat defs.$name >>$T/uprobe_events || echo "REFUSED $name: $(cat defs.$name)"
	[ ! -e filter.$name ] || cat filter.$name >$T/events/$ev/filter ||
		echo "REFUSED $name: filter"
	echo 1 >$T/events/$ev/enable || echo "REFUSED $name: enable"
	./$runner 3 | sed "s/^/RUN $name /"
	echo 0 >$T/events/$ev/enable
	sed "s/^/TRACE $name /" $T/trace
	echo >$T/trace
	echo "-:$ev" >>$T/uprobe_events || echo "REFUSED $name: delete"
	./$runner 2 | sed "s/^/AFTER $name /"
done <cases
GUEST
set +e
"$VM_RUN" --arch arm64 --timeout 300 --file "$files/libtksdt.so" \
	--file "$files/sdtprog" --file "$files/sdtprog_nopie" --file "$files/uselib" \
	--file "$files/sdtasm" --file "$files/throwprog" --deb libstdc++6 \
	--file "$files/pyembed" --file "$files/filter.py" --deb libpython3.11 \
	--file "$files/cases" --file "$files/guest.sh" \
	$(for n in "${names[@]}"; do echo "--file $files/defs.$n"; done) \
	-- sh /tracekit/files/guest.sh >"$TK_TMP/console" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { sed 's/^/  | /' "$TK_TMP/console"; fail "guest exit status $rc"; }
if grep '^REFUSED ' "$TK_TMP/console"; then
	sed 's/^/  | /' "$TK_TMP/console"
	fail "the arm64 kernel refused definitions"
fi
for name in "${names[@]}"; do
	for when in BEFORE AFTER; do
		case $name in asm|cxx|py) continue ;; esac
		assert_eq "$name: semaphore $when the events" \
			"$(sed -n "s/^$when $name //p" "$TK_TMP/console" | sort -u)" "sema=0"
	done
	sed -n "s/^RUN $name args: //p" "$TK_TMP/console" >"$TK_TMP/want.$name"
	sed -n "s/^TRACE $name .*: (0x[0-9a-f]*) //p" "$TK_TMP/console" >"$TK_TMP/got.$name"
	echo "$name: program printed:"; sed 's/^/  /' "$TK_TMP/want.$name"
	echo "$name: kernel recorded:"; sed 's/^/  /' "$TK_TMP/got.$name"
	[ -s "$TK_TMP/want.$name" ] || fail "$name: the program printed no arguments"
	cmp -s "$TK_TMP/want.$name" "$TK_TMP/got.$name" ||
		fail "$name: recorded arguments differ from the printed ones"
	case $name in asm|cxx|py) continue ;; esac
	assert_eq "$name: calls seeing the semaphore set" \
		"$(sed -n "s/^RUN $name //p" "$TK_TMP/console" | grep -c '^sema=[1-9]')" 3
done
echo "${#names[@]} arm64 SDT cases: every definition accepted, every argument as printed"
