/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_EXTRACT_H
#define TK_UBIFS_EXTRACT_H

#include <stddef.h>

#include "util/strbuf.h"
#include "util/ubifs-image.h"

/*
 * Recreates the file tree of a verified image (index root at
 * root_lnum:root_offs) under dir (which must not
 * exist; it is built under a temporary name and renamed when complete):
 * directories, regular files, symlinks, hard links and xattrs, with modes,
 * times and (when run as root) owners.  Data nodes may be uncompressed,
 * LZO, zlib or zstd.  Returns 0, or -1 with a reason in err and nothing
 * left at dir.
 */
int ubifs_extract(const struct ubifs_image *img, int root_lnum, int root_offs,
		  const char *dir, int *files, struct strbuf *err);

#endif
