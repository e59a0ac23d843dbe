// SPDX-License-Identifier: GPL-2.0
/*
 * Tamper test: flip one byte at a time at positions sampled from the
 * authenticated bytes of every kind of node of a signed mkfs.ubifs image,
 * a tracekit-signed one and one the kernel wrote, repair the CRC as an
 * attacker would, and
 * check that verification fails and names the node that was changed.
 */
#include <endian.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "tests/ubifs-fixture.h"
#include "ubifs/auth.h"
#include "ubifs/image.h"
#include "ubifs/lpt.h"
#include "ubifs/sign.h"
#include "ubifs/verify.h"
#include "util/array.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define PER_KIND 300

enum kind { K_SB, K_SIG, K_MST, K_CS, K_IDX, K_INO, K_DENT, K_DATA, K_PNODE,
	    K_NR };

static const char *const kind_names[K_NR] = {
	"superblock", "signature", "master", "commit start", "index",
	"inode", "dentry", "data", "LPT pnode",
};

/* Authenticated bytes [from, from + len) of the node at lnum:offs. */
struct region {
	int lnum, offs, node_len;
	int from, len;
};

struct regions {
	struct region *v;
	int nr, alloc;
	long bytes;
};

static void add_region(struct regions *r, int lnum, int offs, int node_len,
		       int from, int len)
{
	grow_array(r->v, r->nr, r->alloc, 32);
	r->v[r->nr++] = (struct region){ lnum, offs, node_len, from, len };
	r->bytes += len;
}

static int kind_of(int type)
{
	switch (type) {
	case UBIFS_IDX_NODE: return K_IDX;
	case UBIFS_INO_NODE: return K_INO;
	case UBIFS_DENT_NODE: return K_DENT;
	case UBIFS_DATA_NODE: return K_DATA;
	}
	return -1;
}

static void add_node(struct regions *kinds, const uint8_t *buf, int leb_size,
		     int lnum, int offs, int len)
{
	const struct ubifs_ch *ch =
		(const void *)(buf + (size_t)lnum * leb_size + offs);
	int k = kind_of(ch->node_type);

	if (k < 0)
		return;
	add_region(&kinds[k], lnum, offs, len, 0, 4);
	add_region(&kinds[k], lnum, offs, len, 8, len - 8);
}

/*
 * The nodes the index refers to, found by this test's own walk (the
 * branches' positions, nothing else): in an image a kernel has written,
 * the main area also holds obsolete nodes that nothing authenticates.
 */
static void walk_index(struct regions *kinds, const uint8_t *buf, size_t len,
		       int leb_size, int branch_sz, int lnum, int offs,
		       int nlen, int depth)
{
	const uint8_t *idx = buf + (size_t)lnum * leb_size + offs;
	int cc, level, i;

	if ((size_t)lnum * leb_size + offs + nlen > len || depth > 64)
		return;
	add_node(kinds, buf, leb_size, lnum, offs, nlen);
	cc = idx[24] | idx[25] << 8;
	level = idx[26] | idx[27] << 8;
	for (i = 0; i < cc; i++) {
		const uint8_t *br = idx + UBIFS_IDX_NODE_SZ + i * branch_sz;
		int bl = br[0] | br[1] << 8 | br[2] << 16 | br[3] << 24;
		int bo = br[4] | br[5] << 8 | br[6] << 16 | br[7] << 24;
		int bn = br[8] | br[9] << 8 | br[10] << 16 | br[11] << 24;

		if (level)
			walk_index(kinds, buf, len, leb_size, branch_sz, bl, bo,
				   bn, depth + 1);
		else if ((size_t)bl * leb_size + bo + bn <= len)
			add_node(kinds, buf, leb_size, bl, bo, bn);
	}
}

/* The problem must name the node that was changed; the superblock's
 * signature names the superblock it covers, the LPT hash only the LEB. */
