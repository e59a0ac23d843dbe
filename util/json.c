// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "util/json.h"

static int json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/*
 * The second byte's range depends on the first (Unicode table
 * 3-7): it is what rules out overlong forms (E0 80..9F, F0 80..8F),
 * surrogates (ED A0..BF) and code points above U+10FFFF (F4 90..).
 */
size_t json_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void json_add_string(struct strbuf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	strbuf_addch(out, '"');
	while (i < len && u[i]) {
		unsigned char c = u[i];
		size_t run = i;

		while (run < len && json_plain(u[run]))
			run++;
		if (run > i) {
			strbuf_add(out, s + i, run - i);
			i = run;
			continue;
		}
		if (c >= 0x80) {
			run = json_utf8_len(u + i, len - i);
			if (run) {
				strbuf_add(out, s + i, run);
				i += run;
				continue;
			}
		}
		i++;
		if (c == '"' || c == '\\') {
			strbuf_addch(out, '\\');
			strbuf_addch(out, c);
		} else if (c == '\n') {
			strbuf_addstr(out, "\\n");
		} else if (c == '\t') {
			strbuf_addstr(out, "\\t");
		} else {
			strbuf_addf(out, "\\u%04x", c);
		}
	}
	strbuf_addch(out, '"');
}

void json_add_key(struct strbuf *out, const char *key)
{
	json_add_string(out, key, strlen(key));
	strbuf_addch(out, ':');
}

static void json_writer_value(struct json_writer *jw, const char *key)
{
	if (jw->need_comma)
		strbuf_addch(jw->out, ',');
	jw->need_comma = 1;
	if (key)
		json_add_key(jw->out, key);
}

static void json_writer_begin(struct json_writer *jw, const char *key,
			      char open, char close)
{
	json_writer_value(jw, key);
	strbuf_addch(jw->out, open);
	strbuf_addch(&jw->open, close);
	jw->need_comma = 0;
}

void json_writer_object_begin(struct json_writer *jw, const char *key)
{
	json_writer_begin(jw, key, '{', '}');
}

void json_writer_array_begin(struct json_writer *jw, const char *key)
{
	json_writer_begin(jw, key, '[', ']');
}

void json_writer_end(struct json_writer *jw)
{
	strbuf_addch(jw->out, jw->open.buf[jw->open.len - 1]);
	strbuf_setlen(&jw->open, jw->open.len - 1);
	if (!jw->open.len)
		strbuf_release(&jw->open);
	jw->need_comma = 1;
}

void json_writer_string(struct json_writer *jw, const char *key, const char *s)
{
	json_writer_value(jw, key);
	if (s)
		json_add_string(jw->out, s, strlen(s));
	else
		strbuf_addstr(jw->out, "null");
}

void json_writer_int(struct json_writer *jw, const char *key, long long v)
{
	json_writer_value(jw, key);
	strbuf_addf(jw->out, "%lld", v);
}

void json_writer_uint(struct json_writer *jw, const char *key,
		      unsigned long long v)
{
	json_writer_value(jw, key);
	strbuf_addf(jw->out, "%llu", v);
}

void json_writer_double(struct json_writer *jw, const char *key, int precision,
			double v)
{
	json_writer_value(jw, key);
	strbuf_addf(jw->out, "%.*f", precision, v);
}
