// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOADed into trace-cmd, gives it the zlib compression it has
 * where it was built with zlib (Debian's 3.1.6 has zstd only), so that
 * trace-cmd's own writer and reader make and read zlib trace.dat files:
 * the codec registers through the executable's exported
 * tracecmd_compress_proto_register() as lib/trace-cmd's zlib one does,
 * compress2() at Z_BEST_COMPRESSION one stream per chunk and section,
 * read back with uncompress().  The proto layout is libtracecmd 1.3's
 * (trace-cmd 3.1, lib/trace-cmd/include/private/trace-cmd-private.h).
 */
#include <stdbool.h>
#include <string.h>
#include <zlib.h>

struct tracecmd_compression_proto {
	int weight;
	const char *name;
	const char *version;
	int (*compress)(void *ctx, const void *in, int in_bytes, void *out,
			int out_bytes);
	int (*uncompress)(void *ctx, const void *in, int in_bytes, void *out,
			  int out_bytes);
	unsigned int (*compress_size)(void *ctx, unsigned int bytes);
	bool (*is_supported)(const char *name, const char *version);
	void *(*new_context)(void);
	void (*free_context)(void *ctx);
};

int tracecmd_compress_proto_register(struct tracecmd_compression_proto *proto);

static int zlib_compress(void *ctx, const void *in, int in_bytes, void *out,
			 int out_bytes)
{
	uLongf n = out_bytes;

	(void)ctx;
	return compress2(out, &n, in, in_bytes, Z_BEST_COMPRESSION) == Z_OK
		       ? (int)n
		       : -1;
}

static int zlib_uncompress(void *ctx, const void *in, int in_bytes, void *out,
			   int out_bytes)
{
	uLongf n = out_bytes;

	(void)ctx;
	return uncompress(out, &n, in, in_bytes) == Z_OK ? (int)n : -1;
}

static unsigned int zlib_bound(void *ctx, unsigned int bytes)
{
	(void)ctx;
	return compressBound(bytes);
}

static bool zlib_supported(const char *name, const char *version)
{
	(void)version;
	return name && !strcmp(name, "zlib");
}

__attribute__((constructor)) static void zlib_register(void)
{
	static struct tracecmd_compression_proto proto = {
		.weight = 10,
		.name = "zlib",
		.compress = zlib_compress,
		.uncompress = zlib_uncompress,
		.compress_size = zlib_bound,
		.is_supported = zlib_supported,
	};

	proto.version = zlibVersion();
	tracecmd_compress_proto_register(&proto);
}
