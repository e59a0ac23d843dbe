// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "util/tracedat-write.h"
#include "util/wrapper.h"
#include "util/usage.h"

struct tracedat_writer {
	int fd;
	uint64_t off;
	unsigned int page_size;
	int zlevel;
	ZSTD_CCtx *zctx;
	struct strbuf options;	/* the first options section's payload */
	struct strbuf strings;	/* section descriptions */
	uint64_t options_ptr;	/* header field: offset of the first options */
};

struct tracedat_chunker {
	int zlevel;
	ZSTD_CCtx *zctx;
};

void tracedat_write_set_le(char *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

static void put_le(struct strbuf *sb, uint64_t v, int bytes)
{
	char b[8];

	tracedat_write_set_le(b, v, bytes);
	strbuf_add(sb, b, bytes);
}

void tracedat_write_put_u32(struct strbuf *sb, uint32_t v)
{
	put_le(sb, v, 4);
}

void tracedat_write_put_u64(struct strbuf *sb, uint64_t v)
{
	put_le(sb, v, 8);
}

static int write_all(struct tracedat_writer *w, const void *buf, size_t len)
{
	int ret = write_in_full(w->fd, buf, len);

	if (!ret)
		w->off += len;
	return ret;
}

static int write_zeros(struct tracedat_writer *w, size_t len)
{
	static const char zeros[4096];
	int ret = 0;

	while (len && !ret) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		ret = write_all(w, zeros, n);
		len -= n;
	}
	return ret;
}

/* Description strings are referred to by their offset in the table. */
static uint32_t add_string(struct tracedat_writer *w, const char *s)
{
	uint32_t id = w->strings.len;

	strbuf_add(&w->strings, s, strlen(s) + 1);
	return id;
}

static int zcompress(ZSTD_CCtx *z, int level, const void *in, size_t len,
		     struct strbuf *out)
{
	size_t bound = ZSTD_compressBound(len), at, n;

	at = out->len;
	strbuf_grow(out, TRACEDAT_CHUNK_HDR_SIZE + bound);
	n = ZSTD_compressCCtx(z, out->buf + at + TRACEDAT_CHUNK_HDR_SIZE, bound,
			      in, len, level);
	if (ZSTD_isError(n))
		return -EIO;
	/* Header filled in place: strbuf_add() would NUL the frame's start. */
	tracedat_write_set_le(out->buf + at, n, 4);
	tracedat_write_set_le(out->buf + at + 4, len, 4);
	strbuf_setlen(out, at + TRACEDAT_CHUNK_HDR_SIZE + n);
	return 0;
}

static void section_header(struct strbuf *sb, int id, int flags, uint32_t desc,
			   uint64_t size)
{
	put_le(sb, id, 2);
	put_le(sb, flags, 2);
	tracedat_write_put_u32(sb, desc);
	tracedat_write_put_u64(sb, size);
}

int tracedat_write_new(int fd, unsigned int page_size, int zlevel,
		       struct tracedat_writer **out)
{
	struct tracedat_writer *w = xcalloc(1, sizeof(*w));
	struct strbuf sb = STRBUF_INIT;
	int ret;

