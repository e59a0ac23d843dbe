// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ubifs/journal.h"
#include "util/array.h"
#include "util/usage.h"

/* GC, base and data heads: the kernel's c->jhead_cnt. */
#define JHEAD_CNT	3

/* struct ubifs_auth_node: a common header, then the HMAC. */
#define AUTH_HMAC_OFFS	UBIFS_CH_SZ

struct bud {
	int lnum, start, jhead;
	struct ubifs_hash_state *hash;	/* the log's hash at its reference */
};

struct jctx {
	const struct ubifs_image *img;
	const struct ubifs_mst_node *mst;
	struct ubifs_auth *auth;	/* NULL: not an authenticated image */
	int keyed;			/* auth with a key: check the chain */
	struct ubifs_hash_state *log_hash;
	uint64_t cs_sqnum;
	struct bud *buds;
	int nr, alloc;
	uint8_t *is_bud;
	struct ubifs_journal_result *res;
	struct ubifs_report *rep;
	int errors;
};

/* A problem the kernel refuses to mount on, at LEB lnum:offs. */
#define jerr(j, lnum, offs, type, ...)					\
	do {								\
		ubifs_report_add((j)->rep, lnum, offs,			\
				 (type) < 0 ? "node" :			\
				 ubifs_node_name(type), __VA_ARGS__);	\
		(j)->errors++;						\
	} while (0)

static const uint8_t *node_at(const struct jctx *j, int lnum,
			      const struct ubifs_snode *sn)
{
	return ubifs_leb(j->img, lnum) + sn->offs;
}

static uint64_t node_sqnum(const uint8_t *node)
{
	return le64toh(((const struct ubifs_ch *)node)->sqnum);
}

static int next_log_lnum(const struct jctx *j, int lnum)
{
	lnum++;
	return lnum >= UBIFS_LOG_LNUM + j->img->g.log_lebs ?
	       UBIFS_LOG_LNUM : lnum;
}

/* The kernel's ubifs_scan() fails on a node with a bad CRC or a corrupt
 * spot (only recovery of the last LEB may tolerate one); the image scan
 * has already reported it. */
static int leb_corrupt(const struct ubifs_leb_scan *s, int from)
{
	int i;

	if (s->bad)
		return 1;
	for (i = 0; i < s->nr; i++)
		if (s->v[i].offs >= (uint32_t)from && !s->v[i].crc_ok)
			return 1;
	return 0;
}

static struct bud *find_bud(struct jctx *j, int lnum)
{
	int i;

	for (i = 0; i < j->nr; i++)
		if (j->buds[i].lnum == lnum)
			return &j->buds[i];
	return NULL;
}

/*
 * validate_ref() and add_replay_bud(): a new bud is hashed into the log's
 * hash, and the bud's own chain starts from a copy of that state.
 * Returns 0, or -EINVAL on an error the kernel refuses to mount on
 * (-ENOMEM where the hash could not be computed).
 */
static int log_ref(struct jctx *j, int lnum, const struct ubifs_snode *sn)
{
	const struct ubifs_ref_node *ref = (const void *)node_at(j, lnum, sn);
	const struct ubifs_geom *g = &j->img->g;
	int bl = le32toh(ref->lnum);
	uint32_t offs = le32toh(ref->offs), jhead = le32toh(ref->jhead);
	struct bud *b;

	if (sn->len != UBIFS_REF_NODE_SZ) {
		jerr(j, lnum, sn->offs, sn->type, "bad length %u", sn->len);
		return -EINVAL;
	}
	if (jhead >= JHEAD_CNT || bl >= g->leb_cnt || bl < g->main_first ||
	    offs > (uint32_t)g->leb_size || (offs & (g->min_io - 1))) {
		jerr(j, lnum, sn->offs, sn->type, "bad reference to LEB %d:%u",
		     bl, offs);
		return -EINVAL;
	}
	b = find_bud(j, bl);
	if (b) {
		/* The kernel skips a repeated reference (not hashed). */
		if (b->jhead == (int)jhead && b->start <= (int)offs)
			return 0;
		jerr(j, lnum, sn->offs, sn->type,
		     "bud LEB %d was already referred to", bl);
		return -EINVAL;
	}
	if (j->log_hash &&
	    ubifs_hash_state_update(j->log_hash, ref, UBIFS_REF_NODE_SZ))
		goto oom;
	grow_array(j->buds, j->nr, j->alloc, 8);
	b = &j->buds[j->nr];
	memset(b, 0, sizeof(*b));
	b->lnum = bl;
	b->start = offs;
	b->jhead = jhead;
	if (j->log_hash) {
		b->hash = ubifs_hash_state_new(j->auth);
		if (!b->hash || ubifs_hash_state_copy(b->hash, j->log_hash)) {
			ubifs_hash_state_free(b->hash);
			goto oom;
		}
	}
	j->nr++;
	j->is_bud[bl] = 1;
	return 0;
oom:
	jerr(j, lnum, sn->offs, sn->type, "cannot hash");
	return -ENOMEM;
}

