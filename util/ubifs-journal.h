/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_JOURNAL_H
#define TK_UBIFS_JOURNAL_H

#include <stdint.h>

#include "util/ubifs-auth.h"
#include "util/ubifs-image.h"

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
	int hmac_needed;	/* authenticated, nodes in buds, but no key */
};

/*
 * auth is NULL for an unauthenticated image; without a key in it only the
 * structure is checked and hmac_needed tells that the chain was not.
 * is_bud (leb_cnt entries, zeroed by the caller) is set for every bud LEB.
 * Returns the number of problems added to rep.
 */
int ubifs_journal_check(const struct ubifs_image *img,
			const struct ubifs_mst_node *mst,
			struct ubifs_auth *auth, uint8_t *is_bud,
			struct ubifs_journal_result *res,
			struct ubifs_report *rep);

#endif
