// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ubifs/auth.h"
#include "ubifs/journal.h"
#include "ubifs/lpt.h"
#include "ubifs/verify.h"
#include "util/strbuf.h"
#include "util/usage.h"

struct vctx {
	struct ubifs_image *img;
	const struct ubifs_verify_opts *o;
	struct ubifs_verify_result *res;
	struct ubifs_report *rep;
	struct ubifs_auth *auth;	/* NULL for unauthenticated images */
	const struct ubifs_sb_node *sb;
	/* The master node as authenticated: a copy, as everything the
	 * verdict rests on (ubifs/image.h, ubifs_node_read()). */
	struct ubifs_mst_node mst_copy;
	const struct ubifs_mst_node *mst;	/* &mst_copy once it is read */
	uint8_t *is_bud;		/* per LEB: referenced by the log */
	uint8_t *in_index;		/* per LEB: the index holds a node */
	struct ubifs_journal_result jr;	/* the journal, as replayed */
	uint64_t *seen;			/* open-addressed set of lnum:offs */
	size_t seen_mask;
	int seen_nr;
};

static int is_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static const uint8_t *node_ptr(const struct vctx *v, int lnum, int offs)
{
	return ubifs_leb(v->img, lnum) + offs;
}

/*
 * The kernel takes an HMAC field as "not set" when its first hash_len
 * bytes are zero (ubifs_hmac_zero()); the rest of the 64-byte field is
 * covered by the HMAC like any other byte.
 */
static int hmac_zero(const struct vctx *v, const uint8_t *hmac)
{
	return is_zero(hmac, v->img->g.hash_len);
}

static void check_signature(struct vctx *v)
{
	const struct ubifs_snode *sn = ubifs_find_node(v->img, 0,
						       UBIFS_SB_NODE_SZ);
	const struct ubifs_sig_node *sig;
	uint32_t sig_len;
	struct strbuf why = STRBUF_INIT;

	if (!sn || sn->type != UBIFS_SIG_NODE) {
		ubifs_report_add(v->rep, 0, UBIFS_SB_NODE_SZ, "signature node",
				 "missing: --cert needs the PKCS#7 signature "
				 "node behind the superblock");
		return;
	}
	if (!sn->crc_ok)
		return;
	sig = (const void *)node_ptr(v, 0, sn->offs);
	sig_len = le32toh(sig->len);
	if (le32toh(sig->type) != UBIFS_SIGNATURE_TYPE_PKCS7) {
		ubifs_report_add(v->rep, 0, sn->offs, "signature node",
				 "unsupported signature type %u",
				 le32toh(sig->type));
		return;
	}
	if (sig_len > sn->len - UBIFS_SIG_NODE_SZ) {
		ubifs_report_add(v->rep, 0, sn->offs, "signature node",
				 "signature length %u beyond the node",
				 sig_len);
		return;
	}
	if (ubifs_sig_verify(v->o->cert, v->img->g.hash_algo, v->sb,
			     UBIFS_SB_NODE_SZ, sig->sig, sig_len, &why))
		ubifs_report_add(v->rep, 0, sn->offs, "signature node",
				 "%s over the superblock at LEB 0:0x0 "
				 "(certificate %s)", why.buf, v->o->cert);
	else
		v->res->sig_checked = 1;
	strbuf_release(&why);
}

static void check_sb_hmac(struct vctx *v)
{
	uint8_t mac[UBIFS_MAX_HMAC_LEN];
	int n = v->img->g.hash_len;

	if (ubifs_auth_hmac(v->auth, "UBIFS", 5, mac) ||
	    !ubifs_mac_equal(mac, v->sb->hmac_wkm, n)) {
		ubifs_report_add(v->rep, 0, 0, "superblock node",
				 "the HMAC key does not fit (hmac_wkm)");
		return;
	}
	if (ubifs_auth_node_hmac(v->auth, v->sb, UBIFS_SB_NODE_SZ,
				 offsetof(struct ubifs_sb_node, hmac), mac) ||
	    !ubifs_mac_equal(mac, v->sb->hmac, n))
		ubifs_report_add(v->rep, 0, 0, "superblock node",
				 "HMAC mismatch");
	else
		v->res->hmac_checked = 1;
}

