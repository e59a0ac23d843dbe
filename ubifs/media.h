/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_MEDIA_H
#define TK_UBIFS_MEDIA_H

#include <stdint.h>

/*
 * UBIFS on-flash format, as the kernel's fs/ubifs/ubifs-media.h defines it
 * (format version 4/5 with the authentication fields of kernel 4.20 and the
 * signature node of 5.3).  All fields are little-endian.  Offsets were
 * checked against mkfs.ubifs 2.1.5 output with xxd: e.g. sb.hash_algo at
 * 0x100, sb.hash_mst at 0x102, mst.hash_root_idx at 0xa8, mst.hmac at 0x128.
 */

#define UBIFS_NODE_MAGIC	0x06101831u
#define UBIFS_CRC32_INIT	0xFFFFFFFFu
#define UBIFS_MIN_LEB_SZ	(15 * 1024)
#define UBIFS_PADDING_BYTE	0xCE
#define UBIFS_SK_LEN		8	/* "simple" key format */
#define UBIFS_MIN_FANOUT	3
#define UBIFS_MAX_LEVELS	512
#define UBIFS_BLOCK_SIZE	4096
#define UBIFS_MAX_HASH_LEN	64
#define UBIFS_MAX_HMAC_LEN	64
#define UBIFS_MAX_NLEN		255

#define UBIFS_SB_LNUM		0
#define UBIFS_MST_LNUM		1
#define UBIFS_LOG_LNUM		3

enum ubifs_node_type {
	UBIFS_INO_NODE,
	UBIFS_DATA_NODE,
	UBIFS_DENT_NODE,
	UBIFS_XENT_NODE,
	UBIFS_TRUN_NODE,
	UBIFS_PAD_NODE,
	UBIFS_SB_NODE,
	UBIFS_MST_NODE,
	UBIFS_REF_NODE,
	UBIFS_IDX_NODE,
	UBIFS_CS_NODE,
	UBIFS_ORPH_NODE,
	UBIFS_AUTH_NODE,
	UBIFS_SIG_NODE,
	UBIFS_NODE_TYPES_CNT,
};

/* Key types: same numbers as the leaf node types they index. */
enum {
	UBIFS_INO_KEY,
	UBIFS_DATA_KEY,
	UBIFS_DENT_KEY,
	UBIFS_XENT_KEY,
};
#define UBIFS_S_KEY_BLOCK_BITS	29
#define UBIFS_S_KEY_BLOCK_MASK	0x1FFFFFFFu

enum {
	UBIFS_FLG_BIGLPT = 0x02,
	UBIFS_FLG_SPACE_FIXUP = 0x04,
	UBIFS_FLG_DOUBLE_HASH = 0x08,
	UBIFS_FLG_ENCRYPTION = 0x10,
	UBIFS_FLG_AUTHENTICATION = 0x20,
};
#define UBIFS_FLG_MASK		(UBIFS_FLG_BIGLPT | UBIFS_FLG_SPACE_FIXUP | \
				 UBIFS_FLG_DOUBLE_HASH | \
				 UBIFS_FLG_ENCRYPTION | \
				 UBIFS_FLG_AUTHENTICATION)
/* ubifs_read_superblock() refuses formats below 3; 5 is the newest
 * (authentication, 4.20).  A newer one may mean anything. */
#define UBIFS_FORMAT_VERSION	5

enum {
	UBIFS_MST_DIRTY = 1,
	UBIFS_MST_NO_ORPHS = 2,
	UBIFS_MST_RCVRY = 4,
};

enum {
	UBIFS_COMPR_NONE,
	UBIFS_COMPR_LZO,
	UBIFS_COMPR_ZLIB,
	UBIFS_COMPR_ZSTD,
};

enum {
	UBIFS_ITYPE_REG,
	UBIFS_ITYPE_DIR,
	UBIFS_ITYPE_LNK,
	UBIFS_ITYPE_BLK,
	UBIFS_ITYPE_CHR,
	UBIFS_ITYPE_FIFO,
	UBIFS_ITYPE_SOCK,
};

#define UBIFS_SIGNATURE_TYPE_PKCS7 1

