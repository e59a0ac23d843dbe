// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/flamegraph.h"
#include "util/strbuf.h"

/*
 * A task name of bytes that are not text: a control character, XML's
 * specials, a byte that is no UTF-8, U+FFFF (which XML forbids), and a
 * well-formed é.
 */
#define ODD_NAME "t\x01<&>\"\xff\xef\xbf\xbf\xc3\xa9"
/*
 * The title of that frame as Chromium's DOM serializes it after parsing
 * the file (--dump-dom): controls and U+FFFF as U+FFFD, \xff as the
 * character U+00FF, '<', '&' and '>' escaped in text, '"' not.
 */
#define ODD_TITLE "t\xef\xbf\xbd&lt;&amp;&gt;\"\xc3\xbf\xef\xbf\xbd\xc3\xa9 (1 samples, 14.29%)"

static int has(const struct strbuf *sb, const char *what)
{
	if (strstr(sb->buf, what))
		return 1;
	fprintf(stderr, "not in the output: %s\n", what);
	return 0;
}

/* The files in dir: only the one written, no temporary file left. */
static int nr_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int render(const char *path, const struct strbuf *svg)
{
	struct strbuf cmd = STRBUF_INIT, dom = STRBUF_INIT;
	int ret = TEST_OK;

	strbuf_addf(&cmd, "chromium --headless --no-sandbox --disable-gpu "
		    "--user-data-dir=%s.chromium --dump-dom file://%s 2>/dev/null", path, path);
	if (test_run_capture(cmd.buf, &dom) || strstr(dom.buf, "parsererror") ||
	    !has(&dom, "<title>" ODD_TITLE "</title>") ||
	    !has(&dom, "<title>b (4 samples, 57.14%)</title>")) {
		fprintf(stderr, "%s: not rendered as written:\n%s\n--- written:\n%s\n",
			cmd.buf, dom.buf, svg->buf);
		ret = TEST_FAIL;
	}
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "rm -rf %s.chromium", path);
	if (system(cmd.buf))
		ret = TEST_FAIL;
	strbuf_release(&cmd);
	strbuf_release(&dom);
	return ret;
}

int test__flamegraph(void)
{
	char dir[] = "/tmp/tk-flamegraph.XXXXXX";
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT, svg = STRBUF_INIT;
	struct flamegraph *fg = flamegraph_new();
	int ret = test_need_host_cmd("chromium");

	if (ret != TEST_OK)
		goto out;
	ret = TEST_FAIL;
	if (!mkdtemp(dir))
		goto out;
	strbuf_addf(&path, "%s/g.svg", dir);
	/* Nothing to draw: an error naming the file, and no file. */
	if (flamegraph_write(fg, path.buf, "t", &err) != -EINVAL ||
	    !has(&err, path.buf) ||
	    !has(&err, "no call stacks") || nr_files(dir))
		goto clean;
	/* b under x;a: 3 + 1 samples. */
	flamegraph_add(fg, "x;a;b;c", 3);
	flamegraph_add(fg, "x;a;b", 1);
	flamegraph_add(fg, "x;d", 2);
	flamegraph_add(fg, ODD_NAME, 1);
	if (flamegraph_total(fg) != 7)
		goto clean;
	strbuf_reset(&err);
	if (flamegraph_write(fg, path.buf, "t", &err)) {
		fprintf(stderr, "%s\n", err.buf);
		goto clean;
	}
	if (strbuf_read_file(&svg, path.buf, 0) < 0 || nr_files(dir) != 1)
		goto clean;
	/* b: 4 of 7 samples of 1200 px, at the left padding; x: 6 of 7. */
	if (has(&svg, "<title>b (4 samples, 57.14%)</title><rect x=\"10.00\" y=\"") &&
	    has(&svg, "width=\"685.71\"") && has(&svg, "<title>x (6 samples, 85.71%)") &&
	    has(&svg, "width=\"1028.57\""))
		ret = render(path.buf, &svg);
clean:
	unlink(path.buf);
	rmdir(dir);
out:
	flamegraph_free(fg);
	strbuf_release(&err);
	strbuf_release(&svg);
	strbuf_release(&path);
	return ret;
}
