// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ubifs/auth.h"
#include "ubifs/lpt.h"
#include "ubifs/sign.h"
#include "ubifs/verify.h"
#include "util/array.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define ALIGN8(x) (((x) + 7) & ~7)

/* mkfs.ubifs's space accounting (set_lprops(), ubifs_calc_dark()). */
#define MIN_WRITE_SZ ((int)UBIFS_DATA_NODE_SZ + 8)

struct lst {
	int64_t free, dirty, used, dead, dark;
	int empty, idx;
};

struct signer {
	struct ubifs_image *img;	/* the plain input */
	const struct ubifs_sign_opts *o;
	struct ubifs_auth *auth;
	uint8_t *out;
	int leb_cnt;			/* of the output */
	struct ubifs_lprops *lp;	/* main LEBs of the output */
	int branch_sz, hash_len;
	uint64_t sqnum;
	int *lebs, nlebs, cur;		/* LEBs the index may use */
	int lnum, offs;			/* index write head */
	uint64_t idx_size;
	struct strbuf *err;
};

static int align_io(const struct ubifs_geom *g, int n)
{
	return (n + g->min_io - 1) / g->min_io * g->min_io;
}

static uint8_t *out_leb(struct signer *s, int lnum)
{
	return s->out + (size_t)lnum * s->img->g.leb_size;
}

/* The common header; an HMAC, which covers it from byte 8, is computed
 * after this and the CRC after that. */
static void set_header(void *node, int type, int len, uint64_t sqnum)
{
	struct ubifs_ch *ch = node;

	ch->magic = htole32(UBIFS_NODE_MAGIC);
	ch->sqnum = htole64(sqnum);
	ch->len = htole32(len);
	ch->node_type = type;
	ch->group_type = 0;
	ch->padding[0] = ch->padding[1] = 0;
}

static void set_crc(struct signer *s, void *node, int len)
{
	struct ubifs_ch *ch = node;

	ch->crc = htole32(ubifs_node_crc(s->img, node, len));
}

static void finish_node(struct signer *s, void *node, int type, int len,
			uint64_t sqnum)
{
	set_header(node, type, len, sqnum);
	set_crc(s, node, len);
}

/* Fills [offs, end) of a LEB the way ubifs_pad() does. */
static void pad(struct signer *s, uint8_t *leb, int offs, int end)
{
	int gap = end - offs;

	if (gap <= 0)
		return;
	if (gap < (int)UBIFS_PAD_NODE_SZ) {
		memset(leb + offs, UBIFS_PADDING_BYTE, gap);
		return;
	}
	memset(leb + offs, 0, gap);
	((struct ubifs_pad_node *)(leb + offs))->pad_len =
		htole32(gap - UBIFS_PAD_NODE_SZ);
	finish_node(s, leb + offs, UBIFS_PAD_NODE, UBIFS_PAD_NODE_SZ, 0);
}

static void contrib(const struct ubifs_geom *g, const struct ubifs_lprops *p,
		    struct lst *l, int sign)
{
	int dead_wm = align_io(g, MIN_WRITE_SZ);
	int dark_wm = align_io(g, UBIFS_MAX_INO_NODE_SZ);
	int spc = p->free + p->dirty, dark;

	l->free += sign * p->free;
	l->dirty += sign * p->dirty;
	if (p->free == g->leb_size && !p->index)
		l->empty += sign;
	if (p->index) {
		l->idx += sign;
		return;
	}
	if (spc < dead_wm) {
		l->dead += sign * spc;
	} else {
		dark = spc < dark_wm ? spc : spc - dark_wm < MIN_WRITE_SZ ?
		       spc - MIN_WRITE_SZ : dark_wm;
		l->dark += sign * dark;
	}
	l->used += sign * (g->leb_size - spc);
}

/* Closes the index LEB being written: padded to min_io, then erased. */
static void close_leb(struct signer *s)
{
	const struct ubifs_geom *g = &s->img->g;
	int end = align_io(g, s->offs);
	struct ubifs_lprops *p = &s->lp[s->lnum - g->main_first];

	pad(s, out_leb(s, s->lnum), s->offs, end);
	p->free = g->leb_size - end;
	p->dirty = end - s->offs;
	p->index = 1;
}