/*
 * The authentication policy, after the kernel's authenticate_sb_node()
 * (sb.c) and scan_for_master() (master.c), with the mount options
 * replaced by what the caller gave: the mode is decided by the
 * superblock's flag and by the caller, never by an HMAC field being
 * zero.  A zero field only selects which credential a node is checked
 * with, as in the kernel; a node that needs a credential the caller did
 * not give is a problem, not a node left unchecked.
 *   --cert: the signature node must verify over the superblock.
 *   --key-file: a superblock with an HMAC must fit the key (hmac_wkm)
 *	and its HMAC must verify; one without an HMAC is authenticated by
 *	its signature alone, so --cert is needed too.
 *   master nodes: with an HMAC, it must verify with the key; without,
 *	the node must hash to the superblock's hash_mst.
 *   neither: integrity only (all CRCs and hashes); the caller is told
 *	that authenticity was not checked.
 */
static void check_sb_auth(struct vctx *v)
{
	int have_key;

	if (!v->res->authenticated) {
		if (v->o->cert || v->o->hmac_key)
			ubifs_report_add(v->rep, 0, 0, "superblock node",
					 "the image is not authenticated (no "
					 "authentication flag): %s cannot be "
					 "checked", v->o->cert ? "--cert" :
					 "the HMAC key");
		return;
	}
	have_key = ubifs_auth_has_key(v->auth);
	v->res->hmac_present = !hmac_zero(v, v->sb->hmac);
	if (!v->o->cert && !have_key)
		return;
	if (v->o->cert)
		check_signature(v);
	if (!have_key)
		return;
	if (v->res->hmac_present)
		check_sb_hmac(v);
	else if (!v->o->cert)
		ubifs_report_add(v->rep, 0, 0, "superblock node",
				 "has no HMAC: it is authenticated by its "
				 "signature, give --cert too");
}

/* LEB 0 holds the superblock and, in signed images, the signature node;
 * plain mkfs.ubifs 2.1.5 images have an all-zero 64-byte placeholder
 * (type 0) where the signature would be. */
static void check_sb_leb(struct vctx *v)
{
	const struct ubifs_leb_scan *s = &v->img->scan[0];
	int i;

	for (i = 1; i < s->nr; i++) {
		const struct ubifs_snode *sn = &s->v[i];
		const uint8_t *p = node_ptr(v, 0, sn->offs);

		if (sn->offs == UBIFS_SB_NODE_SZ &&
		    sn->type == UBIFS_SIG_NODE) {
			v->res->sig_present = 1;
			continue;
		}
		if (sn->offs == UBIFS_SB_NODE_SZ && sn->type == 0 &&
		    sn->len == UBIFS_SIG_NODE_SZ && !v->res->authenticated &&
		    is_zero(p + UBIFS_CH_SZ, sn->len - UBIFS_CH_SZ))
			continue;
		ubifs_report_add(v->rep, 0, sn->offs, ubifs_node_name(sn->type),
				 "unexpected node in the superblock LEB");
	}
	check_sb_auth(v);
}

static const struct ubifs_snode *last_master(struct vctx *v, int lnum)
{
	const struct ubifs_leb_scan *s = &v->img->scan[lnum];
	const struct ubifs_snode *sn;

	if (!s->nr) {
		ubifs_report_add(v->rep, lnum, 0, "master node", "missing");
		return NULL;
	}
	sn = &s->v[s->nr - 1];
	if (sn->type != UBIFS_MST_NODE || sn->len != UBIFS_MST_NODE_SZ) {
		ubifs_report_add(v->rep, lnum, sn->offs,
				 ubifs_node_name(sn->type),
				 "expected the master node here");
		return NULL;
	}
	return sn->crc_ok ? sn : NULL;
}

