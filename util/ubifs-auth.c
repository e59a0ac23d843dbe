// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "util/strbuf.h"
#include "util/ubifs-auth.h"
#include "util/ubifs-media.h"
#include "util/usage.h"

struct ubifs_auth {
	const EVP_MD *md;
	int hash_len;
	EVP_MD_CTX *ctx;
	EVP_MAC *mac;
	uint8_t *key;
	size_t key_len;
};

/* Index = the kernel's enum hash_algo; NULL where OpenSSL has no peer. */
static const char *const hash_names[] = {
	"md4", "md5", "sha1", "rmd160", "sha256", "sha384", "sha512",
	"sha224", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	"sm3",
};
#define HASH_NAMES_NR ((int)(sizeof(hash_names) / sizeof(hash_names[0])))

static const char *openssl_name(const char *name)
{
	return strcmp(name, "rmd160") ? name : "ripemd160";
}

const char *ubifs_hash_name(int hash_algo)
{
	if (hash_algo < 0 || hash_algo >= HASH_NAMES_NR)
		return NULL;
	return hash_names[hash_algo];
}

static const EVP_MD *hash_md(int hash_algo)
{
	const char *name = ubifs_hash_name(hash_algo);

	return name ? EVP_get_digestbyname(openssl_name(name)) : NULL;
}

int ubifs_hash_len(int hash_algo)
{
	const EVP_MD *md = hash_md(hash_algo);
	int len = md ? EVP_MD_get_size(md) : -1;

	return len > UBIFS_MAX_HASH_LEN ? -1 : len;
}

int ubifs_hash_algo_by_name(const char *name)
{
	int i;

	for (i = 0; i < HASH_NAMES_NR; i++)
		if (hash_names[i] && !strcmp(hash_names[i], name) &&
		    hash_md(i))
			return i;
	return -1;
}

struct ubifs_auth *ubifs_auth_new(int hash_algo, const uint8_t *hmac_key,
				  size_t key_len)
{
	struct ubifs_auth *a;
	const EVP_MD *md = hash_md(hash_algo);

	if (!md || ubifs_hash_len(hash_algo) <= 0)
		return NULL;
	a = xcalloc(1, sizeof(*a));
	a->md = md;
	a->hash_len = EVP_MD_get_size(md);
	a->ctx = EVP_MD_CTX_new();
	if (hmac_key) {
		a->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
		a->key = xmalloc(key_len ? key_len : 1);
		memcpy(a->key, hmac_key, key_len);
		a->key_len = key_len;
	}
	if (!a->ctx || (hmac_key && !a->mac)) {
		ubifs_auth_free(a);
		return NULL;
	}
	return a;
}

void ubifs_auth_free(struct ubifs_auth *a)
{
	if (!a)
		return;
	EVP_MD_CTX_free(a->ctx);
	EVP_MAC_free(a->mac);
	if (a->key)
		OPENSSL_cleanse(a->key, a->key_len);
	free(a->key);
	free(a);
}

int ubifs_auth_hash_len(const struct ubifs_auth *a)
{
	return a->hash_len;
}

int ubifs_auth_has_key(const struct ubifs_auth *a)
{
	return a->key != NULL;
}

int ubifs_auth_hash_begin(struct ubifs_auth *a)
{
	return EVP_DigestInit_ex(a->ctx, a->md, NULL) == 1 ? 0 : -1;
}

int ubifs_auth_hash_update(struct ubifs_auth *a, const void *buf, size_t len)
{
	return EVP_DigestUpdate(a->ctx, buf, len) == 1 ? 0 : -1;
}

int ubifs_auth_hash_end(struct ubifs_auth *a, uint8_t *out)
{
	return EVP_DigestFinal_ex(a->ctx, out, NULL) == 1 ? 0 : -1;
}

int ubifs_auth_hash(struct ubifs_auth *a, const void *buf, size_t len,
		    uint8_t *out)
{
	if (ubifs_auth_hash_begin(a) || ubifs_auth_hash_update(a, buf, len))
		return -1;
	return ubifs_auth_hash_end(a, out);
}

static int hmac_parts(struct ubifs_auth *a, const void *p1, size_t l1,
		      const void *p2, size_t l2, uint8_t *out)
{
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx;
	size_t outl;
	int ok;

	if (!a->mac)
		return -1;
	ctx = EVP_MAC_CTX_new(a->mac);
	if (!ctx)
		return -1;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
			(char *)EVP_MD_get0_name(a->md), 0);
	params[1] = OSSL_PARAM_construct_end();
	ok = EVP_MAC_init(ctx, a->key, a->key_len, params) == 1 &&
	     EVP_MAC_update(ctx, p1, l1) == 1 &&
	     (!l2 || EVP_MAC_update(ctx, p2, l2) == 1) &&
	     EVP_MAC_final(ctx, out, &outl, UBIFS_MAX_HMAC_LEN) == 1;
	EVP_MAC_CTX_free(ctx);
	return ok ? 0 : -1;
}