static int located(const struct ubifs_report *rep, int k,
		   const struct region *r)
{
	int i;

	for (i = 0; i < rep->nr; i++) {
		const struct ubifs_problem *p = &rep->v[i];

		if (p->lnum != r->lnum)
			continue;
		if (k == K_PNODE ? !strncmp(p->what, "LPT", 3) :
		    p->offs == r->offs)
			return 1;
		if (k == K_SB && strstr(p->msg, "superblock at LEB 0:0x0"))
			return 1;
	}
	return 0;
}

static int hmac_set(const uint8_t *field, int n)
{
	while (n--)
		if (field[n])
			return 1;
	return 0;
}

/*
 * The bytes UBIFS authentication covers: the superblock (its signature
 * and HMAC leave out only magic and CRC), the signature itself with its
 * type and length, the master nodes (from byte 24 when they hash to
 * hash_mst, from byte 8 when they carry an HMAC), the commit number of
 * the commit start node, every node the index refers to (the hash in the
 * branch covers it whole; its CRC field is rewritten after each flip
 * anyway) and the pnodes (hash_lpt).  What is left out is listed in
 * Documentation/tracekit-ubifs.txt.  Returns the number of kinds found.
 */
static int collect(const uint8_t *buf, size_t len, struct regions *kinds)
{
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_opts o = { .no_hash = 1 };
	struct ubifs_verify_result res;
	struct ubifs_image img;
	struct ubifs_lpt lpt;
	const struct ubifs_mst_node *mst;
	const struct ubifs_sig_node *sig;
	int lnum, i, hl, k, found = 0;

	if (ubifs_image_init(&img, buf, len, &rep))
		return 0;
	ubifs_verify(&img, &o, &res, &rep);
	hl = img.g.hash_len;
	add_region(&kinds[K_SB], 0, 0, UBIFS_SB_NODE_SZ, 0, 4);
	add_region(&kinds[K_SB], 0, 0, UBIFS_SB_NODE_SZ, 8,
		   UBIFS_SB_NODE_SZ - 8);
	sig = (const void *)(buf + UBIFS_SB_NODE_SZ);
	if (res.sig_present) {
		add_region(&kinds[K_SIG], 0, UBIFS_SB_NODE_SZ,
			   le32toh(sig->ch.len), UBIFS_CH_SZ, 8);
		add_region(&kinds[K_SIG], 0, UBIFS_SB_NODE_SZ,
			   le32toh(sig->ch.len), UBIFS_SIG_NODE_SZ,
			   le32toh(sig->len));
	}
	for (lnum = UBIFS_MST_LNUM; lnum <= UBIFS_MST_LNUM + 1; lnum++) {
		const struct ubifs_leb_scan *s = &img.scan[lnum];
		int offs = s->v[s->nr - 1].offs;
		int h = offsetof(struct ubifs_mst_node, hmac);

		mst = (const void *)(ubifs_leb(&img, lnum) + offs);
		if (lnum == UBIFS_MST_LNUM) {
			i = hmac_set(mst->hmac, hl) ? 8 : UBIFS_CH_SZ;
			add_region(&kinds[K_MST], lnum, offs, UBIFS_MST_NODE_SZ,
				   i, UBIFS_MST_NODE_SZ - i);
			continue;
		}
		/* The second copy counts through its equality with the
		 * first, outside the header and the HMAC field. */
		add_region(&kinds[K_MST], lnum, offs, UBIFS_MST_NODE_SZ,
			   UBIFS_CH_SZ, h - UBIFS_CH_SZ);
		add_region(&kinds[K_MST], lnum, offs, UBIFS_MST_NODE_SZ,
			   h + UBIFS_MAX_HMAC_LEN,
			   UBIFS_MST_NODE_SZ - h - UBIFS_MAX_HMAC_LEN);
	}
	mst = (const void *)(ubifs_leb(&img, res.mst_lnum) + res.mst_offs);
	add_region(&kinds[K_CS], le32toh(mst->log_lnum), 0, UBIFS_CS_NODE_SZ,
		   UBIFS_CH_SZ, 8);
	walk_index(kinds, buf, len, img.g.leb_size, img.g.branch_sz,
		   res.root_lnum, res.root_offs, res.root_len, 0);
	if (ubifs_lpt_read(&img, mst, NULL, &lpt, &rep) == 0)
		for (i = 0; i < lpt.pnodes; i++)
			add_region(&kinds[K_PNODE], lpt.pnode_at[i].lnum,
				   lpt.pnode_at[i].offs, lpt.lg.pnode_sz,
				   UBIFS_LPT_CRC_BYTES,
				   lpt.lg.pnode_sz - UBIFS_LPT_CRC_BYTES);
	ubifs_lpt_release(&lpt);
	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
	for (k = 0; k < K_NR; k++)
		found += kinds[k].bytes > 0;
	return found;
}