static int next_leb(struct signer *s)
{
	const struct ubifs_geom *g = &s->img->g;

	if (s->lnum >= 0)
		close_leb(s);
	if (s->cur < s->nlebs) {
		s->lnum = s->lebs[s->cur++];
	} else {
		if (s->leb_cnt >= g->max_leb_cnt) {
			strbuf_addf(s->err, "the signed index needs more than "
				    "max_leb_cnt (%d) LEBs", g->max_leb_cnt);
			return -EINVAL;
		}
		s->lnum = s->leb_cnt++;
		s->out = xrealloc(s->out, (size_t)s->leb_cnt * g->leb_size);
		s->lp = xrealloc(s->lp, (s->leb_cnt - g->main_first) *
				 sizeof(*s->lp));
		s->lp[s->lnum - g->main_first] =
			(struct ubifs_lprops){ g->leb_size, 0, 0 };
	}
	memset(out_leb(s, s->lnum), 0xff, g->leb_size);
	s->offs = 0;
	return 0;
}

struct idx_ref {
	int olnum, ooffs;	/* in the input */
	int lnum, offs, len;	/* in the output */
	uint8_t hash[UBIFS_MAX_HASH_LEN];
};

struct level {
	struct idx_ref *v;
	int nr, alloc;
};

/* Lists the index nodes of each level left to right (key order). */
static void collect(struct signer *s, struct level *levels, int lnum,
		    int offs)
{
	const struct ubifs_geom *g = &s->img->g;
	const struct ubifs_idx_node *idx =
		(const void *)(ubifs_leb(s->img, lnum) + offs);
	int cc = le16toh(idx->child_cnt), lv = le16toh(idx->level), i;
	struct level *l = &levels[lv];

	grow_array(l->v, l->nr, l->alloc, 16);
	l->v[l->nr++] = (struct idx_ref){ .olnum = lnum, .ooffs = offs };
	if (lv == 0)
		return;
	for (i = 0; i < cc; i++) {
		const struct ubifs_branch *br;

		br = (const void *)(idx->branches + (size_t)i * g->branch_sz);
		collect(s, levels, le32toh(br->lnum), le32toh(br->offs));
	}
}

/* Writes one new index node for ref; children of level > 0 nodes are the
 * next entries of the level below, already written. */
static int write_idx(struct signer *s, struct idx_ref *ref,
		     const struct level *below, int *next)
{
	const struct ubifs_geom *g = &s->img->g;
	const struct ubifs_idx_node *old =
		(const void *)(ubifs_leb(s->img, ref->olnum) + ref->ooffs);
	int cc = le16toh(old->child_cnt), lv = le16toh(old->level), i;
	int len = UBIFS_IDX_NODE_SZ + cc * s->branch_sz;
	uint8_t *node = xcalloc(1, len);
	struct ubifs_idx_node *idx = (void *)node;

	idx->child_cnt = old->child_cnt;
	idx->level = old->level;
	for (i = 0; i < cc; i++) {
		const struct ubifs_branch *ob;
		struct ubifs_branch *nb;
		uint8_t *h;

		ob = (const void *)(old->branches + (size_t)i * g->branch_sz);
		nb = (void *)(idx->branches + (size_t)i * s->branch_sz);
		h = nb->key + UBIFS_SK_LEN;

		memcpy(nb->key, ob->key, UBIFS_SK_LEN);
		if (lv == 0) {
			*nb = *ob;
			ubifs_auth_hash(s->auth,
					ubifs_leb(s->img, le32toh(ob->lnum)) +
					le32toh(ob->offs), le32toh(ob->len), h);
		} else {
			const struct idx_ref *c = &below->v[(*next)++];

			nb->lnum = htole32(c->lnum);
			nb->offs = htole32(c->offs);
			nb->len = htole32(c->len);
			memcpy(h, c->hash, s->hash_len);
		}
	}
	if (s->offs + len > g->leb_size && next_leb(s)) {
		free(node);
		return -EINVAL;
	}
	finish_node(s, node, UBIFS_IDX_NODE, len, s->sqnum++);
	ubifs_auth_hash(s->auth, node, len, ref->hash);
	memcpy(out_leb(s, s->lnum) + s->offs, node, len);
	ref->lnum = s->lnum;
	ref->offs = s->offs;
	ref->len = len;
	s->offs += ALIGN8(len);
	s->idx_size += ALIGN8(len);
	free(node);
	return 0;
}

/*
 * Rewrites the index level by level from the bottom, as mkfs.ubifs's
 * write_index() does, keeping every node's branches; returns the root.
 */
