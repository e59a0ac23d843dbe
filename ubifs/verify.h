/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_VERIFY_H
#define TK_UBIFS_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "ubifs/image.h"

/*
 * Offline verification of a UBIFS image the way a mount would trust it:
 * every node's CRC, the superblock (PKCS#7 signature or HMAC), both
 * master nodes (hash in the superblock or HMAC), the index as a Merkle
 * tree from the master's root hash down to every leaf, and the LPT hash.
 */
struct ubifs_verify_opts {
	const char *cert;		/* check the signature node */
	const uint8_t *hmac_key;	/* check HMACs */
	size_t hmac_key_len;
	int no_hash;			/* structure only (info) */
	ubifs_progress_fn progress;	/* scanning progress, may be NULL */
	void *progress_arg;
};

struct ubifs_verify_result {
	int authenticated;	/* UBIFS_FLG_AUTHENTICATION */
	int sig_present, sig_checked;
	int hmac_present, hmac_checked;
	int mst_lnum, mst_offs;
	int root_lnum, root_offs, root_len, root_level;
	/* The master's hash_root_idx, from the master node as authenticated:
	 * what a later reader of the index (extract) checks it against. */
	uint8_t root_hash[UBIFS_MAX_HASH_LEN];
	int idx_nodes;
	int leaves[UBIFS_NODE_TYPES_CNT];	/* reachable, by type */
	int scanned[UBIFS_NODE_TYPES_CNT];	/* all nodes, by type */
	uint64_t data_bytes;			/* of data, uncompressed */
	int pnodes, nnodes;
	int buds;
	int journal_nodes;		/* in buds, not yet in the index */
	uint64_t highest_inum;
};

/* The leaves the index reaches: inode, data and entry nodes. */
static inline int ubifs_verify_leaves(const struct ubifs_verify_result *res)
{
	return res->leaves[UBIFS_INO_NODE] + res->leaves[UBIFS_DATA_NODE] +
	       res->leaves[UBIFS_DENT_NODE] + res->leaves[UBIFS_XENT_NODE];
}

/* Returns the number of problems added to rep (0: the image verifies). */
int ubifs_verify(struct ubifs_image *img, const struct ubifs_verify_opts *o,
		 struct ubifs_verify_result *res, struct ubifs_report *rep);
/* What an OK of ubifs_verify() means, in words: what res checked. */
const char *ubifs_verify_summary(const struct ubifs_verify_result *res);

#endif
