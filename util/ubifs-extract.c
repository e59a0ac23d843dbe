// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <zstd.h>

#include "util/strbuf.h"
#include "util/ubifs-extract.h"
#include "util/usage.h"

/* Leaves of the index in key order: a key groups everything of an inode. */
struct leaf {
	uint32_t inum;
	int type;
	const uint8_t *node;
};

struct ex {
	const struct ubifs_image *img;
	struct leaf *v;
	int nr, alloc;
	char *why;
	size_t whylen;
	int files;
};

static int fail(struct ex *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct ex *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->why, x->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static void collect(struct ex *x, int lnum, int offs)
{
	const struct ubifs_geom *g = &x->img->g;
	const struct ubifs_idx_node *idx =
		(const void *)(ubifs_leb(x->img, lnum) + offs);
	int cc = le16toh(idx->child_cnt), i;

	for (i = 0; i < cc; i++) {
		const struct ubifs_branch *br =
			(const void *)(idx->branches + (size_t)i * g->branch_sz);

		if (le16toh(idx->level)) {
			collect(x, le32toh(br->lnum), le32toh(br->offs));
			continue;
		}
		if (x->nr == x->alloc) {
			x->alloc = x->alloc ? 2 * x->alloc : 256;
			x->v = xrealloc(x->v, x->alloc * sizeof(*x->v));
		}
		x->v[x->nr].inum = ubifs_key_inum(br->key);
		x->v[x->nr].type = ubifs_key_type(br->key);
		x->v[x->nr].node = ubifs_leb(x->img, le32toh(br->lnum)) +
				   le32toh(br->offs);
		x->nr++;
	}
}

/* The leaves of inum: [*lo, *hi), found by binary search. */
static void range(const struct ex *x, uint32_t inum, int *lo, int *hi)
{
	int a = 0, b = x->nr;

	while (a < b) {
		int m = (a + b) / 2;

		if (x->v[m].inum < inum)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < x->nr && x->v[a].inum == inum)
		a++;
	*hi = a;
}

static const struct ubifs_ino_node *inode_of(const struct ex *x, uint32_t inum)
{
	int lo, hi;

	range(x, inum, &lo, &hi);
	if (lo < hi && x->v[lo].type == UBIFS_INO_KEY)
		return (const void *)x->v[lo].node;
	return NULL;
}

static int write_data(struct ex *x, int fd, uint32_t inum, uint64_t size)
{
	uint8_t block[UBIFS_BLOCK_SIZE];
	int lo, hi, i;

	range(x, inum, &lo, &hi);
	for (i = lo; i < hi; i++) {
		const struct ubifs_data_node *dn = (const void *)x->v[i].node;
		uint32_t len = le32toh(dn->ch.len) - UBIFS_DATA_NODE_SZ;
		uint32_t want = le32toh(dn->size);
		uint32_t bno = ubifs_key_val(dn->key);
		size_t got;

		if (x->v[i].type != UBIFS_DATA_KEY)
			continue;
		if (want > UBIFS_BLOCK_SIZE)
			return fail(x, "inode %u block %u: bad size", inum, bno);
		switch (le16toh(dn->compr_type)) {
		case UBIFS_COMPR_NONE:
			if (len < want)
				return fail(x, "inode %u block %u: short data",
					    inum, bno);
			memcpy(block, dn->data, want);
			got = want;
			break;
		case UBIFS_COMPR_ZSTD:
			got = ZSTD_decompress(block, sizeof(block), dn->data, len);
			if (ZSTD_isError(got))
				return fail(x, "inode %u block %u: zstd: %s", inum,
					    bno, ZSTD_getErrorName(got));
			break;
		default:
			return fail(x, "inode %u block %u: compression %d is "
				    "not supported (only none and zstd)", inum,
				    bno, le16toh(dn->compr_type));
		}
		if (got != want)
			return fail(x, "inode %u block %u: %zu bytes, expected %u",
				    inum, bno, got, want);
		if (pwrite(fd, block, got, (off_t)bno * UBIFS_BLOCK_SIZE) !=
		    (ssize_t)got)
			return fail(x, "write: %s", strerror(errno));
	}
	if (ftruncate(fd, size))
		return fail(x, "truncate: %s", strerror(errno));
	return 0;
}

static int set_xattrs(struct ex *x, const char *path, uint32_t inum)
{
	int lo, hi, i;

	range(x, inum, &lo, &hi);
	for (i = lo; i < hi; i++) {
		const struct ubifs_dent_node *xe = (const void *)x->v[i].node;
		const struct ubifs_ino_node *val;
		char name[UBIFS_MAX_NLEN + 1];

		if (x->v[i].type != UBIFS_XENT_KEY)
			continue;
		val = inode_of(x, le64toh(xe->inum));
		if (!val)
			return fail(x, "xattr of inode %u has no value inode", inum);
		snprintf(name, sizeof(name), "%.*s",
			 (int)le16toh(xe->nlen), (const char *)xe->name);
		if (lsetxattr(path, name, val->data, le32toh(val->data_len), 0) &&
		    errno != ENOTSUP && errno != EPERM)
			return fail(x, "%s: setxattr %s: %s", path, name,
				    strerror(errno));
	}
	return 0;
}

static void set_times(const char *path, const struct ubifs_ino_node *ino)
{
	struct timespec ts[2] = {
		{ le64toh(ino->atime_sec), le32toh(ino->atime_nsec) },
		{ le64toh(ino->mtime_sec), le32toh(ino->mtime_nsec) },
	};

	utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW);
}

