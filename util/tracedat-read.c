// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat v6/v7 reader.  Layout facts: util/tracedat.h.  Metadata is
 * parsed through one bounds-checked cursor that reads either the file
 * (v6, sequential) or a decompressed section in memory (v7), so both
 * versions share the parsers and every error carries a file offset.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/array.h"
#include "util/tracedat-read-int.h"
#include "util/usage.h"


/* Sanity limits: far above real files, low enough to refuse absurd ones. */
#define MAX_SECTION_SIZE	(1ull << 30)
#define MAX_PAGE_SIZE		(1u << 20)
#define MAX_OPTION_SECTIONS	256

/* A bounds-checked reader over the file or over a decompressed section. */
struct cursor {
	struct tracedat *td;
	const unsigned char *mem;	/* NULL: read the file */
	uint64_t pos, end;
	uint64_t base;			/* file offset of the section (mem) */
};

int tracedat_bad(struct tracedat *td, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(td->err, "%s: offset %llu: ", td->path,
		    (unsigned long long)off);
	va_start(ap, fmt);
	strbuf_vaddf(td->err, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint64_t cur_off(const struct cursor *c)
{
	return c->mem ? c->base : c->pos;
}

int tracedat_pread(struct tracedat *td, void *dst, size_t n, uint64_t off,
		   const char *what)
{
	size_t done = 0;
	int e;

	if (off > td->info.file_size || n > td->info.file_size - off)
		return tracedat_bad(td, off,
				    "truncated file: %s needs %zu bytes, %llu left",
				    what, n, (unsigned long long)
				    (off > td->info.file_size ? 0 :
				     td->info.file_size - off));
	while (done < n) {
		ssize_t r = pread(td->fd, (char *)dst + done, n - done,
				  off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r ? errno : EIO;
			tracedat_bad(td, off + done, "reading %s: %s",
				     what, r ? strerror(e) :
				     "unexpected end of file");
			return -e;
		}
		done += r;
	}
	return 0;
}

static int cur_read(struct cursor *c, void *dst, uint64_t n, const char *what)
{
	int ret;

	if (n > c->end - c->pos) {
		if (c->mem)
			return tracedat_bad(c->td, c->base,
					    "%s: %llu bytes needed at byte %llu of the section, %llu left",
					    what, (unsigned long long)n,
					    (unsigned long long)c->pos,
					    (unsigned long long)
					    (c->end - c->pos));
		return tracedat_bad(c->td, c->pos,
				    "%s: %llu bytes needed, %llu left (truncated file)",
				    what, (unsigned long long)n,
				    (unsigned long long)(c->end - c->pos));
	}
	if (c->mem) {
		memcpy(dst, c->mem + c->pos, n);
	} else {
		ret = tracedat_pread(c->td, dst, n, c->pos, what);
		if (ret)
			return ret;
	}
	c->pos += n;
	return 0;
}

static int cur_num(struct cursor *c, int size, uint64_t *v, const char *what)
{
	unsigned char b[8];
	int ret = cur_read(c, b, size, what);

	if (ret)
		return ret;
	*v = tracedat_num(c->td, b, size);
	return 0;
}

/* Reads n bytes into *out, a new NUL-terminated buffer. */
static int cur_blob(struct cursor *c, uint64_t n, char **out,
		    const char *what)
{
	char *buf;
	int ret;

	*out = NULL;
	if (n > c->end - c->pos)
		return cur_read(c, NULL, n, what);
	buf = xmalloc(n + 1);
	ret = cur_read(c, buf, n, what);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* n bytes of a section in memory, in place, at *out. */
static int cur_view(struct cursor *c, uint64_t n, const char **out,
		    const char *what)
{
	*out = NULL;
	if (n > c->end - c->pos)
		return cur_read(c, NULL, n, what);
	*out = (const char *)c->mem + c->pos;
	c->pos += n;
	return 0;
}

/* A NUL-terminated string into *out (malloc'ed). */
static int cur_str(struct cursor *c, char **out, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;
	char ch;

	*out = NULL;
	do {
		if (sb.len > 4096)
			ret = tracedat_bad(c->td, cur_off(c),
					   "%s: unterminated string", what);
		else
			ret = cur_read(c, &ch, 1, what);
		if (ret) {
			strbuf_release(&sb);
			return ret;
		}
		if (ch)
			strbuf_addch(&sb, ch);
	} while (ch);
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

/* Reads a u32/u64 size and then that many bytes, into *out. */
static int cur_sized(struct cursor *c, int size_len, uint64_t *len,
		     char **out, const char *what)
{
	uint64_t n;
	int ret = cur_num(c, size_len, &n, what);

	*out = NULL;
	if (ret)
		return ret;
	*len = n;
	return cur_blob(c, n, out, what);
}

static int check_count(struct cursor *c, uint64_t count, unsigned int min_item,
		       const char *what)
{
	if (count > (c->end - c->pos) / min_item)
		return tracedat_bad(c->td, cur_off(c),
				    "absurd %s count %llu for %llu bytes", what,
				    (unsigned long long)count,
				    (unsigned long long)(c->end - c->pos));
	return 0;
}

static int parse_headers(struct cursor *c)
{
	char name[13];
	uint64_t len;
	char *data;
	int ret = cur_read(c, name, 12, "header_page tag");

	if (ret)
		return ret;
	if (memcmp(name, "header_page", 12))
		return tracedat_bad(c->td, cur_off(c),
				    "expected \"header_page\"");
	ret = cur_sized(c, 8, &len, &data, "header_page");
	if (ret)
		return ret;
	if (tep_parse_header_page(c->td->tep, data, len,
				  c->td->info.long_size)) {
		free(data);
		return tracedat_bad(c->td, cur_off(c),
				    "cannot parse header_page");
	}
	free(data);
	ret = cur_read(c, name, 13, "header_event tag");
	if (ret)
		return ret;
	if (memcmp(name, "header_event", 13))
		return tracedat_bad(c->td, cur_off(c),
				    "expected \"header_event\"");
	ret = cur_sized(c, 8, &len, &data, "header_event");
	free(data);
	return ret;
}

/*
 * u32 count, then per format u64 size + text.  ftrace's own formats are
 * parsed at once: the function and stack handlers look them up by name.
 * The others wait as text, in place when the section is in memory (kept
 * by parse_section()): a copy of each of some 2,000 formats was a
 * quarter of the page faults of a report of a few records.
 */
static int parse_formats(struct cursor *c, const char *system, int lazy)
{
	uint64_t count, len, i;
	const char *data;
	char *text;
	int owned = !lazy || !c->mem;
	int ret = cur_num(c, 4, &count, "event format count");

	if (!ret)
		ret = check_count(c, count, 8, "event format");
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		if (owned) {
			ret = cur_sized(c, 8, &len, &text, "event format");
			data = text;
		} else {
			ret = cur_num(c, 8, &len, "event format size");
			if (!ret)
				ret = cur_view(c, len, &data, "event format");
		}
		if (ret)
			return ret;
		tracedat_add_format(c->td, data, len, system, lazy, owned);
	}
	return 0;
}

static int parse_systems(struct cursor *c)
{
	struct tracedat *td = c->td;
	uint64_t count, i;
	char *sys;
	int ret = cur_num(c, 4, &count, "event system count");

	if (!ret)
		ret = check_count(c, count, 5, "event system");
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		ret = cur_str(c, &sys, "event system name");
		if (ret)
			return ret;
		td->systems = xrealloc(td->systems, (td->nr_systems + 1) *
				       sizeof(*td->systems));
		td->systems[td->nr_systems++] = sys;
		ret = parse_formats(c, sys, 1);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * printk_formats lines are 'ADDR : "FORMAT"'.  libtraceevent 1.7 reads
 * past the end of shorter ones (found by the fuzzer under ASan), so only
 * lines of that shape are passed on.
 */
static void printk_lines_sane(struct strbuf *out, const char *text)
{
	const char *p = text, *nl, *q;

	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		q = p;
		if (q[0] != '0' || q[1] != 'x')
			continue;
		for (q += 2; q < nl && isxdigit((unsigned char)*q); q++)
			;
		if (nl - q < 5 || memcmp(q, " : \"", 4) || nl[-1] != '"')
			continue;
		strbuf_add(out, p, nl - p);
		strbuf_addch(out, '\n');
	}
}

/*
 * The pages of a fresh buffer of n bytes, made present in one call:
 * faulted in one at a time, the kallsyms and the sections decompressed
 * were a tenth of the CPU time of a report of bench/report.sh's mixed
 * file (perf record).  Kernels before 5.14 refuse the advice; the pages
 * then fault in as before.
 */
void tracedat_prefault(void *p, size_t n)
{
	uintptr_t mask = (uintptr_t)getpagesize() - 1;
	uintptr_t a = ((uintptr_t)p + mask) & ~mask,
		  e = ((uintptr_t)p + n) & ~mask;

	if (e > a)
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

static int parse_text(struct cursor *c, int size_len, int which)
{
	struct tracedat *td = c->td;
	uint64_t len;
	char *data;
	int ret = cur_sized(c, size_len, &len, &data,
			    which == TRACEDAT_OPT_KALLSYMS ? "kallsyms" :
			    which == TRACEDAT_OPT_PRINTK ? "printk formats" :
			    "saved cmdlines");

	if (ret)
		return ret;
	if (which == TRACEDAT_OPT_KALLSYMS) {
		tracedat_set_kallsyms(td, data, data);
		return 0;
	}
	if (which == TRACEDAT_OPT_PRINTK) {
		struct strbuf sane = STRBUF_INIT;

		printk_lines_sane(&sane, data);
		tep_parse_printk_formats(td->tep, sane.buf);
		strbuf_release(&sane);
	} else {
		tep_parse_saved_cmdlines(td->tep, data);
	}
	free(data);
	return 0;
}

/*
 * A decompressed kallsyms section is kept as it is: copying its 5 MB
 * out was a fifth of `report` on a file of 300 events.
 */
static int keep_kallsyms(struct cursor *c, unsigned char **mem)
{
	uint64_t len;
	char *text;

	int ret;

	if (!*mem)
		return parse_text(c, 4, TRACEDAT_OPT_KALLSYMS);
	ret = cur_num(c, 4, &len, "kallsyms");
	if (ret)
		return ret;
	if (len > c->end - c->pos)
		return cur_read(c, NULL, len, "kallsyms");
	/* load_section() leaves BUF_PAD bytes after the section. */
	text = (char *)*mem + c->pos;
	text[len] = '\0';
	tracedat_set_kallsyms(c->td, text, *mem);
	*mem = NULL;
	return 0;
}

static void buffer_release(struct td_buffer *b)
{
	free(b->name);
	free(b->clock);
	free(b->cpus);
}

static struct td_buffer *new_buffer(struct tracedat *td, const char *name)
{
	struct td_buffer *b;

	/*
	 * The top buffer is always buffers[0], whatever order options come in.
	 */
	if (!*name && td->nr_buffers && !*td->buffers[0].name) {
		b = &td->buffers[0];
		buffer_release(b);
	} else {
		td->buffers = xrealloc(td->buffers,
				       (td->nr_buffers + 1) * sizeof(*b));
		b = &td->buffers[td->nr_buffers++];
		if (!*name && td->nr_buffers > 1) {
			memmove(td->buffers + 1, td->buffers,
				(td->nr_buffers - 1) * sizeof(*b));
			b = &td->buffers[0];
		}
	}
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(name);
	b->page_size = td->info.page_size;
	return b;
}

int tracedat_parse_buffer_option(struct tracedat *td, const char *data,
				 uint64_t len, uint64_t off)
{
	struct cursor c = { td, (const unsigned char *)data, 0, len, off };
	struct td_buffer *b;
	uint64_t sec, v, i;
	char *name;
	int ret = cur_num(&c, 8, &sec, "BUFFER offset");

	if (!ret)
		ret = cur_str(&c, &name, "BUFFER name");
	if (ret)
		return ret;
	b = new_buffer(td, name);
	free(name);
	b->section = sec;
	if (td->info.version < 7)
		return 0;
	ret = cur_str(&c, &b->clock, "BUFFER clock");
	if (!ret)
		ret = cur_num(&c, 4, &v, "BUFFER page size");
	if (ret)
		return ret;
	if (v < 64 || v > MAX_PAGE_SIZE || (v & (v - 1)))
		return tracedat_bad(td, off,
				    "BUFFER page size %llu is not a sane power of two",
				    (unsigned long long)v);
	b->page_size = v;
	ret = cur_num(&c, 4, &v, "BUFFER cpu count");
	if (!ret)
		ret = check_count(&c, v, 20, "BUFFER cpu");
	if (ret)
		return ret;
	b->nr_cpus = v;
	b->cpus = xcalloc(v ? v : 1, sizeof(*b->cpus));
	for (i = 0; i < v; i++) {
		uint64_t id;

		ret = cur_num(&c, 4, &id, "BUFFER cpu id");
		if (!ret)
			ret = cur_num(&c, 8, &b->cpus[i].offset,
				      "BUFFER cpu offset");
		if (!ret)
			ret = cur_num(&c, 8, &b->cpus[i].size,
				      "BUFFER cpu size");
		if (ret)
			return ret;
		if (id >= MAX_CPUS)
			return tracedat_bad(td, off,
					    "BUFFER cpu id %llu out of range",
					    (unsigned long long)id);
		b->cpus[i].cpu = id;
	}
	return 0;
}

/* Options until DONE.  v6: DONE has no size.  v7: *next gets DONE's offset. */
static int read_options_section(struct cursor *c, uint64_t *next)
{
	uint64_t id, len, off;
	char *data;
	int ret;

	for (;;) {
		ret = cur_num(c, 2, &id, "option id");
		if (ret)
			return ret;
		if (id == TRACEDAT_OPT_DONE && c->td->info.version < 7)
			return 0;
		off = cur_off(c);
		ret = cur_sized(c, 4, &len, &data, "option");
		if (ret)
			return ret;
		if (id == TRACEDAT_OPT_DONE) {
			ret = len < 8 ?
				tracedat_bad(c->td, off,
					     "DONE option of %llu bytes",
					     (unsigned long long)len) : 0;
			if (!ret)
				*next = tracedat_num(c->td, data, 8);
			free(data);
			return ret;
		}
		ret = tracedat_handle_option(c->td, id, data, len, off);
		free(data);
		if (ret)
			return ret;
	}
}

/*
 * Loads a v7 section: checks its header, decompresses it when flagged,
 * and points the cursor at the payload (which the caller frees via *mem).
 */
static int load_section(struct tracedat *td, uint64_t off, unsigned int want_id,
			unsigned char **mem, struct cursor *c)
{
	unsigned char hdr[TRACEDAT_SECTION_HDR_SIZE];
	unsigned int id, flags;
	uint64_t size, csize, usize;
	unsigned char *cdata, *udata;
	int r;

	*mem = NULL;
	r = tracedat_pread(td, hdr, sizeof(hdr), off, "section header");
	if (r)
		return r;
	id = tracedat_num(td, hdr, 2);
	flags = tracedat_num(td, hdr + 2, 2);
	size = tracedat_num(td, hdr + 8, 8);
	if (id != want_id)
		return tracedat_bad(td, off,
				    "section id %u where %u was expected", id,
				    want_id);
	off += sizeof(hdr);
	if (size > td->info.file_size - off || size > MAX_SECTION_SIZE)
		return tracedat_bad(td, off,
				    "section size %llu exceeds the file (%llu bytes left)",
				    (unsigned long long)size,
				    (unsigned long long)
				    (td->info.file_size - off));
	if (!(flags & TRACEDAT_SEC_FL_COMPRESS)) {
		*c = (struct cursor){ td, NULL, off, off + size, off };
		return 0;
	}
	if (td->compression == TD_COMPRESS_NONE)
		return tracedat_bad(td, off,
				    "compressed section in a file without compression");
	r = tracedat_pread(td, hdr, TRACEDAT_CHUNK_HDR_SIZE, off,
			   "compression header");
	if (r)
		return r;
	csize = tracedat_num(td, hdr, 4);
	usize = tracedat_num(td, hdr + 4, 4);
	if (csize + TRACEDAT_CHUNK_HDR_SIZE != size)
		return tracedat_bad(td, off,
				    "compressed size %llu does not match section size %llu",
				    (unsigned long long)csize,
				    (unsigned long long)size);
	cdata = xmalloc(csize ? csize : 1);
	r = tracedat_pread(td, cdata, csize, off + TRACEDAT_CHUNK_HDR_SIZE,
			   "section data");
	/* Trust the claimed size only as far as the frame confirms it. */
	if (!r)
		r = tracedat_claimed_size_sane(td, cdata, csize, usize, off);
	if (r) {
		free(cdata);
		return r;
	}
	udata = xmalloc(usize + BUF_PAD);
	tracedat_prefault(udata, usize);
	r = tracedat_decompress(td, udata, usize, cdata, csize, off, "section");
	free(cdata);
	if (r) {
		free(udata);
		return r;
	}
	memset(udata + usize, 0, BUF_PAD);
	*mem = udata;
	*c = (struct cursor){ td, udata, 0, usize, off };
	return 0;
}

static int parse_section(struct tracedat *td, unsigned int id)
{
	unsigned char *mem;
	struct cursor c;
	int ret;

	if (!td->sec_off[id])
		return id == TRACEDAT_OPT_HEADER_INFO ?
			tracedat_bad(td, 0,
				     "no HEADER_INFO section (ring buffer layout)") :
			0;
	ret = load_section(td, td->sec_off[id], id, &mem, &c);
	if (ret)
		return ret;
	switch (id) {
	case TRACEDAT_OPT_HEADER_INFO:
		ret = parse_headers(&c);
		break;
	case TRACEDAT_OPT_FTRACE_EVENTS:
		ret = parse_formats(&c, "ftrace", 0);
		break;
	case TRACEDAT_OPT_EVENT_FORMATS:
		ret = parse_systems(&c);
		/*
		 * The formats waiting to be parsed lie in it (one such
		 * section).
		 */
		td->formats_mem = mem;
		mem = NULL;
		break;
	case TRACEDAT_OPT_CMDLINES:
		ret = parse_text(&c, 8, id);
		break;
	case TRACEDAT_OPT_KALLSYMS:
		ret = keep_kallsyms(&c, &mem);
		break;
	default:
		ret = parse_text(&c, 4, id);
		break;
	}
	free(mem);
	return ret;
}

/* The kallsyms section read_v7() left, if it is not read yet. */
static int read_kallsyms(struct tracedat *td)
{
	if (!td->kallsyms_sec)
		return 0;
	td->kallsyms_sec = 0;
	return parse_section(td, TRACEDAT_OPT_KALLSYMS);
}

static int read_v7(struct tracedat *td, uint64_t pos)
{
	static const unsigned int order[] = {
		TRACEDAT_OPT_HEADER_INFO, TRACEDAT_OPT_FTRACE_EVENTS,
		TRACEDAT_OPT_EVENT_FORMATS, TRACEDAT_OPT_KALLSYMS,
		TRACEDAT_OPT_PRINTK, TRACEDAT_OPT_CMDLINES,
	};
	struct cursor c = { td, NULL, pos, td->info.file_size, 0 };
	uint64_t next;
	unsigned char *mem;
	size_t i;
	int n = 0, ret;

	c.pos = pos;
	ret = cur_num(&c, 8, &next, "first options offset");
	if (ret)
		return ret;
	while (next) {
		if (++n > MAX_OPTION_SECTIONS)
			return tracedat_bad(td, next,
					    "more than %d options sections (a loop?)",
					    MAX_OPTION_SECTIONS);
		ret = load_section(td, next, TRACEDAT_OPT_DONE, &mem, &c);
		if (ret)
			return ret;
		next = 0;
		ret = read_options_section(&c, &next);
		free(mem);
		if (ret)
			return ret;
	}
	/*
	 * The kallsyms section (5 MB decompressed) is read at the first
	 * lookup: reading it at open was a third of `report` on a file of
	 * 87 sched_switch records, and reports of sched and syscall events
	 * look nothing up.  Names the formats wait with need it now.
	 */
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == TRACEDAT_OPT_KALLSYMS) {
			td->kallsyms_sec = td->sec_off[order[i]];
			continue;
		}
		ret = parse_section(td, order[i]);
		if (ret)
			return ret;
	}
	if (td->nr_sym_names)
		return read_kallsyms(td);
	if (td->kallsyms_sec)
		tracedat_set_resolver(td);
	return 0;
}

/*
 * The kallsyms section, read where a lookup needs it after the file was
 * opened.  The lookup may be libtraceevent's resolver, which cannot
 * fail: a corrupt section leaves the file without kallsyms, and the
 * line the open would have given waits in late_err for
 * tracedat_late_error().
 */
void tracedat_kallsyms_now(struct tracedat *td)
{
	struct strbuf *was = td->err;

	if (!td->kallsyms_sec)
		return;
	td->err = &td->late_err;
	td->late_ret = read_kallsyms(td);
	td->err = was;
}

int tracedat_late_error(const struct tracedat *td, struct strbuf *err)
{
	if (!td->late_err.len)
		return 0;
	strbuf_add(err, td->late_err.buf, td->late_err.len);
	return td->late_ret;
}

/* v6 "flyrecord\0" then (u64 offset, u64 size) per CPU, then the clock. */
static int read_v6_cpus(struct tracedat *td, struct td_buffer *b, uint64_t pos,
			int nr_cpus)
{
	struct cursor c = { td, NULL, pos, td->info.file_size, 0 };
	char tag[10];
	uint64_t len;
	char *clock;
	int i, ret = cur_read(&c, tag, 10, "flyrecord tag");

	if (ret)
		return ret;
	if (!memcmp(tag, "latency  ", 10))
		return tracedat_bad(td, pos,
				    "latency (text) traces are not supported");
	if (memcmp(tag, "flyrecord", 10))
		return tracedat_bad(td, pos, "expected \"flyrecord\"");
	b->nr_cpus = nr_cpus;
	b->cpus = xcalloc(nr_cpus ? nr_cpus : 1, sizeof(*b->cpus));
	for (i = 0; i < nr_cpus; i++) {
		b->cpus[i].cpu = i;
		ret = cur_num(&c, 8, &b->cpus[i].offset, "cpu data offset");
		if (!ret)
			ret = cur_num(&c, 8, &b->cpus[i].size, "cpu data size");
		if (ret)
			return ret;
	}
	if (td->have_clock_option) {
		ret = cur_sized(&c, 8, &len, &clock, "trace clock");
		if (ret)
			return ret;
		tracedat_parse_clock(td, clock);
		free(clock);
	}
	return 0;
}

static int read_v6(struct tracedat *td, uint64_t pos)
{
	struct cursor c = { td, NULL, pos, td->info.file_size, 0 };
	uint64_t cpus, next;
	char tag[10];
	int i, ret = parse_headers(&c);

	if (!ret)
		ret = parse_formats(&c, "ftrace", 0);
	if (!ret)
		ret = parse_systems(&c);
	if (!ret)
		ret = parse_text(&c, 4, TRACEDAT_OPT_KALLSYMS);
	if (!ret)
		ret = parse_text(&c, 4, TRACEDAT_OPT_PRINTK);
	if (!ret)
		ret = parse_text(&c, 8, TRACEDAT_OPT_CMDLINES);
	if (!ret)
		ret = cur_num(&c, 4, &cpus, "cpu count");
	if (ret)
		return ret;
	if (cpus > MAX_CPUS)
		return tracedat_bad(td, c.pos - 4, "absurd cpu count %llu",
				    (unsigned long long)cpus);
	td->info.cpus = cpus;
	tep_set_cpus(td->tep, cpus);
	new_buffer(td, "");
	ret = cur_read(&c, tag, 10, "options tag");
	if (ret)
		return ret;
	if (!memcmp(tag, "options  ", 10)) {
		ret = read_options_section(&c, &next);
		if (ret)
			return ret;
	} else {
		c.pos -= 10;
	}
	ret = read_v6_cpus(td, &td->buffers[0], c.pos, cpus);
	for (i = 1; !ret && i < td->nr_buffers; i++)
		ret = read_v6_cpus(td, &td->buffers[i], td->buffers[i].section,
				   cpus);
	return ret;
}

/* The name as C would spell it: an error is one line of text. */
static int bad_compression(struct tracedat *td, uint64_t off, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (; *name; name++)
		if (isprint((unsigned char)*name) && *name != '"' &&
		    *name != '\\')
			strbuf_addch(&sb, *name);
		else
			strbuf_addf(&sb, "\\x%02x", (unsigned char)*name);
	ret = tracedat_bad(td, off, "unsupported compression \"%s\"", sb.buf);
	strbuf_release(&sb);
	return ret;
}

static int read_file_header(struct tracedat *td, uint64_t *pos)
{
	struct cursor c = { td, NULL, 0, td->info.file_size, 0 };
	unsigned char b[TRACEDAT_MAGIC_LEN];
	char *ver, *name;
	uint64_t v;
	int ret = cur_read(&c, b, TRACEDAT_MAGIC_LEN, "magic");

	if (ret)
		return ret;
	if (memcmp(b, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN))
		return tracedat_bad(td, 0, "bad magic: not a trace.dat file");
	ret = cur_str(&c, &ver, "version");
	if (ret)
		return ret;
	td->info.version = atoi(ver);
	free(ver);
	if (td->info.version != 6 && td->info.version != 7)
		return tracedat_bad(td, TRACEDAT_MAGIC_LEN,
				    "unsupported file version %d",
				    td->info.version);
	ret = cur_read(&c, b, 2, "endianness and long size");
	if (ret)
		return ret;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8))
		return tracedat_bad(td, c.pos - 2,
				    "bad endianness %u or long size %u", b[0],
				    b[1]);
	td->info.big_endian = b[0];
	td->info.long_size = b[1];
	ret = cur_num(&c, 4, &v, "page size");
	if (ret)
		return ret;
	if (v < 64 || v > MAX_PAGE_SIZE || (v & (v - 1)))
		return tracedat_bad(td, c.pos - 4,
				    "page size %llu is not a sane power of two",
				    (unsigned long long)v);
	td->info.page_size = v;
	if (td->info.version >= 7) {
		ret = cur_str(&c, &td->text[TD_COMPRESSION],
			      "compression name");
		if (!ret)
			ret = cur_str(&c, &td->text[TD_COMPRESSION_VERSION],
				      "compression version");
		if (ret)
			return ret;
		name = td->text[TD_COMPRESSION];
		if (!strcmp(name, "zstd"))
			td->compression = TD_COMPRESS_ZSTD;
		else if (!strcmp(name, "zlib"))
			td->compression = TD_COMPRESS_ZLIB;
		else if (strcmp(name, "none"))
			return bad_compression(td, c.pos, name);
	}
	*pos = c.pos;
	return 0;
}

