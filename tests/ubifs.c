// SPDX-License-Identifier: GPL-2.0
/*
 * ubifs/: verification of mkfs.ubifs images (plain and signed) and
 * the bad inputs that must give an error naming the spot, not a crash.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tests.h"
#include "tests/ubifs-fixture.h"
#include "ubifs/auth.h"
#include "ubifs/image.h"
#include "ubifs/verify.h"
#include "util/strbuf.h"

static int verify_buf(const uint8_t *buf, size_t len, const char *cert,
		      struct ubifs_verify_result *res, struct ubifs_report *rep)
{
	struct ubifs_verify_opts o = { .cert = cert };
	struct ubifs_image img;

	ubifs_report_clear(rep);
	memset(res, 0, sizeof(*res));
	if (ubifs_image_init(&img, buf, len, rep) == 0)
		ubifs_verify(&img, &o, res, rep);
	ubifs_image_release(&img);
	return rep->nr;
}

/* What ubifs_image_init() returns on buf. */
static int init_ret(const uint8_t *buf, size_t len)
{
	struct ubifs_report rep = { 0 };
	struct ubifs_image img;
	int ret = ubifs_image_init(&img, buf, len, &rep);

	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
	return ret;
}

static int has_problem(const struct ubifs_report *rep, const char *needle)
{
	int i;

	for (i = 0; i < rep->nr; i++) {
		char *s = ubifs_problem_str(&rep->v[i]);
		int hit = strstr(s, needle) != NULL;

		fprintf(stderr, "  problem: %s\n", s);
		free(s);
		if (hit)
			return 1;
	}
	return 0;
}

/* Offset of the first node of type in LEB lnum, or -1. */
static int first_node(const uint8_t *buf, size_t len, int lnum, int type)
{
	struct ubifs_report rep = { 0 };
	struct ubifs_image img;
	int i, offs = -1;

	if (ubifs_image_init(&img, buf, len, &rep))
		return -1;
	ubifs_scan_all(&img, 0, &rep, NULL, NULL);
	for (i = 0; i < img.scan[lnum].nr; i++)
		if (img.scan[lnum].v[i].type == type) {
			offs = img.scan[lnum].v[i].offs;
			break;
		}
	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
	return offs;
}

static void fix_crc(uint8_t *node)
{
	struct ubifs_image img;
	struct ubifs_ch *ch = (void *)node;

	ubifs_crc_init(&img.crc);
	ch->crc = htole32(ubifs_node_crc(&img, node, le32toh(ch->len)));
}

/*
 * Every single-bit flip and every complement of every byte of the
 * signature mkfs.ubifs wrote must be refused: OpenSSL alone lets some
 * through (versions, tags' constructed bit, the issuer's letter case,
 * algorithm parameters), the kernel's PKCS#7 parser does not.
 */
static int sig_flips_refused(const uint8_t *img, const char *cert)
{
	const struct ubifs_sig_node *sn =
		(const void *)(img + UBIFS_SB_NODE_SZ);
	uint32_t n = le32toh(sn->len), i;
	uint8_t *sig = malloc(n);
	struct strbuf why = STRBUF_INIT;
	int k, accepted = 0, hash = ubifs_hash_algo_by_name("sha256");

	memcpy(sig, sn->sig, n);
	if (ubifs_sig_verify(cert, hash, img, UBIFS_SB_NODE_SZ, sig, n, &why)) {
		fprintf(stderr, "the genuine signature fails: %s\n", why.buf);
		strbuf_release(&why);
		free(sig);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k <= 8; k++) {
			uint8_t m = k < 8 ? 1 << k : 0xff;

			sig[i] ^= m;
			if (!ubifs_sig_verify(cert, hash, img, UBIFS_SB_NODE_SZ,
					      sig, n, &why)) {
				fprintf(stderr, "accepted: signature byte %u "
					"^ 0x%02x\n", i, m);
				accepted++;
			}
			sig[i] ^= m;
		}
	printf("signature: %u bytes x 9 flips, %d accepted\n", n, accepted);
	strbuf_release(&why);
	free(sig);
	return accepted;
}

