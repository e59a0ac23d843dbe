// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ubifs/auth.h"
#include "ubifs/image.h"
#include "ubifs/ubi.h"
#include "util/array.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define ALIGN8(x) (((x) + 7) & ~7u)

void ubifs_report_add(struct ubifs_report *r, int lnum, int offs,
		      const char *what, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	struct ubifs_problem *p;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	grow_array(r->v, r->nr, r->alloc, 16);
	p = &r->v[r->nr++];
	p->lnum = lnum;
	p->offs = offs;
	p->what = xstrdup(what);
	p->msg = strbuf_detach(&sb, NULL);
}

void ubifs_report_clear(struct ubifs_report *r)
{
	int i;

	for (i = 0; i < r->nr; i++) {
		free(r->v[i].what);
		free(r->v[i].msg);
	}
	free(r->v);
	r->v = NULL;
	r->nr = r->alloc = 0;
}

char *ubifs_problem_str(const struct ubifs_problem *p)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "LEB %d:0x%x %s: %s", p->lnum, p->offs, p->what,
		    p->msg);
	return strbuf_detach(&sb, NULL);
}

const char *ubifs_node_name(int type)
{
	static const char *const names[UBIFS_NODE_TYPES_CNT] = {
		[UBIFS_INO_NODE] = "inode node",
		[UBIFS_DATA_NODE] = "data node",
		[UBIFS_DENT_NODE] = "dentry node",
		[UBIFS_XENT_NODE] = "xattr entry node",
		[UBIFS_TRUN_NODE] = "truncation node",
		[UBIFS_PAD_NODE] = "padding node",
		[UBIFS_SB_NODE] = "superblock node",
		[UBIFS_MST_NODE] = "master node",
		[UBIFS_REF_NODE] = "reference node",
		[UBIFS_IDX_NODE] = "index node",
		[UBIFS_CS_NODE] = "commit start node",
		[UBIFS_ORPH_NODE] = "orphan node",
		[UBIFS_AUTH_NODE] = "authentication node",
		[UBIFS_SIG_NODE] = "signature node",
	};

	if (type < 0 || type >= UBIFS_NODE_TYPES_CNT)
		return "node";
	return names[type];
}

const uint8_t *ubifs_leb(const struct ubifs_image *img, int lnum)
{
	return img->data + (size_t)lnum * img->g.leb_size;
}

int ubifs_leb_avail(const struct ubifs_image *img, int lnum)
{
	size_t start = (size_t)lnum * img->g.leb_size;

	if (lnum < 0 || start >= img->size)
		return 0;
	if (img->size - start < (size_t)img->g.leb_size)
		return img->size - start;
	return img->g.leb_size;
}

uint32_t ubifs_node_crc(const struct ubifs_image *img, const void *node,
			uint32_t len)
{
	return ubifs_crc32(&img->crc, UBIFS_CRC32_INIT,
			   (const uint8_t *)node + 8, len - 8);
}

int ubifs_key_cmp(const uint8_t *a, const uint8_t *b)
{
	uint32_t a0 = ubifs_key_inum(a), b0 = ubifs_key_inum(b);
	uint32_t a1 = a[4] | a[5] << 8 | a[6] << 16 | (uint32_t)a[7] << 24;
	uint32_t b1 = b[4] | b[5] << 8 | b[6] << 16 | (uint32_t)b[7] << 24;

	if (a0 != b0)
		return a0 < b0 ? -1 : 1;
	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	return 0;
}

static int is_pow2(unsigned int x)
{
	return x && !(x & (x - 1));
}

/* The limits of validate_sb() in the kernel's sb.c that the layout of
 * the image depends on; anything else is left to the node checks. */
static const char *check_geometry(const struct ubifs_geom *g)
{
	if (!is_pow2(g->min_io) || g->min_io < 8 || g->min_io > 65536)
		return "bad min_io_size";
	if (g->leb_size < UBIFS_MIN_LEB_SZ || g->leb_size > (64 << 20) ||
	    g->leb_size % g->min_io || (int)UBIFS_SB_NODE_SZ > g->leb_size)
		return "bad leb_size";
	if (g->max_leb_cnt < 1 || g->max_leb_cnt > (1 << 24) ||
	    g->leb_cnt < 1 || g->leb_cnt > g->max_leb_cnt)
		return "bad LEB count";
	if (g->log_lebs < 2 || g->lpt_lebs < 1 || g->orph_lebs < 1 ||
	    g->log_lebs > g->leb_cnt || g->lpt_lebs > g->leb_cnt ||
	    g->orph_lebs > g->leb_cnt)
		return "bad area sizes";
	if (g->main_first >= g->leb_cnt)
		return "no main area";
	if (g->fanout < UBIFS_MIN_FANOUT ||
	    (long)UBIFS_IDX_NODE_SZ + (long)g->fanout * g->branch_sz >
	    g->leb_size / 2)
		return "bad fanout";
	if (g->lsave_cnt < 0 || g->lsave_cnt > (1 << 24))
		return "bad lsave_cnt";
	return NULL;
}