/*
 * replay_log_leb(): returns 1 at the end of the log, 0 to go on, a
 * negative errno on an error.  The first log LEB starts with the commit
 * start node of the master's commit; it seeds the log's hash.  A LEB
 * whose first node is older than that commit is left over from before
 * it: the end.
 */
static int replay_log_leb(struct jctx *j, int lnum)
{
	const struct ubifs_leb_scan *s = &j->img->scan[lnum];
	const struct ubifs_snode *sn;
	const uint8_t *p;
	int i, ret;

	if (leb_corrupt(s, 0)) {
		j->errors++;
		return -EINVAL;
	}
	if (!s->nr)
		return 1;
	sn = &s->v[0];
	p = node_at(j, lnum, sn);
	if (!j->cs_sqnum) {
		const struct ubifs_cs_node *cs = (const void *)p;

		if (sn->type != UBIFS_CS_NODE || sn->len != UBIFS_CS_NODE_SZ) {
			jerr(j, lnum, sn->offs, sn->type, "the first log node "
			     "is not a commit start node");
			return -EINVAL;
		}
		if (le64toh(cs->cmt_no) != le64toh(j->mst->cmt_no)) {
			jerr(j, lnum, sn->offs, sn->type, "commit number %llu "
			     "is not the master node's",
			     (unsigned long long)le64toh(cs->cmt_no));
			return -EINVAL;
		}
		j->cs_sqnum = node_sqnum(p);
		if (j->log_hash &&
		    ubifs_hash_state_update(j->log_hash, p, UBIFS_CS_NODE_SZ)) {
			jerr(j, lnum, sn->offs, sn->type, "cannot hash");
			return -ENOMEM;
		}
	}
	if (node_sqnum(p) < j->cs_sqnum)
		return 1;
	if (sn->offs != 0) {
		jerr(j, lnum, sn->offs, sn->type, "the first log node is not "
		     "at offset 0");
		return -EINVAL;
	}
	for (i = 0; i < s->nr; i++) {
		sn = &s->v[i];
		p = node_at(j, lnum, sn);
		if (node_sqnum(p) < j->cs_sqnum) {
			jerr(j, lnum, sn->offs, sn->type, "sequence number "
			     "%llu older than the commit start",
			     (unsigned long long)node_sqnum(p));
			return -EINVAL;
		}
		if (sn->type == UBIFS_REF_NODE) {
			ret = log_ref(j, lnum, sn);
			if (ret)
				return ret;
		} else if (sn->type != UBIFS_CS_NODE || sn->offs != 0) {
			jerr(j, lnum, sn->offs, sn->type,
			     "unexpected node in the log");
			return -EINVAL;
		}
	}
	return 0;
}

/* is_last_bud(), with its quirk for old images: a bud followed only by
 * an empty last bud of the same head counts as the last. */
static int is_last_bud(const struct jctx *j, int i)
{
	const struct bud *next = NULL;
	const uint8_t *p;
	int k;

	for (k = i + 1; k < j->nr; k++) {
		if (j->buds[k].jhead != j->buds[i].jhead)
			continue;
		if (next)
			return 0;
		next = &j->buds[k];
	}
	if (!next)
		return 1;
	if (next->start + 4 > ubifs_leb_avail(j->img, next->lnum))
		return 0;
	p = ubifs_leb(j->img, next->lnum) + next->start;
	return p[0] == 0xff && p[1] == 0xff && p[2] == 0xff && p[3] == 0xff;
}

