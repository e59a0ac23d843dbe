/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TESTS_UBIFS_FIXTURE_H
#define TK_TESTS_UBIFS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Real images for the ubifs suites: a source tree with files, a
 * subdirectory, a symlink, a large file and xattrs, an RSA key with a
 * self-signed certificate made by openssl, and mkfs.ubifs (mtd-utils)
 * building plain and signed images of it.
 */
struct ubifs_fixture {
	char dir[64];
	char root[96], key[96], cert[96], key2[96], cert2[96];
	char plain[96], signed_img[96];
};

/* Returns 0, or -1 with the reason on stderr: the project installs both
 * tools, so a caller fails then, it does not skip. */
int ubifs_fixture_make(struct ubifs_fixture *f);
void ubifs_fixture_remove(struct ubifs_fixture *f);
uint8_t *ubifs_fixture_read(const char *path, size_t *len);

#endif
