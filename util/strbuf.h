/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_STRBUF_H
#define TK_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

/*
 * A growing NUL-terminated string, in the manner of git's strbuf:
 * buf is never NULL once initialised, so it can always be printed.
 */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen_grow(struct strbuf *sb, size_t len);

/* Inline where no growth is needed: the report printer calls it per piece. */
static inline void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len >= sb->alloc) {
		strbuf_setlen_grow(sb, len);
		return;
	}
	sb->len = len;
	sb->buf[len] = '\0';
}
void strbuf_reset(struct strbuf *sb);
void strbuf_addstr(struct strbuf *sb, const char *s);

/* Bytes that fit before the buffer must grow. */
static inline size_t strbuf_avail(const struct strbuf *sb)
{
	return sb->alloc ? sb->alloc - sb->len - 1 : 0;
}

/* Inline: the report printer appends a dozen pieces per event. */
static inline void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (len > strbuf_avail(sb))
		strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

/*
 * Room for n bytes at the end, written in place through the pointer
 * returned, then kept with strbuf_setend(): one check for many pieces.
 */
static inline char *strbuf_room(struct strbuf *sb, size_t n)
{
	if (n > strbuf_avail(sb))
		strbuf_grow(sb, n);
	return sb->buf + sb->len;
}

/* The string now ends at end, inside the room strbuf_room() gave. */
static inline void strbuf_setend(struct strbuf *sb, char *end)
{
	strbuf_setlen(sb, end - sb->buf);
}

static inline void strbuf_addch(struct strbuf *sb, int c)
{
	if (!strbuf_avail(sb))
		strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_rtrim(struct strbuf *sb);
/* Appends the whole file; returns bytes read or -errno. */
long strbuf_read_file(struct strbuf *sb, const char *path, size_t hint);

#endif
