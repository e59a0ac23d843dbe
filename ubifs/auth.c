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

#include "ubifs/auth.h"
#include "ubifs/media.h"
#include "util/strbuf.h"
#include "util/usage.h"

struct ubifs_auth {
	/* Fetched once: with the implicit EVP_get_digestbyname() digest,
	 * OpenSSL 3 fetches again on every EVP_DigestInit_ex(), under a global
	 * lock (perf: 5% of verify in pthread_rwlock_rdlock/EVP_MD_up_ref). */
	EVP_MD *md;
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
	int len = md ? EVP_MD_get_size(md) : -EINVAL;

	return len > UBIFS_MAX_HASH_LEN ? -EINVAL : len;
}

int ubifs_hash_weak(int hash_algo)
{
	const char *name = ubifs_hash_name(hash_algo);

	return name && (!strcmp(name, "md4") || !strcmp(name, "md5") ||
			!strcmp(name, "sha1"));
}

int ubifs_hash_algo_by_name(const char *name)
{
	int i;

	for (i = 0; i < HASH_NAMES_NR; i++)
		if (hash_names[i] && !strcmp(hash_names[i], name) &&
		    hash_md(i))
			return i;
	return -EINVAL;
}

struct ubifs_auth *ubifs_auth_new(int hash_algo, const uint8_t *hmac_key,
				  size_t key_len)
{
	struct ubifs_auth *a;
	const EVP_MD *md = hash_md(hash_algo);

	if (!md || ubifs_hash_len(hash_algo) <= 0)
		return NULL;
	a = xcalloc(1, sizeof(*a));
	a->md = EVP_MD_fetch(NULL, EVP_MD_get0_name(md), NULL);
	a->hash_len = EVP_MD_get_size(md);
	a->ctx = EVP_MD_CTX_new();
	if (hmac_key) {
		a->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
		a->key = xmalloc(key_len ? key_len : 1);
		memcpy(a->key, hmac_key, key_len);
		a->key_len = key_len;
	}
	if (!a->md || !a->ctx || (hmac_key && !a->mac)) {
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
	EVP_MD_free(a->md);
	EVP_MAC_free(a->mac);
	ubifs_key_free(a->key, a->key_len);
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
	return EVP_DigestInit_ex(a->ctx, a->md, NULL) == 1 ? 0 : -ENOMEM;
}

int ubifs_auth_hash_update(struct ubifs_auth *a, const void *buf, size_t len)
{
	return EVP_DigestUpdate(a->ctx, buf, len) == 1 ? 0 : -ENOMEM;
}

int ubifs_auth_hash_end(struct ubifs_auth *a, uint8_t *out)
{
	return EVP_DigestFinal_ex(a->ctx, out, NULL) == 1 ? 0 : -ENOMEM;
}

int ubifs_auth_hash(struct ubifs_auth *a, const void *buf, size_t len,
		    uint8_t *out)
{
	int ret = ubifs_auth_hash_begin(a);

	if (!ret)
		ret = ubifs_auth_hash_update(a, buf, len);
	return ret ? ret : ubifs_auth_hash_end(a, out);
}

static int hmac_parts(struct ubifs_auth *a, const void *p1, size_t l1,
		      const void *p2, size_t l2, uint8_t *out)
{
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx;
	size_t outl;
	int ok;

	if (!a->mac)
		return -EINVAL;
	ctx = EVP_MAC_CTX_new(a->mac);
	if (!ctx)
		return -ENOMEM;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
			(char *)EVP_MD_get0_name(a->md), 0);
	params[1] = OSSL_PARAM_construct_end();
	ok = EVP_MAC_init(ctx, a->key, a->key_len, params) == 1 &&
	     EVP_MAC_update(ctx, p1, l1) == 1 &&
	     (!l2 || EVP_MAC_update(ctx, p2, l2) == 1) &&
	     EVP_MAC_final(ctx, out, &outl, UBIFS_MAX_HMAC_LEN) == 1;
	EVP_MAC_CTX_free(ctx);
	return ok ? 0 : -ENOMEM;
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
	return EVP_DigestUpdate(s->ctx, buf, len) == 1 ? 0 : -ENOMEM;
}

int ubifs_hash_state_copy(struct ubifs_hash_state *dst,
			  const struct ubifs_hash_state *src)
{
	return EVP_MD_CTX_copy_ex(dst->ctx, src->ctx) == 1 ? 0 : -ENOMEM;
}