/*
 * What apply_replay_entry() does to the committed leaves: insert_node()
 * replaces the leaf of the node's key, an inode with
 * nlink 0 removes the whole inode (ubifs_tnc_remove_ino()), a truncation
 * node the blocks trun_remove_range() computes.
 */
static void note_replayed(struct jctx *j, const uint8_t *node, int type,
			  uint32_t len)
{
	struct ubifs_journal_result *r = j->res;

	if (type == UBIFS_TRUN_NODE) {
		const struct ubifs_trun_node *trun = (const void *)node;
		uint64_t old_size, new_size;
		uint32_t min_blk, max_blk;

		if (len < UBIFS_TRUN_NODE_SZ)
			return;
		old_size = le64toh(trun->old_size);
		new_size = le64toh(trun->new_size);
		if (old_size <= new_size)
			return;
		min_blk = new_size / UBIFS_BLOCK_SIZE +
			  !!(new_size & (UBIFS_BLOCK_SIZE - 1));
		max_blk = old_size / UBIFS_BLOCK_SIZE -
			  !(old_size & (UBIFS_BLOCK_SIZE - 1));
		grow_array(r->truns, r->truns_nr, r->truns_alloc, 64);
		r->truns[r->truns_nr].inum = le32toh(trun->inum);
		r->truns[r->truns_nr].min_blk = min_blk;
		r->truns[r->truns_nr++].max_blk = max_blk;
		return;
	}
	/* Entries are looked up by a hash of their name: replay reads the
	 * committed entry of that key to compare names (the fallible
	 * resolve_collision() in tnc.c), and logs a bad hash there. */
	if (type == UBIFS_AUTH_NODE || type == UBIFS_DENT_NODE ||
	    type == UBIFS_XENT_NODE || len < UBIFS_CH_SZ + UBIFS_SK_LEN)
		return;
	grow_array(r->keys, r->keys_nr, r->keys_alloc, 64);
	memcpy(r->keys[r->keys_nr++], node + UBIFS_CH_SZ, UBIFS_SK_LEN);
	if (type == UBIFS_INO_NODE && len >= UBIFS_INO_NODE_SZ &&
	    !((const struct ubifs_ino_node *)node)->nlink) {
		grow_array(r->inums, r->inums_nr, r->inums_alloc, 64);
		r->inums[r->inums_nr++] = ubifs_key_inum(node + UBIFS_CH_SZ);
	}
}

/* memcmp() order, without a call per comparison. */
_Static_assert(UBIFS_SK_LEN == sizeof(uint64_t), "a key is one word");

static int cmp_key(const void *a, const void *b)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	x = be64toh(x);
	y = be64toh(y);
	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_trun(const void *a, const void *b)
{
	const struct ubifs_journal_trun *x = a, *y = b;

	if (x->inum != y->inum)
		return (x->inum > y->inum) - (x->inum < y->inum);
	return (x->min_blk > y->min_blk) - (x->min_blk < y->min_blk);
}

/* Sorted, without repeats: n is the new count. */
static int sort_unique(void *base, int n, size_t size,
		       int (*cmp)(const void *, const void *))
{
	uint8_t *p = base;
	int i, out = 0;

	if (n > 1)
		qsort(base, n, size, cmp);
	for (i = 0; i < n; i++)
		if (!out || cmp(p + (out - 1) * size, p + i * size))
			memmove(p + out++ * size, p + i * size, size);
	return out;
}

/*
 * The ranges of an inode merged into disjoint ones, in order: a block is
 * in the union of the ranges exactly when the last merged range starting
 * at or before it ends at or after it.  An empty range (min_blk above
 * max_blk: a truncation within one block) covers nothing and goes.
 */
static int merge_truns(struct ubifs_journal_trun *t, int n)
{
	int i, out = 0;

	for (i = 0; i < n; i++) {
		struct ubifs_journal_trun *prev = out ? &t[out - 1] : NULL;

		if (t[i].min_blk > t[i].max_blk)
			continue;
		if (prev && prev->inum == t[i].inum &&
		    t[i].min_blk <= (uint64_t)prev->max_blk + 1) {
			if (t[i].max_blk > prev->max_blk)
				prev->max_blk = t[i].max_blk;
			continue;
		}
		t[out++] = t[i];
	}
	return out;
}

