/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_IMAGE_H
#define TK_UBIFS_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "ubifs/auth.h"
#include "ubifs/crc.h"
#include "ubifs/media.h"
#include "ubifs/ubi.h"
#include "util/strbuf.h"

/*
 * A UBIFS volume in memory (LEB n at n * leb_size) and the checks every
 * reader needs: the common header, CRCs and a per-LEB scan in the manner
 * of the kernel's scan.c.  Problems are collected in a report, one per
 * LEB:offset and node, rather than printed.
 */

struct ubifs_problem {
	int lnum;
	int offs;
	char *what;	/* "data node", "LPT pnode", ... */
	char *msg;
};

struct ubifs_report {
	struct ubifs_problem *v;
	int nr, alloc;
};

void ubifs_report_add(struct ubifs_report *r, int lnum, int offs,
		      const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void ubifs_report_clear(struct ubifs_report *r);
/* "LEB 7:0x1a40 data node: what failed" */
char *ubifs_problem_str(const struct ubifs_problem *p);

struct ubifs_geom {
	int min_io, leb_size, leb_cnt, max_leb_cnt;
	int log_lebs, lpt_lebs, orph_lebs, fanout, lsave_cnt;
	int lpt_first, lpt_last, orph_first, main_first;
	uint32_t flags;
	int fmt_version;
	int hash_algo;		/* enum hash_algo of the kernel */
	int hash_len;		/* 0 unless UBIFS_FLG_AUTHENTICATION */
	int branch_sz;		/* index branch with key and hash */
};

/*
 * One node found by scanning a LEB, with what the index walk needs of it,
 * so that the walk does not read leaves again: the key of nodes that have
 * one and the uncompressed size of data nodes.
 */
struct ubifs_snode {
	uint32_t offs;
	uint32_t len;
	uint8_t type;
	uint8_t crc_ok;
	uint8_t key[UBIFS_SK_LEN];
	uint32_t data_size;
};

struct ubifs_leb_scan {
	struct ubifs_snode *v;
	uint8_t *hash;		/* nr hashes of hash_len bytes, or NULL */
	int nr, alloc;
	int end;		/* first offset after the last node/padding */
	int bad;		/* scanning stopped at a corrupt spot */
};

struct ubifs_image {
	const uint8_t *data;
	size_t size;		/* bytes present, may end inside a LEB */
	/* The superblock as read once by init: g and every later check
	 * (signature, HMAC, hash_mst) use this copy, never the file. */
	struct ubifs_sb_node sb;
	struct ubifs_geom g;
	struct ubifs_crc crc;
	struct ubifs_leb_scan *scan;	/* g.leb_cnt entries once scanned */
	const char *ubi_note;		/* set when found inside a UBI image */
	struct ubifs_ubi_volume ubi_vol;	/* that volume */
	int ubi_nr_vols;		/* UBIFS volumes in the UBI image */
	void *owned;
	int mapped;			/* data is a read-only file mapping */
	int fd;				/* of that file: ubifs_node_read() */
	size_t file_size;		/* of the file, UBI headers and all */
};

/*
 * Reads the superblock of the volume in buf (which the caller keeps alive)
 * and fills img->g.  Returns 0, or -EINVAL after adding the reason to rep
 * when the geometry cannot be trusted enough to go on.
 */
int ubifs_image_init(struct ubifs_image *img, const void *buf, size_t len,
		     struct ubifs_report *rep);
/*
 * Opens the file at path as a UBIFS volume: a raw image (mkfs.ubifs
 * output), mapped read-only, or the UBIFS volume of a UBI image (ubinize
 * output, a flash dump) that volume names (ubifs_ubi_extract(); NULL for
 * the only one), reassembled in memory.  Returns 0, or a negative errno
 * with a one-line reason in err (the file name left to the caller) and
 * img released: that of the system call that failed, else -EINVAL.
 */
int ubifs_image_open(struct ubifs_image *img, const char *path,
		     const char *volume, struct ubifs_report *rep,
		     struct strbuf *err);
/*
 * What a UBI image at path holds, for the caller to choose a volume or
 * go through them all: returns 1 with uv filled by ubifs_ubi_list() (for
 * ubifs_ubi_vol_release()), 0 for a raw UBIFS image, or a negative errno
 * with a reason in err, as ubifs_image_open().
 */
int ubifs_image_volumes(const char *path, struct ubifs_ubi_vol *uv,
			struct strbuf *err);
/* Frees what init or open allocated, and unmaps what open mapped. */
void ubifs_image_release(struct ubifs_image *img);
/* The volume a message names: one of several in a UBI image, else NULL. */
const struct ubifs_ubi_volume *ubifs_image_volume(
	const struct ubifs_image *img);
/* Appends "IMG", or with a volume v "IMG: volume 1 "fs"", to sb. */
void ubifs_image_label(struct strbuf *sb, const char *path,
		       const struct ubifs_ubi_volume *v);

const char *ubifs_node_name(int type);
const uint8_t *ubifs_leb(const struct ubifs_image *img, int lnum);
/* Bytes of LEB lnum actually present in the image (0..leb_size). */
int ubifs_leb_avail(const struct ubifs_image *img, int lnum);
uint32_t ubifs_node_crc(const struct ubifs_image *img, const void *node,
			uint32_t len);

/*
 * Scans every LEB of the superblock, master, log, orphan and main areas,
 * on as many threads as there are CPUs (up to 4), and with hash set, in
 * an authenticated image, hashes every node found (scan[].hash).  Each
 * byte of the image is read once, in order; of a file mapping (mapped)
 * the pages are given back as the scan passes, so memory stays small
 * however large the image.  progress (may be NULL) is called now and then
 * with LEBs done/total.
 */
typedef void (*ubifs_progress_fn)(void *arg, int done, int total);
void ubifs_scan_all(struct ubifs_image *img, int hash,
		    struct ubifs_report *rep, ubifs_progress_fn progress,
		    void *arg);
/* The hash of a scanned node (hash_len bytes), or NULL. */
const uint8_t *ubifs_snode_hash(const struct ubifs_image *img, int lnum,
				const struct ubifs_snode *sn);
const struct ubifs_snode *ubifs_find_node(const struct ubifs_image *img,
					  int lnum, int offs);

/*
 * Copies the node of len bytes at lnum:offs into buf and checks the
 * copy: a node of that length starts there, its CRC holds and, with hash
 * (and auth, hashing with the image's algorithm), it hashes to hash.
 * Whatever is used of a node after the scan must come from such a copy:
 * a file mapping reads the file as it is now, and the file may have been
 * rewritten (or cut short) since its bytes were hashed.  A mapped image
 * is read with pread(), so that a file cut short is an error, not a
 * SIGBUS.  Returns 0, or a negative errno with the reason in err: that
 * of pread(), else -EINVAL.
 */
int ubifs_node_read(const struct ubifs_image *img, struct ubifs_auth *auth,
		    int lnum, int offs, uint32_t len, const uint8_t *hash,
		    void *buf, struct strbuf *err);

/* Keys of the "simple" format: inode number, then type:29-bit value. */
static inline uint32_t ubifs_key_inum(const uint8_t *key)
{
	return key[0] | key[1] << 8 | key[2] << 16 | (uint32_t)key[3] << 24;
}

static inline int ubifs_key_type(const uint8_t *key)
{
	return key[7] >> 5;
}

static inline uint32_t ubifs_key_val(const uint8_t *key)
{
	uint32_t v = key[4] | key[5] << 8 | key[6] << 16 |
		     (uint32_t)key[7] << 24;

	return v & UBIFS_S_KEY_BLOCK_MASK;
}

int ubifs_key_cmp(const uint8_t *a, const uint8_t *b);

#endif
