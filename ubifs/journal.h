/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_JOURNAL_H
#define TK_UBIFS_JOURNAL_H

#include <stdint.h>

#include "ubifs/auth.h"
#include "ubifs/image.h"

/*
 * The journal as the kernel replays it at mount (fs/ubifs/replay.c): the
 * log from the master's log_lnum, its commit start node and the reference
 * nodes to buds, and, in an authenticated image, the HMAC chain of every
 * bud: the log's running hash continued over the bud's nodes, checked at
 * each authentication node.
 */
struct ubifs_journal_result {
	int buds;		/* distinct buds the log refers to */
	int journal_nodes;	/* nodes in buds: not yet in the index */
	int auth_nodes;		/* authentication nodes whose HMAC verified */
	int unauth_tail;	/* nodes after the last one, which the kernel
				 * ignores (last bud of a journal head) */
	int hmac_needed;	/* authenticated, nodes in buds, but no key:
				 * the caller decides what that means */
	/* What the replayed nodes take out of the committed index: the
	 * kernel never reads those leaves again (see below).  Sorted and
	 * merged by ubifs_journal_index(). */
	uint8_t (*keys)[UBIFS_SK_LEN];	/* replaced or deleted keys */
	int keys_nr, keys_alloc;
	uint32_t *inums;		/* inodes deleted (nlink 0) */
	int inums_nr, inums_alloc;
	struct ubifs_journal_trun {
		uint32_t inum, min_blk, max_blk;
	} *truns;			/* data blocks truncated away */
	int truns_nr, truns_alloc;
};

/*
 * auth is NULL for an unauthenticated image; without a key in it only the
 * structure is checked and hmac_needed tells that the chain was not.
 * is_bud (leb_cnt entries, zeroed by the caller) is set for every bud LEB.
 * Returns the number of problems added to rep.  res is indexed.
 */
int ubifs_journal_check(const struct ubifs_image *img,
			const struct ubifs_mst_node *mst,
			struct ubifs_auth *auth, uint8_t *is_bud,
			struct ubifs_journal_result *res,
			struct ubifs_report *rep);

/*
 * Sorts keys and inums without repeats, and merges each inode's truncated
 * ranges into disjoint ones, which ubifs_journal_supersedes() needs: each
 * lookup is then logarithmic in the journal's size.
 */
void ubifs_journal_index(struct ubifs_journal_result *res);
/*
 * On an indexed res: 1 when the journal replaces or removes the committed
 * index's leaf of this key: an inode or data node of the same key in a
 * bud (not an entry: replay reads the committed one to compare names), an
 * inode deleted by the journal (its inode, data and entries; its extended
 * attribute entries are still read by ubifs_tnc_remove_ino()), or a data
 * block truncated away.  The kernel's replay (apply_replay_entry()) drops
 * such a leaf from the TNC without reading it, so its contents are not
 * checked.
 */
int ubifs_journal_supersedes(const struct ubifs_journal_result *res,
			     const uint8_t *key);
void ubifs_journal_release(struct ubifs_journal_result *res);

#endif
