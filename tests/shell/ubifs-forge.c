// SPDX-License-Identifier: GPL-2.0
/*
 * The attacker's tool for tests/shell/ubifs-*.sh: change bytes of a UBIFS
 * image and repair the node CRCs, so that only hashes, HMACs and
 * signatures can tell.  Written apart from util/ on purpose: a bug in
 * tracekit's own CRC code must not make forged images look broken.
 *
 *   ubifs-forge IMG fixcrc POS          recompute the CRC of the node at POS
 *   ubifs-forge IMG xor POS MASK        IMG[POS] ^= MASK (hex)
 *   ubifs-forge IMG set POS HEXBYTES    write bytes at POS
 *   ubifs-forge IMG setsig SIG.der      signature node at 4096 holding SIG
 *   ubifs-forge IMG nodes LEBSIZE       list "LEB N:0xOFF TYPE LEN" of every
 *                                       node found by common headers
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *img;
static long img_len;

static void die(const char *msg)
{
	fprintf(stderr, "ubifs-forge: %s\n", msg);
	exit(1);
}

/* CRC-32 (reflected, poly 0xEDB88320) without the final inversion, as
 * the kernel's crc32(0xFFFFFFFF, ...) that UBIFS nodes carry. */
static uint32_t crc32_ubifs(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFF;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xEDB88320 : c >> 1;
	}
	return c;
}

static uint32_t get32(long pos)
{
	return img[pos] | img[pos + 1] << 8 | img[pos + 2] << 16 |
	       (uint32_t)img[pos + 3] << 24;
}

static void put32(long pos, uint32_t v)
{
	img[pos] = v;
	img[pos + 1] = v >> 8;
	img[pos + 2] = v >> 16;
	img[pos + 3] = v >> 24;
}

static void fixcrc(long pos)
{
	uint32_t len;

	if (pos < 0 || pos + 24 > img_len || get32(pos) != 0x06101831)
		die("no node header at that position");
	len = get32(pos + 16);
	if (len < 24 || pos + len > img_len)
		die("node length out of the image");
	put32(pos + 4, crc32_ubifs(img + pos + 8, len - 8));
}

static void setsig(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t sig[8192];
	size_t n;

	if (!f)
		die("cannot open the signature");
	n = fread(sig, 1, sizeof(sig), f);
	fclose(f);
	if (4096 + 64 + (long)n > img_len)
		die("signature does not fit");
	memset(img + 4096 + 24, 0, 40);
	put32(4096 + 16, 64 + n);
	img[4096 + 20] = 13;		/* UBIFS_SIG_NODE */
	put32(4096 + 24, 1);		/* UBIFS_SIGNATURE_TYPE_PKCS7 */
	put32(4096 + 28, n);
	memcpy(img + 4096 + 64, sig, n);
	fixcrc(4096);
}

/* Walks each LEB from offset 0 by the common header, as far as the
 * nodes go: padding nodes and 0xCE padding bytes are stepped over. */
static void nodes(long leb_size)
{
	long lnum, offs;

	if (leb_size <= 0)
		die("bad LEB size");
	for (lnum = 0; (lnum + 1) * leb_size <= img_len; lnum++) {
		const uint8_t *leb = img + lnum * leb_size;

		offs = 0;
		while (offs + 24 <= leb_size) {
			uint32_t len;

			if (leb[offs] == 0xCE) {
				offs++;
				continue;
			}
			if (offs & 7 || get32(lnum * leb_size + offs) != 0x06101831)
				break;
			len = get32(lnum * leb_size + offs + 16);
			if (len < 24 || offs + len > leb_size)
				break;
			if (leb[offs + 20] == 5) {	/* padding node */
				offs += len + get32(lnum * leb_size + offs + 24);
				continue;
			}
			printf("LEB %ld:0x%lx %d %u\n", lnum, offs, leb[offs + 20],
			       len);
			offs += (len + 7) & ~7u;
		}
	}
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc < 4)
		die("usage: IMG fixcrc POS | xor POS MASK | set POS HEX | setsig SIG");
	f = fopen(argv[1], "r+b");
	if (!f || fseek(f, 0, SEEK_END) || (img_len = ftell(f)) <= 0)
		die("cannot open the image");
	img = malloc(img_len);
	rewind(f);
	if (!img || fread(img, 1, img_len, f) != (size_t)img_len)
		die("cannot read the image");
	if (!strcmp(argv[2], "fixcrc")) {
		fixcrc(strtol(argv[3], NULL, 0));
	} else if (!strcmp(argv[2], "xor") && argc == 5) {
		long pos = strtol(argv[3], NULL, 0);

		if (pos < 0 || pos >= img_len)
			die("position out of the image");
		img[pos] ^= strtoul(argv[4], NULL, 16);
	} else if (!strcmp(argv[2], "set") && argc == 5) {
		long pos = strtol(argv[3], NULL, 0);
		const char *h = argv[4];

		for (; h[0] && h[1]; h += 2, pos++) {
			char b[3] = { h[0], h[1], 0 };

			if (pos < 0 || pos >= img_len)
				die("position out of the image");
			img[pos] = strtoul(b, NULL, 16);
		}
	} else if (!strcmp(argv[2], "setsig")) {
		setsig(argv[3]);
	} else if (!strcmp(argv[2], "nodes")) {
		nodes(strtol(argv[3], NULL, 0));
		return 0;
	} else {
		die("unknown command");
	}
	rewind(f);
	if (fwrite(img, 1, img_len, f) != (size_t)img_len || fclose(f))
		die("cannot write the image");
	return 0;
}