	w->fd = fd;
	w->page_size = page_size;
	w->zlevel = zlevel;
	strbuf_init(&w->options, 0);
	strbuf_init(&w->strings, 0);
	if (zlevel >= 0) {
		w->zctx = ZSTD_createCCtx();
		if (!w->zctx) {
			tracedat_write_free(w);
			return -ENOMEM;
		}
	}
	strbuf_add(&sb, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN);
	strbuf_addf(&sb, "%d", TRACEDAT_VERSION);
	strbuf_addch(&sb, 0);
	strbuf_addch(&sb, 0);			/* little endian */
	strbuf_addch(&sb, sizeof(long));
	tracedat_write_put_u32(&sb, page_size);
	if (zlevel >= 0) {
		strbuf_add(&sb, "zstd", 5);
		strbuf_add(&sb, ZSTD_versionString(),
			   strlen(ZSTD_versionString()) + 1);
	} else {
		/* An uncompressed file names "none" with an empty version. */
		strbuf_add(&sb, "none", 5);
		strbuf_addch(&sb, 0);
	}
	w->options_ptr = sb.len;
	tracedat_write_put_u64(&sb, 0);
	ret = write_all(w, sb.buf, sb.len);
	strbuf_release(&sb);
	if (ret) {
		tracedat_write_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

void tracedat_write_free(struct tracedat_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->zctx);
	strbuf_release(&w->options);
	strbuf_release(&w->strings);
	free(w);
}

uint64_t tracedat_write_offset(const struct tracedat_writer *w)
{
	return w->off;
}

int tracedat_write_option(struct tracedat_writer *w, enum tracedat_option id,
	       const void *data, size_t len)
{
	put_le(&w->options, id, 2);
	tracedat_write_put_u32(&w->options, len);
	strbuf_add(&w->options, data, len);
	return 0;
}

int tracedat_write_option_str(struct tracedat_writer *w,
			      enum tracedat_option id, const char *s)
{
	return tracedat_write_option(w, id, s, strlen(s) + 1);
}

static const char *section_desc(enum tracedat_option id)
{
	switch (id) {
	case TRACEDAT_OPT_HEADER_INFO:		return "headers";
	case TRACEDAT_OPT_FTRACE_EVENTS:	return "ftrace events";
	case TRACEDAT_OPT_EVENT_FORMATS:	return "events format";
	case TRACEDAT_OPT_KALLSYMS:		return "kallsyms";
	case TRACEDAT_OPT_PRINTK:		return "printk";
	case TRACEDAT_OPT_CMDLINES:		return "command lines";
	default:				return NULL;
	}
}

/* A whole section: header, then the payload, compressed as one block. */
static int write_section_id(struct tracedat_writer *w, int id, uint32_t desc,
			    const void *data, size_t len)
{
	struct strbuf sb = STRBUF_INIT, z = STRBUF_INIT;
	int compress = w->zlevel >= 0 && id != TRACEDAT_SEC_OPTIONS;
	int ret = 0;

	if (compress) {
		ret = zcompress(w->zctx, w->zlevel, data, len, &z);
		if (ret)
			goto out;
		data = z.buf;
		len = z.len;
	}
	section_header(&sb, id, compress ? TRACEDAT_SEC_FL_COMPRESS : 0, desc,
		       len);
	ret = write_all(w, sb.buf, sb.len);
	if (!ret)
		ret = write_all(w, data, len);
out:
	strbuf_release(&sb);
	strbuf_release(&z);
	return ret;
}

static int write_section(struct tracedat_writer *w, int id, const char *desc,
			 const void *data, size_t len)
{
	return write_section_id(w, id, add_string(w, desc), data, len);
}

int tracedat_write_section(struct tracedat_writer *w, enum tracedat_option id,
		const void *data, size_t len)
{
	const char *desc = section_desc(id);
	struct strbuf ptr = STRBUF_INIT;
	uint64_t at = w->off;
	int ret;

	if (!desc)
		return -EINVAL;
	ret = write_section(w, id, desc, data, len);
	if (ret)
		return ret;
	tracedat_write_put_u64(&ptr, at);
	ret = tracedat_write_option(w, id, ptr.buf, ptr.len);
	strbuf_release(&ptr);
	return ret;
}

int tracedat_chunker_new(int zlevel, struct tracedat_chunker **out)
{
	struct tracedat_chunker *c = xcalloc(1, sizeof(*c));

	c->zlevel = zlevel;
	if (zlevel >= 0) {
		c->zctx = ZSTD_createCCtx();
		if (!c->zctx) {
			free(c);
			return -ENOMEM;
		}
	}
	*out = c;
	return 0;
}

void tracedat_chunker_free(struct tracedat_chunker *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->zctx);
	free(c);
}

int tracedat_chunk_encode(struct tracedat_chunker *c, const void *pages,
			  size_t len, struct strbuf *out)
{
	if (c->zlevel < 0) {
		strbuf_add(out, pages, len);
		return 0;
	}
	return zcompress(c->zctx, c->zlevel, pages, len, out);
}

static int align_to_page(struct tracedat_writer *w)
{
	uint64_t rem = w->off % w->page_size;

	return rem ? write_zeros(w, w->page_size - rem) : 0;
}

static int copy_fd(struct tracedat_writer *w, int fd, uint64_t size)
{
	char buf[65536];
	uint64_t off = 0;

	while (off < size) {
		size_t want =
			size - off < sizeof(buf) ? size - off : sizeof(buf);
		ssize_t n = pread(fd, buf, want, off);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		ret = write_all(w, buf, n);
		if (ret)
			return ret;
		off += n;
	}
	return 0;
}

/*
 * The flyrecord section: CPU data at page-aligned file offsets, the gaps
 * being part of the section so that sections stay back to back.  Fills
 * the per-CPU offset and size table of the BUFFER option.
 */
