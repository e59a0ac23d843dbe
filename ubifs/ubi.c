// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ubifs/crc.h"
#include "ubifs/media.h"
#include "ubifs/ubi.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define UBI_EC_HDR_MAGIC	0x55424923u	/* "UBI#" */
#define UBI_VID_HDR_MAGIC	0x55424921u	/* "UBI!" */
#define UBI_HDR_SIZE		64
#define UBI_HDR_SIZE_CRC	60
#define UBI_INTERNAL_VOL_START	0x7FFFEFFFu
#define UBI_LAYOUT_VOLUME_ID	UBI_INTERNAL_VOL_START
#define UBI_LAYOUT_VOLUME_EBS	2
#define UBI_MAX_VOLUMES		128
#define UBI_VTBL_RECORD_SIZE_CRC 168
#define UBI_VID_DYNAMIC		1
#define UBI_VID_STATIC		2

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

/*
 * A slot of the volume table, which each of the layout volume's two LEBs
 * holds a copy of: slot i describes volume i (ubi-media.h).
 */
struct ubi_vtbl_record {
	uint32_t reserved_pebs;
	uint32_t alignment;
	uint32_t data_pad;
	uint8_t vol_type;
	uint8_t upd_marker;
	uint16_t name_len;
	char name[UBIFS_UBI_VOL_NAME_MAX + 1];
	uint8_t flags;
	uint8_t padding[23];
	uint32_t crc;
} __attribute__((packed));

_Static_assert(sizeof(struct ubi_ec_hdr) == UBI_HDR_SIZE, "ubi_ec_hdr");
_Static_assert(sizeof(struct ubi_vtbl_record) == 172, "ubi_vtbl_record");
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
	const struct ubi_vtbl_record *vtbl;	/* NULL: no valid table */
	int vtbl_slots;
	struct ubifs_ubi_vol *out;
	struct strbuf *err;
};

/* PEB 0's erase counter header gives the header offsets; the PEB size
 * is not recorded: it is where the next erase counter header starts. */
static int geometry(struct scan *s)
{
	const struct ubi_ec_hdr *ec = (const void *)s->img;
	size_t i;

	if (!hdr_ok(&s->crc, ec, UBI_EC_HDR_MAGIC)) {
		strbuf_addstr(s->err, "PEB 0: bad erase counter header CRC");
		return -EINVAL;
	}
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
	    s->data_off + UBIFS_MIN_LEB_SZ > s->peb) {
		strbuf_addf(s->err, "bad header offsets (VID 0x%x, data 0x%x, PEB "
			    "size %zu)", s->vid_off, s->data_off, s->peb);
		return -EINVAL;
	}
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
	    be32toh(ec->data_offset) != s->data_off) {
		strbuf_addf(s->err, "PEB %zu: header offsets 0x%x/0x%x differ from "
			    "PEB 0's 0x%x/0x%x", pnum,
			    be32toh(ec->vid_hdr_offset),
			    be32toh(ec->data_offset), s->vid_off, s->data_off);
		return -EINVAL;
	}
	if (all_ff((const uint8_t *)vid, UBI_HDR_SIZE))
		return 0;
	if (!hdr_ok(&s->crc, vid, UBI_VID_HDR_MAGIC))
		goto corrupt;
	id = be32toh(vid->vol_id);
	lnum = be32toh(vid->lnum);
	if (id >= UBI_INTERNAL_VOL_START &&
	    (id != UBI_LAYOUT_VOLUME_ID || lnum >= UBI_LAYOUT_VOLUME_EBS))
		return 0;
	/* Unmapped LEBs read as erased, and volume_lebs() bounds a volume
	 * by the image's PEBs; a LEB number far beyond them is a corrupt
	 * header. */
	if (lnum > 2 * s->npebs + 16) {
		strbuf_addf(s->err, "PEB %zu: LEB %u of volume %u is beyond what "
			    "%zu PEBs can hold", pnum, lnum, id, s->npebs);
		return -EINVAL;
	}
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

	if (old->sqnum == new->sqnum) {
		strbuf_addf(s->err, "PEBs %zu and %zu hold LEB %u of volume %u with "
			    "the same sqnum %llu", old->pnum, new->pnum,
			    new->lnum, new->vol_id,
			    (unsigned long long)new->sqnum);
		return -EINVAL;
	}
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
			return r;
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

/* The resolved copy of LEB lnum of volume vol_id, or NULL. */
static const struct copy *find_leb(const struct scan *s, uint32_t vol_id,
				   uint32_t lnum)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->v[i].vol_id == vol_id && s->v[i].lnum == lnum)
			return &s->v[i];
	return NULL;
}

