# Sourced by tests/shell/probe-sdt*.sh: builds the SDT test programs in
# $TK_TMP with gcc and <sys/sdt.h> (systemtap-sdt-dev).
#
# sdtprog N: N calls of work(); each checks the semaphore of tkapp:req,
# prints "sema=VALUE", and when it is set prints the arguments it passes
# to the marker the way the kernel's trace prints them, then fires it.
# tkapp:tick has two sites (work and main).  libtksdt.so has the same for
# tklib:ev, its semaphore in the library, called by uselib N.  sdtasm
# fires tkasm:regs with operands written by hand, as gcc would not pick
# them: the high byte %ah, a double in %rdx, a negative constant; and
# tkasm:sib, whose array elements gcc passes as (%rdi,%rsi,8).

need_sdt_build() {
	need_host_cmd gcc
	echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1 ||
		fail "no <sys/sdt.h> (scripts/deps.sh installs systemtap-sdt-dev)"
}

# sdt_sources: writes prog.c, lib.c and uselib.c (the C of any machine)
# and asm.c (x86-64's) into $TK_TMP.
sdt_sources() {
	local d=$TK_TMP
	cat >"$d/prog.c" <<'PROG'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>

volatile unsigned short tkapp_req_semaphore __attribute__((section(".probes")));
volatile unsigned short tkapp_tick_semaphore __attribute__((section(".probes")));
long g_total = 5;

struct item { long a; int b; const char *tag; };

__attribute__((noinline)) static void work(struct item *it, int i)
{
	if (tkapp_req_semaphore) {
		printf("sema=%u\n", tkapp_req_semaphore);
		printf("args: arg1=%d arg2=%ld arg3=%d arg4=%ld arg5=42 arg6=\"%s\"\n",
		       i, it->a, it->b, g_total, it->tag);
		STAP_PROBE6(tkapp, req, i, it->a, it->b, g_total, 42, it->tag);
	} else {
		printf("sema=0\n");
	}
	STAP_PROBE1(tkapp, tick, i);
}

int main(int argc, char **argv)
{
	struct item it = { -1234567, -7, "tagname" };
	int i, n = argc > 1 ? atoi(argv[1]) : 1;

	for (i = 0; i < n; i++) {
		it.a += i;
		g_total += i;
		work(&it, i);
		STAP_PROBE1(tkapp, tick, -i);
	}
	return 0;
}
PROG
	cat >"$d/lib.c" <<'LIB'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdio.h>

volatile unsigned short tklib_ev_semaphore __attribute__((section(".probes")));

void tk_lib_event(int i, const char *s)
{
	if (tklib_ev_semaphore) {
		printf("sema=%u\n", tklib_ev_semaphore);
		printf("args: arg1=%d arg2=\"%s\" arg3=%ld\n", i, s, (long)i * -1000);
		STAP_PROBE3(tklib, ev, i, s, (long)i * -1000);
	} else {
		printf("sema=0\n");
	}
}
LIB
	cat >"$d/uselib.c" <<'USE'
#include <stdio.h>
#include <stdlib.h>

void tk_lib_event(int i, const char *s);

int main(int argc, char **argv)
{
	static char buf[32];
	int i, n = argc > 1 ? atoi(argv[1]) : 1;

	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "call-%d", i);
		tk_lib_event(i, buf);
	}
	return 0;
}
USE
	cat >"$d/asm.c" <<'ASM'
#include <sys/sdt.h>
#include <stdio.h>

__asm__(".text\n.globl tk_regs\n.type tk_regs,@function\ntk_regs:\n"
	"movl $0xabcd, %eax\n"
	"movq $-5, %r8\n"
	"movabsq $0x3ff8000000000000, %rdx\n"
	"movq $-77, %rcx\n"
	STAP_PROBE_ASM(tkasm, regs, 1@%ah -2@%r8w 1@%al 8f@%rdx -4@$-9 -1@%cl)
	"ret\n.size tk_regs, .-tk_regs\n");
void tk_regs(void);

/* gcc writes arr[i] as base+index*scale operands: no fetcharg for them. */
__attribute__((noipa)) static long sib(long *arr, long i, double d)
{
	STAP_PROBE3(tkasm, sib, arr[i], arr[i + 1], d);
	return arr[i];
}

int main(int argc, char **argv)
{
	long a[4] = { 1, 2, 3, 4 };

	printf("args: arg1=171 arg2=-5 arg3=205 arg4=0x3ff8000000000000 arg5=-9 arg6=-77\n");
	tk_regs();
	printf("sib: arg1=2 arg2=3 arg3=0x3ff8000000000000\n");
	return (int)sib(a, argc - 1, 1.5) - 2;
}
ASM
}

build_sdt_progs() {
	local d=$TK_TMP
	sdt_sources
	gcc -O2 -o "$d/sdtasm" "$d/asm.c" || fail "cannot build asm.c"
	gcc -O2 -g -o "$d/sdtprog" "$d/prog.c" || fail "cannot build prog.c"
	gcc -O2 -g -no-pie -o "$d/sdtprog_nopie" "$d/prog.c" || fail "cannot build prog.c -no-pie"
	gcc -O2 -g -shared -fPIC -o "$d/libtksdt.so" "$d/lib.c" || fail "cannot build lib.c"
	gcc -O2 -g -o "$d/uselib" "$d/uselib.c" -L"$d" -ltksdt -Wl,-rpath,"$d" ||
		fail "cannot build uselib.c"
}
