// SPDX-License-Identifier: GPL-2.0
/*
 * The program `make demo` (scripts/demo.sh) builds and probes: a shop
 * that ships orders.  ship() takes a struct with plain members, a
 * pointer to another struct, an array and a string, and is called from
 * two places, so that the call stacks differ.  Before each call the
 * program prints what a probe on ship() will record, in the kernel's
 * own format, for the demo (and tests/shell/demo.sh) to compare.
 */
#include <stdio.h>

struct customer {
	const char *name;
	int id;
};

struct order {
	int number;
	struct customer *customer;
	int items[3];
	const char *city;
};

static long shipped;
static int today, late;

/* noinline: at -O2 it stays a function of its own, to be probed. */
__attribute__((noinline)) void ship(const struct order *o)
{
	shipped += o->items[0] + o->items[1] + o->items[2];
}

static void announce(const struct order *o)
{
	printf("ship: number=%d customer=\"%s\" id=%d items={%d,%d,%d} city=\"%s\"\n",
	       o->number, o->customer->name, o->customer->id, o->items[0],
	       o->items[1], o->items[2], o->city);
	fflush(stdout);
}

/*
 * The count after each call keeps ship() from being a tail call, whose
 * caller would be gone from the call stack.
 */
__attribute__((noinline)) void ship_today(struct order *o)
{
	announce(o);
	ship(o);
	today++;
}

/* A late order is shipped through a different caller. */
__attribute__((noinline)) void ship_late(struct order *o)
{
	o->number += 1000;
	announce(o);
	ship(o);
	late++;
}

int main(void)
{
	struct customer ada = { "Ada", 1815 }, alan = { "Alan", 1912 };
	struct order orders[] = {
		{ 1, &ada, { 3, 1, 4 }, "London" },
		{ 2, &alan, { 1, 5, 9 }, "Manchester" },
		{ 3, &ada, { 2, 6, 5 }, "Paris" },
		{ 4, &alan, { 3, 5, 8 }, "Princeton" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		if (i % 2)
			ship_late(&orders[i]);
		else
			ship_today(&orders[i]);
	}
	printf("shipped %ld items: %d orders today, %d late\n", shipped, today, late);
	return 0;
}