/*
 * One copy of the volume table, checked as drivers/mtd/ubi/vtbl.c
 * vtbl_check() does, but for the number of good PEBs: an image file is
 * not the device, and ubinize writes only the PEBs that hold data, so a
 * volume may well reserve more PEBs than the file has.  Returns 0, or
 * -EINVAL with the reason in why.
 */
static int vtbl_check(struct scan *s, const struct ubi_vtbl_record *t,
		      int slots, struct strbuf *why)
{
	struct ubi_vtbl_record empty = { 0 };
	size_t leb = s->peb - s->data_off;
	int i, j;

	empty.crc = htobe32(ubifs_crc32(&s->crc, UBIFS_CRC32_INIT, &empty,
					UBI_VTBL_RECORD_SIZE_CRC));
	for (i = 0; i < slots; i++) {
		const struct ubi_vtbl_record *r = &t[i];
		uint32_t align = be32toh(r->alignment);
		uint16_t name_len = be16toh(r->name_len);

		if (be32toh(r->crc) != ubifs_crc32(&s->crc, UBIFS_CRC32_INIT, r,
						   UBI_VTBL_RECORD_SIZE_CRC)) {
			strbuf_addf(why, "record %d: bad CRC", i);
			return -EINVAL;
		}
		if (!r->reserved_pebs) {
			if (memcmp(r, &empty, sizeof(empty))) {
				strbuf_addf(why, "record %d: empty but not "
					    "zeroed", i);
				return -EINVAL;
			}
			continue;
		}
		if (!align || align > leb ||
		    (int32_t)be32toh(r->reserved_pebs) < 0 ||
		    be32toh(r->data_pad) != leb % align ||
		    (r->vol_type != UBI_VID_DYNAMIC &&
		     r->vol_type != UBI_VID_STATIC) || r->upd_marker > 1 ||
		    name_len > UBIFS_UBI_VOL_NAME_MAX || !r->name[0] ||
		    strnlen(r->name, name_len + 1) != name_len) {
			strbuf_addf(why, "record %d: inconsistent", i);
			return -EINVAL;
		}
	}
	for (i = 0; i < slots; i++)
		for (j = i + 1; j < slots; j++)
			if (t[i].name_len && t[i].name_len == t[j].name_len &&
			    !strncmp(t[i].name, t[j].name,
				     be16toh(t[i].name_len))) {
				strbuf_addf(why, "volumes %d and %d have "
					    "the same name", i, j);
				return -EINVAL;
			}
	return 0;
}

/*
 * drivers/mtd/ubi/vtbl.c process_lvol(): LEB 0 of the layout volume is
 * written first when the table changes, so a good LEB 0 is the table;
 * else LEB 1, if good.  Without either the kernel refuses to attach; here
 * the volumes go on, unnamed, and vtbl_note says why.
 */
static void read_vtbl(struct scan *s)
{
	struct strbuf why = STRBUF_INIT;
	size_t leb = s->peb - s->data_off;
	int lnum, slots = leb / sizeof(struct ubi_vtbl_record);

	if (slots > UBI_MAX_VOLUMES)
		slots = UBI_MAX_VOLUMES;
	for (lnum = 0; lnum < UBI_LAYOUT_VOLUME_EBS; lnum++) {
		const struct copy *c = find_leb(s, UBI_LAYOUT_VOLUME_ID, lnum);

		strbuf_addf(&why, "%scopy %d: ", lnum ? "; " : "", lnum);
		if (!c) {
			strbuf_addstr(&why, "missing");
			continue;
		}
		if (!vtbl_check(s, (const void *)leb_data(s, c), slots, &why)) {
			s->vtbl = (const void *)leb_data(s, c);
			s->vtbl_slots = slots;
			strbuf_release(&why);
			return;
		}
	}
	s->out->vtbl_note = strbuf_detach(&why, NULL);
}

/* The names go into messages, one a line: no control characters or
 * quotes of an attacker's to end or forge a line. */
static void copy_name(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ||
			 src[i] == '"' ? '?' : src[i];
}

/*
 * The volumes whose LEB 0 holds a UBIFS node.  With a volume table, those
 * it has no record of are left out, as vtbl.c check_attaching_info()
 * drops them.
 */