struct ubifs_ch {
	uint32_t magic;
	uint32_t crc;		/* over bytes 8..len */
	uint64_t sqnum;
	uint32_t len;
	uint8_t node_type;
	uint8_t group_type;
	uint8_t padding[2];
} __attribute__((packed));

struct ubifs_ino_node {
	struct ubifs_ch ch;
	uint8_t key[16];
	uint64_t creat_sqnum;
	uint64_t size;
	uint64_t atime_sec;
	uint64_t ctime_sec;
	uint64_t mtime_sec;
	uint32_t atime_nsec;
	uint32_t ctime_nsec;
	uint32_t mtime_nsec;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint32_t mode;
	uint32_t flags;
	uint32_t data_len;
	uint32_t xattr_cnt;
	uint32_t xattr_size;
	uint8_t padding1[4];
	uint32_t xattr_names;
	uint16_t compr_type;
	uint8_t padding2[26];
	uint8_t data[];
} __attribute__((packed));

struct ubifs_dent_node {
	struct ubifs_ch ch;
	uint8_t key[16];
	uint64_t inum;
	uint8_t padding1;
	uint8_t type;
	uint16_t nlen;
	uint32_t cookie;
	uint8_t name[];
} __attribute__((packed));

struct ubifs_data_node {
	struct ubifs_ch ch;
	uint8_t key[16];
	uint32_t size;
	uint16_t compr_type;
	uint16_t compr_size;
	uint8_t data[];
} __attribute__((packed));

struct ubifs_trun_node {
	struct ubifs_ch ch;
	uint32_t inum;
	uint8_t padding[12];
	uint64_t old_size;
	uint64_t new_size;
} __attribute__((packed));

struct ubifs_pad_node {
	struct ubifs_ch ch;
	uint32_t pad_len;
} __attribute__((packed));

struct ubifs_sb_node {
	struct ubifs_ch ch;
	uint8_t padding[2];
	uint8_t key_hash;
	uint8_t key_fmt;
	uint32_t flags;
	uint32_t min_io_size;
	uint32_t leb_size;
	uint32_t leb_cnt;
	uint32_t max_leb_cnt;
	uint64_t max_bud_bytes;
	uint32_t log_lebs;
	uint32_t lpt_lebs;
	uint32_t orph_lebs;
	uint32_t jhead_cnt;
	uint32_t fanout;
	uint32_t lsave_cnt;
	uint32_t fmt_version;
	uint16_t default_compr;
	uint8_t padding1[2];
	uint32_t rp_uid;
	uint32_t rp_gid;
	uint64_t rp_size;
	uint32_t time_gran;
	uint8_t uuid[16];
	uint32_t ro_compat_version;
	uint8_t hmac[UBIFS_MAX_HMAC_LEN];
	uint8_t hmac_wkm[UBIFS_MAX_HMAC_LEN];
	uint16_t hash_algo;
	uint8_t hash_mst[UBIFS_MAX_HASH_LEN];
	uint8_t padding2[3774];
} __attribute__((packed));

struct ubifs_mst_node {
	struct ubifs_ch ch;
	uint64_t highest_inum;
	uint64_t cmt_no;
	uint32_t flags;
	uint32_t log_lnum;
	uint32_t root_lnum;
	uint32_t root_offs;
	uint32_t root_len;
	uint32_t gc_lnum;
	uint32_t ihead_lnum;
	uint32_t ihead_offs;
	uint64_t index_size;
	uint64_t total_free;
	uint64_t total_dirty;
	uint64_t total_used;
	uint64_t total_dead;
	uint64_t total_dark;
	uint32_t lpt_lnum;
	uint32_t lpt_offs;
	uint32_t nhead_lnum;
	uint32_t nhead_offs;
	uint32_t ltab_lnum;
	uint32_t ltab_offs;
	uint32_t lsave_lnum;
	uint32_t lsave_offs;
	uint32_t lscan_lnum;
	uint32_t empty_lebs;
	uint32_t idx_lebs;
	uint32_t leb_cnt;
	uint8_t hash_root_idx[UBIFS_MAX_HASH_LEN];
	uint8_t hash_lpt[UBIFS_MAX_HASH_LEN];
	uint8_t hmac[UBIFS_MAX_HMAC_LEN];
	uint8_t padding[152];
} __attribute__((packed));