static int check_buffers(struct tracedat *td)
{
	int i, j;

	for (i = 0; i < td->nr_buffers; i++) {
		struct td_buffer *b = &td->buffers[i];

		for (j = 0; j < b->nr_cpus; j++) {
			struct td_cpu *cpu = &b->cpus[j];
			uint64_t need = cpu->size +
				(td->compression != TD_COMPRESS_NONE ? 4 : 0);

			/*
			 * Nothing is read from an empty section, wherever it
			 * points: trace-cmd 2.9.1's agent (in a KVM guest)
			 * writes a v6 file without events whose empty CPU 0
			 * section sits at the next page boundary, past the
			 * end of the file, and trace-cmd reads that file.
			 */
			if (!cpu->size)
				continue;
			if (cpu->offset > td->info.file_size ||
			    need > td->info.file_size - cpu->offset)
				return tracedat_bad(td, cpu->offset,
						    "cpu %d data (%llu bytes) runs past the end of the file (%llu bytes)",
						    cpu->cpu,
						    (unsigned long long)
						    cpu->size,
						    (unsigned long long)
						    td->info.file_size);
		}
	}
	return 0;
}

int tracedat_open(const char *path, unsigned int flags, struct tracedat **out,
		  struct strbuf *err)
{
	struct tracedat *td = xcalloc(1, sizeof(*td));
	struct stat st;
	uint64_t pos = 0;
	int ret;

