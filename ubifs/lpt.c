// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ubifs/lpt.h"
#include "util/usage.h"

static int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

void ubifs_lpt_calc_geom(const struct ubifs_geom *g,
			 struct ubifs_lpt_geom *lg)
{
	int main_lebs = g->leb_cnt - g->main_first;
	int n, max_pnode_cnt, bits;

	memset(lg, 0, sizeof(*lg));
	lg->big = !!(g->flags & UBIFS_FLG_BIGLPT);
	/* The height allows for growth up to max_leb_cnt. */
	n = main_lebs + g->max_leb_cnt - g->leb_cnt;
	max_pnode_cnt = (n + UBIFS_LPT_FANOUT - 1) / UBIFS_LPT_FANOUT;
	lg->hght = 1;
	for (n = UBIFS_LPT_FANOUT; n < max_pnode_cnt;
	     n <<= UBIFS_LPT_FANOUT_SHIFT)
		lg->hght++;
	lg->pnode_cnt = (main_lebs + UBIFS_LPT_FANOUT - 1) / UBIFS_LPT_FANOUT;
	lg->space_bits = fls(g->leb_size) - 3;
	lg->lpt_lnum_bits = fls(g->lpt_lebs);
	lg->lpt_offs_bits = fls(g->leb_size - 1);
	lg->lpt_spc_bits = fls(g->leb_size);
	n = (g->max_leb_cnt + UBIFS_LPT_FANOUT - 1) / UBIFS_LPT_FANOUT;
	lg->pcnt_bits = fls(n - 1);
	lg->lnum_bits = fls(g->max_leb_cnt - 1);
	bits = UBIFS_LPT_CRC_BITS + UBIFS_LPT_TYPE_BITS +
	       (lg->big ? lg->pcnt_bits : 0) +
	       (lg->space_bits * 2 + 1) * UBIFS_LPT_FANOUT;
	lg->pnode_sz = (bits + 7) / 8;
	bits = UBIFS_LPT_CRC_BITS + UBIFS_LPT_TYPE_BITS +
	       (lg->big ? lg->pcnt_bits : 0) +
	       (lg->lpt_lnum_bits + lg->lpt_offs_bits) * UBIFS_LPT_FANOUT;
	lg->nnode_sz = (bits + 7) / 8;
	bits = UBIFS_LPT_CRC_BITS + UBIFS_LPT_TYPE_BITS +
	       g->lpt_lebs * lg->lpt_spc_bits * 2;
	lg->ltab_sz = (bits + 7) / 8;
	bits = UBIFS_LPT_CRC_BITS + UBIFS_LPT_TYPE_BITS +
	       lg->lnum_bits * g->lsave_cnt;
	lg->lsave_sz = (bits + 7) / 8;
}

struct bitreader {
	const uint8_t *p;
	int pos;	/* bit offset */
};

static uint32_t get_bits(struct bitreader *br, int nr)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < nr; i++, br->pos++)
		v |= (uint32_t)((br->p[br->pos >> 3] >> (br->pos & 7)) & 1)
		     << i;
	return v;
}

struct walk {
	const struct ubifs_image *img;
	struct ubifs_lpt *lpt;
	struct ubifs_auth *auth;
	struct ubifs_report *rep;
	int failed;
	/* The node being read, copied out of the image: its CRC, its fields
	 * and its hash all come from the same bytes, whatever the file does
	 * meanwhile (ubifs/image.h, ubifs_node_read()). */
	uint8_t *node;
	int node_sz;
};

static const char *const lpt_what[] = {
	"LPT pnode", "LPT nnode", "LPT ltab", "LPT lsave",
};

/* Checks bounds, CRC16 and type of the LPT node of size sz at lnum:offs;
 * returns a reader positioned after the type field, or NULL. */
static int lpt_node(struct walk *w, int lnum, int offs, int sz, int type,
		    struct bitreader *br)
{
	const struct ubifs_geom *g = &w->img->g;
	const uint8_t *p;
	uint16_t crc;

