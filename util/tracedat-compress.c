// SPDX-License-Identifier: GPL-2.0
/*
 * The compression of a trace.dat v7: its sections and chunks
 * decompressed, zstd or zlib, after a check of the size they claim.
 */
#include "util/tracedat-read-int.h"


/*
 * Before usize bytes are allocated for a section: a zstd frame states
 * its size; deflate expands at most 1032 to 1 (zlib's FAQ), and
 * trace-cmd's sections are whole zlib streams.
 */
int tracedat_claimed_size_sane(struct tracedat *td, const void *cdata,
			       uint64_t csize, uint64_t usize, uint64_t off)
{
	unsigned long long fsize;

	if (td->compression == TD_COMPRESS_ZLIB) {
		if (usize > csize * 1032 + 64)
			return tracedat_bad(td, off,
					    "corrupt zlib section: %llu bytes claimed from %llu",
					    (unsigned long long)usize,
					    (unsigned long long)csize);
		return 0;
	}
	fsize = ZSTD_getFrameContentSize(cdata, csize);
	if (fsize == ZSTD_CONTENTSIZE_ERROR ||
	    (fsize != ZSTD_CONTENTSIZE_UNKNOWN && fsize != usize) ||
	    (fsize == ZSTD_CONTENTSIZE_UNKNOWN && usize > MAX_CHUNK_SIZE))
		return tracedat_bad(td, off,
				    "corrupt zstd section: %llu bytes claimed, frame says %s",
				    (unsigned long long)usize,
				    fsize == ZSTD_CONTENTSIZE_ERROR ?
				    "it is not zstd" : "otherwise");
	return 0;
}

int tracedat_decompress(struct tracedat *td, void *dst, uint64_t usize,
			const void *src, uint64_t csize, uint64_t off,
			const char *what)
{
	uLongf zlen = usize;
	size_t r;
	int zr;

	if (td->compression == TD_COMPRESS_ZLIB) {
		/*
		 * trace-cmd's zlib writes compress2()'s zlib stream, one
		 * per chunk.
		 */
		zr = uncompress(dst, &zlen, src, csize);
		if (zr != Z_OK || zlen != usize)
			return tracedat_bad(td, off, "corrupt zlib %s: %s",
					    what, zr == Z_OK ? "short output" :
					    zr == Z_BUF_ERROR ?
					    "longer than claimed" : zError(zr));
		return 0;
	}
	r = ZSTD_decompressDCtx(td->zctx, dst, usize, src, csize);
	if (ZSTD_isError(r) || r != usize)
		return tracedat_bad(td, off, "corrupt zstd %s: %s", what,
				    ZSTD_isError(r) ? ZSTD_getErrorName(r) :
				    "short output");
	return 0;
}