static int rebuild(struct signer *s, int root_lnum, int root_offs,
		   int root_level, struct idx_ref *root)
{
	struct level *levels = xcalloc(root_level + 1, sizeof(*levels));
	int lv, i, next, ret = 0;

	collect(s, levels, root_lnum, root_offs);
	for (lv = 0; lv <= root_level && !ret; lv++)
		for (i = 0, next = 0; i < levels[lv].nr && !ret; i++)
			ret = write_idx(s, &levels[lv].v[i],
					lv ? &levels[lv - 1] : NULL, &next);
	if (!ret)
		*root = levels[root_level].v[0];
	for (lv = 0; lv <= root_level; lv++)
		free(levels[lv].v);
	free(levels);
	return ret;
}

/* New nodes get sequence numbers above every node in the image. */
static uint64_t next_sqnum(const struct ubifs_image *img)
{
	uint64_t max = 0;
	int lnum, i;

	for (lnum = 0; lnum < img->g.leb_cnt; lnum++)
		for (i = 0; i < img->scan[lnum].nr; i++) {
			const struct ubifs_ch *ch = (const void *)
				(ubifs_leb(img, lnum) +
				 img->scan[lnum].v[i].offs);

			if (le64toh(ch->sqnum) > max)
				max = le64toh(ch->sqnum);
		}
	return max + 1;
}

/* The old index LEBs first, then empty ones; nothing else may be in them. */
static int pick_index_lebs(struct signer *s, int gc_lnum)
{
	const struct ubifs_geom *g = &s->img->g;
	int main_lebs = g->leb_cnt - g->main_first, pass, i, j;

	s->lebs = xmalloc(main_lebs * sizeof(int));
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < main_lebs; i++) {
			const struct ubifs_lprops *p = &s->lp[i];
			const struct ubifs_leb_scan *sc =
				&s->img->scan[i + g->main_first];

			if (pass == 0 && p->index) {
				for (j = 0; j < sc->nr; j++)
					if (sc->v[j].type != UBIFS_IDX_NODE) {
						strbuf_addf(s->err, "LEB %d mixes index "
							    "and other nodes",
							    i + g->main_first);
						return -EINVAL;
					}
				s->lebs[s->nlebs++] = i + g->main_first;
				s->lp[i] = (struct ubifs_lprops){
					g->leb_size, 0, 0
				};
			} else if (pass == 1 && !p->index &&
				   p->free == g->leb_size &&
				   i + g->main_first != gc_lnum && !sc->nr) {
				s->lebs[s->nlebs++] = i + g->main_first;
			}
		}
	}
	for (i = 0; i < s->nlebs; i++)
		memset(out_leb(s, s->lebs[i]), 0xff, g->leb_size);
	return 0;
}

/*
 * A superblock or master node at the start of its (erased) LEB: header,
 * HMAC at ofs_hmac when there is a key, CRC, as the kernel writes them.
 */
static void put_auth_node(struct signer *s, uint8_t *leb, void *node, int type,
			  int len, size_t ofs_hmac)
{
	set_header(node, type, len, s->sqnum++);
	if (s->o->hmac_key)
		ubifs_auth_node_hmac(s->auth, node, len, ofs_hmac,
				     (uint8_t *)node + ofs_hmac);
	set_crc(s, node, len);
	memset(leb, 0xff, s->img->g.leb_size);
	memcpy(leb, node, len);
}

static void write_masters(struct signer *s, struct ubifs_mst_node *mst,
			  uint8_t *hash_mst)
{
	const struct ubifs_geom *g = &s->img->g;
	int copy;

	for (copy = 0; copy < 2; copy++) {
		uint8_t *leb = out_leb(s, UBIFS_MST_LNUM + copy);

		memset(mst->hmac, 0, sizeof(mst->hmac));
		put_auth_node(s, leb, mst, UBIFS_MST_NODE, UBIFS_MST_NODE_SZ,
			      offsetof(struct ubifs_mst_node, hmac));
		pad(s, leb, UBIFS_MST_NODE_SZ, align_io(g, UBIFS_MST_NODE_SZ));
		if (!copy)
			ubifs_auth_hash(s->auth, (uint8_t *)mst + UBIFS_CH_SZ,
					UBIFS_MST_NODE_SZ - UBIFS_CH_SZ,
					hash_mst);
	}
}

