/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_UBI_H
#define TK_UBIFS_UBI_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * UBI images (ubinize output): physical eraseblocks, each starting with an
 * erase counter header ("UBI#") and a volume identifier header ("UBI!")
 * naming the volume and LEB stored in it (the kernel's ubi-media.h; both
 * big-endian, CRC32 over the first 60 of their 64 bytes).
 */
int ubifs_ubi_detect(const void *buf, size_t len);

struct ubifs_ubi_vol {
	void *data;		/* malloc'ed, whole LEBs */
	size_t len;		/* LEBs of PEB size - data offset - data_pad */
	int skipped;		/* PEBs with a corrupt EC or VID header */
	int first_skipped;	/* the first of them, or -1 */
};

/*
 * Reassembles, by the VID headers' vol_id and lnum, the first volume (by
 * vol_id) whose LEB 0 holds a UBIFS node, whatever the order of the PEBs
 * in buf; of two PEBs holding one LEB the one UBI would read wins.
 * Unmapped LEBs read as 0xFF, as UBI returns them.  The superblock's LEB
 * size and min. I/O unit must fit the UBI headers.  Returns 0, or -1
 * with a reason in err.
 */
int ubifs_ubi_extract(const void *buf, size_t len, struct ubifs_ubi_vol *vol,
		      struct strbuf *err);

#endif