struct seen_ino {
	uint32_t inum;
	char *path;
};

static int make_tree(struct ex *x, const char *dir, uint32_t dinum,
		     struct seen_ino **links, int *nlinks, int depth)
{
	struct strbuf path = STRBUF_INIT;
	int lo, hi, i, err = 0;

	if (depth > 4096)
		return fail(x, "directories nested too deep");
	range(x, dinum, &lo, &hi);
	for (i = lo; i < hi && !err; i++) {
		const struct ubifs_dent_node *de = (const void *)x->v[i].node;
		const struct ubifs_ino_node *ino;
		uint32_t inum = le64toh(de->inum);
		int nlen = le16toh(de->nlen), k, fd;
		uint32_t mode;

		if (x->v[i].type != UBIFS_DENT_KEY)
			continue;
		ino = inode_of(x, inum);
		if (!ino)
			return fail(x, "entry in inode %u names missing inode %u",
				    dinum, inum);
		if (memchr(de->name, '/', nlen) || !nlen ||
		    (nlen <= 2 && !memcmp(de->name, "..", nlen)))
			return fail(x, "bad name in directory inode %u", dinum);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%.*s", dir, nlen, (const char *)de->name);
		mode = le32toh(ino->mode);
		for (k = 0; k < *nlinks; k++)
			if ((*links)[k].inum == inum)
				break;
		if (k < *nlinks) {
			if (link((*links)[k].path, path.buf))
				err = fail(x, "%s: %s", path.buf, strerror(errno));
			continue;
		}
		switch (mode & S_IFMT) {
		case S_IFDIR:
			if (mkdir(path.buf, 0700))
				err = fail(x, "%s: %s", path.buf, strerror(errno));
			else
				err = make_tree(x, path.buf, inum, links,
						nlinks, depth + 1);
			break;
		case S_IFREG:
			fd = open(path.buf, O_WRONLY | O_CREAT | O_EXCL, 0600);
			if (fd < 0) {
				err = fail(x, "%s: %s", path.buf, strerror(errno));
				break;
			}
			err = write_data(x, fd, inum, le64toh(ino->size));
			close(fd);
			x->files++;
			if (le32toh(ino->nlink) > 1) {
				*links = xrealloc(*links, (*nlinks + 1) *
						  sizeof(**links));
				(*links)[*nlinks].inum = inum;
				(*links)[(*nlinks)++].path = xstrdup(path.buf);
			}
			break;
		case S_IFLNK: {
			char *target = xstrndup((const char *)ino->data,
						le32toh(ino->data_len));

			if (symlink(target, path.buf))
				err = fail(x, "%s: %s", path.buf, strerror(errno));
			free(target);
			break;
		}
		default:
			/* Devices, FIFOs and sockets: recorded, not recreated. */
			continue;
		}
		if (!err)
			err = set_xattrs(x, path.buf, inum);
		if (!err && (mode & S_IFMT) != S_IFLNK &&
		    chmod(path.buf, mode & 07777))
			err = fail(x, "%s: chmod: %s", path.buf, strerror(errno));
		if (!err)
			set_times(path.buf, ino);
	}
	strbuf_release(&path);
	return err;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int ubifs_extract(const struct ubifs_image *img, int root_lnum, int root_offs,
		  const char *dir, int *files, char *why, size_t whylen)
{
	struct ex x = { .img = img, .why = why, .whylen = whylen };
	struct strbuf tmp = STRBUF_INIT;
	struct seen_ino *links = NULL;
	const struct ubifs_ino_node *root;
	int nlinks = 0, err, i;

	struct stat st;

	if (!lstat(dir, &st))
		return fail(&x, "%s already exists", dir);
	collect(&x, root_lnum, root_offs);
	root = inode_of(&x, 1);
	if (!root) {
		free(x.v);
		return fail(&x, "no root inode");
	}
	strbuf_addf(&tmp, "%s.tmpXXXXXX", dir);
	if (!mkdtemp(tmp.buf)) {
		strbuf_release(&tmp);
		free(x.v);
		return fail(&x, "%s: %s", dir, strerror(errno));
	}
	err = make_tree(&x, tmp.buf, 1, &links, &nlinks, 0);
	if (!err)
		err = set_xattrs(&x, tmp.buf, 1);
	if (!err && chmod(tmp.buf, le32toh(root->mode) & 07777))
		err = fail(&x, "%s: %s", dir, strerror(errno));
	if (!err) {
		set_times(tmp.buf, root);
		if (rename(tmp.buf, dir))
			err = fail(&x, "%s: %s", dir, strerror(errno));
	}
	/* Leave nothing that could pass for a complete extraction. */
	if (err && nftw(tmp.buf, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		warning("could not remove %s", tmp.buf);
	for (i = 0; i < nlinks; i++)
		free(links[i].path);
	free(links);
	free(x.v);
	strbuf_release(&tmp);
	*files = x.files;
	return err;
}