struct ubifs_ref_node {
	struct ubifs_ch ch;
	uint32_t lnum;
	uint32_t offs;
	uint32_t jhead;
	uint8_t padding[28];
} __attribute__((packed));

struct ubifs_sig_node {
	struct ubifs_ch ch;
	uint32_t type;
	uint32_t len;
	uint8_t padding[32];
	uint8_t sig[];
} __attribute__((packed));

/*
 * An index branch is lnum, offs, len, then the key (UBIFS_SK_LEN bytes)
 * and, in authenticated images only, the hash of the child node.
 */
struct ubifs_branch {
	uint32_t lnum;
	uint32_t offs;
	uint32_t len;
	uint8_t key[];
} __attribute__((packed));

struct ubifs_idx_node {
	struct ubifs_ch ch;
	uint16_t child_cnt;
	uint16_t level;
	uint8_t branches[];
} __attribute__((packed));

struct ubifs_cs_node {
	struct ubifs_ch ch;
	uint64_t cmt_no;
} __attribute__((packed));

#define UBIFS_CH_SZ		sizeof(struct ubifs_ch)
#define UBIFS_INO_NODE_SZ	sizeof(struct ubifs_ino_node)
#define UBIFS_DATA_NODE_SZ	sizeof(struct ubifs_data_node)
#define UBIFS_DENT_NODE_SZ	sizeof(struct ubifs_dent_node)
#define UBIFS_TRUN_NODE_SZ	sizeof(struct ubifs_trun_node)
#define UBIFS_PAD_NODE_SZ	sizeof(struct ubifs_pad_node)
#define UBIFS_SB_NODE_SZ	sizeof(struct ubifs_sb_node)
#define UBIFS_MST_NODE_SZ	sizeof(struct ubifs_mst_node)
#define UBIFS_REF_NODE_SZ	sizeof(struct ubifs_ref_node)
#define UBIFS_SIG_NODE_SZ	sizeof(struct ubifs_sig_node)
#define UBIFS_IDX_NODE_SZ	sizeof(struct ubifs_idx_node)
#define UBIFS_CS_NODE_SZ	sizeof(struct ubifs_cs_node)
#define UBIFS_BRANCH_SZ		sizeof(struct ubifs_branch)
#define UBIFS_MAX_INO_NODE_SZ	(UBIFS_INO_NODE_SZ + UBIFS_BLOCK_SIZE)
#define UBIFS_MAX_DATA_NODE_SZ	(UBIFS_DATA_NODE_SZ + UBIFS_BLOCK_SIZE)
#define UBIFS_MAX_DENT_NODE_SZ	(UBIFS_DENT_NODE_SZ + UBIFS_MAX_NLEN + 1)

_Static_assert(sizeof(struct ubifs_ch) == 24, "ubifs_ch");
_Static_assert(sizeof(struct ubifs_ino_node) == 160, "ubifs_ino_node");
_Static_assert(sizeof(struct ubifs_dent_node) == 56, "ubifs_dent_node");
_Static_assert(sizeof(struct ubifs_data_node) == 48, "ubifs_data_node");
_Static_assert(sizeof(struct ubifs_trun_node) == 56, "ubifs_trun_node");
_Static_assert(sizeof(struct ubifs_sb_node) == 4096, "ubifs_sb_node");
_Static_assert(sizeof(struct ubifs_mst_node) == 512, "ubifs_mst_node");
_Static_assert(sizeof(struct ubifs_sig_node) == 64, "ubifs_sig_node");
_Static_assert(sizeof(struct ubifs_idx_node) == 28, "ubifs_idx_node");

/* LEB properties tree (lpt.c): bit-packed nodes with a CRC16 first. */
#define UBIFS_LPT_FANOUT	4
#define UBIFS_LPT_FANOUT_SHIFT	2
#define UBIFS_LPT_CRC_BITS	16
#define UBIFS_LPT_CRC_BYTES	2
#define UBIFS_LPT_TYPE_BITS	4
enum {
	UBIFS_LPT_PNODE,
	UBIFS_LPT_NNODE,
	UBIFS_LPT_LTAB,
	UBIFS_LPT_LSAVE,
};
#define LPROPS_INDEX		16	/* lprops flag stored in the pnode */

#endif