	*out = NULL;
	td->path = xstrdup(path);
	td->err = err;
	strbuf_init(&td->cpustats, 0);
	strbuf_init(&td->procmaps, 0);
	strbuf_init(&td->build_ids, 0);
	strbuf_init(&td->signed_text, 0);
	strbuf_init(&td->late_err, 0);
	td->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (td->fd < 0 || fstat(td->fd, &st)) {
		ret = -errno;
		strbuf_addf(err, "%s: %s", path, strerror(-ret));
		tracedat_close(td);
		return ret;
	}
	td->info.file_size = st.st_size;
	td->tep = tep_alloc();
	td->zctx = ZSTD_createDCtx();
	td->pending = xcalloc(TRACEDAT_MAX_EVENT_ID, sizeof(*td->pending));
	if (!td->tep || !td->zctx)
		die("out of memory");
	/*
	 * Before the formats, as trace-cmd loads them: libtraceevent attaches
	 * a plugin's handler to an event when it parses the event's fields,
	 * so an event whose fields do not parse keeps none.
	 */
	if (!(flags & TRACEDAT_NO_PLUGINS))
		td->plugins = tep_load_plugins(td->tep);
	td->guarded = !(flags & TRACEDAT_UNGUARDED);
	td->info.in_usecs = 1;
	ret = read_file_header(td, &pos);
	if (!ret) {
		tep_set_file_bigendian(td->tep, td->info.big_endian ?
				       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
		tep_set_local_bigendian(td->tep, __BYTE_ORDER == __BIG_ENDIAN ?
					TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
		tep_set_long_size(td->tep, td->info.long_size);
		tep_set_page_size(td->tep, td->info.page_size);
		ret = td->info.version >= 7 ? read_v7(td, pos) :
		      read_v6(td, pos);
	}
	if (!ret && !td->nr_buffers)
		new_buffer(td, "");
	if (!ret)
		ret = check_buffers(td);
	if (ret) {
		tracedat_close(td);
		return ret;
	}
	if (!td->info.cpus)
		td->info.cpus = td->buffers[0].nr_cpus;
	td->info.compression = td->text[TD_COMPRESSION] ? : "none";
	td->info.compression_version = td->text[TD_COMPRESSION_VERSION] ? : "";
	td->info.clock = td->text[TD_CLOCK] ? : "";
	td->info.uname = td->text[TD_UNAME] ? : "";
	td->info.tracer_version = td->text[TD_TRACER_VERSION] ? : "";
	td->info.cpustats = td->cpustats.buf;
	*out = td;
	return 0;
}

void tracedat_close(struct tracedat *td)
{
	int i;

	if (!td)
		return;
	tracedat_guard_stop(td);
	if (td->plugins)
		tep_unload_plugins(td->plugins, td->tep);
	if (td->tep)
		tep_free(td->tep);
	if (td->ksyms)
		tep_free(td->ksyms);
	tracedat_syms_free(td->syms);
	free(td->kallsyms_mem);
	release_array(td->sym_names, td->nr_sym_names, free_ptr);
	for (i = 0; td->nr_pending && i < TRACEDAT_MAX_EVENT_ID; i++)
		if (td->pending[i]) {
			if (td->pending[i]->owned)
				free((char *)td->pending[i]->text);
			free(td->pending[i]);
			td->nr_pending--;
		}
	free(td->pending);
	free(td->formats_mem);
	for (i = 0; i < td->nr_systems; i++)
		free(td->systems[i]);
	free(td->systems);
	ZSTD_freeDCtx(td->zctx);
	for (i = 0; i < td->nr_buffers; i++)
		buffer_release(&td->buffers[i]);
	free(td->buffers);
	if (td->fd >= 0)
		close(td->fd);
	strbuf_release(&td->cpustats);
	tracedat_tsync_release(&td->tsync);
	for (i = 0; i < td->nr_bad; i++)
		free(td->bad[i].what);
	free(td->bad);
	strbuf_release(&td->procmaps);
	strbuf_release(&td->build_ids);
	strbuf_release(&td->signed_text);
	strbuf_release(&td->late_err);
	free(td->signed_fields);
	for (i = 0; i < TD_NR_TEXTS; i++)
		free(td->text[i]);
	free(td->path);
	free(td);
}
