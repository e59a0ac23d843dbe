// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat v6/v7 reader.  Layout facts: util/tracedat.h.  Metadata is
 * parsed through one bounds-checked cursor that reads either the file
 * (v6, sequential) or a decompressed section in memory (v7), so both
 * versions share the parsers and every error carries a file offset.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <traceevent/kbuffer.h>

#include "util/strbuf.h"
#include "util/tracedat.h"
#include "util/tracedat-read.h"
#include "util/usage.h"

/* Sanity limits: far above real files, low enough to refuse absurd ones. */
#define MAX_SECTION_SIZE	(1ull << 30)
#define MAX_CHUNK_SIZE		(64u << 20)
#define MAX_PAGE_SIZE		(1u << 20)
#define MAX_CPUS		4096
#define MAX_OPTION_SECTIONS	256
/* Zeros after every data buffer: kbuffer peeks a few bytes past an event
 * header and libtraceevent's %s stops at the first NUL. */
#define BUF_PAD			64
#define RAW_READ_PAGES		64

struct td_cpu {
	int cpu;
	uint64_t offset, size;
};

struct td_buffer {
	char *name;
	char *clock;
	unsigned int page_size;
	uint64_t section;	/* v7 flyrecord section, v6 "flyrecord" mark */
	int nr_cpus;
	struct td_cpu *cpus;
};

struct tracedat {
	char *path;
	int fd;
	struct tracedat_info info;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	ZSTD_DCtx *zctx;
	int compressed;
	int have_clock_option;
	long long ts_offset;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
	uint64_t sec_off[TRACEDAT_OPT_CMDLINES + 1];
	struct td_buffer *buffers;
	int nr_buffers;
	struct strbuf cpustats;
	char *comp_name, *comp_ver, *clock, *uname, *tversion;
};

/* A bounds-checked reader over the file or over a decompressed section. */
struct cursor {
	struct tracedat *td;
	const unsigned char *mem;	/* NULL: read the file */
	uint64_t pos, end;
	uint64_t base;			/* file offset of the section (mem) */
};

static int bad(struct tracedat *td, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct tracedat *td, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error("%s: offset %llu: %s", td->path, (unsigned long long)off, msg);
}

static uint64_t cur_off(const struct cursor *c)
{
	return c->mem ? c->base : c->pos;
}

