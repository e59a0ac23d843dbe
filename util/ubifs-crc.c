// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "util/ubifs-crc.h"

void ubifs_crc_init(struct ubifs_crc *c)
{
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		uint32_t v = i;
		uint16_t w = i;

		for (k = 0; k < 8; k++) {
			v = (v >> 1) ^ ((v & 1) ? 0xEDB88320u : 0);
			w = (w >> 1) ^ ((w & 1) ? 0xA001u : 0);
		}
		c->t32[0][i] = v;
		c->t16[i] = w;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			c->t32[k][i] = (c->t32[k - 1][i] >> 8) ^
				       c->t32[0][c->t32[k - 1][i] & 0xff];
}

/* Slicing-by-8: node checksums cover every byte of the image once, so
 * this is half of what `verify` costs. */
uint32_t ubifs_crc32(const struct ubifs_crc *c, uint32_t crc,
		     const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ c->t32[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = c->t32[7][lo & 0xff] ^ c->t32[6][(lo >> 8) & 0xff] ^
		      c->t32[5][(lo >> 16) & 0xff] ^ c->t32[4][lo >> 24] ^
		      c->t32[3][hi & 0xff] ^ c->t32[2][(hi >> 8) & 0xff] ^
		      c->t32[1][(hi >> 16) & 0xff] ^ c->t32[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ c->t32[0][(crc ^ *p++) & 0xff];
	return crc;
}

uint16_t ubifs_crc16(const struct ubifs_crc *c, uint16_t crc,
		     const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--)
		crc = (crc >> 8) ^ c->t16[(crc ^ *p++) & 0xff];
	return crc;
}