static void list_volumes(struct scan *s)
{
	struct ubifs_ubi_vol *out = s->out;
	size_t i;

	out->vols = xcalloc(s->nr + 1, sizeof(*out->vols));
	for (i = 0; i < s->nr; i++) {
		const struct copy *c = &s->v[i];
		const struct ubi_vtbl_record *r = NULL;
		struct ubifs_ubi_volume *v;
		uint32_t magic;

		if (c->lnum || c->vol_id >= UBI_INTERNAL_VOL_START)
			continue;
		memcpy(&magic, leb_data(s, c), 4);
		if (le32toh(magic) != UBIFS_NODE_MAGIC)
			continue;
		if (s->vtbl) {
			if (c->vol_id >= (uint32_t)s->vtbl_slots ||
			    !s->vtbl[c->vol_id].reserved_pebs)
				continue;
			r = &s->vtbl[c->vol_id];
		}
		v = &out->vols[out->nr_vols++];
		v->vol_id = c->vol_id;
		if (r)
			copy_name(v->name, r->name, be16toh(r->name_len));
	}
}

void ubifs_ubi_volumes_str(struct strbuf *sb,
			   const struct ubifs_ubi_volume *v, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		strbuf_addf(sb, "%s%u", i ? ", " : "", v[i].vol_id);
		if (v[i].name[0])
			strbuf_addf(sb, " \"%s\"", v[i].name);
	}
}

/*
 * The listed volume select names, a vol_id in decimal, else a name; with
 * select NULL, the only one.
 */
static const struct ubifs_ubi_volume *choose(struct scan *s,
					     const char *select)
{
	const struct ubifs_ubi_vol *out = s->out;
	const char *p = select;
	int i;

	if (!select) {
		if (out->nr_vols == 1)
			return out->vols;
		strbuf_addf(s->err, "%d UBIFS volumes, none chosen: ",
			    out->nr_vols);
		goto list;
	}
	while (*p >= '0' && *p <= '9')
		p++;
	for (i = 0; i < out->nr_vols; i++)
		if (p > select && !*p &&
		    out->vols[i].vol_id == strtoul(select, NULL, 10))
			return &out->vols[i];
	for (i = 0; i < out->nr_vols; i++)
		if (!strcmp(out->vols[i].name, select))
			return &out->vols[i];
	strbuf_addf(s->err, "no UBIFS volume %s; UBIFS volumes: ", select);
list:
	ubifs_ubi_volumes_str(s->err, out->vols, out->nr_vols);
	return NULL;
}

/*
 * fs/ubifs/sb.c validate_sb() requires the superblock's LEB size and
 * min. I/O unit to be UBI's.  UBI's LEB size is the PEB size less the
 * data offset and the volume's data_pad; its min. I/O unit is not
 * recorded, but drivers/mtd/ubi/io.c io_init() puts the data at the VID
 * header's end aligned up to it, and validate_ec_hdr() refuses any other
 * data offset.  *lebs is the superblock's LEB count (0 without one).
 */
static int check_sb(struct scan *s, const uint8_t *leb0, size_t leb,
		    uint32_t *lebs)
{
	const struct ubifs_sb_node *sb = (const void *)leb0;
	uint32_t sb_leb = le32toh(sb->leb_size), io = le32toh(sb->min_io_size);
	uint32_t end = s->vid_off + UBI_HDR_SIZE;

	*lebs = 0;
	if (sb->ch.node_type != UBIFS_SB_NODE)
		return 0;
	*lebs = le32toh(sb->leb_cnt);
	if (sb_leb != leb) {
		strbuf_addf(s->err, "superblock LEB size %u, but the UBI volume's "
			    "LEBs hold %zu bytes (PEB size %zu, data offset "
			    "%u)", sb_leb, leb, s->peb, s->data_off);
		return -EINVAL;
	}
	if (!io || (io & (io - 1)) || s->peb % io ||
	    s->data_off != ((uint64_t)end + io - 1) / io * io) {
		strbuf_addf(s->err, "superblock min. I/O unit %u does not fit the "
			    "UBI headers (VID header at 0x%x, data at 0x%x, "
			    "PEB size %zu)", io, s->vid_off, s->data_off,
			    s->peb);
		return -EINVAL;
	}
	return 0;
}

/*
 * A device leaves the LEBs it never wrote unmapped, so the highest mapped
 * LEB says nothing of the size: the superblock's leb_cnt does (the kernel
 * grows it to the volume's size on a read-write mount, sb.c).  fs/ubifs
 * refuses a leb_cnt beyond the volume's reserved PEBs (validate_sb()), UBI
 * a mapped LEB beyond them (vtbl.c check_av()).  Either may be an
 * attacker's number: the image's PEBs bound what is allocated.
 */