static int write_sb(struct signer *s, const uint8_t *hash_mst)
{
	const struct ubifs_geom *g = &s->img->g;
	uint8_t *leb = out_leb(s, 0);
	struct ubifs_sb_node *sb = xmalloc(UBIFS_SB_NODE_SZ);
	uint8_t *der = NULL;
	size_t der_len = 0;
	int end = UBIFS_SB_NODE_SZ;

	memcpy(sb, &s->img->sb, UBIFS_SB_NODE_SZ);
	sb->flags = htole32(g->flags | UBIFS_FLG_AUTHENTICATION);
	sb->hash_algo = htole16(s->o->hash_algo);
	sb->leb_cnt = htole32(s->leb_cnt);
	memset(sb->hash_mst, 0, sizeof(sb->hash_mst));
	memcpy(sb->hash_mst, hash_mst, s->hash_len);
	memset(sb->hmac, 0, sizeof(sb->hmac));
	memset(sb->hmac_wkm, 0, sizeof(sb->hmac_wkm));
	if (s->o->hmac_key)
		ubifs_auth_hmac(s->auth, "UBIFS", 5, sb->hmac_wkm);
	put_auth_node(s, leb, sb, UBIFS_SB_NODE, UBIFS_SB_NODE_SZ,
		      offsetof(struct ubifs_sb_node, hmac));
	if (s->o->key) {
		struct ubifs_sig_node *sig;
		int len, ret;

		ret = ubifs_sig_create(s->o->key, s->o->cert, s->o->hash_algo,
				       sb, UBIFS_SB_NODE_SZ, &der, &der_len,
				       s->err);
		if (ret) {
			free(sb);
			return ret;
		}
		len = UBIFS_SIG_NODE_SZ + der_len;
		if ((int)UBIFS_SB_NODE_SZ + len > g->leb_size) {
			free(der);
			free(sb);
			strbuf_addstr(s->err,
				      "the signature does not fit into LEB 0");
			return -EINVAL;
		}
		sig = (void *)(leb + UBIFS_SB_NODE_SZ);
		memset(sig, 0, len);
		sig->type = htole32(UBIFS_SIGNATURE_TYPE_PKCS7);
		sig->len = htole32(der_len);
		memcpy(sig->sig, der, der_len);
		finish_node(s, sig, UBIFS_SIG_NODE, len, s->sqnum++);
		end += ALIGN8(len);
		free(der);
	}
	pad(s, leb, end, align_io(g, end));
	free(sb);
	return 0;
}

/* The master node after the re-layout: index, space totals, LPT, hashes. */
static void update_master(const struct signer *s, struct ubifs_mst_node *m,
			  const struct idx_ref *root, const struct lst *l,
			  const struct ubifs_lpt_pos *pos,
			  const uint8_t *lpt_hash)
{
	const struct ubifs_geom *g = &s->img->g;

	m->root_lnum = htole32(root->lnum);
	m->root_offs = htole32(root->offs);
	m->root_len = htole32(root->len);
	m->ihead_lnum = htole32(s->lnum);
	m->ihead_offs = htole32(align_io(g, s->offs));
	m->index_size = htole64(s->idx_size);
	m->total_free = htole64(le64toh(m->total_free) + l->free);
	m->total_dirty = htole64(le64toh(m->total_dirty) + l->dirty);
	m->total_used = htole64(le64toh(m->total_used) + l->used);
	m->total_dead = htole64(le64toh(m->total_dead) + l->dead);
	m->total_dark = htole64(le64toh(m->total_dark) + l->dark);
	m->empty_lebs = htole32(le32toh(m->empty_lebs) + l->empty);
	m->idx_lebs = htole32(le32toh(m->idx_lebs) + l->idx);
	m->leb_cnt = htole32(s->leb_cnt);
	m->lpt_lnum = htole32(pos->lpt_lnum);
	m->lpt_offs = htole32(pos->lpt_offs);
	m->nhead_lnum = htole32(pos->nhead_lnum);
	m->nhead_offs = htole32(pos->nhead_offs);
	m->ltab_lnum = htole32(pos->ltab_lnum);
	m->ltab_offs = htole32(pos->ltab_offs);
	m->lsave_lnum = htole32(pos->lsave_lnum);
	m->lsave_offs = htole32(pos->lsave_offs);
	memset(m->hash_root_idx, 0, sizeof(m->hash_root_idx));
	memcpy(m->hash_root_idx, root->hash, s->hash_len);
	memset(m->hash_lpt, 0, sizeof(m->hash_lpt));
	memcpy(m->hash_lpt, lpt_hash, s->hash_len);
}

