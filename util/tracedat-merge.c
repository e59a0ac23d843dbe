// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU streams of opened trace.dat files, each reading its pages
 * (raw, or zstd or zlib chunks decompressed one at a time), and their
 * merge by timestamp in a binary heap.
 *
 * A page's events are walked as libtraceevent 1.7's kbuffer walks them
 * (util/page-walk.h), not through kbuffer, whose walk reads every word
 * through function pointers: kbuffer_next_event() and what it calls
 * were a third of `report --stat` (perf record).  On a file of 1.2M
 * events of a dd (bench/report.sh's uniform file), best of 7, CPU:
 * --stat 129 -> 81 ms, the text report 255 -> 189 ms.  tests/page-walk.c
 * holds the two walks equal; files of kernels before 2.6.31 (kbuffer's
 * "old format") still go through kbuffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/kbuffer.h>

#include "util/array.h"
#include "util/page-walk.h"
#include "util/tracedat-merge.h"
#include "util/tracedat-read-int.h"
#include "util/usage.h"

/* Uncompressed data is read this many pages at a time. */
#define RAW_READ_PAGES		64

/* Pages handed to a live stream, waiting for it to reach them. */
struct live_block {
	struct live_block *next;
	size_t len;
	unsigned char data[];
};

struct stream {
	struct tracedat *td;
	int buffer, source;
	int cpu;
	unsigned int page_size, hdr_size;
	uint64_t pos, end;		/* file range still to read */
	uint32_t chunks_left;
	int chunked;
	unsigned char *buf, *cbuf;	/* pages (decompressed), compressed
					 * chunk */
	size_t buf_len, buf_alloc, cbuf_alloc, page;
	uint64_t buf_off;		/* file offset the pages came from */
	uint64_t page_off;		/* ... and of the current page (or
					 * chunk) */
	int page_loaded, started;
	unsigned char *data_end;	/* end of the current page's events */
	struct kbuffer *kbuf;		/* old format only */
	struct page_walk walk;
	struct tep_record rec;
	/*
	 * A live stream's pages come from tracedat_merge_feed(), not from
	 * the file; when it has none left it waits outside the heap.
	 */
	int live, in_heap;
	struct live_block *blocks, **blocks_tail;
	uint64_t fed;			/* bytes fed: the pages' "offsets" */
	unsigned char *block;		/* the block the pages are read from */
};

struct tracedat_merge {
	struct stream **heap;
	int nr, alloc;
	int nr_added;
	/* the live streams, in or out of the heap */
	struct stream **live;
	int nr_live, alloc_live;
	uint64_t until;			/* tracedat_merge_hold() */
	uint64_t fed_ts;		/* tracedat_merge_fed_ts() */
};

struct tracedat_merge *tracedat_merge_new(void)
{
	struct tracedat_merge *m = xcalloc(1, sizeof(*m));

	m->until = UINT64_MAX;
	return m;
}

static int stream_read_raw(struct stream *s)
{
	size_t n = (size_t)s->page_size * RAW_READ_PAGES;
	int ret;

	if (s->pos >= s->end)
		return 0;
	if (n > s->end - s->pos)
		n = s->end - s->pos;
	if (n % s->page_size)
		return tracedat_bad(s->td, s->pos,
				    "cpu %d data ends in a partial page (%zu bytes)",
				    s->cpu, n % s->page_size);
	ret = tracedat_pread(s->td, s->buf, n, s->pos, "ring buffer pages");
	if (ret)
		return ret;
	s->buf_off = s->pos;
	s->pos += n;
	s->buf_len = n;
	return 1;
}

static int stream_read_chunk(struct stream *s)
{
	struct tracedat *td = s->td;
	unsigned char hdr[TRACEDAT_CHUNK_HDR_SIZE];
	uint64_t csize, usize;
	int ret;

	if (!s->chunks_left)
		return 0;
	if (s->end - s->pos < sizeof(hdr))
		return tracedat_bad(td, s->pos,
				    "chunk header past the cpu %d data",
				    s->cpu);
	ret = tracedat_pread(td, hdr, sizeof(hdr), s->pos, "chunk header");
	if (ret)
		return ret;
	csize = tracedat_num(td, hdr, 4);
	usize = tracedat_num(td, hdr + 4, 4);
	if (csize > s->end - s->pos - sizeof(hdr))
		return tracedat_bad(td, s->pos,
				    "chunk of %llu bytes runs past the cpu %d data",
				    (unsigned long long)csize, s->cpu);
	if (!usize || usize % s->page_size || usize > MAX_CHUNK_SIZE)
		return tracedat_bad(td, s->pos,
				    "absurd chunk size %llu (page size %u)",
				    (unsigned long long)usize, s->page_size);
	if (csize > s->cbuf_alloc) {
		free(s->cbuf);
		s->cbuf = xmalloc(csize);
		s->cbuf_alloc = csize;
	}
	ret = tracedat_pread(td, s->cbuf, csize, s->pos + sizeof(hdr),
			     "chunk");
	if (ret)
		return ret;
	if (usize > s->buf_alloc) {
		free(s->buf);
		s->buf = xmalloc(usize + BUF_PAD);
		s->buf_alloc = usize;
	}
	ret = tracedat_decompress(td, s->buf, usize, s->cbuf, csize, s->pos,
				  "chunk");
	if (ret)
		return ret;
	memset(s->buf + usize, 0, BUF_PAD);
	s->buf_off = s->pos;
	s->pos += sizeof(hdr) + csize;
	s->chunks_left--;
	s->buf_len = usize;
	return 1;
}

/*
 * The next block fed, 0 when there is none yet.  The block before is
 * freed only now: the stream's record pointed into it until this call.
 */
static int stream_read_live(struct stream *s)
{
	struct live_block *b = s->blocks;

	if (!b)
		return 0;
	s->blocks = b->next;
	if (!s->blocks)
		s->blocks_tail = &s->blocks;
	free(s->block);
	s->block = (unsigned char *)b;
	s->buf = b->data;
	s->buf_len = b->len;
	s->buf_off = s->fed;
	s->fed += b->len;
	return 1;
}

static int stream_fill(struct stream *s)
{
	s->page = 0;
	s->buf_len = 0;
	if (s->live)
		return stream_read_live(s);
	return s->chunked ? stream_read_chunk(s) : stream_read_raw(s);
}

/* Checks a page header before kbuffer trusts its commit field. */
static int stream_load_page(struct stream *s)
{
	unsigned char *page;
	uint64_t commit, size;
	int r;

	for (;;) {
		if (s->page >= s->buf_len) {
			r = stream_fill(s);
			if (r <= 0)
				return r;
		}
		page = s->buf + s->page;
		commit = tracedat_num(s->td, page + 8, s->td->info.long_size);
		size = commit & TRACEDAT_COMMIT_MASK;
		if (size + s->hdr_size + ((commit & TRACEDAT_MISSING_STORED) ?
					  (unsigned)s->td->info.long_size :
					  0) > s->page_size)
			return tracedat_bad(s->td, s->buf_off,
					    "cpu %d: page %zu claims %llu bytes of events in a %u-byte page",
					    s->cpu, s->page / s->page_size,
					    (unsigned long long)size,
					    s->page_size);
		/*
		 * Raw pages have their own offset; a chunk's pages share the
		 * chunk's.
		 */
		s->page_off = s->buf_off + (s->chunked ? 0 : s->page);
		s->page += s->page_size;
		if (!size)
			continue;
		if (s->kbuf && kbuffer_load_subbuffer(s->kbuf, page))
			return tracedat_bad(s->td, s->buf_off,
					    "cpu %d: unreadable ring buffer page",
					    s->cpu);
		if (!s->kbuf)
			page_walk_load(&s->walk, page);
		s->data_end = page + s->hdr_size + size;
		s->page_loaded = 1;
		s->started = 0;
		return 1;
	}
}

static uint64_t stream_ts(const struct stream *s, unsigned long long ts)
{
	const struct tracedat *td = s->td;

	/*
	 * A guest's timestamps in the host's clock, before the TSC
	 * conversion, as trace-cmd's timestamp_calc().  trace-cmd 3.1.6
	 * applies TIME_SHIFT to the top-level buffer only: an instance's
	 * events print unshifted (measured on a fixture with the option).
	 */
	if (td->tsync.nr_cpus && !*td->buffers[s->buffer].name)
		ts = tracedat_tsync(&td->tsync, s->cpu, ts);
	if (td->tsc_mult)
		ts = (uint64_t)(((unsigned __int128)ts * td->tsc_mult) >>
				td->tsc_shift) + td->tsc_offset;
	return ts + td->ts_offset;
}

/* 1 with s->rec set, 0 when the stream is done, -errno on a corrupt page. */
static int stream_next(struct stream *s)
{
	unsigned long long ts;
	const unsigned char *data;
	int r, size, missed;

	for (;;) {
		if (s->page_loaded) {
			missed = 0;
			if (s->kbuf) {
				data = s->started ?
					kbuffer_next_event(s->kbuf, &ts) :
					kbuffer_read_event(s->kbuf, &ts);
				if (!s->started)
					missed = kbuffer_missed_events(s->kbuf);
				size = data ? kbuffer_event_size(s->kbuf) : 0;
			} else {
				data = s->started ?
					page_walk_next(&s->walk, &ts, &size) :
					page_walk_first(&s->walk, &ts, &size,
							&missed);
			}
			s->rec.missed_events = missed;
			s->started = 1;
			if (data) {
				if (size < 0 || data + size > s->data_end)
					return tracedat_bad(s->td, s->buf_off,
							    "cpu %d: event of %d bytes runs past its page",
							    s->cpu, size);
				s->rec.ts = stream_ts(s, ts);
				s->rec.offset = s->page_off;
				s->rec.data = (void *)data;
				s->rec.size = size;
				return 1;
			}
			if (!s->kbuf && s->walk.backwards)
				return tracedat_bad(s->td, s->page_off,
						    "cpu %d: an event's length points back into its page",
						    s->cpu);
			s->page_loaded = 0;
		}
		r = stream_load_page(s);
		if (r <= 0)
			return r;
	}
}

static int stream_before(const struct stream *a, const struct stream *b)
{
	if (a->rec.ts != b->rec.ts)
		return a->rec.ts < b->rec.ts;
	return a->source < b->source;
}

static void heap_down(struct tracedat_merge *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i;
		struct stream *t;

		if (l < m->nr && stream_before(m->heap[l], m->heap[min]))
			min = l;
		if (r < m->nr && stream_before(m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

static void heap_up(struct tracedat_merge *m, int i)
{
	while (i > 0) {
		int p = (i - 1) / 2;
		struct stream *t;

		if (!stream_before(m->heap[i], m->heap[p]))
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[p];
		m->heap[p] = t;
		i = p;
	}
}

static void stream_free(struct stream *s)
{
	if (s->kbuf)
		kbuffer_free(s->kbuf);
	if (s->live) {
		while (s->blocks) {
			struct live_block *b = s->blocks;

			s->blocks = b->next;
			free(b);
		}
		free(s->block);
	} else {
		free(s->buf);
	}
	free(s->cbuf);
	free(s);
}

/* The stream of the idx-th CPU of a buffer, before its first event. */
static struct stream *stream_new(struct tracedat *td, int buffer, int idx)
{
	struct td_buffer *b = &td->buffers[buffer];
	struct td_cpu *cpu = &b->cpus[idx];
	struct stream *s = xcalloc(1, sizeof(*s));

	s->td = td;
	s->buffer = buffer;
	s->cpu = cpu->cpu;
	s->page_size = b->page_size;
	s->hdr_size = 8 + td->info.long_size;
	s->pos = cpu->offset;
	s->end = cpu->offset + cpu->size;
	s->chunked = td->compression != TD_COMPRESS_NONE;
	if (s->chunked && cpu->size)
		s->end += 4;
	s->buf_alloc = (size_t)s->page_size * RAW_READ_PAGES;
	s->buf = xmalloc(s->buf_alloc + BUF_PAD);
	memset(s->buf + s->buf_alloc, 0, BUF_PAD);
	if (tep_is_old_format(td->tep)) {
		s->kbuf = kbuffer_alloc(td->info.long_size == 8 ?
					KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					td->info.big_endian ?
					KBUFFER_ENDIAN_BIG :
					KBUFFER_ENDIAN_LITTLE);
		if (!s->kbuf)
			die("out of memory");
		kbuffer_set_old_format(s->kbuf);
	}
	page_walk_init(&s->walk, td->info.long_size, td->info.big_endian);
	s->rec.cpu = cpu->cpu;
	return s;
}

/* Compressed CPU data starts with a u32 chunk count; then the first event. */
static int stream_start(struct stream *s)
{
	unsigned char cnt[4];
	int ret;

	if (s->chunked && s->pos < s->end) {
		ret = tracedat_pread(s->td, cnt, 4, s->pos, "chunk count");
		if (ret)
			return ret;
		s->chunks_left = tracedat_num(s->td, cnt, 4);
		s->pos += 4;
		if (s->chunks_left >
		    (s->end - s->pos) / TRACEDAT_CHUNK_HDR_SIZE)
			return tracedat_bad(s->td, s->pos - 4,
					    "absurd chunk count %u for %llu bytes",
					    s->chunks_left,
					    (unsigned long long)
					    (s->end - s->pos));
	}
	return stream_next(s);
}

/* A stream leaves the heap, and is freed, once it has no more events. */
int tracedat_merge_add(struct tracedat_merge *m, struct tracedat *td,
		       int buffer, int idx, struct strbuf *err)
{
	struct stream *s = stream_new(td, buffer, idx);
	int r;

	td->err = err;
	s->source = m->nr_added++;
	r = stream_start(s);
	if (r <= 0) {
		stream_free(s);
		return r;
	}
	grow_array(m->heap, m->nr, m->alloc, 16);
	m->heap[m->nr++] = s;
	heap_up(m, m->nr - 1);
	return 0;
}

/*
 * The top stream's record was handed out by the previous call: advance
 * that stream first, then hand out the new minimum.
 */
int tracedat_merge_next(struct tracedat_merge *m, struct tracedat_event *ev,
			struct strbuf *err)
{
	struct stream *s;
	int r;

	if (m->nr && m->heap[0]->rec.priv) {
		s = m->heap[0];
		s->rec.priv = NULL;
		s->td->err = err;
		r = stream_next(s);
		if (r < 0)
			return r;
		if (r == 0) {
			/* A live stream waits for tracedat_merge_feed(). */
			if (s->live)
				s->in_heap = 0;
			else
				stream_free(s);
			m->heap[0] = m->heap[--m->nr];
		}
		heap_down(m, 0);
	}
	if (!m->nr || m->heap[0]->rec.ts > m->until)
		return 0;
	s = m->heap[0];
	s->rec.priv = s;
	ev->id = tep_data_type(s->td->tep, &s->rec);
	if (s->td->nr_pending)
		tracedat_parse_pending(s->td, ev->id);
	if (s->td->nr_signed_fields)
		tracedat_sign_extend(s->td, ev->id, &s->rec);
	ev->rec = &s->rec;
	ev->td = s->td;
	ev->buffer = s->buffer;
	ev->source = s->source;
	return 1;
}

/* ---- live streams ---- */

int tracedat_merge_add_live(struct tracedat_merge *m, struct tracedat *td,
			    int idx)
{
	struct stream *s = stream_new(td, 0, idx);

	free(s->buf);
	s->buf = NULL;
	s->live = 1;
	s->blocks_tail = &s->blocks;
	s->source = m->nr_added++;
	grow_array(m->live, m->nr_live, m->alloc_live, 16);
	m->live[m->nr_live++] = s;
	return s->source;
}

static struct stream *live_stream(struct tracedat_merge *m, int source)
{
	int i;

	for (i = 0; i < m->nr_live; i++)
		if (m->live[i]->source == source)
			return m->live[i];
	return NULL;
}

/*
 * The time of the last event of a page, into m->fed_ts; 0 for a page of
 * none.  Not the page's header: a page read while it is written keeps
 * the time it was started at, however much later its last events came.
 */
static int live_last_ts(struct tracedat_merge *m, const struct stream *s,
			const unsigned char *page)
{
	struct page_walk w = s->walk;
	unsigned long long ts;
	int size, missed;

	if (!(tracedat_num(s->td, page + 8, s->td->info.long_size) &
	      TRACEDAT_COMMIT_MASK))
		return 0;
	page_walk_load(&w, page);
	if (!page_walk_first(&w, &ts, &size, &missed))
		return 0;
	while (page_walk_next(&w, &ts, &size))
		;
	ts = stream_ts(s, ts);
	if (ts > m->fed_ts)
		m->fed_ts = ts;
	return 1;
}

int tracedat_merge_feed(struct tracedat_merge *m, int source,
			const void *pages, size_t len, struct strbuf *err)
{
	struct stream *s = live_stream(m, source);
	struct live_block *b;
	size_t off;
	int r;

	if (!s || !len || len % s->page_size)
		return -EINVAL;
	b = xmalloc(sizeof(*b) + len + BUF_PAD);
	b->next = NULL;
	b->len = len;
	memcpy(b->data, pages, len);
	memset(b->data + len, 0, BUF_PAD);
	*s->blocks_tail = b;
	s->blocks_tail = &b->next;
	for (off = len; off && !s->kbuf; off -= s->page_size)
		if (live_last_ts(m, s, b->data + off - s->page_size))
			break;
	if (s->in_heap)
		return 0;
	s->td->err = err;
	r = stream_next(s);
	if (r <= 0)
		return r;
	s->in_heap = 1;
	grow_array(m->heap, m->nr, m->alloc, 16);
	m->heap[m->nr++] = s;
	heap_up(m, m->nr - 1);
	return 0;
}

void tracedat_merge_hold(struct tracedat_merge *m, uint64_t until)
{
	m->until = until;
}

uint64_t tracedat_merge_fed_ts(const struct tracedat_merge *m)
{
	return m->fed_ts;
}

static void heap_entry_free(struct stream **s)
{
	if (!(*s)->live)
		stream_free(*s);
}

static void live_entry_free(struct stream **s)
{
	stream_free(*s);
}

void tracedat_merge_free(struct tracedat_merge *m)
{
	if (!m)
		return;
	release_array(m->heap, m->nr, heap_entry_free);
	release_array(m->live, m->nr_live, live_entry_free);
	free(m);
}
