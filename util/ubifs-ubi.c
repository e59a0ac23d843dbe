// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct peb_ref {
	const uint8_t *data;
	uint64_t sqnum;
};

int ubifs_ubi_extract(const void *buf, size_t len, void **vol,
		      size_t *vol_len, char *why, size_t whylen)
{
	const uint8_t *img = buf;
	const struct ubi_ec_hdr *ec = buf;
	struct ubifs_crc *crc = xmalloc(sizeof(*crc));
	struct peb_ref *map = NULL;
	uint32_t vid_off, data_off, want = UINT32_MAX;
	size_t peb = 0, i, nlebs = 0, leb;
	int ret = -1;

	ubifs_crc_init(crc);
	if (!hdr_ok(crc, ec, UBI_EC_HDR_MAGIC)) {
		snprintf(why, whylen, "PEB 0: bad erase counter header CRC");
		goto out;
	}
	vid_off = be32toh(ec->vid_hdr_offset);
	data_off = be32toh(ec->data_offset);
	/* The PEB size is not recorded: it is where the next one starts. */
	for (i = 512; i + UBI_HDR_SIZE <= len; i += 512)
		if (hdr_ok(crc, img + i, UBI_EC_HDR_MAGIC)) {
			peb = i;
			break;
		}
	if (!peb)
		peb = len;
	if (vid_off < UBI_HDR_SIZE || vid_off + UBI_HDR_SIZE > data_off ||
	    data_off + UBIFS_MIN_LEB_SZ > peb) {
		snprintf(why, whylen, "bad header offsets (VID 0x%x, data 0x%x,"
			 " PEB size %zu)", vid_off, data_off, peb);
		goto out;
	}
	leb = peb - data_off;
	for (i = 0; i + peb <= len; i += peb) {
		const struct ubi_vid_hdr *vid = (const void *)(img + i + vid_off);
		uint32_t id, lnum;

		if (!hdr_ok(crc, img + i, UBI_EC_HDR_MAGIC) ||
		    !hdr_ok(crc, vid, UBI_VID_HDR_MAGIC))
			continue;
		id = be32toh(vid->vol_id);
		lnum = be32toh(vid->lnum);
		if (id >= UBI_INTERNAL_VOL_START)
			continue;
		if (want == UINT32_MAX && lnum == 0) {
			const uint32_t *magic = (const void *)(img + i + data_off);

			if (le32toh(*magic) == UBIFS_NODE_MAGIC)
				want = id;
		}
		if (id != want)
			continue;
		/* Unmapped LEBs below the highest mapped one read as erased,
		 * but a volume far larger than the image is a corrupt header. */
		if (lnum > 2 * (len / peb) + 16) {
			snprintf(why, whylen, "PEB %zu: LEB %u of volume %u is "
				 "beyond what %zu PEBs can hold", i / peb, lnum,
				 want, len / peb);
			goto out;
		}
		if (lnum >= nlebs) {
			size_t n = lnum + 1;

			map = xrealloc(map, n * sizeof(*map));
			memset(map + nlebs, 0, (n - nlebs) * sizeof(*map));
			nlebs = n;
		}
		/* Of two copies of a LEB the newer one counts. */
		if (!map[lnum].data || be64toh(vid->sqnum) > map[lnum].sqnum) {
			map[lnum].data = img + i + data_off;
			map[lnum].sqnum = be64toh(vid->sqnum);
		}
	}
	if (want == UINT32_MAX || !nlebs || !map[0].data) {
		snprintf(why, whylen, "no UBIFS volume found");
		goto out;
	}

	*vol_len = nlebs * leb;
	*vol = xmalloc(*vol_len);
	memset(*vol, 0xff, *vol_len);
	for (i = 0; i < nlebs; i++)
		if (map[i].data)
			memcpy((uint8_t *)*vol + i * leb, map[i].data, leb);
	ret = 0;
out:
	free(map);
	free(crc);
	return ret;
}
