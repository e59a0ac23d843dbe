// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for tests/shell/ubifs-extract-toctou.sh, preloaded into
 * tracekit: the attacker who rewrites the image file between its
 * verification and its use.  At the first call of the libc function
 * named by TK_SWAP_AT ("lstat": extract's first call after verify,
 * before it reads the index; "mkdtemp": after it read the index, before
 * it reads the leaves) it overwrites TK_SWAP_IMAGE in place with the
 * bytes of TK_SWAP_WITH (without truncating it), or with TK_SWAP_WITH
 * unset, cuts it to half its size.  Then it calls the real function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void swap(const char *at)
{
	static int done;
	const char *want = getenv("TK_SWAP_AT");
	const char *image = getenv("TK_SWAP_IMAGE");
	const char *with = getenv("TK_SWAP_WITH");
	char buf[65536];
	struct stat st;
	ssize_t n;
	int in, out;

	if (done || !want || !image || strcmp(want, at))
		return;
	done = 1;
	out = open(image, O_WRONLY);
	if (out < 0 || fstat(out, &st))
		abort();
	if (!with) {
		if (ftruncate(out, st.st_size / 2))
			abort();
		close(out);
		return;
	}
	in = open(with, O_RDONLY);
	if (in < 0)
		abort();
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			abort();
	close(in);
	close(out);
}

int lstat(const char *path, struct stat *st)
{
	int (*real)(const char *, struct stat *) = dlsym(RTLD_NEXT, "lstat");

	swap("lstat");
	return real(path, st);
}

char *mkdtemp(char *tmpl)
{
	char *(*real)(char *) = dlsym(RTLD_NEXT, "mkdtemp");

	swap("mkdtemp");
	return real(tmpl);
}
