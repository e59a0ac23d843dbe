// SPDX-License-Identifier: GPL-2.0
/*
 * Tamper test: flip one byte at a time at positions sampled from every
 * kind of node in the used part of a signed mkfs.ubifs image and check
 * that verification fails and names the node that was changed.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tests.h"
#include "tests/ubifs-fixture.h"
#include "util/ubifs-image.h"
#include "util/ubifs-auth.h"
#include "util/ubifs-lpt.h"
#include "util/ubifs-sign.h"
#include "util/ubifs-verify.h"

#define PER_KIND 240

enum kind { K_SB, K_SIG, K_MST, K_CS, K_IDX, K_INO, K_DENT, K_DATA, K_PAD,
	    K_LPT, K_NR };

static const char *const kind_names[K_NR] = {
	"superblock", "signature", "master", "commit start", "index",
	"inode", "dentry", "data", "padding", "LPT",
};

struct region {
	int lnum, offs, len;
};

struct regions {
	struct region *v;
	int nr, alloc;
	long bytes;
};

static void add_region(struct regions *r, int lnum, int offs, int len)
{
	if (r->nr == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 32;
		r->v = realloc(r->v, r->alloc * sizeof(*r->v));
	}
	r->v[r->nr++] = (struct region){ lnum, offs, len };
	r->bytes += len;
}

static int kind_of(int type)
{
	switch (type) {
	case UBIFS_SB_NODE: return K_SB;
	case UBIFS_SIG_NODE: return K_SIG;
	case UBIFS_MST_NODE: return K_MST;
	case UBIFS_CS_NODE: return K_CS;
	case UBIFS_IDX_NODE: return K_IDX;
	case UBIFS_INO_NODE: return K_INO;
	case UBIFS_DENT_NODE: return K_DENT;
	case UBIFS_DATA_NODE: return K_DATA;
	case UBIFS_PAD_NODE: return K_PAD;
	}
	return -1;
}

/* A small deterministic generator: the sample is the same every run. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int located(const struct ubifs_report *rep, int k,
		   const struct region *r)
{
	int i;

	for (i = 0; i < rep->nr; i++) {
		const struct ubifs_problem *p = &rep->v[i];

		if (k == K_LPT ? p->lnum == r->lnum && !strncmp(p->what, "LPT", 3)
			       : p->lnum == r->lnum && p->offs == r->offs)
			return 1;
	}
	return 0;
}

static void collect(const uint8_t *buf, size_t len, struct regions *kinds)
{
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_opts o = { .no_hash = 1 };
	struct ubifs_verify_result res;
	struct ubifs_lpt_geom lg;
	struct ubifs_image img;
	const struct ubifs_mst_node *mst;
	int lnum, i;

	if (ubifs_image_init(&img, buf, len, &rep))
		return;
	ubifs_verify(&img, &o, &res, &rep);
	for (lnum = 0; lnum < img.g.leb_cnt; lnum++) {
		const struct ubifs_leb_scan *s = &img.scan[lnum];
		const uint8_t *leb = ubifs_leb(&img, lnum);

		for (i = 0; i < s->nr; i++) {
			int k = kind_of(s->v[i].type);

			if (k >= 0)
				add_region(&kinds[k], lnum, s->v[i].offs,
					   s->v[i].len);
		}
		/* Padding nodes are skipped by the scan: find their headers. */
		for (i = 0; i + (int)UBIFS_PAD_NODE_SZ <= s->end; i += 8) {
			const struct ubifs_ch *ch = (const void *)(leb + i);

			if (le32toh(ch->magic) == UBIFS_NODE_MAGIC &&
			    ch->node_type == UBIFS_PAD_NODE &&
			    le32toh(ch->len) == UBIFS_PAD_NODE_SZ)
				add_region(&kinds[K_PAD], lnum, i,
					   UBIFS_PAD_NODE_SZ);
		}
	}
	mst = (const void *)(ubifs_leb(&img, res.mst_lnum) + res.mst_offs);
	ubifs_lpt_calc_geom(&img.g, &lg);
	/* mkfs.ubifs writes pnodes, nnodes and the ltab back to back. */
	if (le32toh(mst->ltab_lnum) == le32toh(mst->lpt_lnum))
		add_region(&kinds[K_LPT], le32toh(mst->ltab_lnum), 0,
			   le32toh(mst->ltab_offs) + lg.ltab_sz);
	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
}