	if (lnum < g->lpt_first || lnum > g->lpt_last || offs < 0 ||
	    offs + sz > g->leb_size) {
		ubifs_report_add(w->rep, lnum, offs, lpt_what[type],
				 "outside the LPT area");
		return -EINVAL;
	}
	if (offs + sz > ubifs_leb_avail(w->img, lnum)) {
		ubifs_report_add(w->rep, lnum, offs, lpt_what[type],
				 "beyond the end of the image");
		return -EINVAL;
	}
	if (sz > w->node_sz) {
		w->node = xrealloc(w->node, sz);
		w->node_sz = sz;
	}
	p = memcpy(w->node, ubifs_leb(w->img, lnum) + offs, sz);
	br->p = p;
	br->pos = 0;
	crc = get_bits(br, UBIFS_LPT_CRC_BITS);
	if (crc != ubifs_crc16(&w->img->crc, 0xffff, p + UBIFS_LPT_CRC_BYTES,
			       sz - UBIFS_LPT_CRC_BYTES)) {
		ubifs_report_add(w->rep, lnum, offs, lpt_what[type],
				 "CRC mismatch");
		return -EINVAL;
	}
	if ((int)get_bits(br, UBIFS_LPT_TYPE_BITS) != type) {
		ubifs_report_add(w->rep, lnum, offs, lpt_what[type],
				 "wrong LPT node type");
		return -EINVAL;
	}
	return 0;
}

static int read_pnode(struct walk *w, int lnum, int offs, int num)
{
	struct ubifs_lpt *lpt = w->lpt;
	const struct ubifs_lpt_geom *lg = &lpt->lg;
	int leb_size = w->img->g.leb_size;
	struct bitreader br;
	int i;

	if (++lpt->pnodes > lg->pnode_cnt) {
		ubifs_report_add(w->rep, lnum, offs, "LPT pnode",
				 "more pnodes than the main area has");
		return -EINVAL;
	}
	if (lpt_node(w, lnum, offs, lg->pnode_sz, UBIFS_LPT_PNODE, &br))
		return -EINVAL;
	lpt->pnode_at[lpt->pnodes - 1] = (struct ubifs_lpt_node){ lnum, offs };
	if (lg->big && (int)get_bits(&br, lg->pcnt_bits) != num) {
		ubifs_report_add(w->rep, lnum, offs, "LPT pnode",
				 "wrong pnode number");
		return -EINVAL;
	}
	for (i = 0; i < UBIFS_LPT_FANOUT; i++) {
		int n = num * UBIFS_LPT_FANOUT + i;
		int free = get_bits(&br, lg->space_bits) << 3;
		int dirty = get_bits(&br, lg->space_bits) << 3;
		int index = get_bits(&br, 1);

		if (free > leb_size || dirty > leb_size - free) {
			ubifs_report_add(w->rep, lnum, offs, "LPT pnode",
					 "bad LEB properties for LEB %d",
					 n + w->img->g.main_first);
			return -EINVAL;
		}
		if (n < lpt->main_lebs) {
			lpt->lp[n].free = free;
			lpt->lp[n].dirty = dirty;
			lpt->lp[n].index = index;
		}
	}
	if (w->auth)
		ubifs_auth_hash_update(w->auth, br.p, lg->pnode_sz);
	return 0;
}

static int read_nnode(struct walk *w, int lnum, int offs, int level, int num)
{
	struct ubifs_lpt *lpt = w->lpt;
	const struct ubifs_lpt_geom *lg = &lpt->lg;
	const struct ubifs_geom *g = &w->img->g;
	struct bitreader br;
	int i, bl[UBIFS_LPT_FANOUT], bo[UBIFS_LPT_FANOUT];

	if (++lpt->nnodes > lg->pnode_cnt + 1 + lg->hght) {
		ubifs_report_add(w->rep, lnum, offs, "LPT nnode",
				 "more nnodes than the tree can have");
		return -EINVAL;
	}
	if (lpt_node(w, lnum, offs, lg->nnode_sz, UBIFS_LPT_NNODE, &br))
		return -EINVAL;
	if (lg->big)
		get_bits(&br, lg->pcnt_bits);
	for (i = 0; i < UBIFS_LPT_FANOUT; i++) {
		bl[i] = get_bits(&br, lg->lpt_lnum_bits) + g->lpt_first;
		bo[i] = get_bits(&br, lg->lpt_offs_bits);
	}
	for (i = 0; i < UBIFS_LPT_FANOUT; i++) {
		int child = num * UBIFS_LPT_FANOUT + i;
		int err;

		/* lpt_last + 1 marks a branch to a never written node. */
		if (bl[i] == g->lpt_last + 1)
			continue;
		if (level > 1)
			err = read_nnode(w, bl[i], bo[i], level - 1, child);
		else
			err = read_pnode(w, bl[i], bo[i], child);
		if (err)
			return err;
	}
	return 0;
}

static void check_table(struct walk *w, int lnum, int offs, int sz, int type)
{
	struct bitreader br;

	if (lpt_node(w, lnum, offs, sz, type, &br))
		w->failed = 1;
}

int ubifs_lpt_read(const struct ubifs_image *img,
		   const struct ubifs_mst_node *mst, struct ubifs_auth *auth,
		   struct ubifs_lpt *lpt, struct ubifs_report *rep)
{
	struct walk w = { .img = img, .lpt = lpt, .auth = auth, .rep = rep };
	int err;