/* mst_node_check_hash() or ubifs_node_verify_hmac() of master.c. */
static void auth_master(struct vctx *v, int lnum, int offs,
			const struct ubifs_mst_node *mst)
{
	uint8_t mac[UBIFS_MAX_HASH_LEN];
	int n = v->img->g.hash_len;

	if (hmac_zero(v, mst->hmac)) {
		if (ubifs_auth_hash(v->auth, (const uint8_t *)mst + UBIFS_CH_SZ,
				    UBIFS_MST_NODE_SZ - UBIFS_CH_SZ, mac) ||
		    !ubifs_mac_equal(mac, v->sb->hash_mst, n))
			ubifs_report_add(v->rep, lnum, offs, "master node",
					 "hash does not match the superblock's "
					 "hash_mst");
		return;
	}
	v->res->hmac_present = 1;
	if (!ubifs_auth_has_key(v->auth)) {
		if (v->o->cert)
			ubifs_report_add(v->rep, lnum, offs, "master node",
					 "carries an HMAC (a kernel wrote it): "
					 "only the HMAC key can authenticate "
					 "it, give --key-file");
		return;
	}
	if (ubifs_auth_node_hmac(v->auth, mst, UBIFS_MST_NODE_SZ,
				 offsetof(struct ubifs_mst_node, hmac), mac) ||
	    !ubifs_mac_equal(mac, mst->hmac, n))
		ubifs_report_add(v->rep, lnum, offs, "master node",
				 "HMAC mismatch");
	else
		v->res->hmac_checked = 1;
}

/* ubifs_compare_master_node(): everything but the common header and the
 * HMAC, which differ with the sequence number. */
static int masters_differ(const uint8_t *a, const uint8_t *b)
{
	size_t h = offsetof(struct ubifs_mst_node, hmac);
	size_t behind = h + UBIFS_MAX_HMAC_LEN;

	return memcmp(a + UBIFS_CH_SZ, b + UBIFS_CH_SZ, h - UBIFS_CH_SZ) ||
	       memcmp(a + behind, b + behind, UBIFS_MST_NODE_SZ - behind);
}

static int check_masters(struct vctx *v)
{
	const struct ubifs_snode *m1 = last_master(v, UBIFS_MST_LNUM);
	const struct ubifs_snode *m2 = last_master(v, UBIFS_MST_LNUM + 1);
	const uint8_t *p1 = m1 ? node_ptr(v, UBIFS_MST_LNUM, m1->offs) : NULL;
	const uint8_t *p2 =
		m2 ? node_ptr(v, UBIFS_MST_LNUM + 1, m2->offs) : NULL;
	int lnum = p1 ? UBIFS_MST_LNUM : UBIFS_MST_LNUM + 1;
	struct strbuf why = STRBUF_INIT;
	int offs, ret;

	/*
	 * scan_for_master(): the copy in LEB 1 is authenticated, the one in
	 * LEB 2 must equal it but for the common header and the HMAC field
	 * (which differ with the sequence number), so it is authentic through
	 * it.  The kernel does not check the second copy's HMAC, and neither
	 * does this: it would refuse images the kernel mounts.  Only when LEB 1
	 * holds no usable copy is LEB 2's authenticated itself.
	 */
	if (!p1 && !p2)
		return -EINVAL;
	offs = p1 ? m1->offs : m2->offs;
	ret = ubifs_node_read(v->img, NULL, lnum, offs, UBIFS_MST_NODE_SZ,
			      NULL, &v->mst_copy, &why);
	if (ret) {
		ubifs_report_add(v->rep, lnum, offs, "master node",
				 "changed while being verified: %s", why.buf);
		strbuf_release(&why);
		return ret;
	}
	if (v->auth)
		auth_master(v, lnum, offs, &v->mst_copy);
	if (p1 && p2 && (m1->offs != m2->offs || masters_differ(p1, p2)))
		ubifs_report_add(v->rep, UBIFS_MST_LNUM + 1, m2->offs,
				 "master node", "differs from the copy in "
				 "LEB %d", UBIFS_MST_LNUM);
	v->mst = &v->mst_copy;
	v->res->mst_lnum = lnum;
	v->res->mst_offs = offs;
	v->res->highest_inum = le64toh(v->mst->highest_inum);
	return 0;
}