int ubifs_image_init(struct ubifs_image *img, const void *buf, size_t len,
		     struct ubifs_report *rep)
{
	const struct ubifs_sb_node *sb = &img->sb;
	struct ubifs_geom *g = &img->g;
	const char *why;

	memset(img, 0, sizeof(*img));
	img->data = buf;
	img->size = len;
	img->fd = -1;
	ubifs_crc_init(&img->crc);
	if (len < UBIFS_SB_NODE_SZ) {
		ubifs_report_add(rep, 0, 0, "superblock node",
				 "image too short (%zu bytes)", len);
		return -EINVAL;
	}
	memcpy(&img->sb, buf, UBIFS_SB_NODE_SZ);
	if (le32toh(sb->ch.magic) != UBIFS_NODE_MAGIC) {
		ubifs_report_add(rep, 0, 0, "superblock node",
				 "bad magic 0x%08x: not a UBIFS image",
				 le32toh(sb->ch.magic));
		return -EINVAL;
	}
	if (sb->ch.node_type != UBIFS_SB_NODE ||
	    le32toh(sb->ch.len) != UBIFS_SB_NODE_SZ) {
		ubifs_report_add(rep, 0, 0, "superblock node",
				 "bad node type %d or length %u",
				 sb->ch.node_type, le32toh(sb->ch.len));
		return -EINVAL;
	}
	if (ubifs_node_crc(img, sb, UBIFS_SB_NODE_SZ) != le32toh(sb->ch.crc))
		ubifs_report_add(rep, 0, 0, "superblock node", "CRC mismatch");

	g->min_io = le32toh(sb->min_io_size);
	g->leb_size = le32toh(sb->leb_size);
	g->leb_cnt = le32toh(sb->leb_cnt);
	g->max_leb_cnt = le32toh(sb->max_leb_cnt);
	g->log_lebs = le32toh(sb->log_lebs);
	g->lpt_lebs = le32toh(sb->lpt_lebs);
	g->orph_lebs = le32toh(sb->orph_lebs);
	g->fanout = le32toh(sb->fanout);
	g->lsave_cnt = le32toh(sb->lsave_cnt);
	g->flags = le32toh(sb->flags);
	g->fmt_version = le32toh(sb->fmt_version);
	g->hash_algo = le16toh(sb->hash_algo);
	if (g->flags & UBIFS_FLG_AUTHENTICATION) {
		g->hash_len = ubifs_hash_len(g->hash_algo);
		if (g->hash_len <= 0) {
			ubifs_report_add(rep, 0, 0, "superblock node",
					 "unsupported hash_algo %d",
					 g->hash_algo);
			return -EINVAL;
		}
	}
	g->branch_sz = UBIFS_BRANCH_SZ + UBIFS_SK_LEN + g->hash_len;
	/* Bound the counts before they are added up into positions. */
	if ((uint32_t)g->log_lebs > (1u << 24) ||
	    (uint32_t)g->lpt_lebs > (1u << 24) ||
	    (uint32_t)g->orph_lebs > (1u << 24)) {
		ubifs_report_add(rep, 0, 0, "superblock node",
				 "bad area sizes");
		return -EINVAL;
	}
	g->lpt_first = UBIFS_LOG_LNUM + g->log_lebs;
	g->lpt_last = g->lpt_first + g->lpt_lebs - 1;
	g->orph_first = g->lpt_last + 1;
	g->main_first = g->orph_first + g->orph_lebs;
	if (sb->key_fmt != 0 || sb->key_hash > 1)
		why = "unsupported key format";
	else if (g->fmt_version < 3 || g->fmt_version > UBIFS_FORMAT_VERSION)
		why = "unsupported format version";
	else if (g->flags & ~UBIFS_FLG_MASK)
		why = "unknown feature flags";
	else
		why = check_geometry(g);
	if (why) {
		ubifs_report_add(rep, 0, 0, "superblock node", "%s", why);
		return -EINVAL;
	}
	if (len < (size_t)g->leb_cnt * g->leb_size) {
		ubifs_report_add(rep, len / g->leb_size, len % g->leb_size,
				 "image", "truncated: %zu bytes, the superblock "
				 "says %d LEBs of %d bytes", len, g->leb_cnt,
				 g->leb_size);
		/* Far too short to be worth walking (and to size tables by
		 * the superblock's count). */
		if ((size_t)g->leb_cnt * g->leb_size > 2 * len +
		    16 * (size_t)g->leb_size)
			return -EINVAL;
	}
	return 0;
}