	memset(lpt, 0, sizeof(*lpt));
	ubifs_lpt_calc_geom(&img->g, &lpt->lg);
	lpt->main_lebs = img->g.leb_cnt - img->g.main_first;
	lpt->lp = xcalloc(lpt->main_lebs, sizeof(*lpt->lp));
	lpt->pnode_at = xcalloc(lpt->lg.pnode_cnt, sizeof(*lpt->pnode_at));
	if (auth)
		ubifs_auth_hash_begin(auth);
	err = read_nnode(&w, le32toh(mst->lpt_lnum), le32toh(mst->lpt_offs),
			 lpt->lg.hght, 0);
	if (auth && ubifs_auth_hash_end(auth, lpt->hash) && !err)
		err = -ENOMEM;
	check_table(&w, le32toh(mst->ltab_lnum), le32toh(mst->ltab_offs),
		    lpt->lg.ltab_sz, UBIFS_LPT_LTAB);
	if (lpt->lg.big)
		check_table(&w, le32toh(mst->lsave_lnum),
			    le32toh(mst->lsave_offs), lpt->lg.lsave_sz,
			    UBIFS_LPT_LSAVE);
	free(w.node);
	return err ? err : w.failed ? -EINVAL : 0;
}

void ubifs_lpt_release(struct ubifs_lpt *lpt)
{
	free(lpt->lp);
	free(lpt->pnode_at);
	lpt->lp = NULL;
	lpt->pnode_at = NULL;
}

struct bitwriter {
	uint8_t *p;
	int pos;
};

static void put_bits(struct bitwriter *bw, uint32_t v, int nr)
{
	int i;

	for (i = 0; i < nr; i++, bw->pos++)
		if (v >> i & 1)
			bw->p[bw->pos >> 3] |= 1 << (bw->pos & 7);
}

/* Node buffers start zeroed; the CRC16 of the rest goes first. */
static void finish_node(const struct ubifs_image *img, uint8_t *p, int sz)
{
	struct bitwriter bw = { p, 0 };

	put_bits(&bw, ubifs_crc16(&img->crc, 0xffff,
				  p + UBIFS_LPT_CRC_BYTES,
				  sz - UBIFS_LPT_CRC_BYTES),
		 UBIFS_LPT_CRC_BITS);
}

static int calc_nnode_num(int row, int col)
{
	int num = 1;

	while (row--) {
		num = num << UBIFS_LPT_FANOUT_SHIFT |
		      (col & (UBIFS_LPT_FANOUT - 1));
		col >>= UBIFS_LPT_FANOUT_SHIFT;
	}
	return num;
}

struct lpt_out {
	const struct ubifs_image *img;
	uint8_t *vol;
	int lnum, len;
	int *ltab;		/* free, dirty per LPT LEB */
};

static int align_io(const struct ubifs_geom *g, int len)
{
	return (len + g->min_io - 1) / g->min_io * g->min_io;
}

/* Returns a zeroed slot of sz bytes, moving to the next LEB when full. */
static uint8_t *lpt_slot(struct lpt_out *o, int sz)
{
	const struct ubifs_geom *g = &o->img->g;
	uint8_t *p;

	if (o->len + sz > g->leb_size) {
		int alen = align_io(g, o->len);

		o->ltab[2 * (o->lnum - g->lpt_first)] = g->leb_size - alen;
		o->ltab[2 * (o->lnum - g->lpt_first) + 1] = alen - o->len;
		o->lnum++;
		o->len = 0;
	}
	p = o->vol + (size_t)o->lnum * g->leb_size + o->len;
	memset(p, 0, sz);
	o->len += sz;
	return p;
}

void ubifs_lpt_write(const struct ubifs_image *img, uint8_t *vol,
		     const struct ubifs_lprops *lp, struct ubifs_auth *auth,
		     struct ubifs_lpt_pos *pos, uint8_t *hash)
{
	const struct ubifs_geom *g = &img->g;
	struct ubifs_lpt_geom lg;
	struct lpt_out o = { img, vol, g->lpt_first, 0, NULL };
	int main_lebs = g->leb_cnt - g->main_first;
	int i, j, cnt, row, blnum, boffs, bcnt, bsz, alen;
	struct bitwriter bw;
	uint8_t *p;