/* Returns 1 when lnum:offs was already visited. */
static int seen_add(struct vctx *v, int lnum, int offs)
{
	uint64_t key = ((uint64_t)lnum << 32 | (uint32_t)offs) + 1;
	size_t i;

	if ((size_t)(v->seen_nr + 1) * 2 > v->seen_mask + 1) {
		uint64_t *old = v->seen;
		size_t n = old ? v->seen_mask + 1 : 0, j;

		v->seen_mask = n ? 2 * n - 1 : 1023;
		v->seen = xcalloc(v->seen_mask + 1, sizeof(*v->seen));
		for (j = 0; j < n; j++) {
			if (!old[j])
				continue;
			i = (old[j] * 0x9E3779B97F4A7C15ull >> 17) &
			    v->seen_mask;
			while (v->seen[i])
				i = (i + 1) & v->seen_mask;
			v->seen[i] = old[j];
		}
		free(old);
	}
	i = (key * 0x9E3779B97F4A7C15ull >> 17) & v->seen_mask;
	while (v->seen[i]) {
		if (v->seen[i] == key)
			return 1;
		i = (i + 1) & v->seen_mask;
	}
	v->seen[i] = key;
	v->seen_nr++;
	return 0;
}

struct parent {
	int lnum, offs, branch;	/* lnum < 0: the master node */
};

static void add_ref(char *buf, size_t n, const struct parent *pa)
{
	if (pa->lnum < 0)
		snprintf(buf, n, "master node");
	else
		snprintf(buf, n, "index LEB %d:0x%x branch %d", pa->lnum,
			 pa->offs, pa->branch);
}

/*
 * Finds the node a branch (or the master's root pointer) refers to and
 * checks what every reference needs: a node starts there, its length and
 * CRC, and the hash the referrer recorded for it.
 */
static const struct ubifs_snode *ref_node(struct vctx *v, int lnum, int offs,
					  uint32_t len, const uint8_t *hash,
					  const struct parent *pa)
{
	const struct ubifs_snode *sn;
	uint8_t calc[UBIFS_MAX_HASH_LEN];
	const uint8_t *node_hash;
	char ref[96];

	add_ref(ref, sizeof(ref), pa);
	if (lnum < v->img->g.main_first || lnum >= v->img->g.leb_cnt ||
	    offs < 0 || offs >= v->img->g.leb_size || (offs & 7)) {
		ubifs_report_add(v->rep, lnum, offs, "node",
				 "bad node position (%s)", ref);
		return NULL;
	}
	sn = ubifs_find_node(v->img, lnum, offs);
	if (!sn) {
		ubifs_report_add(v->rep, lnum, offs, "node",
				 "no node starts here (%s)", ref);
		return NULL;
	}
	if (sn->len != len) {
		ubifs_report_add(v->rep, lnum, offs, ubifs_node_name(sn->type),
				 "length %u, the reference says %u (%s)",
				 sn->len, len, ref);
		return NULL;
	}
	v->in_index[lnum] = 1;
	if (!sn->crc_ok)
		return NULL;
	node_hash = ubifs_snode_hash(v->img, lnum, sn);
	if (v->auth && !v->o->no_hash && !node_hash &&
	    !ubifs_auth_hash(v->auth, node_ptr(v, lnum, offs), len, calc))
		node_hash = calc;
	if (v->auth && !v->o->no_hash &&
	    (!node_hash || !ubifs_mac_equal(node_hash, hash,
					    v->img->g.hash_len))) {
		if (pa->lnum < 0)
			ubifs_report_add(v->rep, lnum, offs,
					 ubifs_node_name(sn->type),
					 "hash does not match the master "
					 "node's hash_root_idx");
		else
			ubifs_report_add(v->rep, lnum, offs,
					 ubifs_node_name(sn->type),
					 "branch hash mismatch (%s)", ref);
	}
	return sn;
}

