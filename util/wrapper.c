// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include "util/wrapper.h"

/* write(2) when at is NULL, else pwrite(2) from *at on. */
static int write_all(int fd, const char *p, size_t len, const uint64_t *at)
{
	uint64_t off = at ? *at : 0;

	while (len) {
		ssize_t n = at ? pwrite(fd, p, len, (off_t)off) : write(fd, p, len);

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

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	return remove(path);
}

int remove_tree(const char *path)
{
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}
