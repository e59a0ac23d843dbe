// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lzo/lzo1x.h>
#include <zlib.h>
#include <zstd.h>

#include "ubifs/compr.h"
#include "ubifs/media.h"
#include "util/strbuf.h"

static long lzo(const void *in, size_t in_len, void *out, size_t out_len,
		struct strbuf *err)
{
	lzo_uint got = out_len;
	int rc;

	if (lzo_init() != LZO_E_OK) {
		strbuf_addstr(err, "lzo: cannot initialise the library");
		return -ELIBBAD;
	}
	/* The _safe variant checks both buffers' bounds, as the kernel's
	 * lzo1x_decompress_safe() does for UBIFS. */
	rc = lzo1x_decompress_safe(in, in_len, out, &got, NULL);
	if (rc != LZO_E_OK) {
		strbuf_addf(err, "lzo: error %d%s", rc,
			    rc == LZO_E_OUTPUT_OVERRUN ? " (output overrun)" :
			    rc == LZO_E_INPUT_NOT_CONSUMED ?
			    " (trailing input)" : "");
		return -EINVAL;
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
		 struct strbuf *err)
{
	z_stream z;
	long ret = -EINVAL;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
		strbuf_addstr(err, "zlib: cannot initialise inflate");
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = in_len;
	z.next_out = out;
	z.avail_out = out_len;
	rc = inflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END)
		strbuf_addf(err, "zlib: %s", rc == Z_BUF_ERROR &&
			    !z.avail_out ? "output overrun" :
			    rc == Z_BUF_ERROR ? "truncated stream" :
			    z.msg ? z.msg : "bad stream");
	else if (z.avail_in)
		strbuf_addf(err, "zlib: trailing input");
	else
		ret = z.total_out;
	inflateEnd(&z);
	return ret;
}

static long zstd(const void *in, size_t in_len, void *out, size_t out_len,
		 struct strbuf *err)
{
	size_t got = ZSTD_decompress(out, out_len, in, in_len);

	if (ZSTD_isError(got)) {
		strbuf_addf(err, "zstd: %s", ZSTD_getErrorName(got));
		return -EINVAL;
	}
	return got;
}

long ubifs_decompress(int compr_type, const void *in, size_t in_len,
		      void *out, size_t out_len, struct strbuf *err)
{
	switch (compr_type) {
	case UBIFS_COMPR_NONE:
		if (in_len > out_len) {
			strbuf_addf(err, "%zu bytes stored, at most %zu "
				    "expected", in_len, out_len);
			return -EINVAL;
		}
		memcpy(out, in, in_len);
		return in_len;
	case UBIFS_COMPR_LZO:
		return lzo(in, in_len, out, out_len, err);
	case UBIFS_COMPR_ZLIB:
		return zlib(in, in_len, out, out_len, err);
	case UBIFS_COMPR_ZSTD:
		return zstd(in, in_len, out, out_len, err);
	}
	strbuf_addf(err, "unknown compression type %d", compr_type);
	return -EINVAL;
}