static void check_leaf(struct vctx *v, const struct ubifs_branch *br,
		       const struct parent *pa)
{
	int lnum = le32toh(br->lnum), offs = le32toh(br->offs);
	const struct ubifs_snode *sn;
	int ktype = ubifs_key_type(br->key);

	/* The journal replaces or removes this leaf: the kernel never
	 * reads it (ubifs/journal.h). */
	if (ubifs_journal_supersedes(&v->jr, br->key))
		return;
	sn = ref_node(v, lnum, offs, le32toh(br->len),
		      br->key + UBIFS_SK_LEN, pa);
	if (!sn)
		return;
	if (ktype > UBIFS_XENT_KEY || sn->type != ktype) {
		ubifs_report_add(v->rep, lnum, offs, ubifs_node_name(sn->type),
				 "index key type %d does not fit (index LEB "
				 "%d:0x%x branch %d)", ktype, pa->lnum,
				 pa->offs, pa->branch);
		return;
	}
	if (sn->len < UBIFS_CH_SZ + UBIFS_SK_LEN ||
	    memcmp(sn->key, br->key, UBIFS_SK_LEN)) {
		ubifs_report_add(v->rep, lnum, offs, ubifs_node_name(sn->type),
				 "key differs from its index branch (index "
				 "LEB %d:0x%x branch %d)", pa->lnum, pa->offs,
				 pa->branch);
		return;
	}
	v->res->leaves[sn->type]++;
	v->res->data_bytes += sn->data_size;
}

/*
 * fs/ubifs/tnc_misc.c read_znode(): a key may equal the one before it
 * only when both are hashed keys (directory and xattr entries, whose
 * name hashes may collide); any other equal pair is corrupt.
 */
static int keys_ascend(const uint8_t *prev, const uint8_t *key)
{
	int cmp = ubifs_key_cmp(prev, key);
	int t = ubifs_key_type(prev);

	return cmp < 0 ||
	       (!cmp && (t == UBIFS_DENT_KEY || t == UBIFS_XENT_KEY));
}

