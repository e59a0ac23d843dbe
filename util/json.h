/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_JSON_H
#define TK_JSON_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * The one JSON writer of every --json and --format json output.  Strings
 * come from the kernel and from trace files, bytes in no known encoding,
 * while JSON text must be UTF-8 (RFC 8259 section 8.1): well-formed UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF)
 * is copied as it is, and every other byte b is written as \u00bb, so the
 * output always parses and a reader sees which bytes were there.
 */

/*
 * The length of the well-formed UTF-8 sequence at s (at most n bytes),
 * or 0 where s starts no such sequence (an ASCII byte included).
 */
size_t json_utf8_len(const unsigned char *s, size_t n);

/*
 * Appends s, at most len bytes and up to a NUL, as a JSON string: '"' and
 * '\' escaped, \n and \t as such, other control characters and 0x7f as
 * \u00XX.
 */
void json_add_string(struct strbuf *out, const char *s, size_t len);

/* Appends "key": */
void json_add_key(struct strbuf *out, const char *key);

/*
 * A compact writer that places the commas: each value is an object
 * member when key is given, else an array element (or the top value).
 * The outermost json_writer_end() leaves nothing allocated but the output.
 */
struct json_writer {
	struct strbuf *out;
	struct strbuf open;	/* the closing brackets still due */
	int need_comma;
};

#define JSON_WRITER_INIT(sb) { .out = (sb), .open = STRBUF_INIT }

void json_writer_object_begin(struct json_writer *jw, const char *key);
void json_writer_array_begin(struct json_writer *jw, const char *key);
void json_writer_end(struct json_writer *jw);
/* s NULL: null */
void json_writer_string(struct json_writer *jw, const char *key, const char *s);
void json_writer_int(struct json_writer *jw, const char *key, long long v);
void json_writer_uint(struct json_writer *jw, const char *key,
		      unsigned long long v);
/* v with precision digits after the point */
void json_writer_double(struct json_writer *jw, const char *key, int precision,
			double v);

#endif
