// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include <zlib.h>

#include "ubifs/crc.h"

void ubifs_crc_init(struct ubifs_crc *c)
{
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		uint16_t w = i;

		for (k = 0; k < 8; k++)
			w = (w >> 1) ^ ((w & 1) ? 0xA001u : 0);
		c->t16[i] = w;
	}
}

/* zlib inverts the running value on the way in and out; the kernel's
 * crc32() does neither.  zlib takes at most UINT_MAX bytes a call. */
uint32_t ubifs_crc32(const struct ubifs_crc *c, uint32_t crc,
		     const void *buf, size_t len)
{
	const Bytef *p = buf;
	uLong z = ~crc & 0xffffffffu;

	(void)c;
	while (len) {
		uInt n = len > 1u << 30 ? 1u << 30 : (uInt)len;

		z = crc32(z, p, n);
		p += n;
		len -= n;
	}
	return ~z & 0xffffffffu;
}

uint16_t ubifs_crc16(const struct ubifs_crc *c, uint16_t crc,
		     const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--)
		crc = (crc >> 8) ^ c->t16[(crc ^ *p++) & 0xff];
	return crc;
}
