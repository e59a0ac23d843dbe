// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the UBIFS reader: UBI reassembly, superblock,
 * scan, index walk, LPT, hashes, each also after the node CRCs are
 * repaired (so that mutations reach past them); for inputs that verify,
 * extraction into a scratch directory under $TMPDIR (which must then
 * hold nothing outside it); for authenticated ones, the signature checked
 * with the seeds' certificate; and, for inputs that verify as plain
 * images, sign with an HMAC key and check that the result verifies.
 * Built and run by tests/fuzz/run-ubifs.sh (not part of make check).
 */
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ubifs/auth.h"
#include "ubifs/extract.h"
#include "ubifs/image.h"
#include "ubifs/sign.h"
#include "ubifs/ubi.h"
#include "ubifs/verify.h"
#include "util/strbuf.h"
#include "util/wrapper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

static void sign_round_trip(struct ubifs_image *img)
{
	static const uint8_t key[] = "fuzzing key";
	struct ubifs_sign_opts so = {
		.hash_algo = ubifs_hash_algo_by_name("sha256"),
		.hmac_key = key, .hmac_key_len = sizeof(key) - 1,
	};
	struct ubifs_verify_opts vo = { .hmac_key = key,
					.hmac_key_len = sizeof(key) - 1 };
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	struct ubifs_image out;
	uint8_t *buf;
	size_t len;
	struct strbuf err = STRBUF_INIT;
	int ret = ubifs_sign(img, &so, &buf, &len, &err);

	strbuf_release(&err);
	if (ret)
		return;
	if (ubifs_image_init(&out, buf, len, &rep) ||
	    ubifs_verify(&out, &vo, &res, &rep) || !res.hmac_checked)
		abort();
	ubifs_image_release(&out);
	ubifs_report_clear(&rep);
	free(buf);
}

/* Extraction either succeeds or leaves the scratch directory empty. */
static void extract(const struct ubifs_image *img,
		    const struct ubifs_verify_result *res)
{
	const char *t = getenv("TMPDIR");
	char base[4096], dir[4200];
	struct ubifs_extract_opts eo = {
		.verified = res,
		/* What a mutated inode may declare stays small. */
		.max_size = 64 << 20,
	};
	struct strbuf err = STRBUF_INIT;
	int files;

	snprintf(base, sizeof(base), "%s/ubifs-fuzz.XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(base))
		abort();
	snprintf(dir, sizeof(dir), "%s/x", base);
	if (ubifs_extract(img, &eo, dir, &files, &err) && rmdir(base))
		abort();
	strbuf_release(&err);
	remove_tree(base);
}

/* The signed seeds were made with cert.pem of the run folder: mutated
 * signatures and superblocks go through the PKCS#7 checks too. */
static void check_signature(struct ubifs_image *img)
{
	struct ubifs_verify_opts vo = { .cert = "cert.pem" };
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;

	ubifs_verify(img, &vo, &res, &rep);
	ubifs_report_clear(&rep);
}

static void check(const void *vol, size_t len)
{
	struct ubifs_verify_opts vo = { 0 };
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	struct ubifs_image img;

	if (ubifs_image_init(&img, vol, len, &rep) == 0 &&
	    ubifs_verify(&img, &vo, &res, &rep) == 0 && !rep.nr) {
		if (!res.journal_nodes)
			extract(&img, &res);
		if (!res.authenticated)
			sign_round_trip(&img);
		else if (access("cert.pem", R_OK) == 0)
			check_signature(&img);
	}
	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
}

/*
 * Recomputes the CRC of every node found by walking each LEB, so that
 * mutations of plain images get past the CRC checks into the index,
 * the inodes, the entries and the data nodes.  Returns 0 when nothing
 * changed.
 */
static int repair_crcs(uint8_t *buf, size_t len)
{
	const struct ubifs_sb_node *sb = (const void *)buf;
	struct ubifs_crc c;
	size_t leb, l, off, step;
	int changed = 0;

	if (len < UBIFS_SB_NODE_SZ)
		return 0;
	leb = le32toh(sb->leb_size);
	if (leb < UBIFS_MIN_LEB_SZ || leb > len)
		return 0;
	ubifs_crc_init(&c);
	for (l = 0; l + leb <= len; l += leb)
		for (off = l; off + UBIFS_CH_SZ <= l + leb;) {
			struct ubifs_ch *ch = (void *)(buf + off);
			uint32_t n = le32toh(ch->len), crc;

			if (le32toh(ch->magic) != UBIFS_NODE_MAGIC ||
			    n < UBIFS_CH_SZ || n > l + leb - off)
				break;
			crc = htole32(ubifs_crc32(&c, UBIFS_CRC32_INIT,
						  buf + off + 8, n - 8));
			changed |= crc != ch->crc;
			ch->crc = crc;
			step = n;
			if (ch->node_type == UBIFS_PAD_NODE &&
			    n >= UBIFS_PAD_NODE_SZ)
				step += le32toh(((struct ubifs_pad_node *)ch)->
						pad_len);
			off += (step + 7) & ~(size_t)7;
		}
	return changed;
}

/*
 * Half the mutations are libFuzzer's own on the whole input; the other
 * half mutate a window of up to 64 bytes in place and keep the size, so
 * that the LEBs stay where they are and, with the CRCs repaired, a
 * changed inode, entry or data node reaches extraction.  Only windows
 * outside 0xFF runs are picked: erased space is not where nodes are.
 */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	uint8_t win[128];
	size_t off, n, tries;

	if (size < 256 || seed % 2)
		return LLVMFuzzerMutate(data, size, max_size);
	for (tries = 0; tries < 16; tries++) {
		off = (seed / 2 + tries * 7919) % (size - 64);
		if (data[off] != 0xff || data[off + 63] != 0xff)
			break;
	}
	n = 1 + seed / 32 % 64;
	memcpy(win, data + off, n);
	LLVMFuzzerMutate(win, n, n);
	memcpy(data + off, win, n);
	return size;
}

/* A volume as verify and extract see it, then with its CRCs repaired. */
static void check_volume(const void *vol, size_t len)
{
	uint8_t *copy;

	check(vol, len);
	if (!len)
		return;
	copy = malloc(len);
	memcpy(copy, vol, len);
	if (repair_crcs(copy, len))
		check(copy, len);
	free(copy);
}

/*
 * A UBI image goes through every UBIFS volume it lists, each reassembled
 * by its volume ID as `verify` (which checks them all) reassembles it.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct ubifs_ubi_vol list, uv;
	char id[16];
	int i;

	if (!ubifs_ubi_detect(data, size)) {
		check_volume(data, size);
		return 0;
	}
	if (!ubifs_ubi_list(data, size, &list, &err))
		for (i = 0; i < list.nr_vols; i++) {
			snprintf(id, sizeof(id), "%u", list.vols[i].vol_id);
			strbuf_reset(&err);
			if (!ubifs_ubi_extract(data, size, id, &uv, &err))
				check_volume(uv.data, uv.len);
			ubifs_ubi_vol_release(&uv);
		}
	ubifs_ubi_vol_release(&list);
	strbuf_release(&err);
	return 0;
}