static void walk_index(struct vctx *v, int lnum, int offs, uint32_t len,
		       int level, const uint8_t *hash, const struct parent *pa)
{
	const struct ubifs_geom *g = &v->img->g;
	const struct ubifs_idx_node *idx;
	const struct ubifs_snode *sn;
	const uint8_t *prev_key = NULL;
	struct strbuf why = STRBUF_INIT;
	void *buf;
	int cc, lv, i;

	if (seen_add(v, lnum, offs)) {
		char ref[96];

		add_ref(ref, sizeof(ref), pa);
		ubifs_report_add(v->rep, lnum, offs, "index node",
				 "referenced twice: loop in the index (%s)",
				 ref);
		return;
	}
	sn = ref_node(v, lnum, offs, len, hash, pa);
	if (!sn)
		return;
	if (sn->type != UBIFS_IDX_NODE) {
		ubifs_report_add(v->rep, lnum, offs, ubifs_node_name(sn->type),
				 "an index node was expected here");
		return;
	}
	/* The branches are read from a copy that hashes as the scan found
	 * the node, not from the file a second time. */
	buf = xmalloc(len);
	if (ubifs_node_read(v->img, v->auth, lnum, offs, len,
			    ubifs_snode_hash(v->img, lnum, sn), buf, &why)) {
		ubifs_report_add(v->rep, lnum, offs, "index node",
				 "changed while being verified: %s", why.buf);
		goto out;
	}
	idx = buf;
	cc = le16toh(idx->child_cnt);
	lv = le16toh(idx->level);
	if (cc < 1 || cc > g->fanout ||
	    len != UBIFS_IDX_NODE_SZ + (uint32_t)cc * g->branch_sz) {
		ubifs_report_add(v->rep, lnum, offs, "index node",
				 "bad child count %d for length %u", cc, len);
		goto out;
	}
	if (lv >= UBIFS_MAX_LEVELS) {
		ubifs_report_add(v->rep, lnum, offs, "index node",
				 "level %d, the limit is %d", lv,
				 UBIFS_MAX_LEVELS - 1);
		goto out;
	}
	if (level >= 0 && lv != level) {
		ubifs_report_add(v->rep, lnum, offs, "index node",
				 "level %d where %d was expected", lv, level);
		goto out;
	}
	if (level < 0)
		v->res->root_level = lv;
	v->res->idx_nodes++;
	for (i = 0; i < cc; i++) {
		const struct ubifs_branch *br;
		struct parent me = { lnum, offs, i };

		br = (const void *)(idx->branches + (size_t)i * g->branch_sz);
		if (prev_key && !keys_ascend(prev_key, br->key)) {
			ubifs_report_add(v->rep, lnum, offs, "index node",
					 "branch %d key %s", i,
					 ubifs_key_cmp(prev_key, br->key) ?
					 "out of order" :
					 "equals the previous one and is not "
					 "a hashed key");
			goto out;
		}
		prev_key = br->key;
		if (lv == 0)
			check_leaf(v, br, &me);
		else
			walk_index(v, le32toh(br->lnum), le32toh(br->offs),
				   le32toh(br->len), lv - 1,
				   br->key + UBIFS_SK_LEN, &me);
	}
out:
	strbuf_release(&why);
	free(buf);
}

static void check_lpt(struct vctx *v)
{
	struct ubifs_lpt lpt;
	int lnum = le32toh(v->mst->lpt_lnum), offs = le32toh(v->mst->lpt_offs);
	int i, err;

	err = ubifs_lpt_read(v->img, v->mst, v->o->no_hash ? NULL : v->auth,
			     &lpt, v->rep);
	v->res->pnodes = lpt.pnodes;
	v->res->nnodes = lpt.nnodes;
	if (!err && v->auth && !v->o->no_hash &&
	    !ubifs_mac_equal(lpt.hash, v->mst->hash_lpt, v->img->g.hash_len))
		ubifs_report_add(v->rep, lnum, offs, "LPT nnode",
				 "LPT hash does not match the master node's "
				 "hash_lpt");
	/*
	 * The space the LPT calls free must be erased: the scan found
	 * where the last node of each LEB ends.  Buds are the exception:
	 * the LPT is written at commit, the journal after it.  So is a LEB
	 * the LPT calls empty that the index does not use: fs/ubifs/find.c
	 * erases an empty LEB before it takes it ("they may not have been,
	 * for example, because of an unclean unmount"), and the kernel
	 * mounts such an image (measured on 6.1 with a bud of a longer
	 * journal left where a grafted one ends, ubifs-kernel-graft.sh).
	 */
	for (i = 0; !err && i < lpt.main_lebs; i++) {
		int l = i + v->img->g.main_first;
		int used = v->img->g.leb_size - lpt.lp[i].free;

		if (v->img->scan[l].end > used && !v->img->scan[l].bad &&
		    !v->is_bud[l] && (used || v->in_index[l]))
			ubifs_report_add(v->rep, l, used, "free space",
					 "holds data but the LPT records %d "
					 "bytes free", lpt.lp[i].free);
	}
	ubifs_lpt_release(&lpt);
}

/*
 * mkfs.ubifs images have a log of one commit start node.  A mounted image
 * has reference nodes to buds; nodes in a bud after the referenced offset
 * were written since the last commit and are not in the index yet (the
 * kernel replays them).  They are authenticated by the journal's HMAC
 * chain, which ubifs/journal.c checks as the kernel's replay does.
 */