/* Maps the file at path; *fd stays open for ubifs_node_read(). */
static int map_file(const char *path, void **addr, size_t *len, int *fd,
		    struct strbuf *err)
{
	struct stat st;
	int ret = -EINVAL;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s", strerror(-ret));
		return ret;
	}
	if (fstat(*fd, &st)) {
		ret = -errno;
		strbuf_addstr(err, strerror(-ret));
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		strbuf_addstr(err, "not a regular file");
		goto out;
	}
	*len = st.st_size;
	if (!*len) {
		strbuf_addstr(err, "empty file");
		goto out;
	}
	*addr = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, *fd, 0);
	if (*addr == MAP_FAILED) {
		ret = -errno;
		strbuf_addf(err, "cannot map: %s", strerror(-ret));
		goto out;
	}
	madvise(*addr, *len, MADV_SEQUENTIAL);
	return 0;
out:
	close(*fd);
	*fd = -1;
	return ret;
}

/* The volume chosen in a UBI image, copied out of the mapping. */
static int open_ubi(struct ubifs_image *img, void *map, size_t len,
		    const char *volume, struct ubifs_report *rep,
		    struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct ubifs_ubi_vol uv;
	int ret;

	ret = ubifs_ubi_extract(map, len, volume, &uv, &why);
	if (ret) {
		strbuf_addf(err, "UBI image: %s", why.buf);
		goto out;
	}
	ret = ubifs_image_init(img, uv.data, uv.len, rep);
	img->owned = uv.data;
	uv.data = NULL;
	img->ubi_note = "UBIFS volume of a UBI image";
	img->ubi_vol = uv.vol;
	img->ubi_nr_vols = uv.nr_vols;
out:
	ubifs_ubi_vol_release(&uv);
	strbuf_release(&why);
	return ret;
}

int ubifs_image_open(struct ubifs_image *img, const char *path,
		     const char *volume, struct ubifs_report *rep,
		     struct strbuf *err)
{
	int first = rep->nr, ret;
	size_t len = 0;
	void *map = NULL;
	char *s;
	int fd;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	ret = map_file(path, &map, &len, &fd, err);
	if (ret)
		return ret;
	if (ubifs_ubi_detect(map, len)) {
		ret = open_ubi(img, map, len, volume, rep, err);
		munmap(map, len);
		close(fd);
	} else if (volume) {
		munmap(map, len);
		close(fd);
		strbuf_addf(err, "volume %s: not a UBI image, it has no "
			    "volumes", volume);
		return -EINVAL;
	} else {
		ret = ubifs_image_init(img, map, len, rep);
		img->mapped = 1;
		img->fd = fd;
	}
	img->file_size = len;
	if (!ret)
		return 0;
	if (rep->nr > first) {
		s = ubifs_problem_str(&rep->v[first]);
		strbuf_addstr(err, s);
		free(s);
	}
	ubifs_image_release(img);
	return ret;
}

int ubifs_image_volumes(const char *path, struct ubifs_ubi_vol *uv,
			struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	size_t len = 0;
	void *map = NULL;
	int ret = 0, fd;

	memset(uv, 0, sizeof(*uv));
	uv->first_skipped = -1;
	ret = map_file(path, &map, &len, &fd, err);
	if (ret)
		return ret;
	close(fd);
	if (ubifs_ubi_detect(map, len)) {
		ret = ubifs_ubi_list(map, len, uv, &why);
		if (ret < 0)
			strbuf_addf(err, "UBI image: %s", why.buf);
		else
			ret = 1;
	}
	munmap(map, len);
	strbuf_release(&why);
	return ret;
}