/* Rewrites the CRC of the node the flipped byte is in, as an attacker
 * would, so that only hashes, HMACs and signatures are left to see it. */
static void repair_crc(uint8_t *node, int k, int node_len)
{
	struct ubifs_crc crc;

	ubifs_crc_init(&crc);
	if (k == K_PNODE) {
		uint16_t c = ubifs_crc16(&crc, 0xffff,
					 node + UBIFS_LPT_CRC_BYTES,
					 node_len - UBIFS_LPT_CRC_BYTES);

		node[0] = c;
		node[1] = c >> 8;
	} else {
		uint32_t c = htole32(ubifs_crc32(&crc, UBIFS_CRC32_INIT,
						 node + 8, node_len - 8));

		memcpy(node + 4, &c, 4);
	}
}

struct tally {
	int total, detected, named;
	int kinds_missing;
};

/* Flips PER_KIND sampled bytes of every kind in img, one at a time; img
 * must hold nkinds kinds of node. */
static void tamper(const char *label, uint8_t *img, size_t len, int leb_size,
		   const struct ubifs_verify_opts *o, int nkinds,
		   struct tally *t)
{
	struct regions kinds[K_NR] = { 0 };
	uint64_t seed = 0x7261636b6974ull;
	int k, n;

	t->kinds_missing += nkinds - collect(img, len, kinds);
	for (k = 0; k < K_NR; k++) {
		int kd = 0, kn = 0;

		for (n = 0; n < PER_KIND && kinds[k].bytes; n++) {
			struct ubifs_report rep = { 0 };
			struct ubifs_verify_result res;
			struct ubifs_image im;
			long pick = test_rand(&seed) % kinds[k].bytes;
			const struct region *r = kinds[k].v;
			uint8_t flip = 1 + test_rand(&seed) % 255;
			uint8_t *node, saved[4];
			int at;

			while (pick >= r->len)
				pick -= r++->len;
			node = img + (size_t)r->lnum * leb_size + r->offs;
			at = r->from + pick;
			memcpy(saved, k == K_PNODE ? node : node + 4, 4);
			node[at] ^= flip;
			repair_crc(node, k, r->node_len);
			if (ubifs_image_init(&im, img, len, &rep) == 0)
				ubifs_verify(&im, o, &res, &rep);
			ubifs_image_release(&im);
			node[at] ^= flip;
			memcpy(k == K_PNODE ? node : node + 4, saved,
			       k == K_PNODE ? 2 : 4);
			t->total++;
			if (!rep.nr)
				fprintf(stderr, "%s: not detected: LEB %d:0x%x "
					"in %s node at 0x%x\n", label, r->lnum,
					r->offs + at, kind_names[k], r->offs);
			else if (!located(&rep, k, r))
				fprintf(stderr, "%s: not located: LEB %d:0x%x "
					"in %s node at 0x%x\n", label, r->lnum,
					r->offs + at, kind_names[k], r->offs);
			kd += rep.nr > 0;
			kn += rep.nr > 0 && located(&rep, k, r);
			ubifs_report_clear(&rep);
		}
		printf("%s %-13s %3d/%d detected, %3d located\n", label,
		       kind_names[k], kd, n, kn);
		t->detected += kd;
		t->named += kn;
		free(kinds[k].v);
	}
}

