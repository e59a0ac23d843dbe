// SPDX-License-Identifier: GPL-2.0
/*
 * record: whether the file needs /proc/kallsyms.  A reader of the file
 * uses the kernel's symbols to name the code behind an address: the
 * tracers' functions, stack traces, and the fields that an event's print
 * format shows as a symbol (%pS, %ps, ...).  A recording of events that
 * name no code does not need them.  Left out, the file is smaller by
 * most of a megabyte (for a short recording that is the most of it), it
 * does not give away where the kernel sits in memory (KASLR), and the
 * recorder saves reading and compressing 4-10 MB of text: in the test
 * guest (kernel 6.1 under TCG, one CPU), `record -e sched -e raw_syscalls
 * -P PID` of 1.2M events took 1.06-1.14 s of CPU with, 0.86-0.91 s
 * without, the readers' scan below included.  Which events occur is only
 * known once they are read: the readers look for those that name code,
 * and the trailer saves kallsyms when one came (record_write_trailer()).
 */
#include <stdlib.h>
#include <string.h>

#include "util/record-int.h"
#include "util/usage.h"

#define MAX_EVENT_ID	0xffff

static void need_ksyms(struct record *rec)
{
	__atomic_store_n(&rec->threads.ksyms_needed, 1, __ATOMIC_RELAXED);
}

void record_ksyms_setup(struct record *rec)
{
	const struct record_opts *o = rec->o;

	/* Tracers print functions; -T and --func-stack record kernel stacks. */
	if ((o->tracer && strcmp(o->tracer, "nop")) || o->stacktrace || o->func_stack ||
	    o->trace_options.nr)
		need_ksyms(rec);
}

/* The print format shows a symbol, or the event is a probe at an address. */
static int names_code(const char *format)
{
	const char *p = strstr(format, "\nprint fmt:");

	if (strstr(format, " __probe_ip;") || !p)
		return 1;
	while ((p = strstr(p, "%p")))
		if (*(p += 2) && strchr("SsFfB", *p))
			return 1;
	return 0;
}

void record_ksyms_note_format(struct record *rec, const char *format)
{
	const char *id = strstr(format, "\nID: ");
	char *end;
	unsigned long v;

	if (!names_code(format))
		return;
	v = id ? strtoul(id + 5, &end, 10) : 0;
	if (!id || end == id + 5 || v > MAX_EVENT_ID) {
		need_ksyms(rec);
		return;
	}
	if (!rec->setup.ksym_ids)
		rec->setup.ksym_ids = xcalloc(MAX_EVENT_ID / 8 + 1, 1);
	rec->setup.ksym_ids[v / 8] |= 1u << (v % 8);
}

/* header_page: the sub-buffer's commit field is a long of the kernel. */
void record_ksyms_note_header_page(struct record *rec, const char *text)
{
	const char *p = strstr(text, " commit;");

	p = p ? strstr(p, "size:") : NULL;
	rec->setup.commit_size = p && atoi(p + 5) == 4 ? 4 : 8;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The ring buffer's event headers walked by hand rather than with
 * libtraceevent's kbuffer, which decodes each event whole (timestamps,
 * lengths, through calls): only the ids matter here, and this runs on
 * every page read.  On the host, 402,000 events of dd (19.6 MB of pages)
 * took 3.7-4.9 ms this way, 7.9-12.0 ms with kbuffer_read_event() and
 * kbuffer_next_event(); in the guest the readers' user time grew by
 * 0.01-0.02 s for 1.2M events.  Layout (kernel/trace/ring_buffer.c):
 * a 32-bit header, type_len in its low 5 bits; 0: length in the next
 * word, data after it; 1-28: data of type_len * 4 bytes; 29: padding
 * (the rest of the page when its time delta is 0); 30, 31: 8-byte time
 * records.  An event's data starts with its 16-bit id.
 */
static int page_names_code(const struct record *rec, const unsigned char *page)
{
	size_t off = 8 + rec->setup.commit_size, end;
	uint64_t commit = 0;

	memcpy(&commit, page + 8, rec->setup.commit_size);
	end = off + (commit & ((1u << 27) - 1));
	if (end > rec->setup.psize)
		end = rec->setup.psize;
	while (off + 4 <= end) {
		uint32_t h = get32(page + off), type = h & 31;
		/*
		 * size_t: a length near 4 GB plus 4 must not wrap to no step.
		 */
		size_t data = 0, len;
		uint16_t id;

		if (type == 0) {
			if (off + 8 > end || (len = get32(page + off + 4)) < 4)
				break;
			data = off + 8;
			len += 4;
		} else if (type <= 28) {
			data = off + 4;
			len = 4 + type * 4;
		} else if (type == 29) {
			if (!(h >> 5) || off + 8 > end)
				break;
			len = (size_t)get32(page + off + 4) + 4;
		} else {
			len = 8;
		}
		if (data && data + 2 <= end) {
			memcpy(&id, page + data, 2);
			if (rec->setup.ksym_ids[id / 8] & (1u << (id % 8)))
				return 1;
		}
		off += len;
	}
	return 0;
}

void record_ksyms_scan(struct record *rec, const unsigned char *pages,
		       size_t len)
{
	size_t at;

	if (!rec->setup.ksym_ids ||
	    __atomic_load_n(&rec->threads.ksyms_needed, __ATOMIC_RELAXED))
		return;
	for (at = 0; at + rec->setup.psize <= len; at += rec->setup.psize)
		if (page_names_code(rec, pages + at)) {
			need_ksyms(rec);
			return;
		}
}

/*
 * Whether the events might need kallsyms, before any is read: the live
 * view's file is written before tracing starts (record_write_snapshot()).
 */
int record_ksyms_any(const struct record *rec)
{
	int i;

	if (__atomic_load_n(&rec->threads.ksyms_needed, __ATOMIC_RELAXED))
		return 1;
	for (i = 0; rec->setup.ksym_ids && i <= MAX_EVENT_ID / 8; i++)
		if (rec->setup.ksym_ids[i])
			return 1;
	return 0;
}
