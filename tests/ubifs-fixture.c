// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/ubifs-fixture.h"
#include "util/strbuf.h"
#include "util/usage.h"

int ubifs_fixture_make(struct ubifs_fixture *f)
{
	const char *geom = "-m 2048 -e 129024 -c 64";
	char path[160];

	if (!test_have_cmd("mkfs.ubifs") || !test_have_cmd("openssl")) {
		fprintf(stderr, "FAILED: mkfs.ubifs (mtd-utils) or openssl is not "
			"installed: scripts/deps.sh installs both\n");
		return -1;
	}
	strcpy(f->dir, "/tmp/tk-ubifs.XXXXXX");
	if (!mkdtemp(f->dir)) {
		fprintf(stderr, "FAILED: mkdtemp failed\n");
		return -1;
	}
	snprintf(f->root, sizeof(f->root), "%s/root", f->dir);
	snprintf(f->key, sizeof(f->key), "%s/key.pem", f->dir);
	snprintf(f->cert, sizeof(f->cert), "%s/cert.pem", f->dir);
	snprintf(f->key2, sizeof(f->key2), "%s/key2.pem", f->dir);
	snprintf(f->cert2, sizeof(f->cert2), "%s/cert2.pem", f->dir);
	snprintf(f->plain, sizeof(f->plain), "%s/plain.img", f->dir);
	snprintf(f->signed_img, sizeof(f->signed_img), "%s/signed.img", f->dir);
	if (test_run("set -e; cd %s; mkdir -p root/sub/deep; echo hello >root/a.txt;"
		"head -c 20000 /dev/urandom >root/sub/b.bin;"
		"echo x >root/sub/deep/c; ln -s a.txt root/link;"
		"head -c 300000 /dev/urandom >root/big;"
		"seq 1 20000 >root/sub/text", f->dir))
		goto fail;
	/* mkfs.ubifs 2.1.5 as Debian builds it does not copy xattrs; the
	 * tree has them anyway, as the acceptance asks. */
	snprintf(path, sizeof(path), "%s/a.txt", f->root);
	setxattr(path, "user.tk", "value", 5, 0);
	if (test_run("cd %s && openssl req -x509 -newkey rsa:2048 -nodes -keyout "
		"key.pem -out cert.pem -days 2 -subj /CN=tracekit-test "
		">/dev/null 2>&1 && openssl req -x509 -newkey rsa:2048 -nodes "
		"-keyout key2.pem -out cert2.pem -days 2 -subj /CN=other "
		">/dev/null 2>&1", f->dir))
		goto fail;
	if (test_run("mkfs.ubifs %s -r %s %s", geom, f->root, f->plain) ||
	    test_run("mkfs.ubifs %s -r %s --hash-algo=sha256 --auth-key=%s "
		"--auth-cert=%s %s", geom, f->root, f->key, f->cert,
		f->signed_img))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "FAILED: building the fixture in %s failed\n", f->dir);
	ubifs_fixture_remove(f);
	return -1;
}

void ubifs_fixture_remove(struct ubifs_fixture *f)
{
	if (f->dir[0])
		test_run("rm -rf %s", f->dir);
	f->dir[0] = '\0';
}

uint8_t *ubifs_fixture_read(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path, 1 << 21) <= 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return (uint8_t *)strbuf_detach(&sb, len);
}