int ubifs_sign(struct ubifs_image *img, const struct ubifs_sign_opts *o,
	       uint8_t **out, size_t *out_len, struct strbuf *err)
{
	const struct ubifs_geom *g = &img->g;
	struct signer s = { .img = img, .o = o, .err = err, .lnum = -1 };
	struct ubifs_verify_opts vo = { 0 };
	struct ubifs_verify_result res;
	struct ubifs_report rep = { 0 };
	struct ubifs_lpt lpt = { 0 };
	struct ubifs_lpt_pos pos;
	struct ubifs_mst_node mst;
	struct ubifs_image nimg;
	struct lst l = { 0 };
	uint8_t lpt_hash[UBIFS_MAX_HASH_LEN];
	struct idx_ref root;
	uint8_t hash_mst[UBIFS_MAX_HASH_LEN];
	int i, main_old = g->leb_cnt - g->main_first;
	int ret = -EINVAL;

	if (g->flags & UBIFS_FLG_AUTHENTICATION) {
		strbuf_addstr(err, "the image is already authenticated");
		return -EINVAL;
	}
	if (ubifs_verify(img, &vo, &res, &rep)) {
		char *p = ubifs_problem_str(&rep.v[0]);

		strbuf_addf(err, "the input does not verify: %s", p);
		free(p);
		ubifs_report_clear(&rep);
		return -EINVAL;
	}
	if (res.buds) {
		strbuf_addf(err, "the journal is not empty (%d buds): mount and "
			    "unmount the image first", res.buds);
		return -EINVAL;
	}
	s.auth = ubifs_auth_new(o->hash_algo, o->hmac_key, o->hmac_key_len);
	if (!s.auth) {
		strbuf_addf(err, "hash algorithm %d is not available",
			    o->hash_algo);
		return -EINVAL;
	}
	s.hash_len = ubifs_auth_hash_len(s.auth);
	s.branch_sz = UBIFS_BRANCH_SZ + UBIFS_SK_LEN + s.hash_len;
	if ((long)UBIFS_IDX_NODE_SZ + (long)g->fanout * s.branch_sz >
	    g->leb_size / 2) {
		strbuf_addf(err, "fanout %d is too large for hashed branches",
			    g->fanout);
		goto out;
	}
	memcpy(&mst, ubifs_leb(img, res.mst_lnum) + res.mst_offs, sizeof(mst));
	if (ubifs_lpt_read(img, &mst, NULL, &lpt, &rep)) {
		strbuf_addf(err, "cannot read the LPT");
		goto out;
	}
	s.lp = lpt.lp;
	lpt.lp = NULL;
	s.leb_cnt = g->leb_cnt;
	s.out = xmalloc((size_t)g->leb_cnt * g->leb_size);
	memcpy(s.out, img->data, (size_t)g->leb_cnt * g->leb_size);
	s.sqnum = next_sqnum(img);
	for (i = 0; i < main_old; i++)
		contrib(g, &s.lp[i], &l, -1);
	if (pick_index_lebs(&s, le32toh(mst.gc_lnum)) || next_leb(&s) ||
	    rebuild(&s, res.root_lnum, res.root_offs, res.root_level, &root))
		goto out;
	close_leb(&s);
	for (i = 0; i < s.leb_cnt - g->main_first; i++)
		contrib(g, &s.lp[i], &l, 1);

	nimg = *img;
	nimg.g.leb_cnt = s.leb_cnt;
	nimg.data = s.out;
	ubifs_lpt_write(&nimg, s.out, s.lp, s.auth, &pos, lpt_hash);

	update_master(&s, &mst, &root, &l, &pos, lpt_hash);
	write_masters(&s, &mst, hash_mst);
	ret = write_sb(&s, hash_mst);
	if (ret)
		goto out;
	*out = s.out;
	*out_len = (size_t)s.leb_cnt * g->leb_size;
	s.out = NULL;
	ret = 0;
out:
	free(s.out);
	free(s.lp);
	free(s.lebs);
	ubifs_lpt_release(&lpt);
	ubifs_auth_free(s.auth);
	ubifs_report_clear(&rep);
	return ret;
}
