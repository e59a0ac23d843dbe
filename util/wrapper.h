/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_WRAPPER_H
#define TK_WRAPPER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/strbuf.h"

/*
 * write(2)/pwrite(2) until all of buf is written, retrying on EINTR and
 * short writes (git's write_in_full).  0, or -errno: ENOSPC and EIO must
 * reach the user, never be dropped.
 */
int write_in_full(int fd, const void *buf, size_t len);
int pwrite_in_full(int fd, const void *buf, size_t len, uint64_t off);

/*
 * Writes buf as the whole of path, with mode, through a temporary file
 * beside it that is synced and renamed over path: a reader sees the old
 * file or the new one, never a part.  Returns 0, or a negative errno
 * with a one-line reason naming the file in err; the temporary file is
 * removed.
 */
int write_file_atomic(const char *path, const void *buf, size_t len,
		      mode_t mode, struct strbuf *err);

/* Removes path and all under it, never following a symlink (rm -rf). */
int remove_tree(const char *path);

#endif