void ubifs_image_release(struct ubifs_image *img)
{
	int i;

	if (img->scan) {
		for (i = 0; i < img->g.leb_cnt; i++) {
			free(img->scan[i].v);
			free(img->scan[i].hash);
		}
		free(img->scan);
	}
	free(img->owned);
	if (img->mapped)
		munmap((void *)img->data, img->size);
	if (img->fd >= 0)
		close(img->fd);
	img->scan = NULL;
	img->owned = NULL;
	img->mapped = 0;
	img->fd = -1;
}

static int all_ff(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0xff)
			return 0;
	return 1;
}

static int has_key(int type)
{
	return type == UBIFS_INO_NODE || type == UBIFS_DATA_NODE ||
	       type == UBIFS_DENT_NODE || type == UBIFS_XENT_NODE ||
	       type == UBIFS_TRUN_NODE;
}

/* Adds the node at p (len bytes, CRC checked) to s, and its hash when
 * auth is given. */
static void scan_add(struct ubifs_leb_scan *s, const uint8_t *p,
		     uint32_t offs, uint32_t len, int crc_ok,
		     struct ubifs_auth *auth)
{
	const struct ubifs_ch *ch = (const void *)p;
	struct ubifs_snode *sn;
	int hl = auth ? ubifs_auth_hash_len(auth) : 0;

	if (s->nr == s->alloc) {
		grow_array(s->v, s->nr, s->alloc, 16);
		if (auth)
			s->hash = xreallocarray(s->hash, s->alloc, hl);
	}
	sn = &s->v[s->nr];
	memset(sn, 0, sizeof(*sn));
	sn->offs = offs;
	sn->len = len;
	sn->type = ch->node_type;
	sn->crc_ok = crc_ok;
	if (has_key(sn->type) && len >= UBIFS_CH_SZ + UBIFS_SK_LEN)
		memcpy(sn->key, p + UBIFS_CH_SZ, UBIFS_SK_LEN);
	if (sn->type == UBIFS_DATA_NODE && len >= UBIFS_DATA_NODE_SZ)
		sn->data_size =
			le32toh(((const struct ubifs_data_node *)p)->size);
	if (auth && ubifs_auth_hash(auth, p, len, s->hash + (size_t)s->nr * hl))
		memset(s->hash + (size_t)s->nr * hl, 0, hl);
	s->nr++;
}

const uint8_t *ubifs_snode_hash(const struct ubifs_image *img, int lnum,
				const struct ubifs_snode *sn)
{
	const struct ubifs_leb_scan *s = &img->scan[lnum];

	if (!s->hash)
		return NULL;
	return s->hash + (size_t)(sn - s->v) * img->g.hash_len;
}

/*
 * Walks the nodes of one LEB as ubifs_scan() does: nodes at 8-byte
 * aligned offsets, padding nodes and 0xCE padding bytes skipped, and
 * nothing but 0xFF after the last node.
 */
static void scan_leb(struct ubifs_image *img, int lnum,
		     struct ubifs_report *rep, struct ubifs_auth *auth)
{
	struct ubifs_leb_scan *s = &img->scan[lnum];
	const uint8_t *leb = ubifs_leb(img, lnum);
	int avail = ubifs_leb_avail(img, lnum), offs = 0;

