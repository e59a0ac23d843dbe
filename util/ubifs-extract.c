// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "util/ubifs-compr.h"
#include "util/ubifs-extract.h"
#include "util/usage.h"
#include "util/wrapper.h"

/* Leaves of the index in key order: a key groups everything of an inode. */
struct leaf {
	uint32_t inum;
	int type;
	int lnum, offs;
	const uint8_t *node;
	/* Inode leaves: where the inode was first created, so that a second
	 * entry becomes a hard link (files) or is refused (directories). */
	char *path;
};

/* A directory whose owner, mode and times are set once the tree is
 * complete: creating its entries would change its times, and a mode
 * without write or search permission would stop both the entries and,
 * on error, their removal. */
struct dir_meta {
	char *path;
	uint32_t inum;
	const struct ubifs_ino_node *ino;
};

struct ex {
	const struct ubifs_image *img;
	int root_lnum, root_offs;
	struct leaf *v;
	int nr, alloc;
	struct dir_meta *dirs;
	int ndirs;
	struct strbuf *err;
	int files;
	int chown;		/* root: restore owners, as tar does */
	const char *dir, *tmp;
	struct strbuf shown;
};

/* Messages name paths as they would be under DIR, not the temporary. */
static const char *shown(struct ex *x, const char *path)
{
	size_t n = strlen(x->tmp);

	if (strncmp(path, x->tmp, n))
		return path;
	strbuf_reset(&x->shown);
	strbuf_addf(&x->shown, "%s%s", x->dir, path + n);
	return x->shown.buf;
}

static uint32_t node_len(const struct leaf *l)
{
	return le32toh(((const struct ubifs_ch *)l->node)->len);
}

static const char *node_what(const struct leaf *l)
{
	return ubifs_node_name(((const struct ubifs_ch *)l->node)->node_type);
}

/* The fixed part of the node a key type names, as the kernel's
 * ubifs_validate_entry() and validate_inode() expect at least. */
static uint32_t min_len(int key_type)
{
	switch (key_type) {
	case UBIFS_INO_KEY:
		return UBIFS_INO_NODE_SZ;
	case UBIFS_DATA_KEY:
		return UBIFS_DATA_NODE_SZ;
	case UBIFS_DENT_KEY:
	case UBIFS_XENT_KEY:
		return UBIFS_DENT_NODE_SZ + 1;
	}
	return UBIFS_CH_SZ;
}

static int add_leaf(struct ex *x, const struct ubifs_branch *br)
{
	struct leaf *l;

	if (x->nr == x->alloc) {
		x->alloc = x->alloc ? 2 * x->alloc : 256;
		x->v = xrealloc(x->v, x->alloc * sizeof(*x->v));
	}
	l = &x->v[x->nr];
	l->inum = ubifs_key_inum(br->key);
	l->type = ubifs_key_type(br->key);
	l->lnum = le32toh(br->lnum);
	l->offs = le32toh(br->offs);
	l->node = ubifs_leb(x->img, l->lnum) + l->offs;
	l->path = NULL;
	x->nr++;
	if (node_len(l) < min_len(l->type))
		return strbuf_error(x->err, "LEB %d:0x%x %s: %u bytes, too short", l->lnum,
				    l->offs, node_what(l), node_len(l));
	return 0;
}

