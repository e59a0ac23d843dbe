// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tests.h"
#include "util/strbuf.h"

int test__strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char tmpl[] = "/tmp/tk-strbuf.XXXXXX";
	char *det;
	int fd, i;

	TEST_ASSERT_STR("init is empty string", sb.buf, "");
	strbuf_addf(&sb, "%d-%s", 42, "x");
	strbuf_addch(&sb, '!');
	TEST_ASSERT_STR("addf/addch", sb.buf, "42-x!");
	for (i = 0; i < 1000; i++)
		strbuf_addstr(&sb, "abcdefghij");
	TEST_ASSERT_EQUAL("grows", sb.len, 5 + 10000);
	strbuf_setlen(&sb, 2);
	strbuf_addstr(&sb, "  \n\t");
	strbuf_rtrim(&sb);
	TEST_ASSERT_STR("rtrim", sb.buf, "42");
	det = strbuf_detach(&sb, NULL);
	TEST_ASSERT_STR("detached", det, "42");
	TEST_ASSERT_STR("reset after detach", sb.buf, "");
	free(det);

	fd = mkstemp(tmpl);
	TEST_ASSERT_VAL("mkstemp", fd >= 0);
	TEST_ASSERT_EQUAL("write", write(fd, "hello\nworld\n", 12), 12);
	close(fd);
	TEST_ASSERT_EQUAL("read_file", strbuf_read_file(&sb, tmpl, 3), 12);
	TEST_ASSERT_STR("read_file content", sb.buf, "hello\nworld\n");
	unlink(tmpl);
	TEST_ASSERT_VAL("missing file gives -errno",
			strbuf_read_file(&sb, tmpl, 0) < 0);
	TEST_ASSERT_EQUAL("failed read keeps content", sb.len, 12);
	strbuf_release(&sb);
	return TEST_OK;
}
