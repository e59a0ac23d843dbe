// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/json.h"
#include "util/strbuf.h"

/*
 * in (len bytes) is written as want; a JSON reader gets back the UTF-8
 * bytes decoded, NULL when they are in's own (well-formed UTF-8).
 */
static const struct json_case {
	const char *in;
	size_t len;
	const char *want;
	const char *decoded;
} cases[] = {
	{ "plain text", 10, "\"plain text\"", NULL },
	{ "a\"b\\c", 5, "\"a\\\"b\\\\c\"", NULL },
	{ "l1\nl2\tx", 8, "\"l1\\nl2\\tx\"", NULL },
	{ "\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"", NULL },
	{ "ab\0cd", 5, "\"ab\"", "ab" },
	{ "abcdef", 3, "\"abc\"", "abc" },
	{ "", 0, "\"\"", NULL },
	/* well-formed: copied */
	{ "\xc3\xa9", 2, "\"\xc3\xa9\"", NULL },				/* é */
	{ "\xe2\x82\xac", 3, "\"\xe2\x82\xac\"", NULL },			/* € */
	{ "\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"", NULL },		/* 😀 */
	{ "\xc2\x80\xdf\xbf", 4, "\"\xc2\x80\xdf\xbf\"", NULL },		/* U+0080, U+07FF */
	{ "\xed\x9f\xbf\xee\x80\x80", 6, "\"\xed\x9f\xbf\xee\x80\x80\"", NULL }, /* around surrogates */
	{ "\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"", NULL },		/* U+10FFFF */
	/* not: each byte as \u00XX */
	{ "\xff", 1, "\"\\u00ff\"", "\xc3\xbf" },
	{ "a\x80" "b", 3, "\"a\\u0080b\"", "a\xc2\x80" "b" },
	{ "\xc3", 1, "\"\\u00c3\"", "\xc3\x83" },
	{ "\xe2\x82", 2, "\"\\u00e2\\u0082\"", "\xc3\xa2\xc2\x82" },
	{ "\xf0\x9f\x98x", 4, "\"\\u00f0\\u009f\\u0098x\"", "\xc3\xb0\xc2\x9f\xc2\x98x" },
	{ "\xe2\x82\xac", 2, "\"\\u00e2\\u0082\"", "\xc3\xa2\xc2\x82" },	/* cut by len */
	{ "\xc3(", 2, "\"\\u00c3(\"", "\xc3\x83(" },
	{ "\xc0\x80", 2, "\"\\u00c0\\u0080\"", "\xc3\x80\xc2\x80" },		/* overlong NUL */
	{ "\xe0\x80\xaf", 3, "\"\\u00e0\\u0080\\u00af\"", "\xc3\xa0\xc2\x80\xc2\xaf" },
	{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"", "\xc3\xad\xc2\xa0\xc2\x80" }, /* U+D800 */
	{ "\xf4\x90\x80\x80", 4, "\"\\u00f4\\u0090\\u0080\\u0080\"",
	  "\xc3\xb4\xc2\x90\xc2\x80\xc2\x80" },				/* U+110000 */
	{ "\xc3\xa9\xff\xc3\xa9", 5, "\"\xc3\xa9\\u00ff\xc3\xa9\"", "\xc3\xa9\xc3\xbf\xc3\xa9" },
};

#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

static void print_hex(const char *what, const struct strbuf *sb)
{
	size_t i;

	fprintf(stderr, "%s:", what);
	for (i = 0; i < sb->len; i++)
		fprintf(stderr, " %02x", (unsigned char)sb->buf[i]);
	fputc('\n', stderr);
}

/*
 * jq reads the lines back, each string out as UTF-8 with a NUL after it.
 * It takes a byte that is not UTF-8 for U+FFFD, which the comparison
 * with the bytes wanted then shows.
 */
static int decoded_by_jq(const struct strbuf *lines, struct strbuf *got)
{
	char dir[] = "/tmp/tk-json.XXXXXX";
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, cmd = STRBUF_INIT;
	FILE *f;
	int ret = -1;

	if (!mkdtemp(dir))
		return -1;
	strbuf_addf(&in, "%s/in.json", dir);
	strbuf_addf(&out, "%s/out", dir);
	strbuf_addf(&cmd, "jq -j '., \"\\u0000\"' %s > %s", in.buf, out.buf);
	f = fopen(in.buf, "w");
	if (f) {
		int written = fwrite(lines->buf, 1, lines->len, f) ==
			      lines->len;

		if (!fclose(f) && written && !system(cmd.buf) &&
		    strbuf_read_file(got, out.buf, 0) >= 0)
			ret = 0;
	}
	if (ret)
		fprintf(stderr, "%s: failed\n", cmd.buf);
	unlink(in.buf);
	unlink(out.buf);
	rmdir(dir);
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&cmd);
	return ret;
}

static int strings(void)
{
	struct strbuf sb = STRBUF_INIT, lines = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	int ret = TEST_OK;
	size_t i;

	for (i = 0; i < NR_CASES; i++) {
		const struct json_case *c = &cases[i];

		strbuf_reset(&sb);
		json_add_string(&sb, c->in, c->len);
		if (strcmp(sb.buf, c->want)) {
			fprintf(stderr, "json string %zu: got %s, want %s\n",
				i, sb.buf, c->want);
			ret = TEST_FAIL;
		}
		strbuf_add(&lines, sb.buf, sb.len);
		strbuf_addch(&lines, '\n');
		if (c->decoded)
			strbuf_addstr(&want, c->decoded);
		else
			strbuf_add(&want, c->in, strnlen(c->in, c->len));
		strbuf_addch(&want, '\0');
	}
	if (ret == TEST_OK)
		ret = test_need_host_cmd("jq");
	if (ret == TEST_OK && decoded_by_jq(&lines, &got))
		ret = TEST_FAIL;
	if (ret == TEST_OK && (got.len != want.len ||
			       memcmp(got.buf, want.buf, got.len))) {
		fprintf(stderr, "jq does not read back what was written\n");
		print_hex("got", &got);
		print_hex("want", &want);
		ret = TEST_FAIL;
	}
	strbuf_release(&sb);
	strbuf_release(&lines);
	strbuf_release(&want);
	strbuf_release(&got);
	return ret;
}

static int writer(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);

	json_writer_object_begin(&jw, NULL);
	json_writer_int(&jw, "i", -1);
	json_writer_array_begin(&jw, "a");
	json_writer_string(&jw, NULL, "x");
	json_writer_string(&jw, NULL, NULL);
	json_writer_object_begin(&jw, NULL);
	json_writer_end(&jw);
	json_writer_end(&jw);
	json_writer_array_begin(&jw, "empty");
	json_writer_end(&jw);
	json_writer_uint(&jw, "u", 18446744073709551615ull);
	json_writer_double(&jw, "d", 2, 100.0 / 3);
	json_writer_string(&jw, "k\"", "\xc3\xa9");
	json_writer_end(&jw);
	TEST_ASSERT_STR("writer", sb.buf,
			"{\"i\":-1,\"a\":[\"x\",null,{}],\"empty\":[],"
			"\"u\":18446744073709551615,\"d\":33.33,\"k\\\"\":\"\xc3\xa9\"}");
	TEST_ASSERT_EQUAL("nothing left allocated", jw.open.alloc, 0);
	strbuf_release(&sb);
	return TEST_OK;
}

int test__json(void)
{
	int ret = strings();

	if (writer())
		ret = TEST_FAIL;
	return ret;
}
