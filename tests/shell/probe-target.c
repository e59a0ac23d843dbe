// SPDX-License-Identifier: GPL-2.0
/*
 * Target of the uprobe tests (tests/shell/probe-uprobe.sh): each probed
 * function prints, before it is called, the values a probe on it must
 * record, in the kernel's trace output format, as "EXPECT EVENT: ARGS".
 */
#include <stdio.h>
#include <string.h>

struct inner {
	long vals[4];
	char name[16];
};

struct dev {
	unsigned char mac[6];
	unsigned int up : 1;
	unsigned int flags : 6;
	unsigned int speed : 24;
	int mtu;
	struct inner *in;
	int (*handler)(int);
};

struct pkt {
	int len;
	struct dev *dev;
	short s4[4];
	long big[100];
	struct stats {
		int rx, tx;
	} st;
};

int g_counter = 7;
static long s_total = 1000;

static int handler(int x)
{
	return x + 1;
}

__attribute__((noipa)) int ip_rcv(struct pkt *skb, int flags, const char *who)
{
	s_total += skb->len + flags;
	return skb->dev->handler(flags) + (int)strlen(who);
}

__attribute__((noipa)) long many_args(int a1, long a2, int a3, long a4, int a5,
				      long a6, int a7, long a8, const char *a9)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9[0];
}

__attribute__((noipa)) long sum_vals(const struct inner *in, int n)
{
	long total = 0;
	int i;

	for (i = 0; i < n; i++)
		total += in->vals[i] * (i + 1);
	return total;
}

/* Only ever inlined: probed at each inlined copy. */
static inline __attribute__((always_inline)) long scale(long x, int k)
{
	return x * k + 1;
}

static void print_array(const char *name, const unsigned char *v, int n)
{
	int i;

	printf(" %s={", name);
	for (i = 0; i < n; i++)
		printf("%s0x%x", i ? "," : "", v[i]);
	printf("}");
}

int main(int argc, char **argv)
{
	struct inner in = { { 10, -20, 30, 40 }, "eth0" };
	struct dev dev = { { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01 }, 1, 5,
			   10000, 1500, &in, handler };
	struct pkt skb = { 100 + argc, &dev, { 1, -2, 3, 4 }, { 0 }, { 0, 0 } };
	long r;
	int i, ret;

	for (i = 0; i < 2; i++) {
		skb.len += i;
		printf("EXPECT ip_rcv: len=%d", skb.len);
		print_array("mac", dev.mac, 6);
		printf(" up=%u flags=%u speed=%u mtu=%d name=\"%s\"", dev.up, dev.flags,
		       dev.speed, dev.mtu, in.name);
		printf(" vals={%ld,%ld,%ld,%ld} v2=%ld s4={%d,%d,%d,%d}",
		       in.vals[0], in.vals[1], in.vals[2], in.vals[3],
		       in.vals[1], skb.s4[0], skb.s4[1], skb.s4[2], skb.s4[3]);
		printf(" handler=%#lx fl=%d who=\"%s\" g_counter=%d s_total=%ld\n",
		       (unsigned long)dev.handler, 3 + i, argv[0], g_counter,
		       s_total);
		ret = ip_rcv(&skb, 3 + i, argv[0]);
		printf("EXPECT ip_rcv__return: ret=%d\n", ret);
		g_counter++;
	}
	printf("EXPECT sum_vals_L7: total=%ld\n", sum_vals(&in, 4));
	printf("EXPECT scale: x=%d k=%d\n", argc + 4, 3);
	fflush(stdout);
	r = scale(argc + 4, 3);
	printf("EXPECT scale: x=%ld k=%d\n", r, argc + 1);
	r = scale(r, argc + 1);
	printf("EXPECT many_args: a1=1 a2=-2 a6=6 a7=-7 a8=8 a9=\"ninth\"\n");
	r = many_args(1, -2, 3, 4, 5, 6, -7, 8, "ninth");
	printf("EXPECT many_args__return: ret=%ld\n", r);
	fflush(stdout);
	return 0;
}
