// SPDX-License-Identifier: GPL-2.0
/*
 * Signed bitfields for tests/shell/probe-signed-bitfield.sh: the probe
 * spec fetches each member of struct sbf by name, and the program prints
 * "NAME=VALUE" for each, in the same order, as C reads them: the oracle.
 * Widths and places vary: in 32, 16, 8 and 64-bit containers, at bit 0
 * and higher, the most negative value, a positive one, a 1-bit field,
 * and whole aligned bytes and halves (fetched as the kernel's s8, s16).
 */
#include <stdio.h>

struct sbf {
	int a : 4;		/* at bit 0 of a 32-bit container */
	int b : 3;		/* its minimum */
	int c : 5;		/* positive */
	int m : 1;		/* one bit: 0 or -1 */
	int : 3;
	int whole8 : 8;		/* bits 16..23: an aligned s8 */
	short h : 5;		/* in a 16-bit container */
	short whole16 : 16;	/* an aligned s16 */
	signed char k : 3;	/* in an 8-bit container */
	long long f : 40;	/* in a 64-bit container */
	long long top : 24;	/* its sign the container's top bit */
};

__attribute__((noinline)) int use(struct sbf *p)
{
	printf("a=%d b=%d c=%d m=%d whole8=%d h=%d whole16=%d k=%d f=%lld top=%lld\n",
	       p->a, p->b, p->c, p->m, p->whole8, p->h, p->whole16, p->k,
	       (long long)p->f, (long long)p->top);
	return p->a;
}

int main(void)
{
	struct sbf s = {
		.a = -3, .b = -4, .c = 7, .m = -1, .whole8 = -100, .h = -16,
		.whole16 = -300, .k = -2, .f = -5, .top = -8388607,
	};

	return use(&s) != -3;
}
