// SPDX-License-Identifier: GPL-2.0
/*
 * ubifs_journal_supersedes() on an indexed journal answers as the rule in
 * ubifs/journal.h reads, applied to the lists as replay collected
 * them: any key equal, any deleted inode (but for an extended attribute
 * entry), any truncated range holding the data block.  The lists are
 * drawn from a small domain so that repeats, overlapping and adjacent
 * ranges, empty ranges and ranges of several inodes all occur; the keys
 * asked are every listed one, their neighbours and random ones.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "ubifs/journal.h"
#include "util/usage.h"

#define ROUNDS	40
#define QUERIES	4000

struct lists {
	uint8_t (*keys)[UBIFS_SK_LEN];
	uint32_t *inums;
	struct ubifs_journal_trun *truns;
	int keys_nr, inums_nr, truns_nr;
};

static void make_key(uint8_t *key, uint32_t inum, int type, uint32_t val)
{
	uint32_t hi = (uint32_t)type << UBIFS_S_KEY_BLOCK_BITS |
		      (val & UBIFS_S_KEY_BLOCK_MASK);
	int i;

	for (i = 0; i < 4; i++) {
		key[i] = inum >> (8 * i);
		key[4 + i] = hi >> (8 * i);
	}
}

/* Inodes 1-20 and block numbers 0-40: small enough to collide. */
static void random_key(uint8_t *key, uint64_t *rs)
{
	make_key(key, 1 + test_rand(rs) % 20, test_rand(rs) % 4,
		 test_rand(rs) % 41);
}

/* The rule of ubifs/journal.h over the lists as collected. */
static int oracle(const struct lists *l, const uint8_t *key)
{
	uint32_t inum = ubifs_key_inum(key), blk = ubifs_key_val(key);
	int type = ubifs_key_type(key), i;

	for (i = 0; i < l->keys_nr; i++)
		if (!memcmp(l->keys[i], key, UBIFS_SK_LEN))
			return 1;
	for (i = 0; type != UBIFS_XENT_KEY && i < l->inums_nr; i++)
		if (l->inums[i] == inum)
			return 1;
	for (i = 0; type == UBIFS_DATA_KEY && i < l->truns_nr; i++)
		if (l->truns[i].inum == inum && blk >= l->truns[i].min_blk &&
		    blk <= l->truns[i].max_blk)
			return 1;
	return 0;
}

static void *dup(const void *p, size_t n)
{
	return memcpy(xmalloc(n), p, n);
}

static void draw(struct ubifs_journal_result *r, struct lists *l,
		 uint64_t *rs)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->keys_nr = test_rand(rs) % 60;
	r->inums_nr = test_rand(rs) % 6;
	r->truns_nr = test_rand(rs) % 30;
	r->keys = xcalloc(r->keys_nr + 1, sizeof(*r->keys));
	r->inums = xcalloc(r->inums_nr + 1, sizeof(*r->inums));
	r->truns = xcalloc(r->truns_nr + 1, sizeof(*r->truns));
	for (i = 0; i < r->keys_nr; i++)
		random_key(r->keys[i], rs);
	for (i = 0; i < r->inums_nr; i++)
		r->inums[i] = 1 + test_rand(rs) % 20;
	for (i = 0; i < r->truns_nr; i++) {
		r->truns[i].inum = 1 + test_rand(rs) % 4;
		r->truns[i].min_blk = test_rand(rs) % 41;
		/* A few empty ranges (a truncation inside one block). */
		r->truns[i].max_blk = r->truns[i].min_blk +
				      test_rand(rs) % 8 - 1;
	}
	/* One range up to the largest block number a key holds. */
	if (r->truns_nr)
		r->truns[0].max_blk = UBIFS_S_KEY_BLOCK_MASK;
	l->keys_nr = r->keys_nr;
	l->inums_nr = r->inums_nr;
	l->truns_nr = r->truns_nr;
	l->keys = dup(r->keys, (r->keys_nr + 1) * sizeof(*r->keys));
	l->inums = dup(r->inums, (r->inums_nr + 1) * sizeof(*r->inums));
	l->truns = dup(r->truns, (r->truns_nr + 1) * sizeof(*r->truns));
}

static void lists_release(struct lists *l)
{
	free(l->keys);
	free(l->inums);
	free(l->truns);
}

/* 1, and why, when the indexed lookup and the rule disagree on key. */
static int differs(const struct ubifs_journal_result *r,
		   const struct lists *l, const uint8_t *key)
{
	int got = ubifs_journal_supersedes(r, key), want = oracle(l, key);

	if (got == want)
		return 0;
	fprintf(stderr, "key %02x%02x%02x%02x %02x%02x%02x%02x: indexed "
		"lookup says %d, the rule %d\n", key[0], key[1], key[2],
		key[3], key[4], key[5], key[6], key[7], got, want);
	return 1;
}

/* Every listed key and block range end, one either side, and randoms. */
static int compare(const struct ubifs_journal_result *r,
		   const struct lists *l, uint64_t *rs)
{
	uint8_t key[UBIFS_SK_LEN];
	int i, d, bad = 0;

	for (i = 0; i < l->keys_nr && !bad; i++)
		bad = differs(r, l, l->keys[i]);
	for (i = 0; i < l->truns_nr && !bad; i++)
		for (d = -1; d <= 1 && !bad; d++) {
			make_key(key, l->truns[i].inum, UBIFS_DATA_KEY,
				 l->truns[i].min_blk + d);
			bad = differs(r, l, key);
			make_key(key, l->truns[i].inum, UBIFS_DATA_KEY,
				 l->truns[i].max_blk + d);
			bad = bad || differs(r, l, key);
		}
	for (i = 0; i < QUERIES && !bad; i++) {
		random_key(key, rs);
		bad = differs(r, l, key);
	}
	return bad;
}

int test__ubifs_journal(void)
{
	uint64_t rs = 0x75626966736a726eull;
	int round, bad = 0;

	for (round = 0; round < ROUNDS && !bad; round++) {
		struct ubifs_journal_result r;
		struct lists l;

		draw(&r, &l, &rs);
		ubifs_journal_index(&r);
		bad = compare(&r, &l, &rs);
		if (bad)
			fprintf(stderr, "round %d: %d keys, %d inodes, "
				"%d truncations\n", round, l.keys_nr,
				l.inums_nr, l.truns_nr);
		ubifs_journal_release(&r);
		lists_release(&l);
	}
	TEST_ASSERT_VAL("indexed lookup agrees with the rule", !bad);
	return TEST_OK;
}
