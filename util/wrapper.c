// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/wrapper.h"

/* write(2) when at is NULL, else pwrite(2) from *at on. */
static int write_all(int fd, const char *p, size_t len, const uint64_t *at)
{
	uint64_t off = at ? *at : 0;

	while (len) {
		ssize_t n =
			at ? pwrite(fd, p, len, (off_t)off) : write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

int write_in_full(int fd, const void *buf, size_t len)
{
	return write_all(fd, buf, len, NULL);
}

int pwrite_in_full(int fd, const void *buf, size_t len, uint64_t off)
{
	return write_all(fd, buf, len, &off);
}

int write_file_atomic(const char *path, const void *buf, size_t len,
		      mode_t mode, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret;

	strbuf_addf(&tmp, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot create a temporary file: %s",
			    path, strerror(-ret));
		strbuf_release(&tmp);
		return ret;
	}
	ret = write_in_full(fd, buf, len);
	if (ret) {
		strbuf_addf(err, "%s: write failed: %s", tmp.buf,
			    strerror(-ret));
		close(fd);
		goto fail;
	}
	if (fchmod(fd, mode) || fsync(fd)) {
		ret = -errno;
		close(fd);
		goto incomplete;
	}
	if (close(fd) || rename(tmp.buf, path)) {
		ret = -errno;
		goto incomplete;
	}
	strbuf_release(&tmp);
	return 0;
incomplete:
	strbuf_addf(err, "%s: cannot complete: %s", path, strerror(-ret));
fail:
	unlink(tmp.buf);
	strbuf_release(&tmp);
	return ret;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	return remove(path);
}

int remove_tree(const char *path)
{
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}