struct tally {
	int total, detected, named;
	int kinds_missing;
};

/* Flips PER_KIND sampled bytes of every kind in img, one at a time. */
static void tamper(const char *label, uint8_t *img, size_t len,
		   const struct ubifs_verify_opts *o, struct tally *t)
{
	struct regions kinds[K_NR] = { 0 };
	uint64_t seed = 0x7261636b6974ull;
	int k, n;

	collect(img, len, kinds);
	for (k = 0; k < K_NR; k++) {
		int kd = 0, kn = 0;

		t->kinds_missing += !kinds[k].bytes;
		for (n = 0; n < PER_KIND && kinds[k].bytes; n++) {
			struct ubifs_report rep = { 0 };
			struct ubifs_verify_result res;
			struct ubifs_image im;
			long pick = next_rand(&seed) % kinds[k].bytes;
			const struct region *r = kinds[k].v;
			uint8_t flip = 1 + next_rand(&seed) % 255;
			size_t pos;

			while (pick >= r->len)
				pick -= r++->len;
			pos = (size_t)r->lnum * 129024 + r->offs + pick;
			img[pos] ^= flip;
			if (ubifs_image_init(&im, img, len, &rep) == 0)
				ubifs_verify(&im, o, &res, &rep);
			ubifs_image_release(&im);
			img[pos] ^= flip;
			t->total++;
			if (!rep.nr)
				fprintf(stderr, "%s: not detected: LEB %d:0x%lx "
					"in %s node\n", label, r->lnum,
					r->offs + pick, kind_names[k]);
			else if (!located(&rep, k, r))
				fprintf(stderr, "%s: not located: LEB %d:0x%lx "
					"in %s node at 0x%x\n", label, r->lnum,
					r->offs + pick, kind_names[k], r->offs);
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
	char why[256];

	if (ubifs_fixture_make(&f, why, sizeof(why)))
		return test_skip("%s", why);
	img = ubifs_fixture_read(f.signed_img, &len);
	pimg = ubifs_fixture_read(f.plain, &plen);
	TEST_ASSERT_VAL("read images", img && pimg);

	/* mkfs.ubifs --auth-key output, checked with the certificate. */
	o = (struct ubifs_verify_opts){ .cert = f.cert };
	tamper("mkfs.ubifs", img, len, &o, &t);

	/* Our own signing, signature and HMACs, checked with both. */
	so = (struct ubifs_sign_opts){
		.hash_algo = ubifs_hash_algo_by_name("sha256"),
		.key = f.key, .cert = f.cert,
		.hmac_key = key, .hmac_key_len = sizeof(key) - 1,
	};
	TEST_ASSERT_VAL("plain image", !ubifs_image_init(&plain, pimg, plen, &rep));
	TEST_ASSERT_VAL("sign", !ubifs_sign(&plain, &so, &ours, &olen, why,
					    sizeof(why)));
	ubifs_image_release(&plain);
	o.hmac_key = key;
	o.hmac_key_len = sizeof(key) - 1;
	tamper("tracekit-sign", ours, olen, &o, &t);

	printf("tamper: %d byte positions, detection rate %.2f%%, "
	       "right node named %.2f%%\n", t.total,
	       100.0 * t.detected / t.total, 100.0 * t.named / t.total);
	free(img);
	free(pimg);
	free(ours);
	ubifs_report_clear(&rep);
	ubifs_fixture_remove(&f);
	TEST_ASSERT_EQUAL("every kind of node sampled", t.kinds_missing, 0);
	TEST_ASSERT_VAL("at least 2000 positions", t.total >= 2000);
	TEST_ASSERT_EQUAL("every flip detected", t.detected, t.total);
	TEST_ASSERT_EQUAL("every flip located", t.named, t.total);
	return TEST_OK;
}