int ubifs_hash_state_hmac(struct ubifs_auth *a,
			  const struct ubifs_hash_state *s, uint8_t *out)
{
	uint8_t hash[UBIFS_MAX_HASH_LEN];
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok, ret;

	ok = c && EVP_MD_CTX_copy_ex(c, s->ctx) == 1 &&
	     EVP_DigestFinal_ex(c, hash, NULL) == 1;
	EVP_MD_CTX_free(c);
	if (!ok)
		return -ENOMEM;
	ret = hmac_parts(a, hash, a->hash_len, NULL, 0, out);
	OPENSSL_cleanse(hash, sizeof(hash));
	return ret;
}

int ubifs_auth_node_hmac(struct ubifs_auth *a, const void *node, size_t len,
			 size_t ofs_hmac, uint8_t *out)
{
	const uint8_t *p = node;
	size_t behind = ofs_hmac + a->hash_len;

	if (ofs_hmac <= 8 || behind > len)
		return -EINVAL;
	return hmac_parts(a, p + 8, ofs_hmac - 8, p + behind, len - behind,
			  out);
}

int ubifs_mac_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

/* what, and OpenSSL's last error if it has one. */
static void ssl_reason(struct strbuf *err, const char *what)
{
	unsigned long e = ERR_peek_last_error();
	char buf[256];

	strbuf_addstr(err, what);
	if (e) {
		ERR_error_string_n(e, buf, sizeof(buf));
		strbuf_addf(err, ": %s", buf);
	}
	ERR_clear_error();
}

static X509 *read_cert(const char *path, struct strbuf *err)
{
	BIO *b = BIO_new_file(path, "rb");
	X509 *x = NULL;
	unsigned char head[2];

	if (!b) {
		strbuf_addf(err, "%s: %s", path, strerror(errno));
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
		ssl_reason(err, "cannot read certificate");
	return x;
}

/* One DER header at *p: its tag and the length of its contents. */
static int der_head(const unsigned char **p, long *left, int *tag,
		    long *len)
{
	const unsigned char *q = *p;
	int cls, ret = ASN1_get_object(&q, len, tag, &cls, *left);

	/* 0x80: no valid header; 1: indefinite length, which DER has not */
	if ((ret & 0x81) || *len > *left - (q - *p))
		return -EINVAL;
	*tag |= cls;
	*left -= q - *p;
	*p = q;
	return 0;
}

static int der_skip(const unsigned char **p, long *left)
{
	int tag;
	long len;

	if (der_head(p, left, &tag, &len))
		return -EINVAL;
	*p += len;
	*left -= len;
	return 0;
}

static int der_version(const unsigned char **p, long *left)
{
	int tag;
	long len;

	if (der_head(p, left, &tag, &len) || tag != V_ASN1_INTEGER ||
	    len != 1)
		return -EINVAL;
	*left -= 1;
	return *(*p)++;
}

/*
 * The version numbers OpenSSL reads past: SignedData and each SignerInfo
 * version, in DER order, as the kernel's pkcs7_note_signeddata_version()
 * and pkcs7_note_signerinfo_version() check them.  Returns the number of
 * signer versions stored, or -EINVAL.
 */
static int sig_versions(const unsigned char *der, long len, int *sd_version,
			int *si_version, int max)
{
	const unsigned char *p = der;
	long left = len, l;
	int tag, n = 0;

	if (der_head(&p, &left, &tag, &l) || der_skip(&p, &left) ||
	    der_head(&p, &left, &tag, &l) || der_head(&p, &left, &tag, &l))
		return -EINVAL;
	left = l;
	*sd_version = der_version(&p, &left);
	if (*sd_version < 0 || der_skip(&p, &left) || der_skip(&p, &left))
		return -EINVAL;
	while (left > 0 && (*p & 0xc0) == 0x80)	/* [0] certificates, [1] crls */
		if (der_skip(&p, &left))
			return -EINVAL;
	if (der_head(&p, &left, &tag, &l) || tag != V_ASN1_SET)
		return -EINVAL;
	left = l;
	while (left > 0 && n < max) {
		const unsigned char *end;
		long si_left;

		if (der_head(&p, &left, &tag, &l) || tag != V_ASN1_SEQUENCE)
			return -EINVAL;
		end = p + l;
		si_left = l;
		left -= l;
		si_version[n++] = der_version(&p, &si_left);
		p = end;
	}
	return n;
}

/* What a signer's sid must be for its version (RFC 5652 5.3). */
static int signer_fits(CMS_SignerInfo *si, int si_version, int sd_version)
{
	/* Only the fields of the identifier's kind are set. */
	ASN1_OCTET_STRING *keyid = NULL;
	X509_NAME *issuer = NULL;
	ASN1_INTEGER *serial = NULL;

	if (CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer, &serial) != 1)
		return 0;
	if (si_version == 1)
		return sd_version == 1 && issuer && serial;
	if (si_version == 3)
		return sd_version != 1 && keyid;
	return 0;
}