int test__ubifs(void)
{
	struct ubifs_fixture f = { 0 };
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	uint8_t *plain, *sig, *bad;
	size_t plen, slen;
	int leb = 129024, offs;
	uint8_t *root;
	struct ubifs_branch *br;

	if (ubifs_fixture_make(&f))
		return TEST_FAIL;
	plain = ubifs_fixture_read(f.plain, &plen);
	sig = ubifs_fixture_read(f.signed_img, &slen);
	TEST_ASSERT_VAL("read images", plain && sig);

	TEST_ASSERT_EQUAL("signed image verifies with its cert",
			  verify_buf(sig, slen, f.cert, &res, &rep), 0);
	TEST_ASSERT_VAL("signature checked", res.sig_checked);
	TEST_ASSERT_VAL("authenticated", res.authenticated);
	/* root, a.txt, sub, deep, c, link, big, b.bin, text */
	TEST_ASSERT_EQUAL("inodes reachable", res.leaves[UBIFS_INO_NODE], 9);
	TEST_ASSERT_EQUAL("dentries reachable", res.leaves[UBIFS_DENT_NODE], 8);
	TEST_ASSERT_VAL("index nodes walked", res.idx_nodes > 1);
	TEST_ASSERT_VAL("LPT walked", res.pnodes > 0);

	TEST_ASSERT_EQUAL("no flip of the signature verifies",
			  sig_flips_refused(sig, f.cert), 0);
	TEST_ASSERT_VAL("wrong certificate fails",
			verify_buf(sig, slen, f.cert2, &res, &rep) == 1 &&
			has_problem(&rep, "LEB 0:0x1000 signature node:"));

	TEST_ASSERT_EQUAL("plain image verifies",
			  verify_buf(plain, plen, NULL, &res, &rep), 0);
	TEST_ASSERT_VAL("plain is not authenticated", !res.authenticated);
	TEST_ASSERT_EQUAL("same inodes in plain", res.leaves[UBIFS_INO_NODE],
			  9);

	bad = malloc(slen);
	TEST_ASSERT_VAL("malloc", bad);

	/* Truncated inside the main area. */
	TEST_ASSERT_VAL("truncated",
			verify_buf(sig, 11 * leb + 1000, f.cert, &res, &rep) &&
			has_problem(&rep, "image: truncated"));
	TEST_ASSERT_VAL("too short",
			verify_buf(sig, 100, f.cert, &res, &rep) == 1 &&
			has_problem(&rep, "too short"));

	memcpy(bad, sig, slen);
	bad[0] ^= 0x55;
	TEST_ASSERT_VAL("wrong magic",
			verify_buf(bad, slen, f.cert, &res, &rep) == 1 &&
			has_problem(&rep, "LEB 0:0x0 superblock node: bad magic"));
	/* Bad input is -EINVAL: never -1, which is -EPERM, the errno of an
	 * environment that refuses (exit 3 through tk_exit_code()). */
	TEST_ASSERT_EQUAL("bad magic is -EINVAL", init_ret(bad, slen), -EINVAL);

	/* Area sizes that overflow when added up (found by the fuzzer). */
	memcpy(bad, sig, slen);
	((struct ubifs_sb_node *)bad)->log_lebs = htole32(0x7f000000);
	((struct ubifs_sb_node *)bad)->lpt_lebs = htole32(0x7f000000);
	fix_crc(bad);
	TEST_ASSERT_VAL("area sizes",
			verify_buf(bad, slen, f.cert, &res, &rep) == 1 &&
			has_problem(&rep, "bad area sizes"));

	/* A data node whose length runs past the end of its LEB. */
	memcpy(bad, sig, slen);
	offs = first_node(bad, slen, 11, UBIFS_DATA_NODE);
	TEST_ASSERT_VAL("a data node in LEB 11", offs >= 0);
	((struct ubifs_ch *)(bad + 11 * leb + offs))->len = htole32(2 * leb);
	TEST_ASSERT_VAL("node len beyond LEB",
			verify_buf(bad, slen, f.cert, &res, &rep) &&
			has_problem(&rep, "beyond LEB end"));

	/* The root's first branch points back at the root, CRC fixed up:
	 * only the loop detection can stop the walk. */
	TEST_ASSERT_EQUAL("plain again",
			  verify_buf(plain, plen, NULL, &res, &rep), 0);
	memcpy(bad, plain, plen);
	root = bad + (size_t)res.root_lnum * leb + res.root_offs;
	br = (void *)(root + UBIFS_IDX_NODE_SZ);
	br->lnum = htole32(res.root_lnum);
	br->offs = htole32(res.root_offs);
	br->len = htole32(res.root_len);
	fix_crc(root);
	TEST_ASSERT_VAL("index loop",
			verify_buf(bad, plen, NULL, &res, &rep) &&
			has_problem(&rep, "loop in the index"));

	free(bad);
	free(plain);
	free(sig);
	ubifs_report_clear(&rep);
	ubifs_fixture_remove(&f);
	return TEST_OK;
}