static void check_log(struct vctx *v)
{
	ubifs_journal_check(v->img, v->mst, v->auth, v->is_bud, &v->jr,
			    v->rep);
	v->res->buds = v->jr.buds;
	v->res->journal_nodes = v->jr.journal_nodes;
	/* Without credentials this is an integrity check, which the journal's
	 * CRCs pass; with a certificate only, the policy's "a node needs a
	 * credential the caller did not give". */
	if (v->jr.hmac_needed && v->o->cert)
		ubifs_report_add(v->rep, le32toh(v->mst->log_lnum), 0,
				 "commit start node", "the journal is "
				 "HMAC-authenticated: %d nodes in %d buds are "
				 "not verified without --key-file",
				 v->jr.journal_nodes, v->jr.buds);
}

static void count_scanned(struct vctx *v)
{
	int lnum, i;

	for (lnum = 0; lnum < v->img->g.leb_cnt; lnum++)
		for (i = 0; v->img->scan && i < v->img->scan[lnum].nr; i++)
			v->res->scanned[v->img->scan[lnum].v[i].type]++;
}

int ubifs_verify(struct ubifs_image *img, const struct ubifs_verify_opts *o,
		 struct ubifs_verify_result *res, struct ubifs_report *rep)
{
	struct vctx v = { .img = img, .o = o, .res = res, .rep = rep };
	struct parent master = { -1, 0, 0 };
	int before = rep->nr;

	memset(res, 0, sizeof(*res));
	v.sb = &img->sb;
	res->authenticated = !!(img->g.flags & UBIFS_FLG_AUTHENTICATION);
	if (res->authenticated) {
		v.auth = ubifs_auth_new(img->g.hash_algo, o->hmac_key,
					o->hmac_key_len);
		if (!v.auth) {
			ubifs_report_add(rep, 0, 0, "superblock node",
					 "cannot set up hash algorithm %d",
					 img->g.hash_algo);
			return rep->nr - before;
		}
	}
	if (!img->scan)
		ubifs_scan_all(img, !o->no_hash, rep, o->progress,
			       o->progress_arg);
	count_scanned(&v);
	check_sb_leb(&v);
	if (check_masters(&v) == 0) {
		res->root_lnum = le32toh(v.mst->root_lnum);
		res->root_offs = le32toh(v.mst->root_offs);
		res->root_len = le32toh(v.mst->root_len);
		memcpy(res->root_hash, v.mst->hash_root_idx,
		       sizeof(res->root_hash));
		/* The journal first: what it supersedes in the index. */
		v.is_bud = xcalloc(img->g.leb_cnt, 1);
		v.in_index = xcalloc(img->g.leb_cnt, 1);
		check_log(&v);
		walk_index(&v, res->root_lnum, res->root_offs, res->root_len,
			   -1, v.mst->hash_root_idx, &master);
		check_lpt(&v);
	}
	if (o->hmac_key && res->authenticated && !res->hmac_checked &&
	    rep->nr == before)
		ubifs_report_add(rep, 0, 0, "superblock node",
				 "the HMAC key cannot be checked: no "
				 "superblock or master node carries an HMAC");
	ubifs_journal_release(&v.jr);
	free(v.is_bud);
	free(v.in_index);
	free(v.seen);
	ubifs_auth_free(v.auth);
	return rep->nr - before;
}

/* What an OK means: the policy of this file, in words. */
const char *ubifs_verify_summary(const struct ubifs_verify_result *res)
{
	if (!res->authenticated)
		return "integrity only (CRCs): the image is not authenticated, "
		       "authenticity NOT checked";
	if (res->sig_checked && res->hmac_checked)
		return "authenticated: signature and HMACs verified";
	if (res->sig_checked)
		return "authenticated: signature verified";
	if (res->hmac_checked)
		return "authenticated: HMACs verified";
	return "integrity only (CRCs and hashes): authenticity NOT checked, "
	       "give --cert or --key-file";
}
