# Sourced by tests/shell/probe-sdt*.sh: builds the SDT test programs in
# $TK_TMP with gcc and <sys/sdt.h> (systemtap-sdt-dev).
#
# sdtprog N: N calls of work(); each checks the semaphore of tkapp:req,
# prints "sema=VALUE", and when it is set prints the arguments it passes
# to the marker the way the kernel's trace prints them, then fires it.
# tkapp:tick has two sites (work and main).  libtksdt.so has the same for
# tklib:ev, its semaphore in the library, called by uselib N.

need_sdt_build() {
	need_cmd gcc
	echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1 ||
		skip "no <sys/sdt.h> (install systemtap-sdt-dev)"
}

build_sdt_progs() {
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
	gcc -O2 -g -o "$d/sdtprog" "$d/prog.c" || fail "cannot build prog.c"
	gcc -O2 -g -no-pie -o "$d/sdtprog_nopie" "$d/prog.c" || fail "cannot build prog.c -no-pie"
	gcc -O2 -g -shared -fPIC -o "$d/libtksdt.so" "$d/lib.c" || fail "cannot build lib.c"
	gcc -O2 -g -o "$d/uselib" "$d/uselib.c" -L"$d" -ltksdt -Wl,-rpath,"$d" ||
		fail "cannot build uselib.c"
}
