// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include <lzo/lzo1x.h>
#include <zlib.h>
#include <zstd.h>

#include "util/ubifs-compr.h"
#include "util/ubifs-media.h"

static long lzo(const void *in, size_t in_len, void *out, size_t out_len,
		char *why, size_t whylen)
{
	lzo_uint got = out_len;
	int err;

	if (lzo_init() != LZO_E_OK) {
		snprintf(why, whylen, "lzo: cannot initialise the library");
		return -1;
	}
	/* The _safe variant checks both buffers' bounds, as the kernel's
	 * lzo1x_decompress_safe() does for UBIFS. */
	err = lzo1x_decompress_safe(in, in_len, out, &got, NULL);
	if (err != LZO_E_OK) {
		snprintf(why, whylen, "lzo: error %d%s", err,
			 err == LZO_E_OUTPUT_OVERRUN ? " (output overrun)" :
			 err == LZO_E_INPUT_NOT_CONSUMED ?
			 " (trailing input)" : "");
		return -1;
	}
	return got;
}

/*
 * The kernel's "deflate" crypto algorithm (crypto/deflate.c), which UBIFS
 * uses for UBIFS_COMPR_ZLIB, writes a raw deflate stream: negative window
 * bits, no header or checksum.  mkfs.ubifs' compr.c does the same with a
 * 2 KiB window; -MAX_WBITS inflates any window up to 32 KiB.
 */
static long zlib(const void *in, size_t in_len, void *out, size_t out_len,
		 char *why, size_t whylen)
{
	z_stream z;
	long ret = -1;
	int err;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
		snprintf(why, whylen, "zlib: cannot initialise inflate");
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = in_len;
	z.next_out = out;
	z.avail_out = out_len;
	err = inflate(&z, Z_FINISH);
	if (err != Z_STREAM_END)
		snprintf(why, whylen, "zlib: %s", err == Z_BUF_ERROR &&
			 !z.avail_out ? "output overrun" :
			 err == Z_BUF_ERROR ? "truncated stream" :
			 z.msg ? z.msg : "bad stream");
	else if (z.avail_in)
		snprintf(why, whylen, "zlib: trailing input");
	else
		ret = z.total_out;
	inflateEnd(&z);
	return ret;
}

static long zstd(const void *in, size_t in_len, void *out, size_t out_len,
		 char *why, size_t whylen)
{
	size_t got = ZSTD_decompress(out, out_len, in, in_len);

	if (ZSTD_isError(got)) {
		snprintf(why, whylen, "zstd: %s", ZSTD_getErrorName(got));
		return -1;
	}
	return got;
}

long ubifs_decompress(int compr_type, const void *in, size_t in_len,
		      void *out, size_t out_len, char *why, size_t whylen)
{
	switch (compr_type) {
	case UBIFS_COMPR_NONE:
		if (in_len > out_len) {
			snprintf(why, whylen, "%zu bytes stored, at most %zu "
				 "expected", in_len, out_len);
			return -1;
		}
		memcpy(out, in, in_len);
		return in_len;
	case UBIFS_COMPR_LZO:
		return lzo(in, in_len, out, out_len, why, whylen);
	case UBIFS_COMPR_ZLIB:
		return zlib(in, in_len, out, out_len, why, whylen);
	case UBIFS_COMPR_ZSTD:
		return zstd(in, in_len, out, out_len, why, whylen);
	}
	snprintf(why, whylen, "unknown compression type %d", compr_type);
	return -1;
}