	while (offs < avail) {
		const struct ubifs_ch *ch = (const void *)(leb + offs);
		uint32_t len;
		int ok;

		if (leb[offs] == UBIFS_PADDING_BYTE) {
			while (offs < avail && leb[offs] == UBIFS_PADDING_BYTE)
				offs++;
			if (offs & 7) {
				ubifs_report_add(rep, lnum, offs, "padding",
						 "padding bytes end unaligned");
				s->bad = 1;
				break;
			}
			continue;
		}
		if (offs + (int)UBIFS_CH_SZ > avail ||
		    le32toh(ch->magic) != UBIFS_NODE_MAGIC) {
			if (all_ff(leb + offs, avail - offs))
				break;
			if (offs + (int)UBIFS_CH_SZ > avail) {
				ubifs_report_add(rep, lnum, offs, "free space",
						 "not erased");
				s->bad = 1;
				break;
			}
			ubifs_report_add(rep, lnum, offs, "node",
					 le32toh(ch->magic) == 0xffffffff ?
					 "free space is not erased" :
					 "bad node magic 0x%08x",
					 le32toh(ch->magic));
			s->bad = 1;
			break;
		}
		len = le32toh(ch->len);
		if (len < UBIFS_CH_SZ ||
		    len > (uint32_t)(img->g.leb_size - offs)) {
			ubifs_report_add(rep, lnum, offs,
					 ubifs_node_name(ch->node_type),
					 "node length %u beyond LEB end", len);
			s->bad = 1;
			break;
		}
		if (len > (uint32_t)(avail - offs)) {
			ubifs_report_add(rep, lnum, offs,
					 ubifs_node_name(ch->node_type),
					 "node extends beyond the end of the image");
			s->bad = 1;
			break;
		}
		if (ch->node_type >= UBIFS_NODE_TYPES_CNT) {
			ubifs_report_add(rep, lnum, offs, "node",
					 "unknown node type %d", ch->node_type);
			s->bad = 1;
			break;
		}
		ok = ubifs_node_crc(img, ch, len) == le32toh(ch->crc);
		if (!ok)
			ubifs_report_add(rep, lnum, offs,
					 ubifs_node_name(ch->node_type),
					 "CRC mismatch");
		if (ch->node_type == UBIFS_PAD_NODE) {
			const struct ubifs_pad_node *pad = (const void *)ch;
			uint32_t pad_len = le32toh(pad->pad_len);
			uint32_t i;

			if (len != UBIFS_PAD_NODE_SZ ||
			    pad_len > (uint32_t)(avail - offs - len) ||
			    ((offs + len + pad_len) & 7)) {
				ubifs_report_add(rep, lnum, offs,
						 "padding node",
						 "bad padding length %u",
						 pad_len);
				s->bad = 1;
				break;
			}
			/* The kernel's ubifs_pad() and mkfs.ubifs zero it. */
			for (i = 0; i < pad_len; i++)
				if (leb[offs + len + i])
					break;
			if (i < pad_len) {
				ubifs_report_add(rep, lnum, offs + len + i,
						 "padding node",
						 "padding is not zero");
			}
			offs += len + pad_len;
			continue;
		}
		scan_add(s, leb + offs, offs, len, ok, auth);
		offs += ALIGN8(len);
	}
	if (offs > avail)
		offs = avail;
	s->end = offs;
	if (!s->bad && offs < avail && !all_ff(leb + offs, avail - offs)) {
		int i = offs;

		while (leb[i] == 0xff)
			i++;
		ubifs_report_add(rep, lnum, i, "free space",
				 "not erased (0x%02x)", leb[i]);
	}
}

/* One scanning thread: the LEBs [first, last) and a report of its own,
 * so that problems come out in LEB order whatever the threads did. */
struct scanner {
	struct ubifs_image *img;
	pthread_t thread;
	int started, share;
	int first, last, hash;
	struct ubifs_report rep;
	ubifs_progress_fn progress;
	void *arg;
};

/*
 * Pages of the file mapping that the scan has passed are dropped from
 * this process (MADV_DONTNEED on a private read-only file mapping only
 * unmaps them: the page cache keeps them, a later read faults them back).
 */