static int volume_lebs(struct scan *s, const struct copy *first,
		       const struct copy *last, uint32_t sb_lebs,
		       size_t *nlebs)
{
	uint32_t id = first->vol_id;

	*nlebs = (size_t)last->lnum + 1;
	if (sb_lebs > *nlebs)
		*nlebs = sb_lebs;
	if (*nlebs > s->npebs) {
		strbuf_addf(s->err, "volume %u: %zu LEBs (superblock %u, LEB %u "
			    "mapped), more than the image's %zu PEBs", id,
			    *nlebs, sb_lebs, last->lnum, s->npebs);
		return -EINVAL;
	}
	if (s->vtbl && *nlebs > be32toh(s->vtbl[id].reserved_pebs)) {
		strbuf_addf(s->err, "volume %u: %zu LEBs (superblock %u, LEB %u "
			    "mapped), but the volume table reserves %u",
			    id, *nlebs, sb_lebs, last->lnum,
			    be32toh(s->vtbl[id].reserved_pebs));
		return -EINVAL;
	}
	return 0;
}

static int assemble(struct scan *s, uint32_t vol_id)
{
	const struct copy *c, *first, *end;
	size_t leb, nlebs;
	uint32_t pad, sb_lebs;

	first = find_leb(s, vol_id, 0);
	for (end = first; end < s->v + s->nr && end->vol_id == vol_id; end++)
		;
	pad = be32toh(first->vid->data_pad);
	if (pad >= s->peb - s->data_off - UBIFS_MIN_LEB_SZ) {
		strbuf_addf(s->err, "PEB %zu: data_pad %u leaves no room",
			    first->pnum, pad);
		return -EINVAL;
	}
	leb = s->peb - s->data_off - pad;
	if (check_sb(s, leb_data(s, first), leb, &sb_lebs) ||
	    volume_lebs(s, first, end - 1, sb_lebs, &nlebs))
		return -EINVAL;
	s->out->len = nlebs * leb;
	s->out->data = xmalloc(s->out->len);
	memset(s->out->data, 0xff, s->out->len);
	for (c = first; c < end; c++) {
		/* attach.c: every PEB of a volume has its data_pad. */
		if (be32toh(c->vid->data_pad) != pad) {
			strbuf_addf(s->err, "PEB %zu: data_pad %u, PEB %zu has %u",
				    c->pnum, be32toh(c->vid->data_pad),
				    first->pnum, pad);
			return -EINVAL;
		}
		memcpy((uint8_t *)s->out->data + c->lnum * leb, leb_data(s, c),
		       leb);
	}
	return 0;
}

static void scan_free(struct scan *s)
{
	if (s)
		free(s->v);
	free(s);
}

/* The PEBs of buf resolved into LEBs, and the UBIFS volumes listed. */
static struct scan *scan_image(const void *buf, size_t len,
			       struct ubifs_ubi_vol *vol, struct strbuf *err)
{
	struct scan *s = xcalloc(1, sizeof(*s));
	size_t i;

	memset(vol, 0, sizeof(*vol));
	vol->first_skipped = -1;
	s->img = buf;
	s->len = len;
	s->out = vol;
	s->err = err;
	ubifs_crc_init(&s->crc);
	if (geometry(s))
		goto fail;
	s->v = xmalloc((s->npebs + 1) * sizeof(*s->v));
	for (i = 0; i < s->npebs; i++)
		if (scan_peb(s, i))
			goto fail;
	if (resolve(s))
		goto fail;
	read_vtbl(s);
	list_volumes(s);
	if (vol->nr_vols)
		return s;
	strbuf_addstr(err, "no UBIFS volume found");
fail:
	scan_free(s);
	return NULL;
}

int ubifs_ubi_list(const void *buf, size_t len, struct ubifs_ubi_vol *vol,
		   struct strbuf *err)
{
	struct scan *s = scan_image(buf, len, vol, err);
	int ret = s ? 0 : -EINVAL;

	scan_free(s);
	return ret;
}

int ubifs_ubi_extract(const void *buf, size_t len, const char *select,
		      struct ubifs_ubi_vol *vol, struct strbuf *err)
{
	struct scan *s = scan_image(buf, len, vol, err);
	const struct ubifs_ubi_volume *v;
	int ret = -EINVAL;

	if (!s)
		return -EINVAL;
	v = choose(s, select);
	if (!v)
		goto out;
	vol->vol = *v;
	if (assemble(s, v->vol_id)) {
		free(vol->data);
		vol->data = NULL;
		goto out;
	}
	ret = 0;
out:
	scan_free(s);
	return ret;
}

void ubifs_ubi_vol_release(struct ubifs_ubi_vol *vol)
{
	free(vol->data);
	free(vol->vols);
	free(vol->vtbl_note);
	vol->data = NULL;
	vol->vols = NULL;
	vol->vtbl_note = NULL;
}
