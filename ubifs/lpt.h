/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_LPT_H
#define TK_UBIFS_LPT_H

#include "ubifs/auth.h"
#include "ubifs/image.h"

/*
 * The LEB properties tree (the kernel's lpt.c): nnodes and pnodes are
 * bit-packed little-endian fields after a CRC16, sized by the geometry
 * that do_calc_lpt_geom() derives from the superblock.
 */
struct ubifs_lpt_geom {
	int hght, pnode_cnt, big;
	int space_bits, lpt_lnum_bits, lpt_offs_bits, lpt_spc_bits;
	int pcnt_bits, lnum_bits;
	int pnode_sz, nnode_sz, ltab_sz, lsave_sz;
};

struct ubifs_lprops {
	int free, dirty, index;
};

struct ubifs_lpt_node {
	int lnum, offs;
};

struct ubifs_lpt {
	struct ubifs_lpt_geom lg;
	int main_lebs;
	struct ubifs_lprops *lp;	/* main_lebs entries */
	int pnodes, nnodes;		/* counted while walking */
	struct ubifs_lpt_node *pnode_at;	/* where each pnode read was */
	uint8_t hash[UBIFS_MAX_HASH_LEN];
};

void ubifs_lpt_calc_geom(const struct ubifs_geom *g,
			 struct ubifs_lpt_geom *lg);

/*
 * Walks the tree from the root nnode, checking every node's CRC and type,
 * reads the ltab (and lsave in the big model), fills lp and, when auth is
 * given, the hash of all pnodes in tree order (ubifs_lpt_calc_hash()).
 * Returns 0, or -EINVAL when the tree could not be read completely (the
 * reasons added to rep), -ENOMEM when its hash could not be computed.
 */
int ubifs_lpt_read(const struct ubifs_image *img,
		   const struct ubifs_mst_node *mst, struct ubifs_auth *auth,
		   struct ubifs_lpt *lpt, struct ubifs_report *rep);
void ubifs_lpt_release(struct ubifs_lpt *lpt);

struct ubifs_lpt_pos {
	int lpt_lnum, lpt_offs, nhead_lnum, nhead_offs;
	int ltab_lnum, ltab_offs, lsave_lnum, lsave_offs;
};

/*
 * Lays out a fresh LPT for lp[0 .. leb_cnt - main_first) in the LPT area
 * of the volume vol (those LEBs are rewritten whole), in the order of
 * mkfs.ubifs's create_lpt(): pnodes, nnodes row by row up to the root,
 * the lsave table (big model), the ltab.  Fills pos and, when auth is
 * given, the hash of the pnodes.
 */
void ubifs_lpt_write(const struct ubifs_image *img, uint8_t *vol,
		     const struct ubifs_lprops *lp, struct ubifs_auth *auth,
		     struct ubifs_lpt_pos *pos, uint8_t *hash);

#endif
