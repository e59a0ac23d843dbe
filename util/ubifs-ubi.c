// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/ubifs-crc.h"
#include "util/ubifs-media.h"
#include "util/ubifs-ubi.h"
#include "util/usage.h"

#define UBI_EC_HDR_MAGIC	0x55424923u	/* "UBI#" */
#define UBI_VID_HDR_MAGIC	0x55424921u	/* "UBI!" */
#define UBI_HDR_SIZE		64
#define UBI_HDR_SIZE_CRC	60
#define UBI_INTERNAL_VOL_START	0x7FFFEFFFu

struct ubi_ec_hdr {
	uint32_t magic;
	uint8_t version;
	uint8_t padding1[3];
	uint64_t ec;
	uint32_t vid_hdr_offset;
	uint32_t data_offset;
	uint32_t image_seq;
	uint8_t padding2[32];
	uint32_t hdr_crc;
} __attribute__((packed));

struct ubi_vid_hdr {
	uint32_t magic;
	uint8_t version;
	uint8_t vol_type;
	uint8_t copy_flag;
	uint8_t compat;
	uint32_t vol_id;
	uint32_t lnum;
	uint8_t padding1[4];
	uint32_t data_size;
	uint32_t used_ebs;
	uint32_t data_pad;
	uint32_t data_crc;
	uint8_t padding2[4];
	uint64_t sqnum;
	uint8_t padding3[12];
	uint32_t hdr_crc;
} __attribute__((packed));

_Static_assert(sizeof(struct ubi_ec_hdr) == UBI_HDR_SIZE, "ubi_ec_hdr");
_Static_assert(sizeof(struct ubi_vid_hdr) == UBI_HDR_SIZE, "ubi_vid_hdr");

int ubifs_ubi_detect(const void *buf, size_t len)
{
	const struct ubi_ec_hdr *ec = buf;

	return len >= UBI_HDR_SIZE && be32toh(ec->magic) == UBI_EC_HDR_MAGIC;
}

static int hdr_ok(const struct ubifs_crc *c, const void *hdr, uint32_t magic)
{
	const uint8_t *p = hdr;
	uint32_t m, crc;

	memcpy(&m, p, 4);
	memcpy(&crc, p + UBI_HDR_SIZE_CRC, 4);
	return be32toh(m) == magic &&
	       be32toh(crc) == ubifs_crc32(c, UBIFS_CRC32_INIT, p,
					   UBI_HDR_SIZE_CRC);
}

static int all_ff(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++ != 0xff)
			return 0;
	return 1;
}

/* One PEB holding a LEB of a user volume. */
struct copy {
	uint32_t vol_id, lnum;
	uint64_t sqnum;
	size_t pnum;
	const struct ubi_vid_hdr *vid;
};

struct scan {
	const uint8_t *img;
	size_t len, peb, npebs;
	uint32_t vid_off, data_off;
	struct ubifs_crc crc;
	struct copy *v;
	size_t nr;
	struct ubifs_ubi_vol *out;
	struct strbuf *err;
};

/* PEB 0's erase counter header gives the header offsets; the PEB size
 * is not recorded: it is where the next erase counter header starts. */
static int geometry(struct scan *s)
{
	const struct ubi_ec_hdr *ec = (const void *)s->img;
	size_t i;

	if (!hdr_ok(&s->crc, ec, UBI_EC_HDR_MAGIC))
		return strbuf_error(s->err, "PEB 0: bad erase counter header CRC");
	s->vid_off = be32toh(ec->vid_hdr_offset);
	s->data_off = be32toh(ec->data_offset);
	s->peb = s->len;
	for (i = 512; i + UBI_HDR_SIZE <= s->len; i += 512)
		if (hdr_ok(&s->crc, s->img + i, UBI_EC_HDR_MAGIC)) {
			s->peb = i;
			break;
		}
	if (s->vid_off < UBI_HDR_SIZE ||
	    s->vid_off + UBI_HDR_SIZE > s->data_off ||
	    s->data_off + UBIFS_MIN_LEB_SZ > s->peb)
		return strbuf_error(s->err, "bad header offsets (VID 0x%x, data 0x%x, PEB "
				    "size %zu)", s->vid_off, s->data_off, s->peb);
	s->npebs = s->len / s->peb;
	return 0;
}