static int collect(struct ex *x, int lnum, int offs)
{
	const struct ubifs_geom *g = &x->img->g;
	const struct ubifs_idx_node *idx =
		(const void *)(ubifs_leb(x->img, lnum) + offs);
	int cc = le16toh(idx->child_cnt), i, err = 0;

	for (i = 0; i < cc && !err; i++) {
		const struct ubifs_branch *br =
			(const void *)(idx->branches + (size_t)i * g->branch_sz);

		if (le16toh(idx->level))
			err = collect(x, le32toh(br->lnum), le32toh(br->offs));
		else
			err = add_leaf(x, br);
	}
	return err;
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

static struct leaf *ino_leaf(struct ex *x, uint32_t inum)
{
	int lo, hi;

	range(x, inum, &lo, &hi);
	if (lo < hi && x->v[lo].type == UBIFS_INO_KEY)
		return &x->v[lo];
	return NULL;
}

/* The inode's data (symlink target, xattr value) must lie in the node. */
static const struct ubifs_ino_node *inode_of(struct ex *x, uint32_t inum)
{
	struct leaf *l = ino_leaf(x, inum);
	const struct ubifs_ino_node *ino;

	if (!l)
		return NULL;
	ino = (const void *)l->node;
	if (le32toh(ino->data_len) > node_len(l) - UBIFS_INO_NODE_SZ) {
		strbuf_error(x->err, "LEB %d:0x%x inode node: data_len %u beyond the node",
			     l->lnum, l->offs, le32toh(ino->data_len));
		return NULL;
	}
	return ino;
}

static int write_block(struct ex *x, int fd, const struct leaf *l)
{
	const struct ubifs_data_node *dn = (const void *)l->node;
	uint8_t block[UBIFS_BLOCK_SIZE];
	uint32_t want = le32toh(dn->size);
	uint32_t bno = ubifs_key_val(dn->key);
	struct strbuf why = STRBUF_INIT;
	long got;

	got = ubifs_decompress(le16toh(dn->compr_type), dn->data,
			       node_len(l) - UBIFS_DATA_NODE_SZ, block,
			       sizeof(block), &why);
	/* fs/ubifs/file.c read_block(): the length must be the node's size. */
	if (got >= 0 && got != want)
		strbuf_addf(&why, "%ld bytes, size says %u", got, want);
	if (why.len) {
		strbuf_addf(x->err, "LEB %d:0x%x data node (inode %u block %u): %s",
			    l->lnum, l->offs, l->inum, bno, why.buf);
		strbuf_release(&why);
		return -1;
	}
	if (pwrite(fd, block, got, (off_t)bno * UBIFS_BLOCK_SIZE) != got)
		return strbuf_error(x->err, "write: %s", strerror(errno));
	return 0;
}

static int write_data(struct ex *x, int fd, uint32_t inum, uint64_t size)
{
	int lo, hi, i;

	range(x, inum, &lo, &hi);
	for (i = lo; i < hi; i++)
		if (x->v[i].type == UBIFS_DATA_KEY &&
		    write_block(x, fd, &x->v[i]))
			return -1;
	if (size > INT64_MAX || ftruncate(fd, size))
		return strbuf_error(x->err, "inode %u: truncate to %llu: %s", inum,
				    (unsigned long long)size, strerror(errno));
	return 0;
}

/*
 * A directory entry's name: within the node and, as the kernel's
 * ubifs_validate_entry() requires, 1..UBIFS_MAX_NLEN bytes without NUL.
 * File names that would leave the directory ('/', ".", "..") are refused
 * too; xattr names ("user.a/b") may hold a '/'.
 */
static int entry_name(struct ex *x, const struct leaf *l, char *name)
{
	const struct ubifs_dent_node *de = (const void *)l->node;
	int nlen = le16toh(de->nlen);

	if (!nlen || nlen > UBIFS_MAX_NLEN ||
	    nlen > (int)(node_len(l) - UBIFS_DENT_NODE_SZ))
		return strbuf_error(x->err, "LEB %d:0x%x %s: bad name length %d", l->lnum,
				    l->offs, node_what(l), nlen);
	if (memchr(de->name, '\0', nlen))
		return strbuf_error(x->err, "LEB %d:0x%x %s: name contains a NUL byte",
				    l->lnum, l->offs, node_what(l));
	if (l->type == UBIFS_DENT_KEY && (memchr(de->name, '/', nlen) ||
	    (nlen <= 2 && !memcmp(de->name, "..", nlen))))
		return strbuf_error(x->err, "LEB %d:0x%x %s: name \"%.*s\" is not a file "
				    "name", l->lnum, l->offs,
				    node_what(l), nlen,
				    (const char *)de->name);
	memcpy(name, de->name, nlen);
	name[nlen] = '\0';
	return 0;
}

static int set_xattrs(struct ex *x, const char *path, uint32_t inum)
{
	char name[UBIFS_MAX_NLEN + 1];
	int lo, hi, i;

	range(x, inum, &lo, &hi);
	for (i = lo; i < hi; i++) {
		const struct ubifs_dent_node *xe = (const void *)x->v[i].node;
		const struct ubifs_ino_node *val;

		if (x->v[i].type != UBIFS_XENT_KEY)
			continue;
		if (entry_name(x, &x->v[i], name))
			return -1;
		if (!ino_leaf(x, le64toh(xe->inum)))
			return strbuf_error(x->err, "LEB %d:0x%x xattr entry: no value "
					    "inode %llu", x->v[i].lnum, x->v[i].offs,
					    (unsigned long long)le64toh(xe->inum));
		val = inode_of(x, le64toh(xe->inum));
		if (!val)
			return -1;
		if (lsetxattr(path, name, val->data, le32toh(val->data_len), 0) &&
		    errno != ENOTSUP && errno != EPERM)
			return strbuf_error(x->err, "%s: setxattr %s: %s", shown(x, path),
					    name, strerror(errno));
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

/*
 * Owner first, then mode: chown() clears the set-user-ID and set-group-ID
 * bits, so chmod comes after it, as in tar's set_stat().  Symlinks have
 * an owner but no mode of their own.
 */
static int set_owner_mode(struct ex *x, const char *path,
			  const struct ubifs_ino_node *ino)
{
	uint32_t mode = le32toh(ino->mode);

	if (x->chown && lchown(path, le32toh(ino->uid), le32toh(ino->gid)))
		return strbuf_error(x->err, "%s: chown: %s", shown(x, path),
				    strerror(errno));
	if (!S_ISLNK(mode) && chmod(path, mode & 07777))
		return strbuf_error(x->err, "%s: chmod: %s", shown(x, path),
				    strerror(errno));
	set_times(path, ino);
	return 0;
}

static int make_tree(struct ex *x, const char *dir, uint32_t dinum, int depth);

static int make_dir(struct ex *x, const char *path, struct leaf *il, int depth)
{
	if (mkdir(path, 0700))
		return strbuf_error(x->err, "%s: %s", shown(x, path), strerror(errno));
	if (make_tree(x, path, il->inum, depth + 1))
		return -1;
	/* After its entries: see finish_dirs(). */
	x->dirs = xrealloc(x->dirs, (x->ndirs + 1) * sizeof(*x->dirs));
	x->dirs[x->ndirs].path = xstrdup(path);
	x->dirs[x->ndirs].inum = il->inum;
	x->dirs[x->ndirs++].ino = (const void *)il->node;
	return 0;
}

static int make_file(struct ex *x, const char *path, struct leaf *il)
{
	const struct ubifs_ino_node *ino = (const void *)il->node;
	int fd, err;

	/* O_EXCL: never write through something already there. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0)
		return strbuf_error(x->err, "%s: %s", shown(x, path), strerror(errno));
	err = write_data(x, fd, il->inum, le64toh(ino->size));
	if (close(fd) && !err)
		err = strbuf_error(x->err, "%s: %s", shown(x, path), strerror(errno));
	x->files++;
	return err;
}

static int make_symlink(struct ex *x, const char *path, struct leaf *il)
{
	const struct ubifs_ino_node *ino = inode_of(x, il->inum);
	uint32_t n;
	char *target;
	int err = 0;

	if (!ino)
		return -1;
	n = le32toh(ino->data_len);
	/* The target is stored without its NUL; one inside cannot be
	 * recreated, and PATH_MAX bounds what symlink() takes. */
	if (!n || n >= PATH_MAX || memchr(ino->data, '\0', n))
		return strbuf_error(x->err, "LEB %d:0x%x inode node: bad symlink target "
				    "(%u bytes)", il->lnum, il->offs, n);
	target = xstrndup((const char *)ino->data, n);
	if (symlink(target, path))
		err = strbuf_error(x->err, "%s: %s", shown(x, path), strerror(errno));
	free(target);
	return err;
}

static int make_entry(struct ex *x, const char *path, struct leaf *il,
		      int depth)
{
	const struct ubifs_ino_node *ino = (const void *)il->node;
	uint32_t mode = le32toh(ino->mode);
	int err;

	if (il->path && S_ISDIR(mode))
		return strbuf_error(x->err, "%s: directory inode %u has a second entry",
				    shown(x, path), il->inum);
	if (il->path) {
		/* link(2) does not follow a symlink at oldpath. */
		if (link(il->path, path))
			return strbuf_error(x->err, "%s: %s", shown(x, path),
					    strerror(errno));
		return 0;
	}
	switch (mode & S_IFMT) {
	case S_IFDIR:
		il->path = xstrdup(path);
		return make_dir(x, path, il, depth);
	case S_IFREG:
		err = make_file(x, path, il);
		break;
	case S_IFLNK:
		err = make_symlink(x, path, il);
		break;
	default:
		/* Devices, FIFOs and sockets: recorded, not recreated. */
		return 0;
	}
	if (!err && le32toh(ino->nlink) > 1)
		il->path = xstrdup(path);
	if (!err)
		err = set_xattrs(x, path, il->inum);
	if (!err)
		err = set_owner_mode(x, path, ino);
	return err;
}

/*
 * Every path is made of names checked by entry_name() under directories
 * this function created itself (mkdir fails on anything already there),
 * inside a mkdtemp() directory only the caller can enter until the end:
 * no component of a path can be a symlink.
 */
static int make_tree(struct ex *x, const char *dir, uint32_t dinum, int depth)
{
	struct strbuf path = STRBUF_INIT;
	char name[UBIFS_MAX_NLEN + 1];
	int lo, hi, i, err = 0;

	if (depth > 4096)
		return strbuf_error(x->err, "%s: directories nested too deep",
				    shown(x, dir));
	range(x, dinum, &lo, &hi);
	for (i = lo; i < hi && !err; i++) {
		const struct ubifs_dent_node *de = (const void *)x->v[i].node;
		struct leaf *il;

		if (x->v[i].type != UBIFS_DENT_KEY)
			continue;
		err = entry_name(x, &x->v[i], name);
		if (err)
			break;
		il = ino_leaf(x, le64toh(de->inum));
		if (!il) {
			err = strbuf_error(x->err, "LEB %d:0x%x directory entry \"%s\": "
					   "inode %llu does not exist", x->v[i].lnum,
					   x->v[i].offs, name,
					   (unsigned long long)le64toh(de->inum));
			break;
		}
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, name);
		err = make_entry(x, path.buf, il, depth);
	}
	strbuf_release(&path);
	return err;
}

/* Directories were recorded after their entries, children before their
 * parents: a parent's mode, even one without search permission, is set
 * only once nothing below it needs a path through it. */
static int finish_dirs(struct ex *x)
{
	int i;

	for (i = 0; i < x->ndirs; i++)
		if (set_xattrs(x, x->dirs[i].path, x->dirs[i].inum) ||
		    set_owner_mode(x, x->dirs[i].path, x->dirs[i].ino))
			return -1;
	return 0;
}

static void release(struct ex *x)
{
	int i;

	for (i = 0; i < x->nr; i++)
		free(x->v[i].path);
	for (i = 0; i < x->ndirs; i++)
		free(x->dirs[i].path);
	free(x->dirs);
	free(x->v);
}

static int build(struct ex *x, const char *tmp, const char *dir)
{
	struct leaf *root;

	if (collect(x, x->root_lnum, x->root_offs))
		return -1;
	root = ino_leaf(x, 1);
	if (!root)
		return strbuf_error(x->err, "no root inode");
	root->path = xstrdup(tmp);
	if (make_tree(x, tmp, 1, 0))
		return -1;
	/* The root directory last: it is the last entry of the list. */
	x->dirs = xrealloc(x->dirs, (x->ndirs + 1) * sizeof(*x->dirs));
	x->dirs[x->ndirs].path = xstrdup(tmp);
	x->dirs[x->ndirs].inum = 1;
	x->dirs[x->ndirs++].ino = (const void *)root->node;
	if (finish_dirs(x))
		return -1;
	if (rename(tmp, dir))
		return strbuf_error(x->err, "%s: %s", shown(x, dir), strerror(errno));
	return 0;
}

int ubifs_extract(const struct ubifs_image *img, int root_lnum, int root_offs,
		  const char *dir, int *files, struct strbuf *err)
{
	struct ex x = {
		.img = img, .err = err,
		.root_lnum = root_lnum, .root_offs = root_offs,
		.chown = geteuid() == 0, .shown = STRBUF_INIT,
	};
	struct strbuf tmp = STRBUF_INIT;
	struct stat st;
	int ret;

	*files = 0;
	if (!lstat(dir, &st))
		return strbuf_error(err, "%s already exists", dir);
	strbuf_addf(&tmp, "%s.tmpXXXXXX", dir);
	if (!mkdtemp(tmp.buf)) {
		ret = strbuf_error(err, "%s: %s", dir, strerror(errno));
		goto out;
	}
	x.dir = dir;
	x.tmp = tmp.buf;
	ret = build(&x, tmp.buf, dir);
	/* Leave nothing that could pass for a complete extraction. */
	if (ret && remove_tree(tmp.buf))
		strbuf_addf(err, " (%s is left behind)", tmp.buf);
	*files = x.files;
out:
	release(&x);
	strbuf_release(&x.shown);
	strbuf_release(&tmp);
	return ret;
}