static void drop_pages(const struct ubifs_image *img, int from, int to)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)ubifs_leb(img, from);
	size_t end = (size_t)to * img->g.leb_size;
	uintptr_t b = (uintptr_t)img->data +
		      (end < img->size ? end : img->size);

	a = (a + page - 1) & ~(page - 1);
	b &= ~(page - 1);
	if (img->mapped && b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

static void *scan_range(void *arg)
{
	struct scanner *t = arg;
	struct ubifs_image *img = t->img;
	struct ubifs_auth *auth = NULL;
	int lnum, dropped = t->first;

	if (t->hash && (img->g.flags & UBIFS_FLG_AUTHENTICATION))
		auth = ubifs_auth_new(img->g.hash_algo, NULL, 0);
	for (lnum = t->first; lnum < t->last; lnum++) {
		/* Only the first thread reports, its share times the count. */
		if (t->progress && !(lnum & 63))
			t->progress(t->arg, lnum * t->share, img->g.leb_cnt);
		if (lnum - dropped >= 16) {
			drop_pages(img, dropped, lnum);
			dropped = lnum;
		}
		if (lnum >= img->g.lpt_first && lnum <= img->g.lpt_last)
			continue;
		scan_leb(img, lnum, &t->rep, auth);
	}
	drop_pages(img, dropped, t->last);
	ubifs_auth_free(auth);
	return NULL;
}

void ubifs_scan_all(struct ubifs_image *img, int hash,
		    struct ubifs_report *rep, ubifs_progress_fn progress,
		    void *arg)
{
	struct scanner t[4];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cpus < 1 ? 1 : cpus > 4 ? 4 : cpus, i, j;
	int cnt = img->g.leb_cnt;

	if (n > cnt / 16 + 1)
		n = cnt / 16 + 1;
	img->scan = xcalloc(cnt, sizeof(*img->scan));
	for (i = 0; i < n; i++) {
		t[i] = (struct scanner){
			.img = img, .hash = hash,
			.first = (long)cnt * i / n,
			.last = (long)cnt * (i + 1) / n,
			.progress = i ? NULL : progress,
			.arg = arg, .share = n,
		};
	}
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i].thread, NULL, scan_range, &t[i]))
			scan_range(&t[i]);
		else
			t[i].started = 1;
	scan_range(&t[0]);
	for (i = 0; i < n; i++) {
		if (t[i].started)
			pthread_join(t[i].thread, NULL);
		for (j = 0; j < t[i].rep.nr; j++) {
			const struct ubifs_problem *p = &t[i].rep.v[j];

			ubifs_report_add(rep, p->lnum, p->offs, p->what, "%s",
					 p->msg);
		}
		ubifs_report_clear(&t[i].rep);
	}
	if (progress)
		progress(arg, cnt, cnt);
}

const struct ubifs_snode *ubifs_find_node(const struct ubifs_image *img,
					  int lnum, int offs)
{
	const struct ubifs_leb_scan *s;
	int lo = 0, hi;

	if (!img->scan || lnum < 0 || lnum >= img->g.leb_cnt)
		return NULL;
	s = &img->scan[lnum];
	hi = s->nr - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (s->v[mid].offs == (uint32_t)offs)
			return &s->v[mid];
		if (s->v[mid].offs < (uint32_t)offs)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

int ubifs_node_read(const struct ubifs_image *img, struct ubifs_auth *auth,
		    int lnum, int offs, uint32_t len, const uint8_t *hash,
		    void *buf, struct strbuf *err)
{
	const struct ubifs_ch *ch = buf;
	uint8_t calc[UBIFS_MAX_HASH_LEN];
	size_t pos = (size_t)lnum * img->g.leb_size + offs;
	ssize_t got;

	if (lnum < 0 || lnum >= img->g.leb_cnt || offs < 0 ||
	    len < UBIFS_CH_SZ ||
	    (int64_t)offs + len > ubifs_leb_avail(img, lnum)) {
		strbuf_addf(err, "no node of %u bytes fits there", len);
		return -EINVAL;
	}
	if (img->fd >= 0) {
		got = pread(img->fd, buf, len, pos);
		if (got < 0) {
			got = -errno;
			strbuf_addf(err, "read: %s", strerror((int)-got));
			return (int)got;
		}
		if (got != (ssize_t)len) {
			strbuf_addf(err, "the file is shorter than when it "
				    "was scanned");
			return -EINVAL;
		}
	} else {
		memcpy(buf, img->data + pos, len);
	}
	if (le32toh(ch->magic) != UBIFS_NODE_MAGIC || le32toh(ch->len) != len) {
		strbuf_addf(err, "no longer the node that was scanned "
			    "(magic or length)");
		return -EINVAL;
	}
	if (ubifs_node_crc(img, buf, len) != le32toh(ch->crc)) {
		strbuf_addstr(err, "CRC mismatch");
		return -EINVAL;
	}
	if (hash && (ubifs_auth_hash(auth, buf, len, calc) ||
		     !ubifs_mac_equal(calc, hash, img->g.hash_len))) {
		strbuf_addstr(err, "hash mismatch");
		return -EINVAL;
	}
	return 0;
}

const struct ubifs_ubi_volume *ubifs_image_volume(
	const struct ubifs_image *img)
{
	return img->ubi_nr_vols > 1 ? &img->ubi_vol : NULL;
}

void ubifs_image_label(struct strbuf *sb, const char *path,
		       const struct ubifs_ubi_volume *v)
{
	strbuf_addstr(sb, path);
	if (!v)
		return;
	strbuf_addf(sb, ": volume %u", v->vol_id);
	if (v->name[0])
		strbuf_addf(sb, " \"%s\"", v->name);
}