/*
 * The headers of PEB pnum, checked as drivers/mtd/ubi/io.c does: a bad
 * magic or CRC makes the PEB corrupt, and attach.c leaves corrupt PEBs
 * out of every volume (counted, so that a missing LEB can be explained);
 * an all-0xFF header is an erased or free PEB.  Offsets other than PEB
 * 0's are refused as validate_ec_hdr() refuses them.
 */
static int scan_peb(struct scan *s, size_t pnum)
{
	const uint8_t *p = s->img + pnum * s->peb;
	const struct ubi_ec_hdr *ec = (const void *)p;
	const struct ubi_vid_hdr *vid = (const void *)(p + s->vid_off);
	uint32_t id, lnum;

	if (all_ff(p, UBI_HDR_SIZE))
		return 0;
	if (!hdr_ok(&s->crc, ec, UBI_EC_HDR_MAGIC))
		goto corrupt;
	if (be32toh(ec->vid_hdr_offset) != s->vid_off ||
	    be32toh(ec->data_offset) != s->data_off)
		return strbuf_error(s->err, "PEB %zu: header offsets 0x%x/0x%x differ from "
				    "PEB 0's 0x%x/0x%x", pnum,
				    be32toh(ec->vid_hdr_offset),
				    be32toh(ec->data_offset), s->vid_off, s->data_off);
	if (all_ff((const uint8_t *)vid, UBI_HDR_SIZE))
		return 0;
	if (!hdr_ok(&s->crc, vid, UBI_VID_HDR_MAGIC))
		goto corrupt;
	id = be32toh(vid->vol_id);
	lnum = be32toh(vid->lnum);
	if (id >= UBI_INTERNAL_VOL_START)
		return 0;
	/* Unmapped LEBs below the highest mapped one read as erased, but
	 * a volume far larger than the image is a corrupt header. */
	if (lnum > 2 * s->npebs + 16)
		return strbuf_error(s->err, "PEB %zu: LEB %u of volume %u is beyond what "
				    "%zu PEBs can hold", pnum, lnum, id, s->npebs);
	s->v[s->nr++] = (struct copy){ id, lnum, be64toh(vid->sqnum), pnum,
				       vid };
	return 0;
corrupt:
	if (!s->out->skipped++)
		s->out->first_skipped = pnum;
	return 0;
}

static int cmp_copy(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	if (x->vol_id != y->vol_id)
		return x->vol_id < y->vol_id ? -1 : 1;
	if (x->lnum != y->lnum)
		return x->lnum < y->lnum ? -1 : 1;
	return (x->sqnum > y->sqnum) - (x->sqnum < y->sqnum);
}

/*
 * Of two PEBs holding one LEB, drivers/mtd/ubi/attach.c ubi_compare_lebs()
 * keeps the one with the higher sqnum, except that a copy made by wear
 * levelling or scrubbing (copy_flag) counts only when its data CRC holds:
 * otherwise the copy was interrupted and the older PEB is still good.
 */
static int newer_wins(struct scan *s, const struct copy *old,
		      const struct copy *new)
{
	const struct ubi_vid_hdr *vid = new->vid;
	uint32_t size = be32toh(vid->data_size);

	if (old->sqnum == new->sqnum)
		return strbuf_error(s->err, "PEBs %zu and %zu hold LEB %u of volume %u with "
				    "the same sqnum %llu", old->pnum, new->pnum,
				    new->lnum, new->vol_id,
				    (unsigned long long)new->sqnum);
	if (!vid->copy_flag)
		return 1;
	if (size > s->peb - s->data_off)
		return 0;
	return be32toh(vid->data_crc) ==
	       ubifs_crc32(&s->crc, UBIFS_CRC32_INIT,
			   s->img + new->pnum * s->peb + s->data_off, size);
}

/* Leaves in s->v one copy per LEB, the one UBI would read. */
static int resolve(struct scan *s)
{
	size_t i, n = 0;

	qsort(s->v, s->nr, sizeof(*s->v), cmp_copy);
	for (i = 0; i < s->nr; i++) {
		int r;

		if (!n || s->v[n - 1].vol_id != s->v[i].vol_id ||
		    s->v[n - 1].lnum != s->v[i].lnum) {
			s->v[n++] = s->v[i];
			continue;
		}
		r = newer_wins(s, &s->v[n - 1], &s->v[i]);
		if (r < 0)
			return -1;
		if (r)
			s->v[n - 1] = s->v[i];
	}
	s->nr = n;
	return 0;
}

static const uint8_t *leb_data(const struct scan *s, const struct copy *c)
{
	return s->img + c->pnum * s->peb + s->data_off;
}

