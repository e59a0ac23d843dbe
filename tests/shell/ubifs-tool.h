/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the UBIFS test tools (ubifs-poke.c, ubifs-mutate.c) share: the
 * image in memory and the CRC32 that UBI headers and UBIFS nodes carry.
 * Written apart from util/ on purpose: a bug in tracekit's own code must
 * not make a forged image look broken, or a broken one whole.  Each tool
 * is one file the tests compile with cc; this header is included by it.
 */
#ifndef TK_TESTS_UBIFS_TOOL_H
#define TK_TESTS_UBIFS_TOOL_H

#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tool_name;
static uint8_t *img;
static size_t img_len;

static inline void die(const char *msg)
{
	fprintf(stderr, "%s: %s\n", tool_name, msg);
	exit(2);
}

static inline void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0)
		die("cannot read the image");
	rewind(f);
	img_len = n;
	img = malloc(img_len);
	if (!img || fread(img, 1, img_len, f) != img_len)
		die("cannot read the image");
	fclose(f);
}

static inline void save(const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(img, 1, img_len, f) != img_len || fclose(f))
		die("cannot write the image");
}

/* The kernel's crc32_le seeded with 0xFFFFFFFF, no final inversion. */
static inline uint32_t crc32_ubifs(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffff;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320 : c >> 1;
	}
	return c;
}

static inline uint32_t le32(size_t off)
{
	uint32_t v;

	memcpy(&v, img + off, 4);
	return le32toh(v);
}

static inline uint32_t be32(size_t off)
{
	uint32_t v;

	memcpy(&v, img + off, 4);
	return be32toh(v);
}

static inline void put_le32(size_t off, uint32_t v)
{
	v = htole32(v);
	memcpy(img + off, &v, 4);
}

static inline void put_be32(size_t off, uint32_t v)
{
	v = htobe32(v);
	memcpy(img + off, &v, 4);
}

/* Rewrites the CRC of the UBIFS node at off over the length its header
 * gives, as an attacker would (whatever the magic now says). */
static inline void fix_node_crc(size_t off)
{
	uint32_t len;

	if (off + 24 > img_len)
		die("no node header at that offset");
	len = le32(off + 16);
	if (len < 24 || off + len > img_len)
		die("bad node length");
	put_le32(off + 4, crc32_ubifs(img + off + 8, len - 8));
}

#endif