static int write_flyrecord(struct tracedat_writer *w, const char *name,
			   const struct tracedat_write_cpu_data *cpus,
			   int nr_cpus, uint64_t *offsets, uint64_t *sizes,
			   uint64_t *at)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t start, size_field;
	int compress = w->zlevel >= 0;
	uint32_t desc;
	int i, ret;

	*at = w->off;
	strbuf_addf(&sb, "buffer flyrecord %s", name);
	desc = add_string(w, sb.buf);
	strbuf_reset(&sb);
	section_header(&sb, TRACEDAT_SEC_FLYRECORD,
		       compress ? TRACEDAT_SEC_FL_COMPRESS : 0, desc, 0);
	size_field = w->off + sb.len - 8;
	ret = write_all(w, sb.buf, sb.len);
	strbuf_release(&sb);
	if (ret)
		return ret;
	start = w->off;
	for (i = 0; i < nr_cpus && !ret; i++) {
		ret = align_to_page(w);
		if (ret)
			break;
		offsets[i] = w->off;
		if (compress) {
			struct strbuf cnt = STRBUF_INIT;

			tracedat_write_put_u32(&cnt, cpus[i].nr_chunks);
			ret = write_all(w, cnt.buf, cnt.len);
			strbuf_release(&cnt);
			if (ret)
				break;
		}
		ret = copy_fd(w, cpus[i].fd, cpus[i].size);
		sizes[i] = w->off - offsets[i];
	}
	if (!ret) {
		struct strbuf sz = STRBUF_INIT;

		tracedat_write_put_u64(&sz, w->off - start);
		ret = pwrite_in_full(w->fd, sz.buf, sz.len, size_field);
		strbuf_release(&sz);
	}
	return ret;
}

static int write_options(struct tracedat_writer *w, const struct strbuf *opts,
			 uint64_t *done_field)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_add(&sb, opts->buf, opts->len);
	put_le(&sb, TRACEDAT_OPT_DONE, 2);
	tracedat_write_put_u32(&sb, 8);
	*done_field = w->off + TRACEDAT_SECTION_HDR_SIZE + sb.len;
	tracedat_write_put_u64(&sb, 0);
	ret = write_section(w, TRACEDAT_SEC_OPTIONS, "options", sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

static int patch_u64(struct tracedat_writer *w, uint64_t field, uint64_t v)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	tracedat_write_put_u64(&sb, v);
	ret = pwrite_in_full(w->fd, sb.buf, sb.len, field);
	strbuf_release(&sb);
	return ret;
}

int tracedat_write_finish(struct tracedat_writer *w, const char *name,
			  const char *clock, unsigned int buf_page_size,
			  const struct tracedat_write_cpu_data *cpus,
			  int nr_cpus)
{
	uint64_t *offsets = xcalloc(nr_cpus + 1, sizeof(*offsets));
	uint64_t *sizes = xcalloc(nr_cpus + 1, sizeof(*sizes));
	struct strbuf buf = STRBUF_INIT, payload = STRBUF_INIT;
	uint64_t first, done1, done2, fly;
	int i, ret;

	first = w->off;
	ret = write_options(w, &w->options, &done1);
	if (!ret)
		ret = write_flyrecord(w, name, cpus, nr_cpus, offsets, sizes,
				      &fly);
	if (ret)
		goto out;

	/*
	 * BUFFER: offset, name, clock, page size, CPU count, {id, offset,
	 * size}.
	 */
	tracedat_write_put_u64(&payload, fly);
	strbuf_add(&payload, name, strlen(name) + 1);
	strbuf_add(&payload, clock, strlen(clock) + 1);
	tracedat_write_put_u32(&payload, buf_page_size);
	tracedat_write_put_u32(&payload, nr_cpus);
	for (i = 0; i < nr_cpus; i++) {
		tracedat_write_put_u32(&payload, cpus[i].cpu);
		tracedat_write_put_u64(&payload, offsets[i]);
		tracedat_write_put_u64(&payload, sizes[i]);
	}
	put_le(&buf, TRACEDAT_OPT_BUFFER, 2);
	tracedat_write_put_u32(&buf, payload.len);
	strbuf_add(&buf, payload.buf, payload.len);
	ret = patch_u64(w, done1, w->off);
	if (!ret)
		ret = write_options(w, &buf, &done2);
	if (!ret) {
		/* The strings section describes itself too. */
		uint32_t desc = add_string(w, "strings");

		ret = write_section_id(w, TRACEDAT_OPT_STRINGS, desc,
				       w->strings.buf, w->strings.len);
	}
	if (!ret)
		ret = patch_u64(w, w->options_ptr, first);
out:
	strbuf_release(&buf);
	strbuf_release(&payload);
	free(offsets);
	free(sizes);
	return ret;
}