/*
 * An image the kernel wrote (tests/vm/mk-ubifs-kernel-image.sh made it):
 * its masters, index, LPT and log are the kernel's, and its main area
 * holds obsolete nodes.  HMAC-authenticated, so no signature node.
 */
static int tamper_kernel_image(struct tally *t)
{
	struct ubifs_verify_opts o = { 0 };
	struct ubifs_image im;
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	uint8_t *img, *key;
	size_t len, key_len;
	int bad;
	char *kp = test_source_path("tests/data/ubifs-kernel-hmac.key");

	img = test_read_gz("tests/data/ubifs-kernel-hmac.img.gz", &len);
	key = ubifs_fixture_read(kp, &key_len);
	free(kp);
	if (!img || !key) {
		fprintf(stderr, "FAILED: tests/data/ubifs-kernel-hmac.* missing\n");
		free(img);
		free(key);
		return -1;
	}
	o.hmac_key = key;
	o.hmac_key_len = key_len;
	bad = ubifs_image_init(&im, img, len, &rep) ||
	      ubifs_verify(&im, &o, &res, &rep) || !res.hmac_checked;
	ubifs_image_release(&im);
	ubifs_report_clear(&rep);
	if (!bad)
		tamper("kernel", img, len, im.g.leb_size, &o, K_NR - 1, t);
	else
		fprintf(stderr, "FAILED: the kernel's image does not verify\n");
	free(img);
	free(key);
	return bad ? -1 : 0;
}

int test__ubifs_tamper(void)
{
	static const uint8_t key[] = "tamper test HMAC key";
	struct ubifs_fixture f = { 0 };
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_opts o;
	struct ubifs_sign_opts so;
	struct ubifs_image plain;
	struct tally t = { 0 };
	uint8_t *img, *pimg, *ours;
	size_t len, plen, olen;
	struct strbuf err = STRBUF_INIT;

	if (ubifs_fixture_make(&f))
		return TEST_FAIL;
	img = ubifs_fixture_read(f.signed_img, &len);
	pimg = ubifs_fixture_read(f.plain, &plen);
	TEST_ASSERT_VAL("read images", img && pimg);

	/* mkfs.ubifs --auth-key output, checked with the certificate. */
	o = (struct ubifs_verify_opts){ .cert = f.cert };
	tamper("mkfs.ubifs", img, len, 129024, &o, K_NR, &t);

	/* Our own signing, signature and HMACs, checked with both. */
	so = (struct ubifs_sign_opts){
		.hash_algo = ubifs_hash_algo_by_name("sha256"),
		.key = f.key, .cert = f.cert,
		.hmac_key = key, .hmac_key_len = sizeof(key) - 1,
	};
	TEST_ASSERT_VAL("plain image",
			!ubifs_image_init(&plain, pimg, plen, &rep));
	TEST_ASSERT_VAL("sign", !ubifs_sign(&plain, &so, &ours, &olen, &err));
	ubifs_image_release(&plain);
	o.hmac_key = key;
	o.hmac_key_len = sizeof(key) - 1;
	tamper("tracekit-sign", ours, olen, 129024, &o, K_NR, &t);
	TEST_ASSERT_EQUAL("the kernel's image", tamper_kernel_image(&t), 0);

	printf("tamper: %d flips of authenticated bytes, CRCs repaired: "
	       "detection rate %.2f%%, right node named %.2f%%\n", t.total,
	       100.0 * t.detected / t.total, 100.0 * t.named / t.total);
	free(img);
	free(pimg);
	free(ours);
	strbuf_release(&err);
	ubifs_report_clear(&rep);
	ubifs_fixture_remove(&f);
	TEST_ASSERT_EQUAL("every kind of node sampled", t.kinds_missing, 0);
	TEST_ASSERT_VAL("at least 7500 flips", t.total >= 7500);
	TEST_ASSERT_EQUAL("every flip detected", t.detected, t.total);
	TEST_ASSERT_EQUAL("every flip located", t.named, t.total);
	return TEST_OK;
}
