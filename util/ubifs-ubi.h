/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_UBI_H
#define TK_UBIFS_UBI_H

#include <stddef.h>

/*
 * UBI images (ubinize output): physical eraseblocks, each starting with an
 * erase counter header ("UBI#") and a volume identifier header ("UBI!")
 * naming the volume and LEB stored in it (the kernel's ubi-media.h; both
 * big-endian, CRC32 over the first 60 of their 64 bytes).
 */
int ubifs_ubi_detect(const void *buf, size_t len);

/*
 * Reassembles the first volume whose LEB 0 holds a UBIFS superblock into
 * a malloc'ed buffer of whole LEBs (unmapped LEBs read as 0xFF, as UBI
 * returns them).  Returns 0, or -1 with a reason in why.
 */
int ubifs_ubi_extract(const void *buf, size_t len, void **vol,
		      size_t *vol_len, char *why, size_t whylen);

#endif
