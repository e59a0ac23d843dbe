// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "util/usage.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	int fresh = !sb->alloc;

	if (need < sb->len)
		die("strbuf: size overflow");
	if (need <= sb->alloc)
		return;
	if (need < 2 * sb->alloc)
		need = 2 * sb->alloc;
	if (need < 64)
		need = 64;
	sb->buf = xrealloc(fresh ? NULL : sb->buf, need);
	sb->alloc = need;
	if (fresh)
		sb->buf[0] = '\0';
}

void strbuf_setlen_grow(struct strbuf *sb, size_t len)
{
	if (!sb->alloc && !len)
		return;
	if (len > sb->len)
		strbuf_grow(sb, len - sb->len);
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		die("strbuf: vsnprintf failed");
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	strbuf_setlen(sb, sb->len + n);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

long strbuf_read_file(struct strbuf *sb, const char *path, size_t hint)
{
	size_t start = sb->len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		strbuf_grow(sb, hint ? hint : 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			close(fd);
			strbuf_setlen(sb, start);
			return -err;
		}
		if (!n)
			break;
		strbuf_setlen(sb, sb->len + n);
	}
	close(fd);
	return (long)(sb->len - start);
}
