// SPDX-License-Identifier: GPL-2.0
/*
 * util/page-walk.h against libtraceevent's kbuffer, the walk it stands
 * in for: every page of the fixtures the kernel wrote, and crafted pages of
 * every event kind (long and short data, padding with and without a
 * time delta, time extends, absolute time stamps), missed-event flags,
 * both byte orders and both long sizes.  Each page is walked both ways
 * and every event must come out alike: data offset, size, timestamp,
 * missed events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/page-walk.h"
#include "util/strbuf.h"
#include "util/tracedat-read-int.h"
#include "util/tracedat-read.h"

#define PAGE		4096
#define CRAFTED_PAGES	20000
/* Past the page: the walk and kbuffer read an event's words unchecked. */
#define PAGE_ROOM	(PAGE + 16)

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rnd(void)
{
	return test_rand(&rng_state);
}

/* 1 if the walk of page differs from kbuffer's, with what differs on stderr. */
static int walks_differ(const unsigned char *page, int long_size,
			int big_endian, const char *what)
{
	struct kbuffer *kb = kbuffer_alloc(
		long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
		big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	struct page_walk w;
	unsigned long long kts = 0, wts = 0;
	int n, wsize = 0, wmissed = 0, ret = 0;
	void *kdata;
	const unsigned char *wdata;

	if (!kb)
		return 1;
	page_walk_init(&w, long_size, big_endian);
	/* kbuffer does not take a const page; it only reads it. */
	kbuffer_load_subbuffer(kb, (void *)page);
	page_walk_load(&w, page);
	kdata = kbuffer_read_event(kb, &kts);
	wdata = page_walk_first(&w, &wts, &wsize, &wmissed);
	if (kbuffer_missed_events(kb) != wmissed) {
		fprintf(stderr, "%s: missed events %d, kbuffer %d\n", what, wmissed,
			kbuffer_missed_events(kb));
		ret = 1;
	}
	for (n = 0; !ret && (kdata || wdata); n++) {
		if (!kdata || !wdata || (const unsigned char *)kdata != wdata ||
		    kts != wts || kbuffer_event_size(kb) != wsize) {
			fprintf(stderr,
				"%s: event %d: at %ld, %d bytes, ts %llu; kbuffer: "
				"at %ld, %d bytes, ts %llu\n",
				what, n, wdata ? (long)(wdata - page) : -1L,
				wsize, wts,
				kdata ? (long)((unsigned char *)kdata - page)
				      : -1L,
				kdata ? kbuffer_event_size(kb) : 0, kts);
			ret = 1;
			break;
		}
		kdata = kbuffer_next_event(kb, &kts);
		wdata = page_walk_next(&w, &wts, &wsize);
	}
	kbuffer_free(kb);
	return ret;
}

static void put(unsigned char *p, int size, uint64_t v, int big_endian)
{
	int i;

	for (i = 0; i < size; i++)
		p[big_endian ? size - 1 - i : i] =
			(unsigned char)(v >> (8 * i));
}

static void put_header(unsigned char *p, unsigned int type, uint32_t delta,
		       int big_endian)
{
	put(p, 4,
	    big_endian ? (uint64_t)type << 27 | (delta & ((1u << 27) - 1))
		       : (uint64_t)delta << 5 | type,
	    big_endian);
}

/*
 * A page of random events, each kind as the kernel writes it, filled
 * to a random commit; returns the commit's bytes.
 */
static unsigned int craft(unsigned char *page, int long_size, int big_endian)
{
	unsigned int hdr = 8 + long_size,
		     end = hdr + rnd() % (PAGE - hdr - 8 - 64), off = hdr;
	uint64_t flags;

	memset(page, 0, PAGE_ROOM);
	put(page, 8, rnd() >> (rnd() % 64), big_endian);
	while (off + 16 <= end) {
		unsigned int kind = rnd() % 8, len;
		uint32_t delta = rnd() % 4 ? rnd() % 5000 : (uint32_t)rnd();

		switch (kind) {
		case 0:
			/* type_len 0: a length word, data past 112 bytes */
			len = 4 * (rnd() % 40) + rnd() % 4;
			if (off + 8 + len + 4 > end)
				goto done;
			put_header(page + off, 0, delta, big_endian);
			put(page + off + 4, 4, len + 4, big_endian);
			off += 8 + ((len + 3) & ~3u);
			break;
		case 1:
			/*
			 * padding: a discarded event (its delta counts) or the
			 * page's rest
			 */
			len = 4 * (rnd() % 8);
			put_header(page + off, 29, rnd() % 2 ? delta : 0,
				   big_endian);
			put(page + off + 4, 4, len, big_endian);
			off += 4 + len;
			break;
		case 2:
		case 3:
			put_header(page + off, 30 + kind - 2, delta,
				   big_endian);
			put(page + off + 4, 4,
			    rnd() % 2 ? rnd() % 64 : (uint32_t)rnd(),
			    big_endian);
			off += 8;
			break;
		default:
			len = 1 + rnd() % 28;
			if (off + 4 + 4 * len > end)
				goto done;
			put_header(page + off, len, delta, big_endian);
			off += 4 + 4 * len;
			break;
		}
	}
done:
	if (off > end)
		off = end;
	flags = off - hdr;
	switch (rnd() % 4) {
	case 0:
		flags |= TRACEDAT_MISSING_EVENTS;
		break;
	case 1:
		flags |= TRACEDAT_MISSING_EVENTS | TRACEDAT_MISSING_STORED;
		put(page + off, long_size, rnd() % 100000, big_endian);
		break;
	}
	put(page + 8, long_size, flags, big_endian);
	return off - hdr;
}

static int crafted_pages(void)
{
	unsigned char *page = calloc(1, PAGE_ROOM);
	char what[64];
	int i, bad = 0;

	for (i = 0; page && i < CRAFTED_PAGES && bad < 5; i++) {
		int long_size = i % 4 < 2 ? 8 : 4, big_endian = i % 2;

		craft(page, long_size, big_endian);
		snprintf(what, sizeof(what), "crafted page %d (long %d, %s endian)", i,
			 long_size, big_endian ? "big" : "little");
		bad += walks_differ(page, long_size, big_endian, what);
	}
	fprintf(stderr, "%d crafted pages walked as kbuffer walks them\n", i - bad);
	free(page);
	return !page || bad;
}

/*
 * A padding whose length word is negative points back at the events
 * before it, round which kbuffer walks for ever: the walk must stop
 * and say so.  (kbuffer is not run on it.)
 */
static int backwards_page(void)
{
	unsigned char *page = calloc(1, PAGE_ROOM);
	struct page_walk w;
	unsigned long long ts;
	int size, missed, n = 0;
	const unsigned char *data;

	if (!page)
		return 1;
	put_header(page + 16, 2, 10, 0);
	put_header(page + 28, 29, 5, 0);
	put(page + 32, 4, (uint32_t)-12, 0);
	put(page + 8, 8, 64, 0);
	page_walk_init(&w, 8, 0);
	page_walk_load(&w, page);
	for (data = page_walk_first(&w, &ts, &size, &missed); data && n < 10;
	     data = page_walk_next(&w, &ts, &size))
		n++;
	free(page);
	if (n != 1 || !w.backwards) {
		fprintf(stderr, "a length pointing back: %d events, %s\n", n,
			w.backwards ? "stopped" : "not stopped");
		return 1;
	}
	fprintf(stderr, "a length pointing back: the walk stops after the event before it\n");
	return 0;
}

/* walks_differ() over the pages of buf (n bytes, whole pages). */
static int pages_differ(unsigned char *buf, size_t n, const struct tracedat *td,
			const char *rel, int cpu, int *pages)
{
	char what[128];
	size_t at;
	int bad = 0;

	for (at = 0; at + PAGE <= n; at += PAGE, ++*pages) {
		snprintf(what, sizeof(what), "%s: cpu %d page %d", rel, cpu, *pages);
		bad += walks_differ(buf + at, td->info.long_size,
				    td->info.big_endian, what);
	}
	return bad;
}

/* The pages of one CPU's data, raw or in compressed chunks, walked. */
static int cpu_pages(struct tracedat *td, const struct td_cpu *c,
		     const char *rel, int *pages)
{
	unsigned char hdr[TRACEDAT_CHUNK_HDR_SIZE], *in = NULL, *out = NULL;
	uint64_t pos = c->offset, csize, usize;
	uint32_t chunks;
	int bad = 0;

	if (td->compression == TD_COMPRESS_NONE) {
		out = calloc(1, c->size + PAGE_ROOM);
		bad = !out || tracedat_pread(td, out, c->size, c->offset, "pages") ||
		      pages_differ(out, c->size, td, rel, c->cpu, pages);
		free(out);
		return bad;
	}
	if (!c->size)
		return 0;
	if (tracedat_pread(td, hdr, 4, pos, "chunk count"))
		return 1;
	chunks = (uint32_t)tracedat_num(td, hdr, 4);
	for (pos += 4; chunks-- && !bad; pos += sizeof(hdr) + csize) {
		if (tracedat_pread(td, hdr, sizeof(hdr), pos, "chunk header"))
			return 1;
		csize = tracedat_num(td, hdr, 4);
		usize = tracedat_num(td, hdr + 4, 4);
		in = realloc(in, csize);
		free(out);
		out = calloc(1, usize + PAGE_ROOM);
		bad = !in || !out || tracedat_pread(td, in, csize, pos + sizeof(hdr), "chunk") ||
		      tracedat_decompress(td, out, usize, in, csize, pos, "chunk") ||
		      pages_differ(out, usize, td, rel, c->cpu, pages);
	}
	free(in);
	free(out);
	return bad;
}

/*
 * Every page of a fixture (gzip'ed or not), as the kernel wrote them:
 * trace-cmd recorded the .gz ones in the VM's 6.1 kernel.
 */
static int file_pages(const char *rel)
{
	struct strbuf err = STRBUF_INIT;
	struct tracedat *td = NULL;
	char tmp[] = "/tmp/tktest-pagewalk.XXXXXX";
	char *path = NULL;
	size_t len = 0;
	uint8_t *gz = NULL;
	int b, c, fd = -1, pages = 0, bad = 0;

	if (strstr(rel, ".gz")) {
		gz = test_read_gz(rel, &len);
		fd = mkstemp(tmp);
		if (!gz || fd < 0 || write(fd, gz, len) != (ssize_t)len) {
			fprintf(stderr, "%s: cannot gunzip to %s\n", rel, tmp);
			bad = 1;
			goto out;
		}
		path = strdup(tmp);
	} else {
		path = test_source_path(rel);
	}
	if (!path || tracedat_open(path, TRACEDAT_NO_PLUGINS, &td, &err)) {
		fprintf(stderr, "%s: %s\n", rel, err.buf);
		bad = 1;
		goto out;
	}
	td->err = &err;
	for (b = 0; b < td->nr_buffers; b++) {
		if (td->buffers[b].page_size != PAGE)
			continue;
		for (c = 0; c < td->buffers[b].nr_cpus; c++)
			bad += cpu_pages(td, &td->buffers[b].cpus[c], rel,
					 &pages);
	}
	if (err.len)
		fprintf(stderr, "%s", err.buf);
	fprintf(stderr, "%s: %d pages, %d CPUs walked unlike kbuffer\n", rel, pages, bad);
	if (!pages)
		bad = 1;
out:
	if (td)
		tracedat_close(td);
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	strbuf_release(&err);
	free(gz);
	free(path);
	return bad;
}

static const char *const fixtures[] = {
	"tests/data/report-sched-v6.dat",
	"tests/data/report-sched-v7.dat",
	"tests/data/report-sched-zlib.dat.gz",
	"tests/data/report-ftrace-fgraph.dat.gz",
	"tests/data/report-ftrace-fgraph-depth.dat.gz",
	"tests/data/report-ftrace-fgraph-sched.dat.gz",
	"tests/data/report-ftrace-function.dat.gz",
	"tests/data/report-ftrace-function-notrace.dat.gz",
	"tests/data/report-ftrace-function-stack.dat.gz",
};

int test__page_walk(void)
{
	size_t i;
	int bad = crafted_pages();

	bad |= backwards_page();
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		bad |= file_pages(fixtures[i]);
	return bad ? TEST_FAIL : TEST_OK;
}
