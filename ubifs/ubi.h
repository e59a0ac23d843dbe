/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_UBI_H
#define TK_UBIFS_UBI_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/*
 * UBI images (ubinize output): physical eraseblocks, each starting with an
 * erase counter header ("UBI#") and a volume identifier header ("UBI!")
 * naming the volume and LEB stored in it (the kernel's ubi-media.h; both
 * big-endian, CRC32 over the first 60 of their 64 bytes).
 */
int ubifs_ubi_detect(const void *buf, size_t len);

#define UBIFS_UBI_VOL_NAME_MAX	127	/* UBI_VOL_NAME_MAX, ubi-media.h */

/* A volume whose LEB 0 holds a UBIFS node. */
struct ubifs_ubi_volume {
	uint32_t vol_id;
	char name[UBIFS_UBI_VOL_NAME_MAX + 1];	/* "" without a volume table */
};

struct ubifs_ubi_vol {
	void *data;		/* malloc'ed, whole LEBs */
	size_t len;		/* LEBs of PEB size - data offset - data_pad */
	int skipped;		/* PEBs with a corrupt EC or VID header */
	int first_skipped;	/* the first of them, or -1 */
	struct ubifs_ubi_volume vol;	/* the volume in data */
	struct ubifs_ubi_volume *vols;	/* every UBIFS volume, by vol_id */
	int nr_vols;
	char *vtbl_note;	/* why the volumes have no names, or NULL */
};

/*
 * Lists the volumes of buf whose LEB 0 holds a UBIFS node into vol->vols,
 * by vol_id, named after the volume table when one of its two copies is
 * good (else vol->vtbl_note says why there is none).  Of two PEBs
 * holding one LEB the one UBI would read counts, whatever the order of
 * the PEBs in buf.  Returns 0, or -EINVAL with a reason in err (a header
 * that cannot be trusted, no UBIFS volume among them).
 */
int ubifs_ubi_list(const void *buf, size_t len, struct ubifs_ubi_vol *vol,
		   struct strbuf *err);
/*
 * Lists, then reassembles by the VID headers' vol_id and lnum the UBIFS
 * volume select names: its vol_id in decimal, else its name; NULL names
 * the only one.  The volume holds the superblock's LEB count at least,
 * unmapped LEBs read as 0xFF, as UBI returns them, and a count beyond the
 * PEBs in buf is refused.  The superblock's LEB size and min. I/O unit
 * must fit the UBI headers.  Returns 0, or -EINVAL with a reason in err
 * (as for list, or no such volume, or one that does not fit).
 */
int ubifs_ubi_extract(const void *buf, size_t len, const char *select,
		      struct ubifs_ubi_vol *vol, struct strbuf *err);
/* Frees what list or extract allocated, whether they failed or not. */
void ubifs_ubi_vol_release(struct ubifs_ubi_vol *vol);
/* Appends the volumes for a message: 0 "fs", 1 "rootfs" (unnamed: 1). */
void ubifs_ubi_volumes_str(struct strbuf *sb,
			   const struct ubifs_ubi_volume *v, int nr);

#endif