/*
 * Once per journal, so that each of the index's leaves is one binary
 * search per list: a hostile image can hold tens of thousands of journal
 * nodes and of leaves, and a scan of the lists per leaf made verify
 * quadratic in the image size (bench/ubifs.sh).
 */
void ubifs_journal_index(struct ubifs_journal_result *r)
{
	r->keys_nr = sort_unique(r->keys, r->keys_nr, sizeof(*r->keys),
				 cmp_key);
	r->inums_nr = sort_unique(r->inums, r->inums_nr, sizeof(*r->inums),
				  cmp_u32);
	if (r->truns_nr > 1)
		qsort(r->truns, r->truns_nr, sizeof(*r->truns), cmp_trun);
	r->truns_nr = merge_truns(r->truns, r->truns_nr);
}

/* The last range of inum starting at or before blk, or NULL. */
static const struct ubifs_journal_trun *
find_trun(const struct ubifs_journal_result *r, uint32_t inum, uint32_t blk)
{
	int lo = 0, hi = r->truns_nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct ubifs_journal_trun *t = &r->truns[mid];

		if (t->inum < inum || (t->inum == inum && t->min_blk <= blk))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && r->truns[lo - 1].inum == inum ? &r->truns[lo - 1] : NULL;
}

int ubifs_journal_supersedes(const struct ubifs_journal_result *r,
			     const uint8_t *key)
{
	uint32_t inum = ubifs_key_inum(key), blk = ubifs_key_val(key);
	const struct ubifs_journal_trun *t;
	int type = ubifs_key_type(key);

	if (r->keys_nr && bsearch(key, r->keys, r->keys_nr, sizeof(*r->keys),
				  cmp_key))
		return 1;
	if (type != UBIFS_XENT_KEY && r->inums_nr &&
	    bsearch(&inum, r->inums, r->inums_nr, sizeof(*r->inums), cmp_u32))
		return 1;
	if (type != UBIFS_DATA_KEY)
		return 0;
	t = find_trun(r, inum, blk);
	return t && blk <= t->max_blk;
}

void ubifs_journal_release(struct ubifs_journal_result *r)
{
	free(r->keys);
	free(r->inums);
	free(r->truns);
	r->keys = NULL;
	r->inums = NULL;
	r->truns = NULL;
	r->keys_nr = r->inums_nr = r->truns_nr = 0;
	r->keys_alloc = r->inums_alloc = r->truns_alloc = 0;
}

static int replayable(int type)
{
	return type == UBIFS_INO_NODE || type == UBIFS_DATA_NODE ||
	       type == UBIFS_DENT_NODE || type == UBIFS_XENT_NODE ||
	       type == UBIFS_TRUN_NODE || type == UBIFS_AUTH_NODE;
}

/*
 * authenticate_sleb() and replay_bud(): the bud's nodes from its start
 * are hashed into its chain; an authentication node holds the HMAC of the
 * chain's digest so far (the authentication node itself is not hashed).
 * A wrong HMAC refuses the mount.  Nodes after the last authentication
 * node are dropped in the last bud of a journal head (a power cut between
 * the nodes and their authentication node) and refuse the mount in any
 * other bud.  Only the nodes the kernel would replay must be of a journal
 * type.
 */