	ubifs_lpt_calc_geom(g, &lg);
	memset(vol + (size_t)g->lpt_first * g->leb_size, 0xff,
	       (size_t)g->lpt_lebs * g->leb_size);
	o.ltab = xmalloc(2 * g->lpt_lebs * sizeof(int));
	for (i = 0; i < g->lpt_lebs; i++) {
		o.ltab[2 * i] = g->leb_size;
		o.ltab[2 * i + 1] = 0;
	}
	memset(pos, 0, sizeof(*pos));
	if (auth)
		ubifs_auth_hash_begin(auth);
	for (i = 0; i < lg.pnode_cnt; i++) {
		p = lpt_slot(&o, lg.pnode_sz);
		bw = (struct bitwriter){ p, UBIFS_LPT_CRC_BITS };
		put_bits(&bw, UBIFS_LPT_PNODE, UBIFS_LPT_TYPE_BITS);
		if (lg.big)
			put_bits(&bw, i, lg.pcnt_bits);
		for (j = 0; j < UBIFS_LPT_FANOUT; j++) {
			int k = i * UBIFS_LPT_FANOUT + j;
			struct ubifs_lprops e = { g->leb_size, 0, 0 };

			if (k < main_lebs)
				e = lp[k];
			put_bits(&bw, e.free >> 3, lg.space_bits);
			put_bits(&bw, e.dirty >> 3, lg.space_bits);
			put_bits(&bw, !!e.index, 1);
		}
		finish_node(img, p, lg.pnode_sz);
		if (auth)
			ubifs_auth_hash_update(auth, p, lg.pnode_sz);
	}
	if (auth)
		ubifs_auth_hash_end(auth, hash);

	/* nnodes row by row; each branch follows the row below in order. */
	blnum = g->lpt_first;
	boffs = 0;
	bcnt = cnt = lg.pnode_cnt;
	bsz = lg.pnode_sz;
	for (row = lg.hght - 1; ; row--) {
		cnt = (cnt + UBIFS_LPT_FANOUT - 1) / UBIFS_LPT_FANOUT;
		if (!cnt)
			cnt = 1;
		for (i = 0; i < cnt; i++) {
			p = lpt_slot(&o, lg.nnode_sz);
			if (row == 0) {
				pos->lpt_lnum = o.lnum;
				pos->lpt_offs = o.len - lg.nnode_sz;
			}
			bw = (struct bitwriter){ p, UBIFS_LPT_CRC_BITS };
			put_bits(&bw, UBIFS_LPT_NNODE, UBIFS_LPT_TYPE_BITS);
			if (lg.big)
				put_bits(&bw, calc_nnode_num(row, i),
					 lg.pcnt_bits);
			for (j = 0; j < UBIFS_LPT_FANOUT; j++) {
				int bl = g->lpt_last + 1, bo = 0;

				if (bcnt) {
					if (boffs + bsz > g->leb_size) {
						blnum++;
						boffs = 0;
					}
					bl = blnum;
					bo = boffs;
					boffs += bsz;
					bcnt--;
				}
				put_bits(&bw, bl - g->lpt_first,
					 lg.lpt_lnum_bits);
				put_bits(&bw, bo, lg.lpt_offs_bits);
			}
			finish_node(img, p, lg.nnode_sz);
		}
		if (row == 0)
			break;
		bcnt = cnt;
		bsz = lg.nnode_sz;
	}
	if (lg.big) {
		p = lpt_slot(&o, lg.lsave_sz);
		pos->lsave_lnum = o.lnum;
		pos->lsave_offs = o.len - lg.lsave_sz;
		bw = (struct bitwriter){ p, UBIFS_LPT_CRC_BITS };
		put_bits(&bw, UBIFS_LPT_LSAVE, UBIFS_LPT_TYPE_BITS);
		for (i = 0; i < g->lsave_cnt; i++)
			put_bits(&bw, g->main_first + i, lg.lnum_bits);
		finish_node(img, p, lg.lsave_sz);
	}
	p = lpt_slot(&o, lg.ltab_sz);
	pos->ltab_lnum = o.lnum;
	pos->ltab_offs = o.len - lg.ltab_sz;
	alen = align_io(g, o.len);
	o.ltab[2 * (o.lnum - g->lpt_first)] = g->leb_size - alen;
	o.ltab[2 * (o.lnum - g->lpt_first) + 1] = alen - o.len;
	bw = (struct bitwriter){ p, UBIFS_LPT_CRC_BITS };
	put_bits(&bw, UBIFS_LPT_LTAB, UBIFS_LPT_TYPE_BITS);
	for (i = 0; i < g->lpt_lebs; i++) {
		put_bits(&bw, o.ltab[2 * i], lg.lpt_spc_bits);
		put_bits(&bw, o.ltab[2 * i + 1], lg.lpt_spc_bits);
	}
	finish_node(img, p, lg.ltab_sz);
	pos->nhead_lnum = o.lnum;
	pos->nhead_offs = alen;
	free(o.ltab);
}