/* RSA signature and digest algorithms take NULL or no parameters; other
 * bytes there would be read past by both OpenSSL and the kernel. */
static int plain_params(const X509_ALGOR *alg)
{
	int ptype;

	X509_ALGOR_get0(NULL, &ptype, NULL, alg);
	return ptype == V_ASN1_UNDEF || ptype == V_ASN1_NULL;
}

/*
 * The kernel's pkcs7_sig_note_pkey_algo() takes rsaEncryption (and ECDSA
 * with a named digest); OpenSSL would also verify with any
 * <digest>WithRSAEncryption, even one naming another digest than the
 * signer's.
 */
static int sig_algo_fits(const X509_ALGOR *alg, const EVP_MD *md)
{
	const ASN1_OBJECT *obj;
	int nid, dig, pkey;

	X509_ALGOR_get0(&obj, NULL, NULL, alg);
	nid = OBJ_obj2nid(obj);
	if (nid == NID_rsaEncryption)
		return 1;
	return OBJ_find_sigid_algs(nid, &dig, &pkey) &&
	       pkey == NID_X9_62_id_ecPublicKey && dig == EVP_MD_get_type(md);
}

/*
 * What the kernel's PKCS#7 parser and pkcs7_verify() refuse before any
 * key is tried: a SignedData version other than 1 or 3, a SignerInfo
 * whose version does not fit it and its signer identifier, content that
 * is not id-data (VERIFYING_UNSPECIFIED_SIGNATURE), and no signer at
 * all.  OpenSSL's CMS_verify() accepts all of these.  A signer whose
 * digest is not the superblock's hash algorithm is refused too: the
 * superblock names the one algorithm that authenticates this image.
 */
