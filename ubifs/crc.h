/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_CRC_H
#define TK_UBIFS_CRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * The checksums of UBI and UBIFS: the kernel's crc32_le (reflected
 * 0xEDB88320, no final inversion; nodes seed it with 0xFFFFFFFF), which
 * is zlib's crc32() without its inversions, and crc16 (reflected 0xA001,
 * LPT nodes seed it with 0xFFFF), which no library of ours has.  The
 * crc16 table lives in the caller's object so that nothing global is
 * mutable.
 */
struct ubifs_crc {
	uint16_t t16[256];
};

void ubifs_crc_init(struct ubifs_crc *c);
uint32_t ubifs_crc32(const struct ubifs_crc *c, uint32_t crc,
		     const void *buf, size_t len);
uint16_t ubifs_crc16(const struct ubifs_crc *c, uint16_t crc,
		     const void *buf, size_t len);

#endif
