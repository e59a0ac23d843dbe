/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_COMPR_H
#define TK_UBIFS_COMPR_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * Decompresses the payload of one data node (compr_type UBIFS_COMPR_*)
 * into out, as fs/ubifs/compress.c ubifs_decompress() does: none, LZO
 * (lzo1x), zlib (raw deflate, no zlib header) and zstd.  Returns the
 * number of bytes produced, or a negative errno with a reason in err
 * (-EINVAL for a payload that does not decompress); more output than
 * out_len is an error, not a truncation.
 */
long ubifs_decompress(int compr_type, const void *in, size_t in_len,
		      void *out, size_t out_len, struct strbuf *err);

#endif
