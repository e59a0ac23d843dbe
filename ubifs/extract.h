/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_EXTRACT_H
#define TK_UBIFS_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "ubifs/image.h"
#include "ubifs/verify.h"
#include "util/strbuf.h"

struct ubifs_extract_opts {
	/* What verify found: the index root, the master's hash of it, the
	 * root's level and how many index nodes and leaves there are.  The
	 * index read again is held to all of it. */
	const struct ubifs_verify_result *verified;
	/* Refuse an image whose regular files declare more bytes than this;
	 * 0: the space free on the file system DIR goes to. */
	uint64_t max_size;
};

/*
 * Recreates the file tree of a verified image under dir (which must not
 * exist; it is built under a temporary name and renamed when complete):
 * directories, regular files, symlinks, hard links and xattrs, with modes,
 * times and (when run as root) owners.  Data nodes may be uncompressed,
 * LZO, zlib or zstd.  Every node is read again from the image and checked
 * against the hash its index branch records, from the root hash down (or
 * its CRC, unauthenticated), so that only bytes that verify are written,
 * whatever becomes of the file after verification.  An inode is written
 * once; further entries of it are hard links.  Returns 0, or a negative
 * errno with a reason in err and nothing left at dir: -EINVAL for an
 * index or node not as verified, -EFBIG for files declaring more than
 * the limit, -EEXIST for a dir already there, else that of the system
 * call that failed.
 */
int ubifs_extract(const struct ubifs_image *img,
		  const struct ubifs_extract_opts *o, const char *dir,
		  int *files, struct strbuf *err);
/*
 * Reads a max_size from arg: bytes, or with a K, M, G or T suffix (powers
 * of 1024), and not 0.  Returns 0, or -EINVAL with *max unchanged.
 */
int ubifs_extract_parse_size(const char *arg, uint64_t *max);

#endif