int ubifs_auth_hmac(struct ubifs_auth *a, const void *buf, size_t len,
		    uint8_t *out)
{
	return hmac_parts(a, buf, len, NULL, 0, out);
}

struct ubifs_hash_state {
	EVP_MD_CTX *ctx;
};

struct ubifs_hash_state *ubifs_hash_state_new(struct ubifs_auth *a)
{
	struct ubifs_hash_state *s = xcalloc(1, sizeof(*s));

	s->ctx = EVP_MD_CTX_new();
	if (!s->ctx || EVP_DigestInit_ex(s->ctx, a->md, NULL) != 1) {
		ubifs_hash_state_free(s);
		return NULL;
	}
	return s;
}

void ubifs_hash_state_free(struct ubifs_hash_state *s)
{
	if (!s)
		return;
	EVP_MD_CTX_free(s->ctx);
	free(s);
}

int ubifs_hash_state_update(struct ubifs_hash_state *s, const void *buf,
			    size_t len)
{
	return EVP_DigestUpdate(s->ctx, buf, len) == 1 ? 0 : -1;
}

int ubifs_hash_state_copy(struct ubifs_hash_state *dst,
			  const struct ubifs_hash_state *src)
{
	return EVP_MD_CTX_copy_ex(dst->ctx, src->ctx) == 1 ? 0 : -1;
}

int ubifs_hash_state_hmac(struct ubifs_auth *a,
			  const struct ubifs_hash_state *s, uint8_t *out)
{
	uint8_t hash[UBIFS_MAX_HASH_LEN];
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok;

	ok = c && EVP_MD_CTX_copy_ex(c, s->ctx) == 1 &&
	     EVP_DigestFinal_ex(c, hash, NULL) == 1;
	EVP_MD_CTX_free(c);
	if (!ok)
		return -1;
	ok = !hmac_parts(a, hash, a->hash_len, NULL, 0, out);
	OPENSSL_cleanse(hash, sizeof(hash));
	return ok ? 0 : -1;
}

int ubifs_auth_node_hmac(struct ubifs_auth *a, const void *node, size_t len,
			 size_t ofs_hmac, uint8_t *out)
{
	const uint8_t *p = node;
	size_t behind = ofs_hmac + a->hash_len;

	if (ofs_hmac <= 8 || behind > len)
		return -1;
	return hmac_parts(a, p + 8, ofs_hmac - 8, p + behind, len - behind,
			  out);
}

int ubifs_mac_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

static void ssl_reason(char *why, size_t whylen, const char *what)
{
	unsigned long e = ERR_peek_last_error();
	char buf[256];

	if (e) {
		ERR_error_string_n(e, buf, sizeof(buf));
		snprintf(why, whylen, "%s: %s", what, buf);
	} else {
		snprintf(why, whylen, "%s", what);
	}
	ERR_clear_error();
}

static X509 *read_cert(const char *path, char *why, size_t whylen)
{
	BIO *b = BIO_new_file(path, "rb");
	X509 *x = NULL;
	unsigned char head[2];

	if (!b) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* DER starts with a SEQUENCE of long form length; else PEM. */
	if (BIO_read(b, head, 2) == 2 && BIO_reset(b) == 0) {
		if (head[0] == 0x30 && head[1] >= 0x81 && head[1] <= 0x84)
			x = d2i_X509_bio(b, NULL);
		else
			x = PEM_read_bio_X509(b, NULL, NULL, NULL);
	}
	BIO_free(b);
	if (!x)
		ssl_reason(why, whylen, "cannot read certificate");
	return x;
}

