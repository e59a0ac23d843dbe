// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ubifs/auth.h"
#include "ubifs/compr.h"
#include "ubifs/extract.h"
#include "util/array.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/wrapper.h"

/*
 * Leaves of the index in key order (a key groups everything of an
 * inode): where the node is and, in x->hashes, the hash its branch
 * records.  Nothing of a node is kept: each use reads it again with
 * ubifs_node_read(), which checks it against that hash (or its CRC in
 * an unauthenticated image), so that only bytes that verify are written
 * however the file changes after verification.
 */
struct leaf {
	uint32_t inum;
	int type;
	int lnum, offs;
	uint32_t len;
	/* Inode leaves: where the inode was first created and its mode, so
	 * that a second entry becomes a hard link (anything but a directory)
	 * or is refused (directories). */
	char *path;
	uint32_t mode;
};

/* A directory whose owner, mode and times are set once the tree is
 * complete: creating its entries would change its times, and a mode
 * without write or search permission would stop both the entries and,
 * on error, their removal.  ino is its inode node, as read and checked
 * when the directory was made. */
struct dir_meta {
	char *path;
	uint32_t inum;
	struct ubifs_ino_node *ino;
};

struct ex {
	const struct ubifs_image *img;
	const struct ubifs_extract_opts *o;
	struct ubifs_auth *auth;	/* NULL: unauthenticated image */
	int hash_len;
	struct leaf *v;
	uint8_t *hashes;		/* hash_len bytes a leaf */
	int nr, alloc;
	int idx_nodes;			/* read so far */
	int max_leaves;			/* as verified */
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

/*
 * A system call on path failed: its reason in x->err, and -errno (saved
 * before the message can change it) returned.
 */
static int path_error(struct ex *x, const char *path)
{
	int e = errno;

	strbuf_addf(x->err, "%s: %s", shown(x, path), strerror(e));
	return -e;
}

/* Key types and node types share their numbers (ubifs-media.h). */
static const char *node_what(const struct leaf *l)
{
	return ubifs_node_name(l->type);
}

/* The fixed part of the node a key type names, as the kernel's
 * ubifs_validate_entry() and validate_inode() expect at least, and the
 * most it may hold (the kernel's ubifs_check_node() ranges). */
static void len_range(int key_type, uint32_t *min, uint32_t *max)
{
	switch (key_type) {
	case UBIFS_INO_KEY:
		*min = UBIFS_INO_NODE_SZ;
		*max = UBIFS_MAX_INO_NODE_SZ;
		return;
	case UBIFS_DATA_KEY:
		*min = UBIFS_DATA_NODE_SZ;
		*max = UBIFS_MAX_DATA_NODE_SZ;
		return;
	default:
		*min = UBIFS_DENT_NODE_SZ + 1;
		*max = UBIFS_MAX_DENT_NODE_SZ;
	}
}

/*
 * Reads leaf l into buf (room for the longest node of its type) and
 * checks it against its branch: the file may have changed since it was
 * verified (ubifs/image.h, ubifs_node_read()).
 */
static int load(struct ex *x, const struct leaf *l, void *buf)
{
	struct strbuf why = STRBUF_INIT;
	const uint8_t *hash = x->auth ? x->hashes + (size_t)(l - x->v) *
				       x->hash_len : NULL;

	if (!ubifs_node_read(x->img, x->auth, l->lnum, l->offs, l->len, hash,
			     buf, &why) &&
	    ((const struct ubifs_ch *)buf)->node_type == l->type)
		return 0;
	strbuf_addf(x->err, "LEB %d:0x%x %s: not what was verified: %s (the "
		    "image changed after verification)", l->lnum, l->offs,
		    node_what(l), why.len ? why.buf : "node type");
	strbuf_release(&why);
	return -EINVAL;
}

static int add_leaf(struct ex *x, const struct ubifs_branch *br)
{
	struct leaf *l;
	uint32_t min, max;

	if (x->nr == x->max_leaves) {
		strbuf_addf(x->err, "the index holds more than the %d leaves "
			    "verified (the image changed after "
			    "verification)", x->max_leaves);
		return -EINVAL;
	}
	if (x->nr == x->alloc) {
		grow_array(x->v, x->nr, x->alloc, 256);
		x->hashes = xreallocarray(x->hashes, x->alloc, x->hash_len);
	}
	l = &x->v[x->nr];
	l->inum = ubifs_key_inum(br->key);
	l->type = ubifs_key_type(br->key);
	l->lnum = le32toh(br->lnum);
	l->offs = le32toh(br->offs);
	l->len = le32toh(br->len);
	l->path = NULL;
	memcpy(x->hashes + (size_t)x->nr * x->hash_len,
	       br->key + UBIFS_SK_LEN, x->hash_len);
	x->nr++;
	len_range(l->type, &min, &max);
	if (l->len < min || l->len > max) {
		strbuf_addf(x->err, "LEB %d:0x%x %s: %u bytes, not %u to %u",
			    l->lnum, l->offs, node_what(l), l->len,
			    min, max);
		return -EINVAL;
	}
	return 0;
}

/*
 * The index node at lnum:offs, of the given level, checked against the
 * hash its parent (or the master node) records for it, then its
 * branches.  Levels descend and the counts stay within what verify
 * found, so that an unauthenticated image changed after verification
 * (whose nodes need only pass their CRCs) cannot make the walk loop or
 * visit a shared node again and again.
 */
static int collect(struct ex *x, int lnum, int offs, uint32_t len,
		   const uint8_t *hash, int level)
{
	const struct ubifs_geom *g = &x->img->g;
	const struct ubifs_idx_node *idx;
	struct strbuf why = STRBUF_INIT;
	int cc = 0, lv = 0, i, err;
	void *buf;

	if (len < UBIFS_IDX_NODE_SZ || len > (uint32_t)g->leb_size) {
		strbuf_addf(x->err, "LEB %d:0x%x index node: length %u",
			    lnum, offs, len);
		return -EINVAL;
	}
	buf = xmalloc(len);
	err = ubifs_node_read(x->img, x->auth, lnum, offs, len,
			      x->auth ? hash : NULL, buf, &why);
	idx = buf;
	if (!err) {
		cc = le16toh(idx->child_cnt);
		lv = le16toh(idx->level);
		if (idx->ch.node_type != UBIFS_IDX_NODE ||
		    len != UBIFS_IDX_NODE_SZ + (uint32_t)cc * g->branch_sz ||
		    lv != level ||
		    ++x->idx_nodes > x->o->verified->idx_nodes) {
			strbuf_addstr(&why, "node type, child count, level or "
				      "count");
			err = -EINVAL;
		}
	}
	if (err)
		strbuf_addf(x->err, "LEB %d:0x%x index node: not what was "
			    "verified: %s (the image changed after "
			    "verification)", lnum, offs, why.buf);
	for (i = 0; i < cc && !err; i++) {
		const struct ubifs_branch *br;

		br = (const void *)(idx->branches + (size_t)i * g->branch_sz);
		if (lv)
			err = collect(x, le32toh(br->lnum), le32toh(br->offs),
				      le32toh(br->len), br->key + UBIFS_SK_LEN,
				      lv - 1);
		else
			err = add_leaf(x, br);
	}
	strbuf_release(&why);
	free(buf);
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

/* The inode node of leaf l, malloc'ed; its data (symlink target, xattr
 * value) must lie in the node.  NULL with the reason in x->err. */
static struct ubifs_ino_node *read_inode(struct ex *x, const struct leaf *l)
{
	struct ubifs_ino_node *ino = xmalloc(UBIFS_MAX_INO_NODE_SZ);

	if (load(x, l, ino))
		goto fail;
	if (le32toh(ino->data_len) > l->len - UBIFS_INO_NODE_SZ) {
		strbuf_addf(x->err, "LEB %d:0x%x inode node: data_len %u "
			    "beyond the node", l->lnum, l->offs,
			    le32toh(ino->data_len));
		goto fail;
	}
	return ino;
fail:
	free(ino);
	return NULL;
}

static int write_block(struct ex *x, int fd, const struct leaf *l,
		       uint64_t size)
{
	union {
		struct ubifs_data_node dn;
		uint8_t raw[UBIFS_MAX_DATA_NODE_SZ];
	} node;
	const struct ubifs_data_node *dn = &node.dn;
	uint8_t block[UBIFS_BLOCK_SIZE];
	uint32_t want, bno;
	struct strbuf why = STRBUF_INIT;
	long got;
	int ret;

	ret = load(x, l, &node);
	if (ret)
		return ret;
	want = le32toh(dn->size);
	bno = ubifs_key_val(dn->key);
	/* Blocks past the inode's size are never read by the kernel
	 * (fs/ubifs/file.c), and would only make the file sparse. */
	if ((uint64_t)bno * UBIFS_BLOCK_SIZE >= size)
		return 0;
	got = ubifs_decompress(le16toh(dn->compr_type), dn->data,
			       l->len - UBIFS_DATA_NODE_SZ, block,
			       sizeof(block), &why);
	/* fs/ubifs/file.c read_block(): the length must be the node's size. */
	if (got >= 0 && got != want)
		strbuf_addf(&why, "%ld bytes, size says %u", got, want);
	if (why.len) {
		strbuf_addf(x->err, "LEB %d:0x%x data node (inode %u block %u): %s",
			    l->lnum, l->offs, l->inum, bno, why.buf);
		strbuf_release(&why);
		return got < 0 ? (int)got : -EINVAL;
	}
	if (pwrite(fd, block, got, (off_t)bno * UBIFS_BLOCK_SIZE) != got) {
		/* A short write sets no errno. */
		ret = errno ? -errno : -EIO;
		strbuf_addf(x->err, "write: %s", strerror(errno));
		return ret;
	}
	return 0;
}

static int write_data(struct ex *x, int fd, uint32_t inum, uint64_t size)
{
	int lo, hi, i, ret;

	range(x, inum, &lo, &hi);
	for (i = lo; i < hi; i++)
		if (x->v[i].type == UBIFS_DATA_KEY) {
			ret = write_block(x, fd, &x->v[i], size);
			if (ret)
				return ret;
		}
	if (size > INT64_MAX || ftruncate(fd, size)) {
		/* A size off_t cannot hold is refused before the call. */
		ret = errno && size <= INT64_MAX ? -errno : -EFBIG;
		strbuf_addf(x->err, "inode %u: truncate to %llu: %s", inum,
			    (unsigned long long)size, strerror(errno));
		return ret;
	}
	return 0;
}

/*
 * A directory or xattr entry: its name, within the node and, as the
 * kernel's ubifs_validate_entry() requires, 1..UBIFS_MAX_NLEN bytes
 * without NUL, and the inode it names.  File names that would leave the
 * directory ('/', ".", "..") are refused too; xattr names ("user.a/b")
 * may hold a '/'.
 */
static int read_entry(struct ex *x, const struct leaf *l, char *name,
		      uint32_t *inum)
{
	union {
		struct ubifs_dent_node de;
		uint8_t raw[UBIFS_MAX_DENT_NODE_SZ];
	} node;
	const struct ubifs_dent_node *de = &node.de;
	int nlen, ret;

	ret = load(x, l, &node);
	if (ret)
		return ret;
	nlen = le16toh(de->nlen);
	if (!nlen || nlen > UBIFS_MAX_NLEN ||
	    nlen > (int)(l->len - UBIFS_DENT_NODE_SZ)) {
		strbuf_addf(x->err, "LEB %d:0x%x %s: bad name length %d",
			    l->lnum, l->offs, node_what(l), nlen);
		return -EINVAL;
	}
	if (memchr(de->name, '\0', nlen)) {
		strbuf_addf(x->err, "LEB %d:0x%x %s: name contains a NUL byte",
			    l->lnum, l->offs, node_what(l));
		return -EINVAL;
	}
	if (l->type == UBIFS_DENT_KEY && (memchr(de->name, '/', nlen) ||
	    (nlen <= 2 && !memcmp(de->name, "..", nlen)))) {
		strbuf_addf(x->err, "LEB %d:0x%x %s: name \"%.*s\" is not a file "
			    "name", l->lnum, l->offs,
			    node_what(l), nlen,
			    (const char *)de->name);
		return -EINVAL;
	}
	if (le64toh(de->inum) > UINT32_MAX) {
		strbuf_addf(x->err, "LEB %d:0x%x %s: inode %llu beyond 32 bits",
			    l->lnum, l->offs, node_what(l),
			    (unsigned long long)le64toh(de->inum));
		return -EINVAL;
	}
	memcpy(name, de->name, nlen);
	name[nlen] = '\0';
	*inum = le64toh(de->inum);
	return 0;
}

static int set_xattrs(struct ex *x, const char *path, uint32_t inum)
{
	char name[UBIFS_MAX_NLEN + 1];
	struct ubifs_ino_node *val;
	struct leaf *vl;
	uint32_t vinum;
	int lo, hi, i, err;

	range(x, inum, &lo, &hi);
	for (i = lo; i < hi; i++) {
		if (x->v[i].type != UBIFS_XENT_KEY)
			continue;
		err = read_entry(x, &x->v[i], name, &vinum);
		if (err)
			return err;
		vl = ino_leaf(x, vinum);
		if (!vl) {
			strbuf_addf(x->err, "LEB %d:0x%x xattr entry: no value "
				    "inode %u", x->v[i].lnum, x->v[i].offs,
				    vinum);
			return -EINVAL;
		}
		val = read_inode(x, vl);
		if (!val)
			return -EINVAL;
		err = 0;
		if (lsetxattr(path, name, val->data, le32toh(val->data_len),
			      0) && errno != ENOTSUP && errno != EPERM)
			err = errno;
		free(val);
		if (err) {
			strbuf_addf(x->err, "%s: setxattr %s: %s",
				    shown(x, path), name, strerror(err));
			return -err;
		}
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

	int ret;

	if (x->chown && lchown(path, le32toh(ino->uid), le32toh(ino->gid))) {
		ret = -errno;
		strbuf_addf(x->err, "%s: chown: %s", shown(x, path),
			    strerror(-ret));
		return ret;
	}
	if (!S_ISLNK(mode) && chmod(path, mode & 07777)) {
		ret = -errno;
		strbuf_addf(x->err, "%s: chmod: %s", shown(x, path),
			    strerror(-ret));
		return ret;
	}
	set_times(path, ino);
	return 0;
}

static int make_tree(struct ex *x, const char *dir, uint32_t dinum, int depth);

/* Records a directory, after its entries: see finish_dirs().  Takes ino. */
static void add_dir(struct ex *x, const char *path, uint32_t inum,
		    struct ubifs_ino_node *ino)
{
	x->dirs = xrealloc(x->dirs, (x->ndirs + 1) * sizeof(*x->dirs));
	x->dirs[x->ndirs].path = xstrdup(path);
	x->dirs[x->ndirs].inum = inum;
	x->dirs[x->ndirs++].ino = ino;
}

/* Takes ino. */
static int make_dir(struct ex *x, const char *path, struct leaf *il,
		    struct ubifs_ino_node *ino, int depth)
{
	int ret;

	ret = mkdir(path, 0700) ? path_error(x, path) :
	      make_tree(x, path, il->inum, depth + 1);
	if (ret) {
		free(ino);
		return ret;
	}
	add_dir(x, path, il->inum, ino);
	return 0;
}

static int make_file(struct ex *x, const char *path, struct leaf *il,
		     const struct ubifs_ino_node *ino)
{
	int fd, err;

	/* O_EXCL: never write through something already there. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0)
		return path_error(x, path);
	err = write_data(x, fd, il->inum, le64toh(ino->size));
	if (close(fd) && !err)
		err = path_error(x, path);
	x->files++;
	return err;
}

static int make_symlink(struct ex *x, const char *path, struct leaf *il,
			const struct ubifs_ino_node *ino)
{
	uint32_t n = le32toh(ino->data_len);
	char *target;
	int err = 0;

	/* The target is stored without its NUL; one inside cannot be
	 * recreated, and PATH_MAX bounds what symlink() takes. */
	if (!n || n >= PATH_MAX || memchr(ino->data, '\0', n)) {
		strbuf_addf(x->err, "LEB %d:0x%x inode node: bad symlink target "
			    "(%u bytes)", il->lnum, il->offs, n);
		return -EINVAL;
	}
	target = xstrndup((const char *)ino->data, n);
	if (symlink(target, path))
		err = path_error(x, path);
	free(target);
	return err;
}

/*
 * An inode reached by a second entry is linked to the first path, not
 * written again, whatever its nlink says: the kernel would show both
 * entries as one inode, and a copy per entry would let a small image
 * write without bound (thousands of entries naming one large file).
 * Directories cannot be linked: a second entry is refused.
 */
static int make_entry(struct ex *x, const char *path, struct leaf *il,
		      int depth)
{
	struct ubifs_ino_node *ino;
	uint32_t mode;
	int err;

	if (il->path) {
		/* link(2) does not follow a symlink at oldpath. */
		if (!S_ISDIR(il->mode) && !link(il->path, path))
			return 0;
		if (S_ISDIR(il->mode)) {
			strbuf_addf(x->err, "%s: directory inode %u has a "
				    "second entry", shown(x, path),
				    il->inum);
			return -EINVAL;
		}
		return path_error(x, path);
	}
	ino = read_inode(x, il);
	if (!ino)
		return -EINVAL;
	mode = le32toh(ino->mode);
	switch (mode & S_IFMT) {
	case S_IFDIR:
		il->path = xstrdup(path);
		il->mode = mode;
		return make_dir(x, path, il, ino, depth);
	case S_IFREG:
		err = make_file(x, path, il, ino);
		break;
	case S_IFLNK:
		err = make_symlink(x, path, il, ino);
		break;
	default:
		/* Devices, FIFOs and sockets: recorded, not recreated. */
		free(ino);
		return 0;
	}
	if (!err) {
		il->path = xstrdup(path);
		il->mode = mode;
		err = set_xattrs(x, path, il->inum);
	}
	if (!err)
		err = set_owner_mode(x, path, ino);
	free(ino);
	return err;
}

/*
 * Every path is made of names checked by read_entry() under directories
 * this function created itself (mkdir fails on anything already there),
 * inside a mkdtemp() directory only the caller can enter until the end:
 * no component of a path can be a symlink.
 */
static int make_tree(struct ex *x, const char *dir, uint32_t dinum, int depth)
{
	struct strbuf path = STRBUF_INIT;
	char name[UBIFS_MAX_NLEN + 1];
	uint32_t inum;
	int lo, hi, i, err = 0;

	if (depth > 4096) {
		strbuf_addf(x->err, "%s: directories nested too deep",
			    shown(x, dir));
		return -EINVAL;
	}
	range(x, dinum, &lo, &hi);
	for (i = lo; i < hi && !err; i++) {
		struct leaf *il;

		if (x->v[i].type != UBIFS_DENT_KEY)
			continue;
		err = read_entry(x, &x->v[i], name, &inum);
		if (err)
			break;
		il = ino_leaf(x, inum);
		if (!il) {
			strbuf_addf(x->err, "LEB %d:0x%x directory entry "
				    "\"%s\": inode %u does not exist",
				    x->v[i].lnum, x->v[i].offs, name, inum);
			err = -EINVAL;
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
	int i, ret = 0;

	for (i = 0; i < x->ndirs && !ret; i++) {
		ret = set_xattrs(x, x->dirs[i].path, x->dirs[i].inum);
		if (!ret)
			ret = set_owner_mode(x, x->dirs[i].path,
					     x->dirs[i].ino);
	}
	return ret;
}

static void release(struct ex *x)
{
	int i;

	for (i = 0; i < x->nr; i++)
		free(x->v[i].path);
	for (i = 0; i < x->ndirs; i++) {
		free(x->dirs[i].path);
		free(x->dirs[i].ino);
	}
	free(x->dirs);
	free(x->v);
	free(x->hashes);
	ubifs_auth_free(x->auth);
}

/*
 * What the tree will take at most, from the inodes themselves: every
 * regular file is written once (a second entry is a link) and no further
 * than its size, so the sum of their sizes bounds the bytes written,
 * before a byte is.  A small image can declare far more than it holds
 * (compression, sparse files): the limit is the caller's max_size, or
 * the space free where DIR goes.
 */
static int check_size(struct ex *x, const char *dir)
{
	struct strbuf parent = STRBUF_INIT, why = STRBUF_INIT;
	uint64_t total = 0, limit = x->o->max_size;
	struct statvfs vfs;
	const char *slash;
	int i, ret;

	for (i = 0; i < x->nr; i++) {
		struct ubifs_ino_node *ino;

		if (x->v[i].type != UBIFS_INO_KEY)
			continue;
		ino = read_inode(x, &x->v[i]);
		if (!ino)
			return -EINVAL;
		if (S_ISREG(le32toh(ino->mode)))
			total += le64toh(ino->size) < UINT64_MAX - total ?
				 le64toh(ino->size) : UINT64_MAX - total;
		free(ino);
	}
	if (!limit) {
		slash = strrchr(dir, '/');
		strbuf_add(&parent, dir, slash ? (size_t)(slash - dir) + 1 : 0);
		if (!parent.len)
			strbuf_addch(&parent, '.');
		if (statvfs(parent.buf, &vfs)) {
			ret = -errno;
			strbuf_addf(x->err, "%s: %s", parent.buf,
				    strerror(-ret));
			strbuf_release(&parent);
			return ret;
		}
		strbuf_release(&parent);
		limit = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		strbuf_addf(&why, "the %llu free where %s would go (--max-size "
			    "to allow more)", (unsigned long long)limit, dir);
	} else {
		strbuf_addf(&why, "--max-size %llu", (unsigned long long)limit);
	}
	if (total > limit)
		strbuf_addf(x->err, "the image's files declare %llu bytes, more "
			    "than %s", (unsigned long long)total, why.buf);
	strbuf_release(&why);
	return total > limit ? -EFBIG : 0;
}

static int build(struct ex *x, const char *tmp, const char *dir)
{
	struct ubifs_ino_node *ino;
	struct leaf *root;
	int ret;

	ret = make_tree(x, tmp, 1, 0);
	if (ret)
		return ret;
	/* The root directory last: it is the last entry of the list. */
	root = ino_leaf(x, 1);
	ino = read_inode(x, root);
	if (!ino)
		return -EINVAL;
	add_dir(x, tmp, 1, ino);
	ret = finish_dirs(x);
	if (ret)
		return ret;
	if (rename(tmp, dir))
		return path_error(x, dir);
	return 0;
}

int ubifs_extract(const struct ubifs_image *img,
		  const struct ubifs_extract_opts *o, const char *dir,
		  int *files, struct strbuf *err)
{
	struct ex x = {
		.img = img, .o = o, .err = err,
		.chown = geteuid() == 0, .shown = STRBUF_INIT,
	};
	const struct ubifs_verify_result *res = o->verified;
	struct strbuf tmp = STRBUF_INIT;
	struct stat st;
	struct leaf *root;
	int ret = -EINVAL;

	*files = 0;
	if (!lstat(dir, &st)) {
		strbuf_addf(err, "%s already exists", dir);
		return -EEXIST;
	}
	if (img->g.flags & UBIFS_FLG_AUTHENTICATION) {
		x.auth = ubifs_auth_new(img->g.hash_algo, NULL, 0);
		x.hash_len = img->g.hash_len;
		if (!x.auth) {
			strbuf_addf(err, "cannot set up hash algorithm %d",
				    img->g.hash_algo);
			goto out;
		}
	}
	x.max_leaves = ubifs_verify_leaves(res);
	ret = collect(&x, res->root_lnum, res->root_offs, res->root_len,
		      res->root_hash, res->root_level);
	if (ret)
		goto out;
	root = ino_leaf(&x, 1);
	if (!root) {
		strbuf_addstr(err, "no root inode");
		ret = -EINVAL;
		goto out;
	}
	ret = check_size(&x, dir);
	if (ret)
		goto out;
	strbuf_addf(&tmp, "%s.tmpXXXXXX", dir);
	if (!mkdtemp(tmp.buf)) {
		ret = -errno;
		strbuf_addf(err, "%s: %s", dir, strerror(-ret));
		goto out;
	}
	root->path = xstrdup(tmp.buf);
	root->mode = S_IFDIR;
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

/* --max-size: bytes, or with a K, M, G or T suffix (powers of 1024). */
int ubifs_extract_parse_size(const char *arg, uint64_t *max)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	u = *end && !end[1] ? strchr(units, *end) : NULL;
	if (u) {
		shift = 10 * (int)(u - units + 1);
		end++;
	}
	if (end == arg || *arg == '-' || *end || errno || !v ||
	    v > (UINT64_MAX >> shift))
		return -EINVAL;
	*max = (uint64_t)v << shift;
	return 0;
}
