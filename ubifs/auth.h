/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_AUTH_H
#define TK_UBIFS_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/*
 * UBIFS authentication primitives over OpenSSL libcrypto, following the
 * kernel's auth.c: node hashes cover the whole node (common header
 * included); HMACs cover a node from byte 8 (after magic and CRC) with
 * the HMAC field itself left out; the master node's hash in the
 * superblock leaves out the 24-byte common header; the signature is a
 * detached PKCS#7/CMS SignedData over the 4096-byte superblock node.
 * Key material is never printed; MACs are compared in constant time.
 */

struct ubifs_auth;

/*
 * The kernel's enum hash_algo (include/uapi/linux/hash_info.h).  An
 * algorithm OpenSSL or UBIFS cannot use is -EINVAL, as length or number.
 * The functions below that compute return 0, or -ENOMEM where OpenSSL
 * fails (it does for want of memory) and -EINVAL where asked for what
 * the auth cannot do (an HMAC without a key, a node too short for one).
 */
int ubifs_hash_len(int hash_algo);
const char *ubifs_hash_name(int hash_algo);
int ubifs_hash_algo_by_name(const char *name);
/*
 * 1 for the algorithms the kernel accepts but whose collisions can be
 * computed (md4, md5, sha1): a node made to collide with a genuine one
 * would pass the index's hashes.
 */
int ubifs_hash_weak(int hash_algo);

/* hmac_key may be NULL: then only hashes and signatures are available. */
struct ubifs_auth *ubifs_auth_new(int hash_algo, const uint8_t *hmac_key,
				  size_t key_len);
void ubifs_auth_free(struct ubifs_auth *a);
int ubifs_auth_hash_len(const struct ubifs_auth *a);
int ubifs_auth_has_key(const struct ubifs_auth *a);

int ubifs_auth_hash(struct ubifs_auth *a, const void *buf, size_t len,
		    uint8_t *out);
/* Incremental hash for the LPT, which hashes a sequence of pnodes. */
int ubifs_auth_hash_begin(struct ubifs_auth *a);
int ubifs_auth_hash_update(struct ubifs_auth *a, const void *buf, size_t len);
int ubifs_auth_hash_end(struct ubifs_auth *a, uint8_t *out);

int ubifs_auth_hmac(struct ubifs_auth *a, const void *buf, size_t len,
		    uint8_t *out);

/*
 * A running hash that can be copied, for the journal: the kernel keeps the
 * log's hash state (shash export/import in ubifs_shash_copy_state()) and
 * authenticates a bud by the HMAC of that state finalised on a copy.
 */
struct ubifs_hash_state;

struct ubifs_hash_state *ubifs_hash_state_new(struct ubifs_auth *a);
void ubifs_hash_state_free(struct ubifs_hash_state *s);
int ubifs_hash_state_update(struct ubifs_hash_state *s, const void *buf,
			    size_t len);
/* dst takes src's state, as ubifs_shash_copy_state() does. */
int ubifs_hash_state_copy(struct ubifs_hash_state *dst,
			  const struct ubifs_hash_state *src);
/* HMAC of the digest of a copy of s: s itself goes on unchanged. */
int ubifs_hash_state_hmac(struct ubifs_auth *a,
			  const struct ubifs_hash_state *s, uint8_t *out);
/* HMAC of node[8..len) without node[ofs_hmac .. ofs_hmac + hmac_len). */
int ubifs_auth_node_hmac(struct ubifs_auth *a, const void *node, size_t len,
			 size_t ofs_hmac, uint8_t *out);

/* Constant-time: 1 when equal. */
int ubifs_mac_equal(const void *a, const void *b, size_t len);

/*
 * Returns 0 when sig is a PKCS#7 SignedData of id-data content whose
 * signers all digest with hash_algo (the superblock's) and which verifies
 * over data with the certificate in cert_path; otherwise -EINVAL (-ENOMEM
 * where OpenSSL ran out of memory) and a one-line reason in err.
 */
int ubifs_sig_verify(const char *cert_path, int hash_algo, const void *data,
		     size_t len, const void *sig, size_t sig_len,
		     struct strbuf *err);
/* Detached SignedData without certificates or signed attributes, as
 * mkfs.ubifs makes it.  *der is malloc'ed.  Returns 0, or a negative errno
 * with the reason in err: the key file's open(), else -EINVAL. */
int ubifs_sig_create(const char *key_path, const char *cert_path,
		     int hash_algo, const void *data, size_t len,
		     uint8_t **der, size_t *der_len, struct strbuf *err);

/*
 * Reads a raw HMAC key (the payload of the kernel's logon key).  Returns
 * 0, or a negative errno with the reason in err (the file name left to
 * the caller): that of the read, or -EINVAL for an empty file.
 */
int ubifs_read_key_file(const char *path, uint8_t **key, size_t *len,
			struct strbuf *err);
/*
 * Reads the HMAC key from the kernel keyring: a "user" key of that
 * description found by request_key(2).  The kernel's UBIFS takes a
 * "logon" key, whose payload user space cannot read; such a key is
 * reported in err.  Returns 0, or a negative errno with the reason in
 * err: that of request_key(2) or keyctl(2), or -EINVAL for an empty key
 * or one whose size changed.
 */
int ubifs_read_key_desc(const char *desc, uint8_t **key, size_t *len,
			struct strbuf *err);
/* Wipes a key read by either, then frees it; NULL is fine. */
void ubifs_key_free(uint8_t *key, size_t len);

#endif