static int check_sig_form(CMS_ContentInfo *cms, int hash_algo,
			  const void *sig, size_t sig_len, struct strbuf *err)
{
	STACK_OF(CMS_SignerInfo) *sis;
	const EVP_MD *md = hash_md(hash_algo);
	int sd_version, si_version[8], nv, i;

	nv = sig_versions(sig, sig_len, &sd_version, si_version, 8);
	if (nv < 0 || (sd_version != 1 && sd_version != 3)) {
		strbuf_addstr(err, "unsupported SignedData version");
		return -EINVAL;
	}

	if (OBJ_obj2nid(CMS_get0_type(cms)) != NID_pkcs7_signed) {
		strbuf_addstr(err, "signature is not a PKCS#7 SignedData");
		return -EINVAL;
	}
	if (OBJ_obj2nid(CMS_get0_eContentType(cms)) != NID_pkcs7_data) {
		strbuf_addstr(err, "signed content type is not id-data");
		return -EINVAL;
	}
	sis = CMS_get0_SignerInfos(cms);
	if (!md || sk_CMS_SignerInfo_num(sis) < 1) {
		strbuf_addstr(err, "signature has no signer");
		return -EINVAL;
	}
	if (nv != sk_CMS_SignerInfo_num(sis)) {
		strbuf_addf(err, "signature has %d signers, at most 8 "
			    "are read", sk_CMS_SignerInfo_num(sis));
		return -EINVAL;
	}
	for (i = 0; i < nv; i++) {
		CMS_SignerInfo *si = sk_CMS_SignerInfo_value(sis, i);
		X509_ALGOR *dig, *alg;
		const ASN1_OBJECT *obj;

		if (!signer_fits(si, si_version[i], sd_version)) {
			strbuf_addf(err, "signer %d: version %d does not "
				    "fit the SignedData version %d or its signer "
				    "identifier", i, si_version[i], sd_version);
			return -EINVAL;
		}
		CMS_SignerInfo_get0_algs(si, NULL, NULL, &dig, &alg);
		if (!plain_params(dig) || !plain_params(alg)) {
			strbuf_addf(err, "signer %d: unexpected algorithm "
				    "parameters", i);
			return -EINVAL;
		}
		if (!sig_algo_fits(alg, md)) {
			strbuf_addf(err, "signer %d: unsupported signature "
				    "algorithm", i);
			return -EINVAL;
		}
		X509_ALGOR_get0(&obj, NULL, NULL, dig);
		if (OBJ_obj2nid(obj) != EVP_MD_get_type(md)) {
			strbuf_addf(err, "signer %d digests with %s, the "
				    "superblock's hash is %s", i,
				    OBJ_nid2sn(OBJ_obj2nid(obj)),
				    ubifs_hash_name(hash_algo));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * OpenSSL's decoder lets through encodings that the kernel's ASN.1
 * decoder, which compares tag bytes exactly, refuses (a SET with its
 * constructed bit clear, for one): the signature must read back as the
 * bytes OpenSSL itself would write, as mkfs.ubifs's are.
 */
static int der_canonical(CMS_ContentInfo *cms, const void *sig,
			 size_t sig_len)
{
	unsigned char *der = NULL;
	int n = i2d_CMS_ContentInfo(cms, &der), same;

	same = n > 0 && (size_t)n == sig_len && !memcmp(der, sig, sig_len);
	OPENSSL_free(der);
	return same;
}

static int same_der_name(const X509_NAME *a, const X509_NAME *b)
{
	unsigned char *da = NULL, *db = NULL;
	int na = i2d_X509_NAME(a, &da), nb = i2d_X509_NAME(b, &db);
	int same = na > 0 && na == nb && !memcmp(da, db, na);

	OPENSSL_free(da);
	OPENSSL_free(db);
	return same;
}

/*
 * OpenSSL finds a signer's certificate by comparing names in canonical
 * form (case folded, encoding normalised); the kernel looks the key up
 * by the issuer's bytes and the serial, so a signer identifier whose
 * issuer differs from the certificate's in any byte names another key.
 */
static int signers_are(CMS_ContentInfo *cms, X509 *cert)
{
	STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(cms);
	int i;

	for (i = 0; i < sk_CMS_SignerInfo_num(sis); i++) {
		ASN1_OCTET_STRING *keyid = NULL;
		X509_NAME *issuer = NULL;
		ASN1_INTEGER *serial = NULL;
		const ASN1_OCTET_STRING *skid;
		CMS_SignerInfo *si = sk_CMS_SignerInfo_value(sis, i);

		if (CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer,
						  &serial) != 1)
			return 0;
		if (keyid) {
			skid = X509_get0_subject_key_id(cert);
			if (!skid || ASN1_OCTET_STRING_cmp(keyid, skid))
				return 0;
		} else if (ASN1_INTEGER_cmp(serial,
					    X509_get0_serialNumber(cert)) ||
			   !same_der_name(issuer,
					  X509_get_issuer_name(cert))) {
			return 0;
		}
	}
	return 1;
}

int ubifs_sig_verify(const char *cert_path, int hash_algo, const void *data,
		     size_t len, const void *sig, size_t sig_len,
		     struct strbuf *err)
{
	const unsigned char *p = sig;
	CMS_ContentInfo *cms;
	STACK_OF(X509) *certs = NULL;
	BIO *content = NULL, *buf, *mem;
	X509 *cert;
	int ret = -EINVAL;

	cert = read_cert(cert_path, err);
	if (!cert)
		return -EINVAL;
	cms = d2i_CMS_ContentInfo(NULL, &p, sig_len);
	if (!cms) {
		ssl_reason(err, "signature is not PKCS#7/CMS");
		goto out;
	}
	if (!der_canonical(cms, sig, sig_len)) {
		strbuf_addf(err, "signature is not in DER");
		goto out;
	}
	ret = check_sig_form(cms, hash_algo, sig, sig_len, err);
	if (ret)
		goto out;
	ret = -EINVAL;
	if (!signers_are(cms, cert)) {
		strbuf_addf(err, "signature does not verify: a signer is "
			    "not the certificate's key");
		goto out;
	}
	certs = sk_X509_new_null();
	/*
	 * Behind a buffer BIO: given a bare memory BIO, OpenSSL 3.0's
	 * CMS_verify() reads through a copy of its own, which it leaks when
	 * CMS_dataInit() then fails with CMS_BINARY (crypto/cms/cms_smime.c;
	 * fixed upstream in 2026, openssl pull request 30535, not in Debian
	 * 12's 3.0.19).  A mutated signature reaches that (found by
	 * tests/fuzz/run-ubifs.sh).
	 */
	buf = BIO_new(BIO_f_buffer());
	mem = BIO_new_mem_buf(data, len);
	content = buf && mem ? BIO_push(buf, mem) : NULL;
	if (!content) {
		BIO_free(buf);
		BIO_free(mem);
	}
	if (!certs || !content || !sk_X509_push(certs, cert)) {
		ssl_reason(err, "out of memory");
		ret = -ENOMEM;
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
		ssl_reason(err, "signature does not verify");
out:
	BIO_free_all(content);
	sk_X509_pop_free(certs, X509_free);
	X509_free(cert);
	CMS_ContentInfo_free(cms);
	return ret;
}

int ubifs_sig_create(const char *key_path, const char *cert_path,
		     int hash_algo, const void *data, size_t len,
		     uint8_t **der, size_t *der_len, struct strbuf *err)
{
	const unsigned int flags = CMS_NOCERTS | CMS_BINARY;
	CMS_ContentInfo *cms = NULL;
	EVP_PKEY *key = NULL;
	BIO *b, *content = NULL;
	X509 *cert;
	unsigned char *out = NULL;
	int n, ret = -EINVAL;

	cert = read_cert(cert_path, err);
	if (!cert)
		return -EINVAL;
	b = BIO_new_file(key_path, "rb");
	if (!b) {
		ret = errno ? -errno : -EINVAL;
		strbuf_addf(err, "%s: %s", key_path, strerror(errno));
		goto out;
	}
	key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	BIO_free(b);
	if (!key) {
		ssl_reason(err, "cannot read private key");
		goto out;
	}
	if (X509_check_private_key(cert, key) != 1) {
		ssl_reason(err, "the key does not match the certificate");
		goto out;
	}
	content = BIO_new_mem_buf(data, len);
	cms = CMS_sign(NULL, NULL, NULL, NULL,
		       flags | CMS_PARTIAL | CMS_DETACHED | CMS_STREAM);
	if (!content || !cms ||
	    !CMS_add1_signer(cms, cert, key, hash_md(hash_algo),
			     flags | CMS_NOSMIMECAP | CMS_NOATTR) ||
	    CMS_final(cms, content, NULL, flags) != 1) {
		ssl_reason(err, "signing failed");
		goto out;
	}
	n = i2d_CMS_ContentInfo(cms, &out);
	if (n <= 0) {
		ssl_reason(err, "cannot encode the signature");
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

void ubifs_key_free(uint8_t *key, size_t len)
{
	if (key)
		OPENSSL_cleanse(key, len);
	free(key);
}

int ubifs_read_key_file(const char *path, uint8_t **key, size_t *len,
			struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	long n = strbuf_read_file(&sb, path, 64);

	if (n <= 0) {
		strbuf_release(&sb);
		strbuf_addf(err, "cannot read the HMAC key: %s",
			    n ? strerror((int)-n) : "empty file");
		return n ? (int)n : -EINVAL;
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
			struct strbuf *err)
{
	long id = find_key("user", desc), n, got;
	int ret = -errno;
	uint8_t *buf;

	if (id < 0) {
		if (find_key("logon", desc) >= 0)
			strbuf_addf(err, "'%s' is a logon key, which user "
				    "space cannot read: add it as a user key too, "
				    "or use --key-file", desc);
		else
			strbuf_addf(err, "no user key '%s' in the keyrings "
				    "of this process: %s", desc,
				    strerror(errno));
		return ret;
	}
	n = syscall(SYS_keyctl, KEYCTL_READ, id, NULL, 0);
	if (n <= 0) {
		ret = n ? -errno : -EINVAL;
		strbuf_addf(err, "cannot read key '%s': %s", desc,
			    n ? strerror(errno) : "empty");
		return ret;
	}
	buf = xmalloc(n);
	got = syscall(SYS_keyctl, KEYCTL_READ, id, buf, n);
	if (got != n) {
		ret = got < 0 ? -errno : -EINVAL;
		ubifs_key_free(buf, n);
		strbuf_addf(err, "cannot read key '%s': %s", desc,
			    got < 0 ? strerror(-ret) : "changed size");
		return ret;
	}
	*key = buf;
	*len = n;
	return 0;
}
