/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PRINT_FMT_H
#define TK_PRINT_FMT_H

#include <byteswap.h>
#include <stdint.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "util/strbuf.h"

/*
 * An event's print format, compiled once from the argument tree
 * libtraceevent parsed, so that formatting a record is a walk over a
 * few segments instead of tep_print_event()'s printf round trips.
 *
 * Only the common subset is compiled: literal text, integer
 * conversions (d i u x X o with the flags, widths and h/l/z modifiers
 * libtraceevent 1.7 hands to printf; it prints %c and a '+' flag as
 * text, so those are left to it), %s of char arrays, __get_str(),
 * __print_symbolic(), __print_flags() and ?: choices, %p and
 * %pS/%ps/%pF/%pf, over fields, constants, array indexing, casts and
 * arithmetic.  Anything else (print functions, IP and MAC formats,
 * bprint) is left to libtraceevent, and so is any record the compiled
 * form would have to guess about (a field outside the record, a
 * division by zero): the result is then the library's own, byte for
 * byte.  This is the format alone: a plugin's handler, which prints
 * before it or instead, is the caller's to run.
 */

struct print_fmt;

/*
 * tep_read_number() without the call: swap when the file's byte order
 * is not the host's.  Sizes other than 1, 2, 4, 8 read as 0, as there.
 */
static inline unsigned long long print_fmt_read_number(const void *p,
							unsigned int size,
							int swap)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		memcpy(&v2, p, 2);
		return swap ? bswap_16(v2) : v2;
	case 4:
		memcpy(&v4, p, 4);
		return swap ? bswap_32(v4) : v4;
	case 8:
		memcpy(&v8, p, 8);
		return swap ? bswap_64(v8) : v8;
	default:
		return 0;
	}
}

/*
 * Digits built backwards to end, the middle of a buffer of twice
 * PRINT_DIGITS_COPY bytes, move to o with one copy of that size: a
 * call to memcpy() cost more than the digits.  The caller has that
 * much room at o.
 */
#define PRINT_DIGITS_COPY	24

static inline char *print_move_digits(char *o, const char *p, const char *end)
{
	memcpy(o, p, PRINT_DIGITS_COPY);
	return o + (end - p);
}

static inline int print_fmt_needs_swap(struct tep_handle *tep)
{
	return tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
}

/* NULL when the event is not in the compiled subset. */
struct print_fmt *print_fmt_compile(struct tep_event *event);
void print_fmt_free(struct print_fmt *f);

/*
 * Appends the event's info text for rec to out: 0, or -EINVAL with out
 * unchanged when the record must go through tep_print_event().
 */
int print_fmt_info(const struct print_fmt *f, struct strbuf *out,
		   const struct tep_record *rec);

#endif