static int pread_full(struct tracedat *td, void *dst, size_t n, uint64_t off,
		      const char *what)
{
	size_t done = 0;

	if (off > td->info.file_size || n > td->info.file_size - off)
		return bad(td, off, "truncated file: %s needs %zu bytes, %llu left",
			   what, n, (unsigned long long)
			   (off > td->info.file_size ? 0 : td->info.file_size - off));
	while (done < n) {
		ssize_t r = pread(td->fd, (char *)dst + done, n - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return bad(td, off + done, "reading %s: %s", what,
				   r ? strerror(errno) : "unexpected end of file");
		done += r;
	}
	return 0;
}

static int cur_read(struct cursor *c, void *dst, uint64_t n, const char *what)
{
	if (n > c->end - c->pos) {
		if (c->mem)
			return bad(c->td, c->base, "%s: %llu bytes needed at byte %llu of the section, %llu left",
				   what, (unsigned long long)n, (unsigned long long)c->pos,
				   (unsigned long long)(c->end - c->pos));
		return bad(c->td, c->pos, "%s: %llu bytes needed, %llu left (truncated file)",
			   what, (unsigned long long)n, (unsigned long long)(c->end - c->pos));
	}
	if (c->mem)
		memcpy(dst, c->mem + c->pos, n);
	else if (pread_full(c->td, dst, n, c->pos, what))
		return -1;
	c->pos += n;
	return 0;
}

static uint64_t file_num(const struct tracedat *td, const void *p, int size)
{
	uint64_t v = 0;
	uint32_t v32;
	uint16_t v16;

	switch (size) {
	case 2:
		memcpy(&v16, p, 2);
		return td->info.big_endian ? be16toh(v16) : le16toh(v16);
	case 4:
		memcpy(&v32, p, 4);
		return td->info.big_endian ? be32toh(v32) : le32toh(v32);
	default:
		memcpy(&v, p, 8);
		return td->info.big_endian ? be64toh(v) : le64toh(v);
	}
}

static int cur_num(struct cursor *c, int size, uint64_t *v, const char *what)
{
	unsigned char b[8];

	if (cur_read(c, b, size, what))
		return -1;
	*v = file_num(c->td, b, size);
	return 0;
}

/* Reads n bytes into a new NUL-terminated buffer. */
static char *cur_blob(struct cursor *c, uint64_t n, const char *what)
{
	char *buf;

	if (n > c->end - c->pos) {
		cur_read(c, NULL, n, what);
		return NULL;
	}
	buf = xmalloc(n + 1);
	if (cur_read(c, buf, n, what)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

static char *cur_str(struct cursor *c, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	char ch;

	do {
		if (sb.len > 4096) {
			bad(c->td, cur_off(c), "%s: unterminated string", what);
			strbuf_release(&sb);
			return NULL;
		}
		if (cur_read(c, &ch, 1, what)) {
			strbuf_release(&sb);
			return NULL;
		}
		if (ch)
			strbuf_addch(&sb, ch);
	} while (ch);
	return strbuf_detach(&sb, NULL);
}

/* Reads a u32/u64 size and then that many bytes. */
static char *cur_sized(struct cursor *c, int size_len, uint64_t *len, const char *what)
{
	uint64_t n;

	if (cur_num(c, size_len, &n, what))
		return NULL;
	*len = n;
	return cur_blob(c, n, what);
}

static int check_count(struct cursor *c, uint64_t count, unsigned int min_item,
		       const char *what)
{
	if (count > (c->end - c->pos) / min_item)
		return bad(c->td, cur_off(c), "absurd %s count %llu for %llu bytes",
			   what, (unsigned long long)count,
			   (unsigned long long)(c->end - c->pos));
	return 0;
}

static int parse_headers(struct cursor *c)
{
	char name[13];
	uint64_t len;
	char *data;

	if (cur_read(c, name, 12, "header_page tag"))
		return -1;
	if (memcmp(name, "header_page", 12))
		return bad(c->td, cur_off(c), "expected \"header_page\"");
	data = cur_sized(c, 8, &len, "header_page");
	if (!data)
		return -1;
	if (tep_parse_header_page(c->td->tep, data, len, c->td->info.long_size)) {
		free(data);
		return bad(c->td, cur_off(c), "cannot parse header_page");
	}
	free(data);
	if (cur_read(c, name, 13, "header_event tag"))
		return -1;
	if (memcmp(name, "header_event", 13))
		return bad(c->td, cur_off(c), "expected \"header_event\"");
	data = cur_sized(c, 8, &len, "header_event");
	free(data);
	return data ? 0 : -1;
}

/* The name declared by one "field:TYPE NAME[N];" line, into name. */
static int field_name(const char *line, const char *end, char *name, size_t size)
{
	const char *semi = memchr(line, ';', end - line), *e, *b;

	if (!semi)
		return -1;
	e = semi;
	if (e > line && e[-1] == ']')
		while (e > line && *e != '[')
			e--;
	b = e;
	while (b > line && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
		b--;
	if (b == e || (size_t)(e - b) >= size)
		return -1;
	memcpy(name, b, e - b);
	name[e - b] = '\0';
	return 0;
}

/* "DIGITS;" at *p; advances past it. */
static int skip_number(const char **p, const char *end)
{
	const char *q = *p;

	if (q < end && *q == '-')
		q++;
	if (q >= end || !isdigit((unsigned char)*q))
		return -1;
	while (q < end && isdigit((unsigned char)*q))
		q++;
	if (q >= end || *q != ';')
		return -1;
	*p = q + 1;
	return 0;
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" as the kernel writes it. */
static int field_line_sane(const char *p, const char *end)
{
	static const char *const keys[] = { "\toffset:", "\tsize:", "\tsigned:" };
	int in_bracket = 0;
	size_t i;

	for (; p < end && *p != ';'; p++) {
		if (*p == '[') {
			if (in_bracket++)
				return 0;
		} else if (*p == ']') {
			if (!in_bracket--)
				return 0;
		} else if (!isalnum((unsigned char)*p) && !strchr(" _*:", *p) &&
			   !(in_bracket && strchr("+-()", *p))) {
			return 0;
		}
	}
	if (p >= end || in_bracket)
		return 0;
	p++;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t n = strlen(keys[i]);

		if ((size_t)(end - p) < n || memcmp(p, keys[i], n))
			return 0;
		p += n;
		if (skip_number(&p, end))
			return 0;
	}
	return 1;
}

/*
 * A divisor libtraceevent may evaluate: a non-zero number or the sizeof a
 * basic type, the only ones kernel formats use; anything else could be a
 * division by zero, at parse or at print time (SIGFPE, found by the fuzzer).
 */
static int divisor_sane(const char *p, const char *end)
{
	static const char *const sizes[] = {
		"sizeof(u8)", "sizeof(u16)", "sizeof(u32)", "sizeof(u64)",
		"sizeof(int)", "sizeof(unsigned int)", "sizeof(long)",
		"sizeof(unsigned long)", "sizeof(void *)",
	};
	size_t i, n;

	while (p < end && *p == ' ')
		p++;
	/* As C reads it: "0000008" is an octal 0 (the text is NUL-terminated). */
	if (p < end && isdigit((unsigned char)*p))
		return strtoull(p, NULL, 0) != 0;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = strlen(sizes[i]);
		if ((size_t)(end - p) >= n && !memcmp(p, sizes[i], n))
			return 1;
	}
	return 0;
}

/* "sizeof(TYPE)" is an operand: an operator, not "(" or a name, follows
 * (libtraceevent uses freed memory on "sizeof(int)(x)", found by the fuzzer). */
static int sizeof_sane(const char *start, const char *p, const char *end)
{
	const char *q;

	if ((size_t)(end - p) < 6 || memcmp(p, "sizeof", 6) ||
	    (p > start && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
		return 1;
	q = memchr(p, ')', end - p);
	if (!q)
		return 0;
	for (q++; q < end && *q == ' '; q++)
		;
	return q >= end || !(*q == '(' || *q == '"' || *q == '_' || isalnum((unsigned char)*q));
}

/* Whether an operator at p is unary: nothing but an operator or an
 * opening before it. */
static int unary_position(const char *start, const char *p)
{
	while (p > start && p[-1] == ' ')
		p--;
	return p == start || strchr("(,?:!~&|^=<>+-*/%[{", p[-1]);
}

/* Quotes closed, (), [], {} balanced outside the strings, sane divisors. */
static int print_fmt_sane(const char *p, const char *end)
{
	const char *start = p;
	char stack[64];
	/*
	 * Per bracket depth: a '?' seen, and then its ':'.  libtraceevent
	 * 1.7 crashes on a member access ('.') in the operand after the
	 * ':' (REC->a ? b : c.d), up to the next ',' or closing bracket.
	 */
	char cond[65] = { 0 }, in_else[65] = { 0 };
	int depth = 0, in_str = 0;

	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '"')
		return 0;
	for (; p < end; p++) {
		if (in_str) {
			if (*p == '\\' && p + 1 < end)
				p++;
			else if (*p == '"')
				in_str = 0;
			continue;
		}
		if (*p == '\'') {
			/* 'c' or '\c' */
			p += p + 1 < end && p[1] == '\\' ? 3 : 2;
			if (p >= end || *p != '\'')
				return 0;
			continue;
		}
		/* C expressions only; ';' only in statement expressions "({ ...; })". */
		if (!isalnum((unsigned char)*p) && !strchr(" \n_,()<>-{}&|:?*=+[]%.~!/^\"", *p) &&
		    !(*p == ';' && memchr(stack, '}', depth)))
			return 0;
		if (*p == '"') {
			in_str = 1;
		} else if (*p == '!' && !unary_position(start, p) && !(p + 1 < end && p[1] == '=')) {
			return 0;
		} else if (*p == '-' && p + 1 < end && p[1] == '>' &&
			   (p - start < 3 || memcmp(p - 3, "REC", 3)) &&
			   (p - start < 4 || memcmp(p - 4, "REC)", 4))) {
			/* Only REC->field or (REC)->field: no pointers in a record. */
			return 0;
		} else if (*p == '.' && (p == start || !(isalnum((unsigned char)p[-1]) ||
						  strchr("_)]", p[-1])) ||
					 p + 1 >= end || !(isalnum((unsigned char)p[1]) || p[1] == '_') ||
					 in_else[depth])) {
			/* A member (REC->a.b) or a number: nothing else has a '.'. */
			return 0;
		} else if (*p == '?') {
			cond[depth] = 1;
		} else if (*p == ':' && cond[depth]) {
			in_else[depth] = 1;
		} else if (*p == ',' || *p == ';') {
			cond[depth] = in_else[depth] = 0;
		} else if (*p == 's' && !sizeof_sane(start, p, end)) {
			return 0;
		} else if ((*p == '/' || *p == '%') && !divisor_sane(p + 1, end)) {
			return 0;
		} else if (strchr("([{", *p)) {
			if (depth == (int)sizeof(stack))
				return 0;
			stack[depth++] = *p == '(' ? ')' : *p == '[' ? ']' : '}';
			cond[depth] = in_else[depth] = 0;
		} else if (strchr(")]}", *p)) {
			if (!depth || stack[--depth] != *p)
				return 0;
		}
	}
	return !in_str && !depth;
}

/*
 * libtraceevent 1.7 crashes on some malformed formats (found by
 * tests/fuzz/report.c: a print fmt naming a field the format does not
 * declare, a field declaration with a broken "[", ...).  A format is
 * handed to it only when it looks the way the kernel writes them: ASCII,
 * well-formed field lines, a balanced print fmt whose REC->names are
 * declared fields.
 */
static int format_sane(const char *text, size_t len)
{
	const char *end = text + len, *fmt = memmem(text, len, "\nprint fmt:", 11);
	const char *p, *nl;
	struct strbuf names = STRBUF_INIT;
	char name[256];
	int ok = 1;

	for (p = text; p < end; p++)
		if (!isprint((unsigned char)*p) && *p != '\n' && *p != '\t')
			return 0;
	if (!fmt)
		return 0;
	fmt++;
	/* The print fmt runs to the end: its strings may hold newlines. */
	if (!print_fmt_sane(fmt + 10, end))
		return 0;
	strbuf_addch(&names, ' ');
	for (p = text; ok && p < fmt; p = nl + 1) {
		const char *f;

		nl = memchr(p, '\n', fmt - p);
		if (!nl)
			nl = fmt;
		f = memmem(p, nl - p, "field:", 6);
		if (!f)
			continue;
		ok = field_line_sane(f + 6, nl) && !field_name(f, nl, name, sizeof(name));
		if (ok)
			strbuf_addf(&names, "%s ", name);
	}
	for (p = fmt; ok && (p = memmem(p, end - p, "REC->", 5)); ) {
		size_t n = 0;

		p += 5;
		while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_') && n < 250)
			n++;
		name[0] = ' ';
		memcpy(name + 1, p, n);
		name[n + 1] = ' ';
		name[n + 2] = '\0';
		ok = strstr(names.buf, name) != NULL;
	}
	strbuf_release(&names);
	return ok;
}

/* u32 count, then per format u64 size + text.  Formats libtraceevent
 * cannot parse are skipped, as trace-cmd does. */
static int parse_formats(struct cursor *c, const char *system)
{
	uint64_t count, len, i;
	char *data;

	if (cur_num(c, 4, &count, "event format count") ||
	    check_count(c, count, 8, "event format"))
		return -1;
	for (i = 0; i < count; i++) {
		data = cur_sized(c, 8, &len, "event format");
		if (!data)
			return -1;
		if (format_sane(data, len))
			tep_parse_event(c->td->tep, data, len, system);
		free(data);
	}
	return 0;
}

static int parse_systems(struct cursor *c)
{
	uint64_t count, i;
	char *sys;
	int ret;

	if (cur_num(c, 4, &count, "event system count") ||
	    check_count(c, count, 5, "event system"))
		return -1;
	for (i = 0; i < count; i++) {
		sys = cur_str(c, "event system name");
		if (!sys)
			return -1;
		ret = parse_formats(c, sys);
		free(sys);
		if (ret)
			return -1;
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
 * One /proc/kallsyms line as the kernel writes it: "ADDR T NAME", then
 * optionally "\t[MODULE]".  0 and the pieces, or -1 for anything else.
 */
static int kallsyms_line(const char *p, const char *end, unsigned long long *addr,
			 char *type, const char **name, size_t *name_len,
			 const char **mod, size_t *mod_len)
{
	const char *q = p;

	*addr = 0;
	for (; q < end && isxdigit((unsigned char)*q); q++)
		*addr = *addr << 4 | (isdigit((unsigned char)*q) ? *q - '0' :
				      (tolower((unsigned char)*q) - 'a' + 10));
	if (q == p || q - p > 16 || end - q < 4 || q[0] != ' ' || isspace((unsigned char)q[1]) ||
	    q[2] != ' ')
		return -1;
	*type = q[1];
	*name = q += 3;
	while (q < end && !isspace((unsigned char)*q))
		q++;
	*name_len = q - *name;
	*mod = NULL;
	*mod_len = 0;
	if (!*name_len)
		return -1;
	if (q == end)
		return 0;
	if (end - q < 3 || q[0] != '\t' || q[1] != '[')
		return -1;
	*mod = q += 2;
	while (q < end && !isspace((unsigned char)*q))
		q++;
	if (q != end || q[-1] != ']' || q - *mod < 2)
		return -1;
	*mod_len = q - *mod - 1;
	return 0;
}

/*
 * tep_parse_kallsyms() sscanf()s each of some 100,000 lines, a tenth of
 * a report's time.  Lines of the kernel's own shape are registered here
 * as it would register them (same order, same '$' and absolute-symbol
 * rules); any other text is left to it whole.
 */
static void parse_kallsyms(struct tep_handle *tep, const char *text)
{
	const char *p, *nl, *name, *mod;
	size_t name_len, mod_len;
	unsigned long long addr;
	char type, *fn, *mn;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (p = text; *p; p = *nl ? nl + 1 : nl) {
			nl = strchrnul(p, '\n');
			if (nl == p)
				continue;
			if (kallsyms_line(p, nl, &addr, &type, &name, &name_len, &mod, &mod_len)) {
				tep_parse_kallsyms(tep, text);
				return;
			}
			if (!pass || name[0] == '$' || type == 'A' || type == 'a')
				continue;
			fn = xstrndup(name, name_len);
			mn = mod ? xstrndup(mod, mod_len) : NULL;
			tep_register_function(tep, fn, addr, mn);
			free(fn);
			free(mn);
		}
	}
}

static int parse_text(struct cursor *c, int size_len, int which)
{
	uint64_t len;
	char *data = cur_sized(c, size_len, &len, which == TRACEDAT_OPT_KALLSYMS ?
			       "kallsyms" : which == TRACEDAT_OPT_PRINTK ?
			       "printk formats" : "saved cmdlines");

	if (!data)
		return -1;
	if (which == TRACEDAT_OPT_KALLSYMS) {
		parse_kallsyms(c->td->tep, data);
	} else if (which == TRACEDAT_OPT_PRINTK) {
		struct strbuf sane = STRBUF_INIT;

		printk_lines_sane(&sane, data);
		tep_parse_printk_formats(c->td->tep, sane.buf);
		strbuf_release(&sane);
	} else
		tep_parse_saved_cmdlines(c->td->tep, data);
	free(data);
	return 0;
}

/* "[local] global counter ..." : the bracketed word is the clock in use. */
static void parse_clock(struct tracedat *td, const char *text)
{
	const char *p = strchr(text, '['), *e;
	static const char *const usec_clocks[] = {
		"local", "global", "uptime", "perf", "tai", "x86-tsc-nsec",
	};
	size_t i;

	if (!p || !(e = strchr(p, ']')))
		return;
	free(td->clock);
	td->clock = xstrndup(p + 1, e - p - 1);
	if (td->tsc_mult)
		return;
	/* trace-cmd prints sec.usec only for clocks that count nanoseconds. */
	td->info.in_usecs = !strncmp(td->clock, "mono", 4);
	for (i = 0; i < sizeof(usec_clocks) / sizeof(usec_clocks[0]); i++)
		if (!strcmp(td->clock, usec_clocks[i]))
			td->info.in_usecs = 1;
}

static struct td_buffer *new_buffer(struct tracedat *td, const char *name)
{
	struct td_buffer *b;

	/* The top buffer is always buffers[0], whatever order options come in. */
	if (!*name && td->nr_buffers && !*td->buffers[0].name) {
		b = &td->buffers[0];
		free(b->name);
		free(b->clock);
		free(b->cpus);
	} else {
		td->buffers = xrealloc(td->buffers, (td->nr_buffers + 1) * sizeof(*b));
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

static int parse_buffer_option(struct tracedat *td, const char *data, uint64_t len,
			       uint64_t off)
{
	struct cursor c = { td, (const unsigned char *)data, 0, len, off };
	struct td_buffer *b;
	uint64_t sec, v, i;
	char *name;

	if (cur_num(&c, 8, &sec, "BUFFER offset"))
		return -1;
	name = cur_str(&c, "BUFFER name");
	if (!name)
		return -1;
	b = new_buffer(td, name);
	free(name);
	b->section = sec;
	if (td->info.version < 7)
		return 0;
	b->clock = cur_str(&c, "BUFFER clock");
	if (!b->clock || cur_num(&c, 4, &v, "BUFFER page size"))
		return -1;
	if (v < 64 || v > MAX_PAGE_SIZE || (v & (v - 1)))
		return bad(td, off, "BUFFER page size %llu is not a sane power of two",
			   (unsigned long long)v);
	b->page_size = v;
	if (cur_num(&c, 4, &v, "BUFFER cpu count") || check_count(&c, v, 20, "BUFFER cpu"))
		return -1;
	b->nr_cpus = v;
	b->cpus = xcalloc(v ? v : 1, sizeof(*b->cpus));
	for (i = 0; i < v; i++) {
		uint64_t id;

		if (cur_num(&c, 4, &id, "BUFFER cpu id") ||
		    cur_num(&c, 8, &b->cpus[i].offset, "BUFFER cpu offset") ||
		    cur_num(&c, 8, &b->cpus[i].size, "BUFFER cpu size"))
			return -1;
		if (id >= MAX_CPUS)
			return bad(td, off, "BUFFER cpu id %llu out of range",
				   (unsigned long long)id);
		b->cpus[i].cpu = id;
	}
	return 0;
}

static int handle_option(struct tracedat *td, unsigned int id, char *data, uint64_t len,
			 uint64_t off)
{
	switch (id) {
	case TRACEDAT_OPT_DATE:
		td->ts_offset += strtoll(data, NULL, 0) * 1000;
		break;
	case TRACEDAT_OPT_OFFSET:
		td->ts_offset += strtoll(data, NULL, 0);
		break;
	case TRACEDAT_OPT_CPUSTAT:
		strbuf_addstr(&td->cpustats, data);
		if (td->cpustats.len && td->cpustats.buf[td->cpustats.len - 1] != '\n')
			strbuf_addch(&td->cpustats, '\n');
		break;
	case TRACEDAT_OPT_BUFFER:
		return parse_buffer_option(td, data, len, off);
	case TRACEDAT_OPT_TRACECLOCK:
		td->have_clock_option = 1;
		parse_clock(td, data);
		break;
	case TRACEDAT_OPT_UNAME:
		free(td->uname);
		td->uname = xstrdup(data);
		break;
	case TRACEDAT_OPT_VERSION:
		free(td->tversion);
		td->tversion = xstrdup(data);
		break;
	case TRACEDAT_OPT_CPUCOUNT:
		if (len < 4)
			return bad(td, off, "CPUCOUNT option of %llu bytes",
				   (unsigned long long)len);
		td->info.cpus = file_num(td, data, 4);
		if (td->info.cpus < 0 || td->info.cpus > MAX_CPUS)
			return bad(td, off, "absurd CPUCOUNT %d", td->info.cpus);
		tep_set_cpus(td->tep, td->info.cpus);
		break;
	case TRACEDAT_OPT_TSC2NSEC:
		if (len < 16)
			return bad(td, off, "TSC2NSEC option of %llu bytes",
				   (unsigned long long)len);
		td->tsc_mult = file_num(td, data, 4);
		td->tsc_shift = file_num(td, data + 4, 4);
		td->tsc_offset = file_num(td, data + 8, 8);
		if (td->tsc_shift > 63)
			return bad(td, off, "TSC2NSEC shift %u", td->tsc_shift);
		td->info.in_usecs = 1;
		break;
	case TRACEDAT_OPT_HEADER_INFO:
	case TRACEDAT_OPT_FTRACE_EVENTS:
	case TRACEDAT_OPT_EVENT_FORMATS:
	case TRACEDAT_OPT_KALLSYMS:
	case TRACEDAT_OPT_PRINTK:
	case TRACEDAT_OPT_CMDLINES:
		if (len < 8)
			return bad(td, off, "section option %u of %llu bytes", id,
				   (unsigned long long)len);
		td->sec_off[id] = file_num(td, data, 8);
		break;
	default:
		break;
	}
	return 0;
}

/* Options until DONE.  v6: DONE has no size.  v7: *next gets DONE's offset. */
static int parse_options(struct cursor *c, uint64_t *next)
{
	uint64_t id, len, off;
	char *data;
	int ret;

	for (;;) {
		if (cur_num(c, 2, &id, "option id"))
			return -1;
		if (id == TRACEDAT_OPT_DONE && c->td->info.version < 7)
			return 0;
		off = cur_off(c);
		data = cur_sized(c, 4, &len, "option");
		if (!data)
			return -1;
		if (id == TRACEDAT_OPT_DONE) {
			ret = len < 8 ? bad(c->td, off, "DONE option of %llu bytes",
					    (unsigned long long)len) : 0;
			if (!ret)
				*next = file_num(c->td, data, 8);
			free(data);
			return ret;
		}
		ret = handle_option(c->td, id, data, len, off);
		free(data);
		if (ret)
			return -1;
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
	unsigned long long fsize;
	unsigned char *cdata, *udata;
	size_t r;

	*mem = NULL;
	if (pread_full(td, hdr, sizeof(hdr), off, "section header"))
		return -1;
	id = file_num(td, hdr, 2);
	flags = file_num(td, hdr + 2, 2);
	size = file_num(td, hdr + 8, 8);
	if (id != want_id)
		return bad(td, off, "section id %u where %u was expected", id, want_id);
	off += sizeof(hdr);
	if (size > td->info.file_size - off || size > MAX_SECTION_SIZE)
		return bad(td, off, "section size %llu exceeds the file (%llu bytes left)",
			   (unsigned long long)size,
			   (unsigned long long)(td->info.file_size - off));
	if (!(flags & TRACEDAT_SEC_FL_COMPRESS)) {
		*c = (struct cursor){ td, NULL, off, off + size, off };
		return 0;
	}
	if (!td->compressed)
		return bad(td, off, "compressed section in a file without compression");
	if (pread_full(td, hdr, TRACEDAT_CHUNK_HDR_SIZE, off, "compression header"))
		return -1;
	csize = file_num(td, hdr, 4);
	usize = file_num(td, hdr + 4, 4);
	if (csize + TRACEDAT_CHUNK_HDR_SIZE != size)
		return bad(td, off, "compressed size %llu does not match section size %llu",
			   (unsigned long long)csize, (unsigned long long)size);
	cdata = xmalloc(csize ? csize : 1);
	if (pread_full(td, cdata, csize, off + TRACEDAT_CHUNK_HDR_SIZE, "section data")) {
		free(cdata);
		return -1;
	}
	/* Trust the claimed size only as far as the zstd frame confirms it. */
	fsize = ZSTD_getFrameContentSize(cdata, csize);
	if (fsize == ZSTD_CONTENTSIZE_ERROR ||
	    (fsize != ZSTD_CONTENTSIZE_UNKNOWN && fsize != usize) ||
	    (fsize == ZSTD_CONTENTSIZE_UNKNOWN && usize > MAX_CHUNK_SIZE)) {
		free(cdata);
		return bad(td, off, "corrupt zstd section: %llu bytes claimed, frame says %s",
			   (unsigned long long)usize,
			   fsize == ZSTD_CONTENTSIZE_ERROR ? "it is not zstd" : "otherwise");
	}
	udata = xmalloc(usize + BUF_PAD);
	r = ZSTD_decompressDCtx(td->zctx, udata, usize, cdata, csize);
	free(cdata);
	if (ZSTD_isError(r) || r != usize) {
		free(udata);
		return bad(td, off, "corrupt zstd section: %s",
			   ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short output");
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
			bad(td, 0, "no HEADER_INFO section (ring buffer layout)") : 0;
	if (load_section(td, td->sec_off[id], id, &mem, &c))
		return -1;
	switch (id) {
	case TRACEDAT_OPT_HEADER_INFO:
		ret = parse_headers(&c);
		break;
	case TRACEDAT_OPT_FTRACE_EVENTS:
		ret = parse_formats(&c, "ftrace");
		break;
	case TRACEDAT_OPT_EVENT_FORMATS:
		ret = parse_systems(&c);
		break;
	case TRACEDAT_OPT_CMDLINES:
		ret = parse_text(&c, 8, id);
		break;
	default:
		ret = parse_text(&c, 4, id);
		break;
	}
	free(mem);
	return ret;
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
	if (cur_num(&c, 8, &next, "first options offset"))
		return -1;
	while (next) {
		if (++n > MAX_OPTION_SECTIONS)
			return bad(td, next, "more than %d options sections (a loop?)",
				   MAX_OPTION_SECTIONS);
		if (load_section(td, next, TRACEDAT_OPT_DONE, &mem, &c))
			return -1;
		next = 0;
		ret = parse_options(&c, &next);
		free(mem);
		if (ret)
			return -1;
	}
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (parse_section(td, order[i]))
			return -1;
	return 0;
}

/* v6 "flyrecord\0" then (u64 offset, u64 size) per CPU, then the clock. */
static int read_v6_cpus(struct tracedat *td, struct td_buffer *b, uint64_t pos,
			int nr_cpus)
{
	struct cursor c = { td, NULL, pos, td->info.file_size, 0 };
	char tag[10];
	uint64_t len;
	char *clock;
	int i;

	if (cur_read(&c, tag, 10, "flyrecord tag"))
		return -1;
	if (!memcmp(tag, "latency  ", 10))
		return bad(td, pos, "latency (text) traces are not supported");
	if (memcmp(tag, "flyrecord", 10))
		return bad(td, pos, "expected \"flyrecord\"");
	b->nr_cpus = nr_cpus;
	b->cpus = xcalloc(nr_cpus ? nr_cpus : 1, sizeof(*b->cpus));
	for (i = 0; i < nr_cpus; i++) {
		b->cpus[i].cpu = i;
		if (cur_num(&c, 8, &b->cpus[i].offset, "cpu data offset") ||
		    cur_num(&c, 8, &b->cpus[i].size, "cpu data size"))
			return -1;
	}
		if (td->have_clock_option) {
		clock = cur_sized(&c, 8, &len, "trace clock");
		if (!clock)
			return -1;
		parse_clock(td, clock);
		free(clock);
	}
	return 0;
}

static int read_v6(struct tracedat *td, uint64_t pos)
{
	struct cursor c = { td, NULL, pos, td->info.file_size, 0 };
	uint64_t cpus, next;
	char tag[10];
	int i;

	if (parse_headers(&c) || parse_formats(&c, "ftrace") || parse_systems(&c) ||
	    parse_text(&c, 4, TRACEDAT_OPT_KALLSYMS) ||
	    parse_text(&c, 4, TRACEDAT_OPT_PRINTK) ||
	    parse_text(&c, 8, TRACEDAT_OPT_CMDLINES))
		return -1;
	if (cur_num(&c, 4, &cpus, "cpu count"))
		return -1;
	if (cpus > MAX_CPUS)
		return bad(td, c.pos - 4, "absurd cpu count %llu", (unsigned long long)cpus);
	td->info.cpus = cpus;
	tep_set_cpus(td->tep, cpus);
	new_buffer(td, "");
	if (cur_read(&c, tag, 10, "options tag"))
		return -1;
	if (!memcmp(tag, "options  ", 10)) {
		if (parse_options(&c, &next))
			return -1;
	} else {
		c.pos -= 10;
	}
	if (read_v6_cpus(td, &td->buffers[0], c.pos, cpus))
		return -1;
	for (i = 1; i < td->nr_buffers; i++)
		if (read_v6_cpus(td, &td->buffers[i], td->buffers[i].section, cpus))
			return -1;
	return 0;
}

static int read_file_header(struct tracedat *td, uint64_t *pos)
{
	struct cursor c = { td, NULL, 0, td->info.file_size, 0 };
	unsigned char b[TRACEDAT_MAGIC_LEN];
	char *ver;
	uint64_t v;

	if (cur_read(&c, b, TRACEDAT_MAGIC_LEN, "magic"))
		return -1;
	if (memcmp(b, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN))
		return bad(td, 0, "bad magic: not a trace.dat file");
	ver = cur_str(&c, "version");
	if (!ver)
		return -1;
	td->info.version = atoi(ver);
	free(ver);
	if (td->info.version != 6 && td->info.version != 7)
		return bad(td, TRACEDAT_MAGIC_LEN, "unsupported file version %d",
			   td->info.version);
	if (cur_read(&c, b, 2, "endianness and long size"))
		return -1;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8))
		return bad(td, c.pos - 2, "bad endianness %u or long size %u", b[0], b[1]);
	td->info.big_endian = b[0];
	td->info.long_size = b[1];
	if (cur_num(&c, 4, &v, "page size"))
		return -1;
	if (v < 64 || v > MAX_PAGE_SIZE || (v & (v - 1)))
		return bad(td, c.pos - 4, "page size %llu is not a sane power of two",
			   (unsigned long long)v);
	td->info.page_size = v;
	if (td->info.version >= 7) {
		td->comp_name = cur_str(&c, "compression name");
		td->comp_ver = td->comp_name ? cur_str(&c, "compression version") : NULL;
		if (!td->comp_ver)
			return -1;
		if (!strcmp(td->comp_name, "zstd"))
			td->compressed = 1;
		else if (strcmp(td->comp_name, "none"))
			return bad(td, c.pos, "unsupported compression \"%s\"", td->comp_name);
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

			uint64_t need = cpu->size + (td->compressed && cpu->size ? 4 : 0);

			if (cpu->offset > td->info.file_size ||
			    need > td->info.file_size - cpu->offset)
				return bad(td, cpu->offset,
					   "cpu %d data (%llu bytes) runs past the end of the file (%llu bytes)",
					   cpu->cpu, (unsigned long long)cpu->size,
					   (unsigned long long)td->info.file_size);
		}
	}
	return 0;
}

int tracedat_open(const char *path, unsigned int flags, struct tracedat **out)
{
	struct tracedat *td = xcalloc(1, sizeof(*td));
	struct stat st;
	uint64_t pos = 0;
	int ret;

	*out = NULL;
	td->path = xstrdup(path);
	strbuf_init(&td->cpustats, 0);
	td->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (td->fd < 0 || fstat(td->fd, &st)) {
		error("%s: %s", path, strerror(errno));
		tracedat_close(td);
		return -1;
	}
	td->info.file_size = st.st_size;
	td->tep = tep_alloc();
	td->zctx = ZSTD_createDCtx();
	if (!td->tep || !td->zctx)
		die("out of memory");
	td->info.in_usecs = 1;
	ret = read_file_header(td, &pos);
	if (!ret) {
		tep_set_file_bigendian(td->tep, td->info.big_endian ? TEP_BIG_ENDIAN :
				       TEP_LITTLE_ENDIAN);
		tep_set_local_bigendian(td->tep, __BYTE_ORDER == __BIG_ENDIAN ?
					TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
		tep_set_long_size(td->tep, td->info.long_size);
		tep_set_page_size(td->tep, td->info.page_size);
		ret = td->info.version >= 7 ? read_v7(td, pos) : read_v6(td, pos);
	}
	if (!ret && !td->nr_buffers)
		new_buffer(td, "");
	if (!ret)
		ret = check_buffers(td);
	if (ret) {
		tracedat_close(td);
		return -1;
	}
	if (!td->info.cpus)
		td->info.cpus = td->buffers[0].nr_cpus;
	if (!(flags & TRACEDAT_NO_PLUGINS))
		td->plugins = tep_load_plugins(td->tep);
	td->info.compression = td->comp_name ? td->comp_name : "none";
	td->info.compression_version = td->comp_ver ? td->comp_ver : "";
	td->info.clock = td->clock ? td->clock : "";
	td->info.uname = td->uname ? td->uname : "";
	td->info.tracer_version = td->tversion ? td->tversion : "";
	td->info.cpustats = td->cpustats.buf;
	*out = td;
	return 0;
}

void tracedat_close(struct tracedat *td)
{
	int i;

	if (!td)
		return;
	if (td->plugins)
		tep_unload_plugins(td->plugins, td->tep);
	if (td->tep)
		tep_free(td->tep);
	ZSTD_freeDCtx(td->zctx);
	for (i = 0; i < td->nr_buffers; i++) {
		free(td->buffers[i].name);
		free(td->buffers[i].clock);
		free(td->buffers[i].cpus);
	}
	free(td->buffers);
	if (td->fd >= 0)
		close(td->fd);
	strbuf_release(&td->cpustats);
	free(td->comp_name);
	free(td->comp_ver);
	free(td->clock);
	free(td->uname);
	free(td->tversion);
	free(td->path);
	free(td);
}

const char *tracedat_path(const struct tracedat *td)
{
	return td->path;
}

const struct tracedat_info *tracedat_info(const struct tracedat *td)
{
	return &td->info;
}

struct tep_handle *tracedat_tep(const struct tracedat *td)
{
	return td->tep;
}

int tracedat_nr_buffers(const struct tracedat *td)
{
	return td->nr_buffers;
}

const char *tracedat_buffer_name(const struct tracedat *td, int buffer)
{
	return td->buffers[buffer].name;
}

int tracedat_buffer_nr_cpus(const struct tracedat *td, int buffer)
{
	return td->buffers[buffer].nr_cpus;
}

int tracedat_buffer_cpu(const struct tracedat *td, int buffer, int idx)
{
	return td->buffers[buffer].cpus[idx].cpu;
}

uint64_t tracedat_buffer_data_size(const struct tracedat *td, int buffer)
{
	const struct td_buffer *b = &td->buffers[buffer];
	uint64_t sum = 0;
	int i;

	for (i = 0; i < b->nr_cpus; i++)
		sum += b->cpus[i].size;
	return sum;
}

/* --- per-CPU streams and the merge --- */

struct stream {
	struct tracedat *td;
	int buffer, source;
	int cpu;
	unsigned int page_size, hdr_size;
	uint64_t pos, end;		/* file range still to read */
	uint32_t chunks_left;
	int chunked;
	unsigned char *buf, *cbuf;	/* pages (decompressed), compressed chunk */
	size_t buf_len, buf_alloc, cbuf_alloc, page;
	uint64_t buf_off;		/* file offset the pages came from */
	uint64_t page_off;		/* ... and of the current page (or chunk) */
	int page_loaded, started;
	unsigned char *data_end;	/* end of the current page's events */
	struct kbuffer *kbuf;
	struct tep_record rec;
};

struct tracedat_merge {
	struct stream **heap;
	int nr, alloc;
	struct stream **all;
	int nr_all;
};

struct tracedat_merge *tracedat_merge_new(void)
{
	return xcalloc(1, sizeof(struct tracedat_merge));
}

static int stream_read_raw(struct stream *s)
{
	size_t n = (size_t)s->page_size * RAW_READ_PAGES;

	if (s->pos >= s->end)
		return 0;
	if (n > s->end - s->pos)
		n = s->end - s->pos;
	if (n % s->page_size)
		return bad(s->td, s->pos, "cpu %d data ends in a partial page (%zu bytes)",
			   s->cpu, n % s->page_size);
	if (pread_full(s->td, s->buf, n, s->pos, "ring buffer pages"))
		return -1;
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
	size_t r;

	if (!s->chunks_left)
		return 0;
	if (s->end - s->pos < sizeof(hdr))
		return bad(td, s->pos, "chunk header past the cpu %d data", s->cpu);
	if (pread_full(td, hdr, sizeof(hdr), s->pos, "chunk header"))
		return -1;
	csize = file_num(td, hdr, 4);
	usize = file_num(td, hdr + 4, 4);
	if (csize > s->end - s->pos - sizeof(hdr))
		return bad(td, s->pos, "chunk of %llu bytes runs past the cpu %d data",
			   (unsigned long long)csize, s->cpu);
	if (!usize || usize % s->page_size || usize > MAX_CHUNK_SIZE)
		return bad(td, s->pos, "absurd chunk size %llu (page size %u)",
			   (unsigned long long)usize, s->page_size);
	if (csize > s->cbuf_alloc) {
		free(s->cbuf);
		s->cbuf = xmalloc(csize);
		s->cbuf_alloc = csize;
	}
	if (pread_full(td, s->cbuf, csize, s->pos + sizeof(hdr), "chunk"))
		return -1;
	if (usize > s->buf_alloc) {
		free(s->buf);
		s->buf = xmalloc(usize + BUF_PAD);
		s->buf_alloc = usize;
	}
	r = ZSTD_decompressDCtx(td->zctx, s->buf, usize, s->cbuf, csize);
	if (ZSTD_isError(r) || r != usize)
		return bad(td, s->pos, "corrupt zstd chunk: %s",
			   ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short output");
	memset(s->buf + usize, 0, BUF_PAD);
	s->buf_off = s->pos;
	s->pos += sizeof(hdr) + csize;
	s->chunks_left--;
	s->buf_len = usize;
	return 1;
}

static int stream_fill(struct stream *s)
{
	s->page = 0;
	s->buf_len = 0;
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
		commit = file_num(s->td, page + 8, s->td->info.long_size);
		size = commit & TRACEDAT_COMMIT_MASK;
		if (size + s->hdr_size + ((commit & TRACEDAT_MISSING_STORED) ?
					   (unsigned)s->td->info.long_size : 0) > s->page_size)
			return bad(s->td, s->buf_off, "cpu %d: page %zu claims %llu bytes of events in a %u-byte page",
				   s->cpu, s->page / s->page_size, (unsigned long long)size,
				   s->page_size);
		/* Raw pages have their own offset; a chunk's pages share the chunk's. */
		s->page_off = s->buf_off + (s->chunked ? 0 : s->page);
		s->page += s->page_size;
		if (!size)
			continue;
		if (kbuffer_load_subbuffer(s->kbuf, page))
			return bad(s->td, s->buf_off, "cpu %d: unreadable ring buffer page", s->cpu);
		s->data_end = page + s->hdr_size + size;
		s->page_loaded = 1;
		s->started = 0;
		return 1;
	}
}

static uint64_t stream_ts(const struct stream *s, unsigned long long ts)
{
	const struct tracedat *td = s->td;

	if (td->tsc_mult)
		ts = (uint64_t)(((unsigned __int128)ts * td->tsc_mult) >> td->tsc_shift) +
			td->tsc_offset;
	return ts + td->ts_offset;
}

/* 1 with s->rec set, 0 when the stream is done, -1 on a corrupt page. */
static int stream_next(struct stream *s)
{
	unsigned long long ts;
	unsigned char *data;
	int r, size;

	for (;;) {
		if (s->page_loaded) {
			data = s->started ? kbuffer_next_event(s->kbuf, &ts) :
				kbuffer_read_event(s->kbuf, &ts);
			if (!s->started)
				s->rec.missed_events = kbuffer_missed_events(s->kbuf);
			else
				s->rec.missed_events = 0;
			s->started = 1;
			if (data) {
				size = kbuffer_event_size(s->kbuf);
				if (size < 0 || data + size > s->data_end)
					return bad(s->td, s->buf_off,
						   "cpu %d: event of %d bytes runs past its page",
						   s->cpu, size);
				s->rec.ts = stream_ts(s, ts);
				s->rec.offset = s->page_off;
				s->rec.data = data;
				s->rec.size = size;
				return 1;
			}
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
	free(s->buf);
	free(s->cbuf);
	free(s);
}

int tracedat_merge_add(struct tracedat_merge *m, struct tracedat *td, int buffer, int idx)
{
	struct td_buffer *b = &td->buffers[buffer];
	struct td_cpu *cpu = &b->cpus[idx];
	struct stream *s = xcalloc(1, sizeof(*s));
	unsigned char cnt[4];
	int r;

	s->td = td;
	s->buffer = buffer;
	s->source = m->nr_all;
	s->cpu = cpu->cpu;
	s->page_size = b->page_size;
	s->hdr_size = 8 + td->info.long_size;
	s->pos = cpu->offset;
	s->end = cpu->offset + cpu->size;
	s->chunked = td->compressed;
	if (s->chunked && cpu->size)
		s->end += 4;
	s->buf_alloc = (size_t)s->page_size * RAW_READ_PAGES;
	s->buf = xmalloc(s->buf_alloc + BUF_PAD);
	memset(s->buf + s->buf_alloc, 0, BUF_PAD);
	s->kbuf = kbuffer_alloc(td->info.long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				td->info.big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!s->kbuf)
		die("out of memory");
	if (tep_is_old_format(td->tep))
		kbuffer_set_old_format(s->kbuf);
	s->rec.cpu = cpu->cpu;
	m->all = xrealloc(m->all, (m->nr_all + 1) * sizeof(*m->all));
	m->all[m->nr_all++] = s;
	if (s->chunked && cpu->size) {
		if (pread_full(td, cnt, 4, s->pos, "chunk count"))
			return -1;
		s->chunks_left = file_num(td, cnt, 4);
		s->pos += 4;
		if (s->chunks_left > (s->end - s->pos) / TRACEDAT_CHUNK_HDR_SIZE)
			return bad(td, s->pos - 4, "absurd chunk count %u for %llu bytes",
				   s->chunks_left, (unsigned long long)(s->end - s->pos));
	}
	r = stream_next(s);
	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	if (m->nr == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 16;
		m->heap = xrealloc(m->heap, m->alloc * sizeof(*m->heap));
	}
	m->heap[m->nr++] = s;
	heap_up(m, m->nr - 1);
	return 0;
}

/*
 * The top stream's record was handed out by the previous call: advance
 * that stream first, then hand out the new minimum.
 */
int tracedat_merge_next(struct tracedat_merge *m, struct tracedat_event *ev)
{
	struct stream *s;
	int r;

	if (m->nr && m->heap[0]->rec.priv) {
		s = m->heap[0];
		s->rec.priv = NULL;
		r = stream_next(s);
		if (r < 0)
			return -1;
		if (r == 0)
			m->heap[0] = m->heap[--m->nr];
		heap_down(m, 0);
	}
	if (!m->nr)
		return 0;
	s = m->heap[0];
	s->rec.priv = s;
	ev->rec = &s->rec;
	ev->td = s->td;
	ev->buffer = s->buffer;
	ev->source = s->source;
	return 1;
}

void tracedat_merge_free(struct tracedat_merge *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; i < m->nr_all; i++)
		stream_free(m->all[i]);
	free(m->all);
	free(m->heap);
	free(m);
}