static void replay_bud(struct jctx *j, int i)
{
	const struct bud *b = &j->buds[i];
	const struct ubifs_leb_scan *s = &j->img->scan[b->lnum];
	uint8_t mac[UBIFS_MAX_HMAC_LEN];
	int k, first = s->nr, n_nodes = 0, n_not_auth = 0, replay;
	int since = b->start;	/* what the next HMAC covers, in this LEB */
	int hlen = j->img->g.hash_len, last = is_last_bud(j, i);

	for (k = 0; k < s->nr; k++) {
		if (s->v[k].offs >= (uint32_t)b->start) {
			first = k;
			break;
		}
		if (s->v[k].offs + s->v[k].len > (uint32_t)b->start) {
			jerr(j, b->lnum, b->start, -1, "the bud starts inside "
			     "the %s at 0x%x", ubifs_node_name(s->v[k].type),
			     s->v[k].offs);
			return;
		}
	}
	j->res->journal_nodes += s->nr - first;
	if (leb_corrupt(s, b->start)) {
		j->errors++;
		return;
	}
	for (k = first; k < s->nr; k++) {
		const struct ubifs_snode *sn = &s->v[k];
		const uint8_t *p = node_at(j, b->lnum, sn);

		n_nodes++;
		if (sn->type != UBIFS_AUTH_NODE) {
			if (b->hash &&
			    ubifs_hash_state_update(b->hash, p, sn->len)) {
				jerr(j, b->lnum, sn->offs, sn->type,
				     "cannot hash");
				return;
			}
			n_not_auth++;
			continue;
		}
		if (!j->keyed)
			continue;
		if (sn->len < UBIFS_CH_SZ + (uint32_t)hlen ||
		    sn->len > UBIFS_CH_SZ + UBIFS_MAX_HMAC_LEN) {
			jerr(j, b->lnum, sn->offs, sn->type, "bad length %u",
			     sn->len);
			return;
		}
		if (ubifs_hash_state_hmac(j->auth, b->hash, mac) ||
		    !ubifs_mac_equal(mac, p + AUTH_HMAC_OFFS, hlen)) {
			/* The chain up to the previous authentication node
			 * verified, so the change is in between (or in the
			 * log, for the first one of a bud). */
			jerr(j, b->lnum, sn->offs, sn->type, "HMAC mismatch: "
			     "the nodes at LEB %d:0x%x..0x%x are not the ones "
			     "it authenticates", b->lnum, since, sn->offs);
			return;
		}
		j->res->auth_nodes++;
		n_not_auth = 0;
		since = (sn->offs + sn->len + 7) & ~7u;
	}
	replay = n_nodes;
	if (j->keyed && n_not_auth) {
		if (!last) {
			jerr(j, b->lnum, s->v[s->nr - n_not_auth].offs,
			     s->v[s->nr - n_not_auth].type, "%d nodes after "
			     "the last authentication node of a bud that is "
			     "not the last of its journal head", n_not_auth);
			return;
		}
		j->res->unauth_tail += n_not_auth;
		replay = n_nodes - n_not_auth;
	}
	if (j->auth && !j->keyed && n_nodes)
		j->res->hmac_needed = 1;
	for (k = first; k < first + replay; k++) {
		if (!replayable(s->v[k].type)) {
			jerr(j, b->lnum, s->v[k].offs, s->v[k].type,
			     "unexpected node type %d in a bud",
			     s->v[k].type);
			return;
		}
		note_replayed(j, node_at(j, b->lnum, &s->v[k]), s->v[k].type,
			      s->v[k].len);
	}
}

int ubifs_journal_check(const struct ubifs_image *img,
			const struct ubifs_mst_node *mst,
			struct ubifs_auth *auth, uint8_t *is_bud,
			struct ubifs_journal_result *res,
			struct ubifs_report *rep)
{
	struct jctx j = {
		.img = img, .mst = mst, .auth = auth, .is_bud = is_bud,
		.res = res, .rep = rep,
	};
	int head = le32toh(mst->log_lnum), lnum, i, r;

	memset(res, 0, sizeof(*res));
	j.keyed = auth && ubifs_auth_has_key(auth);
	if (head < UBIFS_LOG_LNUM || head >= UBIFS_LOG_LNUM + img->g.log_lebs) {
		jerr(&j, UBIFS_MST_LNUM, 0, UBIFS_MST_NODE,
		     "log head LEB %d is outside the log", head);
		return j.errors;
	}
	if (auth) {
		j.log_hash = ubifs_hash_state_new(auth);
		if (!j.log_hash) {
			jerr(&j, head, 0, -1, "cannot hash");
			return j.errors;
		}
	}
	/* ubifs_replay_journal(): the log from its head, round once. */
	lnum = head;
	do {
		r = replay_log_leb(&j, lnum);
		if (r == 1 && lnum == head) {
			jerr(&j, lnum, 0, -1, "no nodes at the log head");
			r = -EINVAL;
		}
		if (r)
			break;
		lnum = next_log_lnum(&j, lnum);
	} while (lnum != head);
	res->buds = j.nr;
	if (r >= 0)
		for (i = 0; i < j.nr; i++)
			replay_bud(&j, i);
	ubifs_journal_index(res);
	for (i = 0; i < j.nr; i++)
		ubifs_hash_state_free(j.buds[i].hash);
	free(j.buds);
	ubifs_hash_state_free(j.log_hash);
	return j.errors;
}
