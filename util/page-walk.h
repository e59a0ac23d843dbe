/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PAGE_WALK_H
#define TK_PAGE_WALK_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#include "util/tracedat.h"

/*
 * The events of one ring-buffer page, walked as libtraceevent 1.7's
 * kbuffer walks them (kbuffer-parse.c, the format of every kernel since
 * 2.6.31), inline: util/tracedat-merge.c says why.
 *
 * A page: an 8-byte timestamp, a long holding the bytes of events
 * (low 27 bits) and the missed-events flags (bit 31: events were lost
 * before the page; bit 30: their count is stored after the events), the
 * events.  An event: a 32-bit word of type_len (5 bits) and time delta
 * (27 bits), the low bits in a little-endian file, the high ones in a
 * big-endian one; type_len 0: a word with the length plus 4, then the
 * data; 1-28: type_len * 4 bytes of data; 29: padding, its length in
 * the next word; 30: a time extend, 31: an absolute time stamp, the
 * next word holding the bits above the 27 of the delta (a stamp's top 5
 * bits are the running time's).  A time delta counts for every kind,
 * padding and extends too.
 *
 * Nothing is read past the commit's bytes but each event's own words,
 * as kbuffer: the caller keeps 8 readable bytes after the page and
 * checks each event's span against the page (the lengths are the
 * file's word), and w->backwards once an event comes back NULL.
 */

#define PAGE_WALK_DELTA_MASK	((1u << 27) - 1)
#define PAGE_WALK_TS_MSB	(0xf8ULL << 56)

struct page_walk {
	int long_size, big_endian;
	const unsigned char *data;	/* the page's first event */
	unsigned int size;		/* bytes of events */
	/* event header, its data, the next header */
	unsigned int curr, index, next;
	unsigned long long ts;
	long long lost;
	int backwards;			/* the walk stopped at a length < 0 */
};

static inline void page_walk_init(struct page_walk *w, int long_size,
				  int big_endian)
{
	memset(w, 0, sizeof(*w));
	w->long_size = long_size;
	w->big_endian = big_endian;
}

static inline uint32_t page_walk_4(const struct page_walk *w,
				   const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return w->big_endian ? be32toh(v) : le32toh(v);
}

static inline uint64_t page_walk_8(const struct page_walk *w,
				   const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return w->big_endian ? be64toh(v) : le64toh(v);
}

static inline uint64_t page_walk_long(const struct page_walk *w,
				      const unsigned char *p)
{
	return w->long_size == 8 ? page_walk_8(w, p) : page_walk_4(w, p);
}

/* kbuffer's __next_event(): to the next data event; -1 past the last. */
static inline int page_walk_step(struct page_walk *w)
{
	unsigned int type;

	do {
		const unsigned char *p;
		unsigned long long delta, extend;
		uint32_t h;
		int length;

		w->curr = w->next;
		if (w->next >= w->size)
			return -1;
		p = w->data + w->curr;
		h = page_walk_4(w, p);
		p += 4;
		type = w->big_endian ? h >> 27 : h & 31;
		delta = w->big_endian ? h & PAGE_WALK_DELTA_MASK : h >> 5;
		switch (type) {
		case 29:
			length = (int)page_walk_4(w, p);
			break;
		case 30:
		case 31:
			extend = page_walk_4(w, p);
			p += 4;
			delta += extend << 27;
			/*
			 * A stamp holds 59 bits: the rest stay the running
			 * time's.
			 */
			if (type == 31)
				delta |= w->ts & PAGE_WALK_TS_MSB;
			length = 0;
			break;
		case 0:
			length = (int)(page_walk_4(w, p) - 4);
			length = (length + 3) & ~3;
			p += 4;
			break;
		default:
			length = (int)type * 4;
			break;
		}
		if (type == 31)
			w->ts = delta;
		else
			w->ts += delta;
		w->index = (unsigned int)(p - w->data);
		w->next = w->index + (unsigned int)length;
		/*
		 * Only a corrupt length points back, and kbuffer would go
		 * round in circles there: the caller reports it.
		 */
		if (w->next <= w->curr) {
			w->backwards = 1;
			w->curr = w->size;
			return -1;
		}
	} while (type >= 29);
	return 0;
}

/* kbuffer_load_subbuffer(): the page's header, then up to its first event. */
static inline void page_walk_load(struct page_walk *w,
				  const unsigned char *page)
{
	uint64_t flags = page_walk_long(w, page + 8);

	w->ts = page_walk_8(w, page);
	w->data = page + 8 + w->long_size;
	w->size = (unsigned int)flags & TRACEDAT_COMMIT_MASK;
	if (!(flags & TRACEDAT_MISSING_EVENTS))
		w->lost = 0;
	else if (flags & TRACEDAT_MISSING_STORED)
		w->lost = (long long)page_walk_long(w, w->data + w->size);
	else
		w->lost = -1;
	w->curr = w->index = w->next = 0;
	w->backwards = 0;
	page_walk_step(w);
}

/*
 * kbuffer_read_event(), kbuffer_event_size() and kbuffer_missed_events()
 * of a page just loaded: its first event, or NULL.
 */
static inline const unsigned char *page_walk_first(const struct page_walk *w,
						   unsigned long long *ts,
						   int *size, int *missed)
{
	*missed = w->curr ? 0 : (int)w->lost;
	if (w->curr >= w->size)
		return NULL;
	*ts = w->ts;
	*size = (int)(w->next - w->index);
	return w->data + w->index;
}

/* kbuffer_next_event() and kbuffer_event_size(): the next event, or NULL. */
static inline const unsigned char *
page_walk_next(struct page_walk *w, unsigned long long *ts, int *size)
{
	if (page_walk_step(w) < 0)
		return NULL;
	*ts = w->ts;
	*size = (int)(w->next - w->index);
	return w->data + w->index;
}

#endif
