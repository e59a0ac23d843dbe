/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_SIGN_H
#define TK_UBIFS_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "ubifs/image.h"
#include "util/strbuf.h"

/*
 * Turns a plain (unauthenticated) UBIFS image into an authenticated one as
 * mkfs.ubifs --auth-key would have made it.  Branches grow by a hash each,
 * so the index cannot be patched in place: it is rebuilt with the same
 * shape, children before parents, into the old index LEBs, then empty
 * LEBs, then new LEBs (up to max_leb_cnt).  The LPT is laid out afresh,
 * the master nodes get hash_root_idx and hash_lpt, the superblock the
 * authentication flag, hash_algo and hash_mst, followed by a PKCS#7
 * signature node (key and cert) and/or HMACs (hmac_key).
 */
struct ubifs_sign_opts {
	int hash_algo;
	const char *key, *cert;
	const uint8_t *hmac_key;
	size_t hmac_key_len;
};

/*
 * 0 with the new image in *out (malloc'ed), or a negative errno with a
 * reason in err: -EINVAL for an image that cannot be signed, else that of
 * reading the key (ubifs_sig_create()).
 */
int ubifs_sign(struct ubifs_image *img, const struct ubifs_sign_opts *o,
	       uint8_t **out, size_t *out_len, struct strbuf *err);

#endif