/* The first volume, by vol_id, whose LEB 0 holds a UBIFS node. */
static const struct copy *find_volume(const struct scan *s, size_t *end)
{
	size_t i, j;

	for (i = 0; i < s->nr; i++) {
		uint32_t magic;

		if (s->v[i].lnum)
			continue;
		memcpy(&magic, leb_data(s, &s->v[i]), 4);
		if (le32toh(magic) != UBIFS_NODE_MAGIC)
			continue;
		for (j = i; j < s->nr && s->v[j].vol_id == s->v[i].vol_id; j++)
			;
		*end = j;
		return &s->v[i];
	}
	return NULL;
}

/*
 * fs/ubifs/sb.c validate_sb() requires the superblock's LEB size and
 * min. I/O unit to be UBI's.  UBI's LEB size is the PEB size less the
 * data offset and the volume's data_pad; its min. I/O unit is not
 * recorded, but drivers/mtd/ubi/io.c io_init() puts the data at the VID
 * header's end aligned up to it, and validate_ec_hdr() refuses any other
 * data offset.
 */
static int check_sb(struct scan *s, const uint8_t *leb0, size_t leb)
{
	const struct ubifs_sb_node *sb = (const void *)leb0;
	uint32_t sb_leb = le32toh(sb->leb_size), io = le32toh(sb->min_io_size);
	uint32_t end = s->vid_off + UBI_HDR_SIZE;

	if (sb->ch.node_type != UBIFS_SB_NODE)
		return 0;
	if (sb_leb != leb)
		return strbuf_error(s->err, "superblock LEB size %u, but the UBI volume's "
				    "LEBs hold %zu bytes (PEB size %zu, data offset "
				    "%u)", sb_leb, leb, s->peb, s->data_off);
	if (!io || (io & (io - 1)) || s->peb % io ||
	    s->data_off != ((uint64_t)end + io - 1) / io * io)
		return strbuf_error(s->err, "superblock min. I/O unit %u does not fit the "
				    "UBI headers (VID header at 0x%x, data at 0x%x, "
				    "PEB size %zu)", io, s->vid_off, s->data_off,
				    s->peb);
	return 0;
}

static int assemble(struct scan *s)
{
	const struct copy *c, *first;
	size_t end, leb, nlebs;
	uint32_t pad;

	first = find_volume(s, &end);
	if (!first)
		return strbuf_error(s->err, "no UBIFS volume found");
	pad = be32toh(first->vid->data_pad);
	if (pad >= s->peb - s->data_off - UBIFS_MIN_LEB_SZ)
		return strbuf_error(s->err, "PEB %zu: data_pad %u leaves no room",
				    first->pnum, pad);
	leb = s->peb - s->data_off - pad;
	if (check_sb(s, leb_data(s, first), leb))
		return -1;
	nlebs = s->v[end - 1].lnum + 1;
	s->out->len = nlebs * leb;
	s->out->data = xmalloc(s->out->len);
	memset(s->out->data, 0xff, s->out->len);
	for (c = first; c < s->v + end; c++) {
		/* attach.c: every PEB of a volume has its data_pad. */
		if (be32toh(c->vid->data_pad) != pad)
			return strbuf_error(s->err, "PEB %zu: data_pad %u, PEB %zu has %u",
					    c->pnum, be32toh(c->vid->data_pad),
					    first->pnum, pad);
		memcpy((uint8_t *)s->out->data + c->lnum * leb, leb_data(s, c),
		       leb);
	}
	return 0;
}

int ubifs_ubi_extract(const void *buf, size_t len, struct ubifs_ubi_vol *vol,
		      struct strbuf *err)
{
	struct scan *s = xcalloc(1, sizeof(*s));
	size_t i;
	int ret = -1;

	memset(vol, 0, sizeof(*vol));
	vol->first_skipped = -1;
	s->img = buf;
	s->len = len;
	s->out = vol;
	s->err = err;
	ubifs_crc_init(&s->crc);
	if (geometry(s))
		goto out;
	s->v = xmalloc((s->npebs + 1) * sizeof(*s->v));
	for (i = 0; i < s->npebs; i++)
		if (scan_peb(s, i))
			goto out;
	if (resolve(s) || assemble(s))
		goto out;
	ret = 0;
out:
	if (ret) {
		free(vol->data);
		vol->data = NULL;
	}
	free(s->v);
	free(s);
	return ret;
}