int ubifs_sig_verify(const char *cert_path, const void *data, size_t len,
		     const void *sig, size_t sig_len, char *why, size_t whylen)
{
	const unsigned char *p = sig;
	CMS_ContentInfo *cms;
	STACK_OF(X509) *certs = NULL;
	BIO *content = NULL;
	X509 *cert;
	int ret = -1;

	cert = read_cert(cert_path, why, whylen);
	if (!cert)
		return -1;
	cms = d2i_CMS_ContentInfo(NULL, &p, sig_len);
	if (!cms) {
		ssl_reason(why, whylen, "signature is not PKCS#7/CMS");
		goto out;
	}
	certs = sk_X509_new_null();
	content = BIO_new_mem_buf(data, len);
	if (!certs || !content || !sk_X509_push(certs, cert)) {
		ssl_reason(why, whylen, "out of memory");
		goto out;
	}
	cert = NULL;
	/*
	 * The certificate given is the trust anchor itself (the kernel
	 * checks against its keyring), so the signer is not chain-verified;
	 * the signature must still be made by the certificate's key.
	 */
	if (CMS_verify(cms, certs, NULL, content, NULL,
		       CMS_BINARY | CMS_NOINTERN |
		       CMS_NO_SIGNER_CERT_VERIFY) == 1)
		ret = 0;
	else
		ssl_reason(why, whylen, "signature does not verify");
out:
	BIO_free(content);
	sk_X509_pop_free(certs, X509_free);
	X509_free(cert);
	CMS_ContentInfo_free(cms);
	return ret;
}

int ubifs_sig_create(const char *key_path, const char *cert_path,
		     int hash_algo, const void *data, size_t len,
		     uint8_t **der, size_t *der_len, char *why, size_t whylen)
{
	const unsigned int flags = CMS_NOCERTS | CMS_BINARY;
	CMS_ContentInfo *cms = NULL;
	EVP_PKEY *key = NULL;
	BIO *b, *content = NULL;
	X509 *cert;
	unsigned char *out = NULL;
	int n, ret = -1;

	cert = read_cert(cert_path, why, whylen);
	if (!cert)
		return -1;
	b = BIO_new_file(key_path, "rb");
	if (!b) {
		snprintf(why, whylen, "%s: %s", key_path, strerror(errno));
		goto out;
	}
	key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	BIO_free(b);
	if (!key) {
		ssl_reason(why, whylen, "cannot read private key");
		goto out;
	}
	if (X509_check_private_key(cert, key) != 1) {
		ssl_reason(why, whylen, "the key does not match the certificate");
		goto out;
	}
	content = BIO_new_mem_buf(data, len);
	cms = CMS_sign(NULL, NULL, NULL, NULL,
		       flags | CMS_PARTIAL | CMS_DETACHED | CMS_STREAM);
	if (!content || !cms ||
	    !CMS_add1_signer(cms, cert, key, hash_md(hash_algo),
			     flags | CMS_NOSMIMECAP | CMS_NOATTR) ||
	    CMS_final(cms, content, NULL, flags) != 1) {
		ssl_reason(why, whylen, "signing failed");
		goto out;
	}
	n = i2d_CMS_ContentInfo(cms, &out);
	if (n <= 0) {
		ssl_reason(why, whylen, "cannot encode the signature");
		goto out;
	}
	*der = xmalloc(n);
	memcpy(*der, out, n);
	*der_len = n;
	OPENSSL_free(out);
	ret = 0;
out:
	BIO_free(content);
	CMS_ContentInfo_free(cms);
	EVP_PKEY_free(key);
	X509_free(cert);
	return ret;
}

int ubifs_read_key_file(const char *path, uint8_t **key, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	long n = strbuf_read_file(&sb, path, 64);

	if (n < 0) {
		strbuf_release(&sb);
		return (int)n;
	}
	if (n == 0) {
		strbuf_release(&sb);
		return -EINVAL;
	}
	*len = sb.len;
	*key = (uint8_t *)strbuf_detach(&sb, NULL);
	return 0;
}

static long find_key(const char *type, const char *desc)
{
	return syscall(SYS_request_key, type, desc, NULL, 0);
}

int ubifs_read_key_desc(const char *desc, uint8_t **key, size_t *len,
			char *why, size_t whylen)
{
	long id = find_key("user", desc), n, got;
	uint8_t *buf;

	if (id < 0) {
		if (find_key("logon", desc) >= 0)
			snprintf(why, whylen, "'%s' is a logon key, which user "
				 "space cannot read: add it as a user key too, "
				 "or use --key-file", desc);
		else
			snprintf(why, whylen, "no user key '%s' in the keyrings "
				 "of this process: %s", desc, strerror(errno));
		return -1;
	}
	n = syscall(SYS_keyctl, KEYCTL_READ, id, NULL, 0);
	if (n <= 0) {
		snprintf(why, whylen, "cannot read key '%s': %s", desc,
			 n ? strerror(errno) : "empty");
		return -1;
	}
	buf = xmalloc(n);
	got = syscall(SYS_keyctl, KEYCTL_READ, id, buf, n);
	if (got != n) {
		OPENSSL_cleanse(buf, n);
		free(buf);
		snprintf(why, whylen, "cannot read key '%s': %s", desc,
			 got < 0 ? strerror(errno) : "changed size");
		return -1;
	}
	*key = buf;
	*len = n;
	return 0;
}
