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

#include "util/array.h"
#include "util/tracedat-read-int.h"
#include "util/usage.h"

/* Sanity limits: far above real files, low enough to refuse absurd ones. */
#define MAX_SECTION_SIZE	(1ull << 30)
#define MAX_PAGE_SIZE		(1u << 20)
#define MAX_CPUS		4096
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

	strbuf_addf(td->err, "%s: offset %llu: ", td->path, (unsigned long long)off);
	va_start(ap, fmt);
	strbuf_vaddf(td->err, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t cur_off(const struct cursor *c)
{
	return c->mem ? c->base : c->pos;
}

int tracedat_pread(struct tracedat *td, void *dst, size_t n, uint64_t off,
		   const char *what)
{
	size_t done = 0;

	if (off > td->info.file_size || n > td->info.file_size - off)
		return tracedat_bad(td, off, "truncated file: %s needs %zu bytes, %llu left",
				    what, n, (unsigned long long)
				    (off > td->info.file_size ? 0 : td->info.file_size - off));
	while (done < n) {
		ssize_t r = pread(td->fd, (char *)dst + done, n - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return tracedat_bad(td, off + done, "reading %s: %s", what,
					    r ? strerror(errno) : "unexpected end of file");
		done += r;
	}
	return 0;
}

static int cur_read(struct cursor *c, void *dst, uint64_t n, const char *what)
{
	if (n > c->end - c->pos) {
		if (c->mem)
			return tracedat_bad(c->td, c->base,
					    "%s: %llu bytes needed at byte %llu of the section, %llu left",
					    what, (unsigned long long)n, (unsigned long long)c->pos,
					    (unsigned long long)(c->end - c->pos));
		return tracedat_bad(c->td, c->pos, "%s: %llu bytes needed, %llu left (truncated file)",
				    what, (unsigned long long)n, (unsigned long long)(c->end - c->pos));
	}
	if (c->mem)
		memcpy(dst, c->mem + c->pos, n);
	else if (tracedat_pread(c->td, dst, n, c->pos, what))
		return -1;
	c->pos += n;
	return 0;
}

static int cur_num(struct cursor *c, int size, uint64_t *v, const char *what)
{
	unsigned char b[8];

	if (cur_read(c, b, size, what))
		return -1;
	*v = tracedat_num(c->td, b, size);
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

/* n bytes of a section in memory, in place. */
static const char *cur_view(struct cursor *c, uint64_t n, const char *what)
{
	const char *p;

	if (n > c->end - c->pos) {
		cur_read(c, NULL, n, what);
		return NULL;
	}
	p = (const char *)c->mem + c->pos;
	c->pos += n;
	return p;
}

static char *cur_str(struct cursor *c, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	char ch;

	do {
		if (sb.len > 4096) {
			tracedat_bad(c->td, cur_off(c), "%s: unterminated string", what);
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
		return tracedat_bad(c->td, cur_off(c), "absurd %s count %llu for %llu bytes",
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
		return tracedat_bad(c->td, cur_off(c), "expected \"header_page\"");
	data = cur_sized(c, 8, &len, "header_page");
	if (!data)
		return -1;
	if (tep_parse_header_page(c->td->tep, data, len, c->td->info.long_size)) {
		free(data);
		return tracedat_bad(c->td, cur_off(c), "cannot parse header_page");
	}
	free(data);
	if (cur_read(c, name, 13, "header_event tag"))
		return -1;
	if (memcmp(name, "header_event", 13))
		return tracedat_bad(c->td, cur_off(c), "expected \"header_event\"");
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

/*
 * The print fmt's arguments as libtraceevent 1.7.1's tokenizer
 * (__read_token() in src/event-parse.c) cuts them: a name or number (a
 * run of [A-Za-z0-9_]), a string or character, one of "(),", or an
 * operator: "->", a doubled "+ - | & < >" ("<<" and ">>" may take an
 * '='), else one character, with an '=' appended after "+ - | & < > ! =".
 */
enum { PF_END, PF_NAME, PF_STR, PF_DELIM, PF_OP, PF_NEWLINE };

struct pf_token {
	int type;
	const char *p;
	size_t len;
};

static const char *pf_next(const char *p, const char *end, struct pf_token *t)
{
	const char *q, *nl = NULL;

	for (; p < end && isspace((unsigned char)*p); p++)
		if (*p == '\n' && !nl)
			nl = p;
	t->p = q = p;
	if (p >= end) {
		t->type = PF_END;
	} else if (nl) {
		/*
		 * read_token() returns a newline as a token, where an
		 * operator may stand (after REC->field): a shape the
		 * grammar below does not cover.  The kernel writes none.
		 */
		t->type = PF_NEWLINE;
		t->p = q = nl + 1;
	} else if (isalnum((unsigned char)*p) || *p == '_') {
		t->type = PF_NAME;
		while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
	} else if (*p == '"' || *p == '\'') {
		/*
		 * To the same quote after any character but a backslash
		 * (the "\\" of "\\\"" does not cancel it there); a character
		 * other than a newline that isprint() refuses would end it
		 * too, which the print fmt has none of.
		 */
		t->type = PF_STR;
		for (q = p + 1; q < end && !(*q == *p && q[-1] != '\\'); q++)
			;
		q = q < end ? q + 1 : end;
	} else if (strchr("(),", *p)) {
		t->type = PF_DELIM;
		q++;
	} else {
		t->type = PF_OP;
		q++;
		if (*p == '-' && q < end && *q == '>') {
			q++;
		} else if (strchr("+-|&<>", *p) && q < end && *q == *p) {
			q++;
			if ((*p == '<' || *p == '>') && q < end && *q == '=')
				q++;
		} else if (strchr("+-|&<>!=", *p) && q < end && *q == '=') {
			q++;
		}
	}
	t->len = q - p;
	return q;
}

static int pf_is(const struct pf_token *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->p, s, t->len);
}

/* The operators get_op_prio() knows, "++" and "--" aside (never binary). */
static int pf_known_op(const struct pf_token *t)
{
	static const char *const ops[] = {
		"!", "~", "*", "/", "%", "+", "-", "<", ">", "&", "^", "|", "?", ":",
		"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (pf_is(t, ops[i]))
			return 1;
	return 0;
}

/*
 * libtraceevent 1.7.1 dereferences NULL when an operator it does not
 * know follows a "?:" or an "[...]": process_op() parses those two with
 * right = NULL and, when the next token is an operator other than ':'
 * whose get_op_prio() is -1 (not > 0, the priority the two are given),
 * recurses with process_op(event, right, tok) and reads right->type.
 * The token after "c ? t : e" is the one after e's first operand, as
 * process_cond() reads e with process_arg() alone, and the operators
 * get_op_prio() does not know include "[", "]", "}", ".", "=" and "->"
 * (found by tests/fuzz/report.c: "x ? s : 8.5", "... ? \"+\" : \"\"=").
 *
 * So the arguments are read in libtraceevent's tokens and accepted only
 * in this grammar, which takes every print fmt of the 2,323 events of a
 * 6.18 kernel (x86_64, measured):
 *  - operators are those get_op_prio() knows (not "++", "--"), "?", ":",
 *    "[", "]", and "->" after REC or (REC) that begins an operand
 *    (process_entry() reads it; after anything else it is an operator);
 *  - a "?" stands at the top or inside "(...)", with its ':' at the same
 *    depth before the next ',' or closing bracket: never inside "[...]"
 *    or "{...}", where the token after its ':' operand would be "]" or
 *    "}";
 *  - no "[" follows a ':' at its depth before the next ',', and a "]"
 *    is followed by a known operator, ',', ')' or the end;
 *  - "{" opens an entry of __print_flags()' or __print_symbolic()'s list,
 *    after a ',', or a statement expression "({", after which nothing
 *    is read: every parser of libtraceevent 1.7.1 fails on a '{' that
 *    begins an operand (process_op(): "bad op token {"), and the failure
 *    ends the print fmt (dma_map_sg's and kvm_mmu_get_page's formats).
 * In each place the grammar admits a "?:" or a "]" the next token is one
 * get_op_prio() knows or not an operator, so right is never read.
 */
static int print_args_sane(const char *p, const char *end)
{
	struct {
		char open;	/* '(', '[', '{', or 0 at the top */
		int conds;	/* '?'s waiting for their ':' */
		int in_else;	/* a ':' seen since the last ',' */
	} lv[65];
	struct pf_token t, prev[3] = { { PF_END, "", 0 }, { PF_END, "", 0 }, { PF_END, "", 0 } };
	int depth = 0, after_index = 0;

	memset(lv, 0, sizeof(lv));
	for (;; prev[2] = prev[1], prev[1] = prev[0], prev[0] = t) {
		p = pf_next(p, end, &t);
		if (after_index && !(t.type == PF_END || pf_is(&t, ",") || pf_is(&t, ")") ||
				     (t.type == PF_OP && pf_known_op(&t))))
			return 0;
		after_index = 0;
		if (t.type == PF_END)
			return !depth && !lv[0].conds;
		if (t.type == PF_NEWLINE)
			return 0;
		if (pf_is(&t, "(") || pf_is(&t, "[") || (pf_is(&t, "{") && pf_is(&prev[0], ","))) {
			if (depth == 64 || (*t.p == '[' && lv[depth].in_else))
				return 0;
			depth++;
			lv[depth].open = *t.p;
			lv[depth].conds = lv[depth].in_else = 0;
		} else if (pf_is(&t, "{")) {
			return pf_is(&prev[0], "(");
		} else if (pf_is(&t, ")") || pf_is(&t, "]") || pf_is(&t, "}")) {
			if (!depth || lv[depth].conds ||
			    lv[depth].open != (*t.p == ')' ? '(' : *t.p == ']' ? '[' : '{'))
				return 0;
			after_index = *t.p == ']';
			depth--;
		} else if (pf_is(&t, ",")) {
			if (lv[depth].conds)
				return 0;
			lv[depth].in_else = 0;
		} else if (pf_is(&t, "?")) {
			if (lv[depth].open == '[' || lv[depth].open == '{')
				return 0;
			lv[depth].conds++;
		} else if (pf_is(&t, ":")) {
			if (!lv[depth].conds)
				return 0;
			lv[depth].conds--;
			lv[depth].in_else = 1;
		} else if (pf_is(&t, "->")) {
			if (!(pf_is(&prev[0], "REC") && prev[1].type != PF_NAME) &&
			    !(pf_is(&prev[0], ")") && pf_is(&prev[1], "REC") &&
			      pf_is(&prev[2], "(")))
				return 0;
		} else if (t.type == PF_OP && !pf_known_op(&t)) {
			return 0;
		}
	}
}

/*
 * Quotes closed, (), [], {} balanced outside the strings, sane divisors,
 * and the arguments in print_args_sane()'s grammar.
 */
static int print_fmt_sane(const char *p, const char *end)
{
	const char *start = p;
	char stack[64];
	int depth = 0, in_str = 0;

	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '"')
		return 0;
	for (; p < end; p++) {
		/* Where libtraceevent's strings end: see pf_next(). */
		if (in_str) {
			if (*p == in_str && p[-1] != '\\')
				in_str = 0;
			continue;
		}
		/* C expressions only; ';' only in statement expressions "({ ...; })". */
		if (!isalnum((unsigned char)*p) && !strchr(" \n_,()<>-{}&|:?*=+[]%.~!/^\"'", *p) &&
		    !(*p == ';' && memchr(stack, '}', depth)))
			return 0;
		if (*p == '"' || *p == '\'') {
			in_str = *p;
		} else if (*p == '!' && !unary_position(start, p) &&
			   !(p + 1 < end && p[1] == '=')) {
			return 0;
		} else if (*p == 's' && !sizeof_sane(start, p, end)) {
			return 0;
		} else if ((*p == '/' || *p == '%') && !divisor_sane(p + 1, end)) {
			return 0;
		} else if (strchr("([{", *p)) {
			if (depth == (int)sizeof(stack))
				return 0;
			stack[depth++] = *p == '(' ? ')' : *p == '[' ? ']' : '}';
		} else if (strchr(")]}", *p)) {
			if (!depth || stack[--depth] != *p)
				return 0;
		}
	}
	return !in_str && !depth && print_args_sane(start, end);
}

/* The text is not NUL-terminated where it lies in a section. */
static int all_digits(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

/*
 * libtraceevent 1.7 crashes on some malformed formats (found by
 * tests/fuzz/report.c: a print fmt naming a field the format does not
 * declare, a field declaration with a broken "[", ...).  It is handed a
 * format only as far as it looks the way the kernel writes them: ASCII,
 * well-formed field lines, a balanced print fmt whose REC->names are
 * declared fields.  Returns that length: len for the whole, else the
 * start of the first line that is not.
 */
static size_t format_sane_part(const char *text, size_t len)
{
	const char *end = text + len, *fmt = memmem(text, len, "\nprint fmt:", 11);
	const char *fields_end = fmt ? fmt + 1 : end, *p, *q, *nl;
	struct strbuf names = STRBUF_INIT;
	char name[256];
	int ok = 1;

	strbuf_addch(&names, ' ');
	for (p = text; p < fields_end; p = nl + 1) {
		const char *f;

		nl = memchr(p, '\n', fields_end - p);
		if (!nl)
			nl = fields_end;
		for (q = p; q < nl && (isprint((unsigned char)*q) || *q == '\t'); q++)
			;
		f = memmem(p, nl - p, "field:", 6);
		if (q < nl || (f && (!field_line_sane(f + 6, nl) ||
				     field_name(f, nl, name, sizeof(name)))))
			break;
		/* libtraceevent reads "ID: 3x4" as 3, another event's id. */
		if (nl - p > 3 && !memcmp(p, "ID:", 3) &&
		    (nl - p < 5 || p[3] != ' ' || !all_digits(p + 4, nl)))
			break;
		if (f)
			strbuf_addf(&names, "%s ", name);
	}
	if (p < fields_end || !fmt)
		goto out;
	/*
	 * Not even a tab: libtraceevent's strings end at one (6.1's and
	 * 6.18's maple_tree formats have one in theirs), the rest of the
	 * string then read as C.
	 */
	for (q = fields_end; q < end && (isprint((unsigned char)*q) || *q == '\n'); q++)
		;
	/* The print fmt runs to the end: its strings may hold newlines. */
	ok = q == end && print_fmt_sane(fields_end + 10, end);
	for (q = fields_end; ok && (q = memmem(q, end - q, "REC->", 5)); ) {
		size_t n = 0;

		q += 5;
		while (q + n < end && (isalnum((unsigned char)q[n]) || q[n] == '_') && n < 250)
			n++;
		name[0] = ' ';
		memcpy(name + 1, q, n);
		name[n + 1] = ' ';
		name[n + 2] = '\0';
		ok = strstr(names.buf, name) != NULL;
	}
	if (ok)
		p = end;
out:
	strbuf_release(&names);
	/* Past a last line without its newline, p is one beyond the end. */
	return (p < end ? p : end) - text;
}

static size_t count_lines(const char *text, size_t len)
{
	size_t n = 0;
	const char *p = text, *end = text + len;

	while ((p = memchr(p, '\n', end - p))) {
		p++;
		n++;
	}
	return n;
}

/* The "name: " of a format for a message, printable or "?". */
static void format_name(const char *text, size_t len, char *name, size_t size)
{
	const char *end = text + len, *p = text;
	size_t n = 0;

	if (len > 6 && !memcmp(text, "name: ", 6))
		for (p += 6; p < end && n + 1 < size && isgraph((unsigned char)*p); p++)
			name[n++] = *p;
	if (!n)
		name[n++] = '?';
	name[n] = '\0';
}

/* The id of a format's "ID: N" line, or -1. */
static int format_id(const char *text, size_t len)
{
	const char *p = memmem(text, len, "\nID: ", 5), *end = text + len;
	int id = 0;

	if (!p)
		return -1;
	for (p += 5; p < end && isdigit((unsigned char)*p) && id < TRACEDAT_MAX_EVENT_ID; p++)
		id = id * 10 + *p - '0';
	return p < end && *p == '\n' && id < TRACEDAT_MAX_EVENT_ID ? id : -1;
}

static void add_bad_format(struct tracedat *td, int id, struct strbuf *what)
{
	struct tracedat_bad_format *b;

	td->bad = xrealloc(td->bad, (td->nr_bad + 1) * sizeof(*td->bad));
	b = &td->bad[td->nr_bad++];
	b->id = id;
	b->what = strbuf_detach(what, NULL);
}

static int sym_wanted(struct tracedat *td, const char *name);
static void kallsyms_now(struct tracedat *td);

/*
 * Where a print fmt wants a number and has a name (mm_page_alloc's
 * vmemmap_base), libtraceevent looks the name up among the functions
 * registered in the handle when it prints (libtraceevent 1.7's
 * test_for_symbol(): a linear search, 0 when not there; the resolver
 * below is not asked).  Such a name is one an argument in a number's
 * place, not a %s's.  1 when one is a function of the file's kallsyms.
 */
static int arg_names_symbol(struct tracedat *td, const struct tep_print_arg *a, int str)
{
	const char *t;

	for (; a; a = NULL) {
		switch (a->type) {
		case TEP_PRINT_ATOM:
			t = a->atom.atom + (a->atom.atom[0] == '-');
			return !str && !isdigit((unsigned char)*t) && sym_wanted(td, a->atom.atom);
		case TEP_PRINT_TYPE:
			return arg_names_symbol(td, a->typecast.item, str);
		case TEP_PRINT_OP:
			if (str && a->op.op[0] == '?' && a->op.right &&
			    a->op.right->type == TEP_PRINT_OP)
				return arg_names_symbol(td, a->op.left, 0) ||
				       arg_names_symbol(td, a->op.right->op.left, 1) ||
				       arg_names_symbol(td, a->op.right->op.right, 1);
			return arg_names_symbol(td, a->op.left, 0) || arg_names_symbol(td, a->op.right, 0);
		case TEP_PRINT_FLAGS:
			return arg_names_symbol(td, a->flags.field, 0);
		case TEP_PRINT_SYMBOL:
			return arg_names_symbol(td, a->symbol.field, 0);
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			return arg_names_symbol(td, a->hex.field, 0) || arg_names_symbol(td, a->hex.size, 0);
		case TEP_PRINT_INT_ARRAY:
			return arg_names_symbol(td, a->int_array.field, 0) ||
			       arg_names_symbol(td, a->int_array.count, 0) ||
			       arg_names_symbol(td, a->int_array.el_size, 0);
		case TEP_PRINT_DYNAMIC_ARRAY:
			return arg_names_symbol(td, a->dynarray.index, 0);
		case TEP_PRINT_FUNC:
			for (a = a->func.args; a; a = a->next)
				if (arg_names_symbol(td, a, 0))
					return 1;
			return 0;
		default:
			return 0;
		}
	}
	return 0;
}

/* The arguments in the order of the format's conversions, as %s or not. */
static int names_symbol(struct tracedat *td, const struct tep_event *ev)
{
	const struct tep_print_arg *a = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;

	for (; p && *p && a; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		for (; *p && !isalpha((unsigned char)*p); p++)
			if (*p == '*') {
				if (arg_names_symbol(td, a, 0))
					return 1;
				a = a->next;
			}
		while (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'z' || *p == 'Z')
			p++;
		if (!*p || !a)
			break;
		if (arg_names_symbol(td, a, *p == 's'))
			return 1;
		a = a->next;
	}
	for (; a; a = a->next)
		if (arg_names_symbol(td, a, 0))
			return 1;
	return 0;
}

unsigned int tracedat_type_size(const char *type, int long_size)
{
	static const struct { const char *name; unsigned int size; } types[] = {
		{ "s8", 1 }, { "u8", 1 }, { "x8", 1 }, { "char", 1 }, { "unsigned char", 1 },
		{ "s16", 2 }, { "u16", 2 }, { "x16", 2 }, { "short", 2 }, { "unsigned short", 2 },
		{ "s32", 4 }, { "u32", 4 }, { "x32", 4 }, { "int", 4 }, { "unsigned int", 4 },
		{ "s64", 8 }, { "u64", 8 }, { "x64", 8 }, { "long", 0 }, { "unsigned long", 0 },
	};
	size_t i, n;

	if (!strncmp(type, "__data_loc ", 11))
		type += 11;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		n = strlen(types[i].name);
		if (!strncmp(type, types[i].name, n) &&
		    (type[n] == ' ' || type[n] == '[' || !type[n]))
			return types[i].size ? types[i].size : (unsigned int)long_size;
	}
	return 0;
}

/*
 * A probe's array is declared "s32 items[]" with the whole array's size
 * (kernel 6.18: kernel/trace/trace_probe.c), of which libtraceevent 1.7
 * makes no element size, and its print fmt's REC->items[0] reads 0 for
 * elements wider than a byte (trace-cmd report prints items={0,0,0} for
 * an s32[3]).  The element size from the type name puts the values
 * there, in the text (which then differs from trace-cmd's) as in the
 * JSON.
 */
static void size_static_arrays(struct tep_event *event)
{
	struct tep_format_field *f;
	unsigned int n;

	for (f = event->format.fields; f; f = f->next) {
		if (!(f->flags & TEP_FIELD_IS_ARRAY) || f->arraylen || f->elementsize ||
		    (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) || f->size <= 0)
			continue;
		n = tracedat_type_size(f->type, tep_get_long_size(event->tep));
		if (n && f->size % n == 0) {
			f->elementsize = n;
			f->arraylen = f->size / n;
		}
	}
}

static void parse_kallsyms(struct tep_handle *tep, const char *text);
static void register_symbols(struct tracedat *td);

/*
 * libtraceevent keeps an event whose format it cannot parse to the end,
 * marked TEP_EVENT_FL_FAILED, with the fields read before the fault,
 * and prints it as "[FAILED TO PARSE]" and those fields: that is what
 * trace-cmd report shows.  A format with a line too malformed to hand
 * over is cut there and given a line that fails on its first token, for
 * the same result.  Without a sane "format:" header there is no event.
 */
static void parse_upto(struct tep_handle *tep, const char *data, size_t len, size_t sane,
		       const char *system, struct tep_event **event)
{
	struct strbuf text = STRBUF_INIT;

	*event = NULL;
	if (sane == len) {
		tep_parse_format(tep, event, data, len, system);
	} else if (memmem(data, sane, "\nformat:\n", 9)) {
		strbuf_add(&text, data, sane);
		strbuf_addstr(&text, "fail\n");
		tep_parse_format(tep, event, text.buf, text.len, system);
		strbuf_release(&text);
	}
	if (*event)
		size_static_arrays(*event);
}

size_t tracedat_format_parse(struct tep_handle *tep, const char *data, size_t len,
			     const char *system, struct tep_event **event)
{
	size_t sane = format_sane_part(data, len);

	parse_upto(tep, data, len, sane, system, event);
	return sane;
}

/*
 * A format as the reader sends it to its guard (struct td_guard), then
 * len bytes of text and syslen of system name.
 */
struct guard_request {
	uint64_t len, sane, syslen;
};

static int recv_all(int fd, void *buf, size_t n)
{
	ssize_t r;

	for (; n; n -= r, buf = (char *)buf + r) {
		r = recv(fd, buf, n, 0);
		if (r < 0 && errno == EINTR)
			r = 0;
		else if (r <= 0)
			return -1;
	}
	return 0;
}

/* MSG_NOSIGNAL: a guard that died is a verdict, not a SIGPIPE. */
static int send_all(int fd, const void *buf, size_t n)
{
	ssize_t r;

	for (; n; n -= r, buf = (const char *)buf + r) {
		r = send(fd, buf, n, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			r = 0;
		else if (r < 0)
			return -1;
	}
	return 0;
}

/*
 * The guard's loop: each format received is parsed into its copy of the
 * handle, then one byte says it returned.  A parse that does not end in
 * 10 s is killed.
 */
static void __attribute__((noreturn)) guard_serve(struct tep_handle *tep, int fd)
{
	struct guard_request req;
	struct tep_event *event;
	char *data, *system;

	/* malloc(), not xmalloc(): die() would run the exit handlers. */
	while (!recv_all(fd, &req, sizeof(req))) {
		data = malloc(req.len + 1);
		system = malloc(req.syslen + 1);
		if (!data || !system || recv_all(fd, data, req.len) ||
		    recv_all(fd, system, req.syslen))
			break;
		system[req.syslen] = '\0';
		alarm(10);
		parse_upto(tep, data, req.len, req.sane, system, &event);
		alarm(0);
		free(data);
		free(system);
		if (send_all(fd, "", 1))
			break;
	}
	_exit(0);
}

/*
 * A fork() of this process, made at the first format: what
 * tep_parse_format() reads of the handle (long size, byte order, the
 * plugins' handlers, the events parsed before) is the same in its copy,
 * as every format parsed here is parsed there first.  It leaves this
 * process's exit and signal handlers (the tracefs restore) alone,
 * writes no core and nothing on stderr.  0, or -1 when it cannot be had.
 */
static int guard_start(struct tracedat *td)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct rlimit no_core = { 0, 0 };
	int sv[2], null;
	size_t i;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	td->guard.pid = fork();
	if (td->guard.pid < 0) {
		close(sv[0]);
		close(sv[1]);
		td->guard.pid = 0;
		return -1;
	}
	if (!td->guard.pid) {
		close(sv[0]);
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		setrlimit(RLIMIT_CORE, &no_core);
		/* What the parse says (a sanitizer's report of its death) is noise. */
		null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		/*
		 * Only its own socket: one that held another file's guard
		 * open would keep that guard from the end of its input, and
		 * tracedat_close() waiting for it.
		 */
		if (sv[1] != 3 && dup2(sv[1], 3) < 0)
			_exit(1);
		close_range(4, ~0U, 0);
		guard_serve(td->tep, 3);
	}
	close(sv[1]);
	td->guard.fd = sv[0];
	return 0;
}

static void guard_stop(struct tracedat *td)
{
	int status;

	if (!td->guard.pid)
		return;
	close(td->guard.fd);
	while (waitpid(td->guard.pid, &status, 0) < 0 && errno == EINTR)
		;
	td->guard.pid = 0;
}

/*
 * Whether parse_upto() returns, tried first in the guard; a guard that
 * died is replaced at the next format, from this process's handle, which
 * has not seen the format that killed it.  Without a guard (no fork())
 * the format is parsed unchecked, as before there was one.
 */
static int parse_survives(struct tracedat *td, const char *data, size_t len, size_t sane,
			  const char *system)
{
	struct guard_request req = { len, sane, strlen(system) };
	char verdict;

	if (!td->guard.pid && guard_start(td))
		return 1;
	if (!send_all(td->guard.fd, &req, sizeof(req)) && !send_all(td->guard.fd, data, len) &&
	    !send_all(td->guard.fd, system, req.syslen) &&
	    !recv_all(td->guard.fd, &verdict, 1))
		return 1;
	guard_stop(td);
	return 0;
}

/*
 * How much of the format this process parses: the sane part if a child
 * parsed it, else the fields before its print fmt (the event prints as
 * "[FAILED TO PARSE]" with them, as for any print fmt that fails) if a
 * child parsed those, else nothing.  *died says whether a child did.
 */
static size_t guarded_sane_part(struct tracedat *td, const char *data, size_t len,
				const char *system, int *died)
{
	size_t sane = format_sane_part(data, len);
	const char *fmt = memmem(data, sane, "\nprint fmt:", 11);

	*died = 0;
	if (!td->guarded || parse_survives(td, data, len, sane, system))
		return sane;
	*died = 1;
	if (fmt && fmt + 1 - data < (ptrdiff_t)sane &&
	    parse_survives(td, data, len, fmt + 1 - data, system))
		return fmt + 1 - data;
	return 0;
}

/*
 * The field NAME of a probe event's format, as the kernel writes it
 * (kernel/trace/trace_probe.c: the b type's field is its container's
 * uN, printed " NAME=%u", "%Lu" for u64; an sN is printed "%d", "%Ld"),
 * made signed in text: sN, "signed:1", and a conversion that prints the
 * N bits signed.  libtraceevent 1.7 reads a field without its sign and
 * hands %d an int: an s16 of -300 prints 65236 (measured, trace-cmd
 * report 3.1.6), so 8 and 16 bits take %hhd and %hd.  0, or -1 with text
 * unchanged where the format is not of that shape.
 */
static int make_signed(struct strbuf *text, const char *name, unsigned int width)
{
	static const char *const bits[] = { "8", "16", "32", "64" };
	static const char *const conv[] = { "hhd", "hd", "d", "Ld" };
	struct strbuf pat = STRBUF_INIT, out = STRBUF_INIT;
	char *field = NULL, *sign = NULL, *c = NULL, *fmt = strstr(text->buf, "\nprint fmt: \"");
	char *args = fmt ? strstr(fmt, "\", ") : NULL, *end;
	size_t i, k = 0;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]) && !field; i++) {
		strbuf_reset(&pat);
		strbuf_addf(&pat, "\tfield:u%s %s;\t", bits[i], name);
		field = strstr(text->buf, pat.buf);
		if (!field) {
			pat.buf[7] = 's';
			field = strstr(text->buf, pat.buf);
		}
		if (field && (unsigned int)atoi(bits[i]) < width)
			field = NULL;
		k = i;
	}
	if (field)
		sign = strstr(field, "\tsigned:");
	if (sign && (memchr(field, '\n', sign - field) || !strchr("01", sign[8]) ||
		     sign[9] != ';'))
		sign = NULL;
	strbuf_reset(&pat);
	strbuf_addf(&pat, " %s=%%", name);
	if (args) {
		*args = '\0';
		c = strstr(fmt, pat.buf);
		*args = '"';
	}
	if (c) {
		c += pat.len;
		end = c + (*c == 'L');
		if ((*end != 'u' && *end != 'd') || (end[1] != ' ' && end[1] != '"'))
			c = NULL;
	}
	if (sign && c) {
		field[7] = 's';
		sign[8] = '1';
		strbuf_add(&out, text->buf, c - text->buf);
		strbuf_addstr(&out, conv[k]);
		strbuf_addstr(&out, end + 1);
		strbuf_reset(text);
		strbuf_add(text, out.buf, out.len);
	}
	strbuf_release(&pat);
	strbuf_release(&out);
	return sign && c ? 0 : -1;
}

/*
 * The format of an event TK_SIGNED_FIELDS names, with those fields made
 * signed in text, their names in fields; 0 when it names none.
 */
static int signed_format(const struct tracedat *td, const char *data, size_t len,
			 const char *system, struct strbuf *text, struct strbuf *fields)
{
	char name[64], sys[64], ev[64], field[64], line[256];
	const char *l;
	unsigned int width;
	size_t ll;
	int n = 0, nr = 0;

	format_name(data, len, name, sizeof(name));
	for (l = td->signed_text.buf; *l; l += ll + (l[ll] == '\n')) {
		ll = strcspn(l, "\n");
		if (ll >= sizeof(line))
			continue;
		memcpy(line, l, ll);
		line[ll] = '\0';
		if (sscanf(line, "%63s %63s %63s %u", sys, ev, field, &width) != 4 ||
		    strcmp(sys, system) || strcmp(ev, name) || width < 1 || width > 64)
			continue;
		if (!nr++)
			strbuf_add(text, data, len);
		if (!make_signed(text, field, width)) {
			strbuf_addf(fields, "%s %u\n", field, width);
			n++;
		}
	}
	return n;
}

/* The fields signed_format() made signed, found in the event parsed. */
static void add_signed_fields(struct tracedat *td, const struct tep_event *event,
			      const char *fields)
{
	char name[64];
	unsigned int width;
	const char *l;

	for (l = fields; *l; l += strcspn(l, "\n") + 1) {
		struct tep_format_field *f;
		struct td_signed_field *sf;

		if (sscanf(l, "%63s %u", name, &width) != 2)
			continue;
		f = tep_find_field((struct tep_event *)event, name);
		if (!f || !(f->flags & TEP_FIELD_IS_SIGNED) || (unsigned int)f->size * 8 < width ||
		    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			continue;
		td->signed_fields = xrealloc(td->signed_fields, (td->nr_signed_fields + 1) *
					     sizeof(*td->signed_fields));
		sf = &td->signed_fields[td->nr_signed_fields++];
		sf->id = event->id;
		sf->offset = f->offset;
		sf->size = f->size;
		sf->width = width;
	}
}

void tracedat_sign_extend(const struct tracedat *td, int id, struct tep_record *rec)
{
	unsigned char *data = rec->data;
	uint64_t v, sign;
	unsigned int k;
	int i;

	for (i = 0; i < td->nr_signed_fields; i++) {
		const struct td_signed_field *sf = &td->signed_fields[i];

		if (sf->id != id || rec->size < 0 || sf->offset + sf->size > (unsigned int)rec->size)
			continue;
		v = sf->size == 1 ? data[sf->offset] : tracedat_num(td, data + sf->offset, sf->size);
		sign = 1ULL << (sf->width - 1);
		if (!(v & sign))
			continue;
		v |= ~(sign - 1);
		/* Back in the file's byte order, the bytes above the field's own. */
		for (k = 0; k < sf->size; k++)
			data[sf->offset + (td->info.big_endian ? sf->size - 1 - k : k)] = v >> (8 * k);
	}
}

static void parse_format(struct tracedat *td, const char *data, size_t len,
			 const char *system)
{
	struct tep_event *event;
	struct strbuf text = STRBUF_INIT, sig = STRBUF_INIT, fields = STRBUF_INIT;
	char name[64];
	int died;
	size_t sane;

	if (td->signed_text.len && signed_format(td, data, len, system, &sig, &fields)) {
		data = sig.buf;
		len = sig.len;
	}
	sane = guarded_sane_part(td, data, len, system, &died);
	parse_upto(td->tep, data, len, sane, system, &event);
	if (event && fields.len && !(event->flags & TEP_EVENT_FL_FAILED))
		add_signed_fields(td, event, fields.buf);
	if (event && !td->want_symbols && names_symbol(td, event))
		register_symbols(td);
	if (event && (event->flags & TEP_EVENT_FL_FAILED)) {
		strbuf_addf(&text, "event %s:%s: format does not parse", event->system,
			    event->name);
		if (sane < len)
			strbuf_addf(&text, " at line %zu", count_lines(data, sane) + 1);
		if (died)
			strbuf_addstr(&text, " (libtraceevent dies on it)");
		strbuf_addstr(&text, ": printed as trace-cmd does ([FAILED TO PARSE] and its fields)");
		add_bad_format(td, event->id, &text);
	} else if (!event) {
		format_name(data, len, name, sizeof(name));
		strbuf_addf(&text, "event %s:%s: malformed format%s: printed as [UNKNOWN EVENT]",
			    system, name, died ? " (libtraceevent dies on it)" : "");
		add_bad_format(td, format_id(data, len), &text);
	}
	strbuf_release(&text);
	strbuf_release(&sig);
	strbuf_release(&fields);
}

/*
 * A file holds the format of every event the kernel has (2,000 on 6.1)
 * and most reports meet a few of them: parsing them all was 27% of
 * `report` on a file of 300 sched_switch records (perf record, 2,082
 * formats).  A format that opens as the kernel writes it ("name: N\nID:
 * I\n") waits as text until tracedat_parse_pending() meets a record of
 * its id; any other is parsed at once, as is a second format of an id
 * (after the first, the order libtraceevent would have seen them in).
 */
static int lazy_id(const struct tracedat *td, const char *text, size_t len)
{
	const char *nl = len > 6 && !memcmp(text, "name: ", 6) ? memchr(text, '\n', len) : NULL;
	int id;

	if (!nl || memmem(text, len, "\nID: ", 5) != nl)
		return -1;
	id = format_id(text, len);
	return id < 0 || td->pending[id] || tep_find_event(td->tep, id) ? -1 : id;
}

static void parse_pending_id(struct tracedat *td, int id)
{
	struct td_format *f = id >= 0 ? td->pending[id] : NULL;

	if (!f)
		return;
	td->pending[id] = NULL;
	td->nr_pending--;
	parse_format(td, f->text, f->len, f->system);
	if (f->owned)
		free((char *)f->text);
	free(f);
}

/*
 * Takes data when owned (malloc'ed), else it lies in td->formats_mem;
 * system lives as long as td.
 */
static void add_format(struct tracedat *td, const char *data, size_t len, const char *system,
		       int lazy, int owned)
{
	struct td_format *f;
	int id = lazy ? lazy_id(td, data, len) : -1;

	if (id < 0) {
		if (lazy)
			parse_pending_id(td, format_id(data, len));
		parse_format(td, data, len, system);
		if (owned)
			free((char *)data);
		return;
	}
	f = xmalloc(sizeof(*f));
	f->text = data;
	f->len = len;
	f->system = system;
	f->owned = owned;
	td->pending[id] = f;
	td->nr_pending++;
}

void tracedat_parse_pending(struct tracedat *td, int id)
{
	if (id >= 0 && id < TRACEDAT_MAX_EVENT_ID)
		parse_pending_id(td, id);
}

void tracedat_parse_formats(struct tracedat *td)
{
	int id;

	for (id = 0; td->nr_pending && id < TRACEDAT_MAX_EVENT_ID; id++)
		parse_pending_id(td, id);
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
	int owned = !lazy || !c->mem;

	if (cur_num(c, 4, &count, "event format count") ||
	    check_count(c, count, 8, "event format"))
		return -1;
	for (i = 0; i < count; i++) {
		if (owned)
			data = cur_sized(c, 8, &len, "event format");
		else
			data = cur_num(c, 8, &len, "event format size") ? NULL :
			       cur_view(c, len, "event format");
		if (!data)
			return -1;
		add_format(c->td, data, len, system, lazy, owned);
	}
	return 0;
}

static int parse_systems(struct cursor *c)
{
	struct tracedat *td = c->td;
	uint64_t count, i;
	char *sys;

	if (cur_num(c, 4, &count, "event system count") ||
	    check_count(c, count, 5, "event system"))
		return -1;
	for (i = 0; i < count; i++) {
		sys = cur_str(c, "event system name");
		if (!sys)
			return -1;
		td->systems = xrealloc(td->systems, (td->nr_systems + 1) * sizeof(*td->systems));
		td->systems[td->nr_systems++] = sys;
		if (parse_formats(c, sys, 1))
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

/*
 * The functions of a file's kallsyms as libtraceevent 1.7 holds the ones
 * tep_register_function() was given: func_map_init() puts them, the
 * last registered first, into an array that qsort() sorts by address,
 * with an entry of address 0 after them, and __find_func() bsearch()es
 * it with func_bcmp().  Built and searched the same way, this array
 * finds the same function for every address, also where several share
 * one.  Registering them into a handle (a malloc and two strdup()s
 * each, then that sort) and searching it were 30% of `report` on a file
 * of 301 event types where kmem's call sites are looked up (perf
 * record); here the names are one block, and an address once looked up
 * is remembered.
 */
#define SYM_CACHE	4096

struct td_sym {
	unsigned long long addr;
	const char *name;
};

struct td_syms {
	struct td_sym *v;		/* nr, then the entry of address 0 */
	size_t nr;
	char *names;
	struct {
		unsigned long long addr;
		const struct td_sym *sym;	/* NULL: none */
		int used;
	} cache[SYM_CACHE];
};

/* func_cmp() and func_bcmp() of libtraceevent 1.7 */
static int sym_cmp(const void *a, const void *b)
{
	const struct td_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int sym_bcmp(const void *a, const void *b)
{
	const struct td_sym *x = a, *y = b;

	if (x->addr == y->addr || (x->addr > y->addr && x->addr < y[1].addr))
		return 0;
	return x->addr < y->addr ? -1 : 1;
}

static void syms_free(struct td_syms *st)
{
	if (!st)
		return;
	free(st->v);
	free(st->names);
	free(st);
}

/* Reverses v[0..n). */
static void syms_reverse(struct td_sym *v, size_t n)
{
	struct td_sym t;
	size_t i;

	for (i = 0; i < n / 2; i++) {
		t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

/*
 * The pages of a fresh buffer of n bytes, made present in one call:
 * faulted in one at a time, the kallsyms and the sections decompressed
 * were a tenth of the CPU time of a report of bench/report.sh's mixed
 * file (perf record).  Kernels before 5.14 refuse the advice; the pages
 * then fault in as before.
 */
static void prefault(void *p, size_t n)
{
	uintptr_t mask = (uintptr_t)getpagesize() - 1;
	uintptr_t a = ((uintptr_t)p + mask) & ~mask, e = ((uintptr_t)p + n) & ~mask;

	if (e > a)
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

/*
 * 0, or -1 for text parse_kallsyms() leaves to tep_parse_kallsyms().
 * The kernel writes its own symbols in address order: then the stable
 * sort of the list, last registered first, is the text's order with
 * each run of one address turned around, and no sort is needed.
 */
static int syms_build(struct tracedat *td)
{
	const char *p, *nl, *name, *mod;
	size_t name_len, mod_len, n = 0, at = 0, i, j, len;
	unsigned long long addr;
	struct td_syms *st;
	int sorted = 1;
	char type;

	for (p = td->kallsyms; (p = strchr(p, '\n')); p++)
		n++;
	st = xcalloc(1, sizeof(*st));
	st->v = xcalloc(n + 2, sizeof(*st->v));
	len = strlen(td->kallsyms) + 1;
	st->names = xmalloc(len);
	prefault(st->names, len);
	prefault(st->v, (n + 2) * sizeof(*st->v));
	for (p = td->kallsyms; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		if (nl == p)
			continue;
		if (kallsyms_line(p, nl, &addr, &type, &name, &name_len, &mod, &mod_len)) {
			syms_free(st);
			return -1;
		}
		if (name[0] == '$' || type == 'A' || type == 'a')
			continue;
		if (st->nr && addr < st->v[st->nr - 1].addr)
			sorted = 0;
		st->v[st->nr].addr = addr;
		st->v[st->nr++].name = st->names + at;
		memcpy(st->names + at, name, name_len);
		st->names[at + name_len] = '\0';
		at += name_len + 1;
	}
	if (sorted) {
		for (i = 0; i < st->nr; i = j) {
			for (j = i + 1; j < st->nr && st->v[j].addr == st->v[i].addr; j++)
				;
			syms_reverse(st->v + i, j - i);
		}
	} else {
		syms_reverse(st->v, st->nr);
		qsort(st->v, st->nr, sizeof(*st->v), sym_cmp);
	}
	st->v[st->nr].addr = 0;
	td->syms = st;
	return 0;
}

static const struct td_sym *sym_find(struct td_syms *st, unsigned long long addr)
{
	unsigned int slot = (unsigned int)((addr ^ addr >> 12) % SYM_CACHE);
	struct td_sym key = { .addr = addr };

	if (st->cache[slot].used && st->cache[slot].addr == addr)
		return st->cache[slot].sym;
	st->cache[slot].used = 1;
	st->cache[slot].addr = addr;
	st->cache[slot].sym = st->nr ? bsearch(&key, st->v, st->nr, sizeof(*st->v), sym_bcmp) :
			      NULL;
	return st->cache[slot].sym;
}

/*
 * The functions go into the file's own handle, instead of aside (below),
 * when a format names one of them: what libtraceevent finds by name is
 * there.
 */
static void register_symbols(struct tracedat *td)
{
	td->want_symbols = 1;
	if (!td->kallsyms)
		return;
	tep_reset_function_resolver(td->tep);
	td->resolver_set = 0;
	parse_kallsyms(td->tep, td->kallsyms);
	free(td->kallsyms_mem);
	td->kallsyms = td->kallsyms_mem = NULL;
	syms_free(td->syms);
	td->syms = NULL;
	if (td->ksyms)
		tep_free(td->ksyms);
	td->ksyms = NULL;
}

/*
 * 1 when name is a function of the file's kallsyms, which
 * libtraceevent's test_for_symbol() would find in the handle.  Asked
 * before the kallsyms are read, the name waits for them.  Text of
 * another shape than the kernel's is not searched: 1, as before names
 * were looked for.
 */
static int sym_wanted(struct tracedat *td, const char *name)
{
	size_t i;

	kallsyms_now(td);
	if (!td->kallsyms) {
		td->sym_names = xrealloc(td->sym_names,
					 (td->nr_sym_names + 1) * sizeof(*td->sym_names));
		td->sym_names[td->nr_sym_names++] = xstrdup(name);
		return 0;
	}
	if (!td->syms && syms_build(td))
		return 1;
	for (i = 0; i < td->syms->nr; i++)
		if (!strcmp(td->syms->v[i].name, name))
			return 1;
	return 0;
}

/*
 * kallsyms is some 100,000 lines that many reports never look up (sched,
 * syscalls): registering them was 21% of `report` on a file of 300
 * sched_switch records.  The file's handle resolves through the table
 * above, built on the first lookup; text of another shape goes to
 * libtraceevent's own parser, in a handle of its own.
 */
static char *resolve_function(void *priv, unsigned long long *addrp, char **modp)
{
	struct tracedat *td = priv;
	const struct td_sym *sym;
	unsigned long long start;
	const char *name;

	*modp = NULL;
	kallsyms_now(td);
	if (td->late_err.len)
		return NULL;
	if (!td->syms && !td->ksyms && syms_build(td)) {
		td->ksyms = tep_alloc();
		if (!td->ksyms)
			die("out of memory");
		tep_parse_kallsyms(td->ksyms, td->kallsyms);
	}
	if (td->ksyms) {
		if (!tep_find_function_info(td->ksyms, *addrp, &name, &start, NULL))
			return NULL;
		*addrp = start;
		return (char *)name;
	}
	sym = sym_find(td->syms, *addrp);
	if (!sym)
		return NULL;
	*addrp = sym->addr;
	return (char *)sym->name;
}

/*
 * Once: libtraceevent frees the resolver it replaces, and the one that
 * reads kallsyms late (kallsyms_now()) runs inside a lookup through it.
 */
static void set_resolver(struct tracedat *td)
{
	if (td->resolver_set)
		return;
	if (tep_set_function_resolver(td->tep, resolve_function, td))
		die("out of memory");
	td->resolver_set = 1;
}

/* text, NUL-terminated, lies in mem (malloc'ed), which td takes. */
static void set_kallsyms(struct tracedat *td, char *text, void *mem)
{
	int i;

	free(td->kallsyms_mem);
	syms_free(td->syms);
	td->syms = NULL;
	td->kallsyms = text;
	td->kallsyms_mem = mem;
	for (i = 0; !td->want_symbols && i < td->nr_sym_names; i++)
		if (sym_wanted(td, td->sym_names[i]))
			td->want_symbols = 1;
	if (td->want_symbols)
		register_symbols(td);
	else
		set_resolver(td);
}

static int parse_text(struct cursor *c, int size_len, int which)
{
	struct tracedat *td = c->td;
	uint64_t len;
	char *data = cur_sized(c, size_len, &len, which == TRACEDAT_OPT_KALLSYMS ?
			       "kallsyms" : which == TRACEDAT_OPT_PRINTK ?
			       "printk formats" : "saved cmdlines");

	if (!data)
		return -1;
	if (which == TRACEDAT_OPT_KALLSYMS) {
		set_kallsyms(td, data, data);
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

	if (!*mem)
		return parse_text(c, 4, TRACEDAT_OPT_KALLSYMS);
	if (cur_num(c, 4, &len, "kallsyms"))
		return -1;
	if (len > c->end - c->pos)
		return cur_read(c, NULL, len, "kallsyms");
	/* load_section() leaves BUF_PAD bytes after the section. */
	text = (char *)*mem + c->pos;
	text[len] = '\0';
	set_kallsyms(c->td, text, *mem);
	*mem = NULL;
	return 0;
}

/* Replaces a text of the file by s (malloc'ed); returns s. */
static const char *set_text(struct tracedat *td, enum td_text which, char *s)
{
	free(td->text[which]);
	td->text[which] = s;
	return s;
}

/* "[local] global counter ..." : the bracketed word is the clock in use. */
static void parse_clock(struct tracedat *td, const char *text)
{
	const char *p = strchr(text, '['), *e, *clock;
	static const char *const usec_clocks[] = {
		"local", "global", "uptime", "perf", "tai", "x86-tsc-nsec",
	};
	size_t i;

	if (!p || !(e = strchr(p, ']')))
		return;
	clock = set_text(td, TD_CLOCK, xstrndup(p + 1, e - p - 1));
	if (td->tsc_mult)
		return;
	/* trace-cmd prints sec.usec only for clocks that count nanoseconds. */
	td->info.in_usecs = !strncmp(clock, "mono", 4);
	for (i = 0; i < sizeof(usec_clocks) / sizeof(usec_clocks[0]); i++)
		if (!strcmp(clock, usec_clocks[i]))
			td->info.in_usecs = 1;
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

	/* The top buffer is always buffers[0], whatever order options come in. */
	if (!*name && td->nr_buffers && !*td->buffers[0].name) {
		b = &td->buffers[0];
		buffer_release(b);
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
		return tracedat_bad(td, off, "BUFFER page size %llu is not a sane power of two",
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
			return tracedat_bad(td, off, "BUFFER cpu id %llu out of range",
					    (unsigned long long)id);
		b->cpus[i].cpu = id;
	}
	return 0;
}

static int sample_cmp(const void *a, const void *b)
{
	const struct td_tsync_sample *x = a, *y = b;

	return x->time > y->time ? 1 : x->time < y->time ? -1 : 0;
}

static void tsync_release(struct td_tsync *t)
{
	int i;

	for (i = 0; i < t->nr_cpus; i++)
		free(t->samples[i]);
	free(t->samples);
	free(t->nr_samples);
	memset(t, 0, sizeof(*t));
}

/* Reads n s64 values into member member of each sample: 0, or -1 if short. */
static int tsync_column(const struct tracedat *td, const char **p, const char *end,
			struct td_tsync_sample *s, int n, size_t member)
{
	int i;

	if ((uint64_t)(end - *p) < (uint64_t)n * 8)
		return -1;
	for (i = 0; i < n; i++, *p += 8)
		*(int64_t *)((char *)&s[i] + member) = (int64_t)tracedat_num(td, *p, 8);
	return 0;
}

/*
 * TIME_SHIFT, as trace-cmd reads it: the fraction columns are optional,
 * the samples sorted by time with repeated times dropped.  A file whose
 * option does not parse is refused, as trace-cmd refuses it.
 */
static int parse_time_shift(struct tracedat *td, const char *data, uint64_t len, uint64_t off)
{
	struct td_tsync *t = &td->tsync;
	const char *p = data + 12, *end = data + len;
	int cpu, i, j, n;

	if (len < 16)
		return 0;
	tsync_release(t);
	t->flags = tracedat_num(td, data + 8, 4);
	n = tracedat_num(td, p, 4);
	p += 4;
	if (n < 0 || n > MAX_CPUS)
		return tracedat_bad(td, off, "TIME_SHIFT: absurd CPU count %d", n);
	t->nr_cpus = n;
	t->nr_samples = xcalloc(n ? n : 1, sizeof(*t->nr_samples));
	t->samples = xcalloc(n ? n : 1, sizeof(*t->samples));
	for (cpu = 0; cpu < n; cpu++) {
		struct td_tsync_sample *s;

		if (end - p < 4)
			goto short_option;
		i = tracedat_num(td, p, 4);
		p += 4;
		if (i < 0 || (uint64_t)i * 24 > (uint64_t)(end - p))
			goto short_option;
		s = t->samples[cpu] = xcalloc(i ? i : 1, sizeof(*s));
		t->nr_samples[cpu] = i;
		if (tsync_column(td, &p, end, s, i, offsetof(struct td_tsync_sample, time)) ||
		    tsync_column(td, &p, end, s, i, offsetof(struct td_tsync_sample, offset)) ||
		    tsync_column(td, &p, end, s, i, offsetof(struct td_tsync_sample, scaling)))
			goto short_option;
	}
	for (cpu = 0; p < end && cpu < n; cpu++)
		if (tsync_column(td, &p, end, t->samples[cpu], t->nr_samples[cpu],
				 offsetof(struct td_tsync_sample, fraction)))
			goto short_option;
	for (cpu = 0; cpu < n; cpu++) {
		struct td_tsync_sample *s = t->samples[cpu];

		qsort(s, t->nr_samples[cpu], sizeof(*s), sample_cmp);
		for (i = j = 0; i < t->nr_samples[cpu]; i++)
			if (!i || s[i].time != s[i - 1].time)
				s[j++] = s[i];
		t->nr_samples[cpu] = j;
	}
	return 0;
short_option:
	tsync_release(t);
	return tracedat_bad(td, off, "TIME_SHIFT option of %llu bytes is cut short",
			    (unsigned long long)len);
}

/*
 * trace-cmd's timestamp_correction_calc(): the offset of sample a, or
 * interpolated between a and b, after the scaling of a; in its 64-bit
 * arithmetic, wrapping where it wraps.
 */
static uint64_t tsync_correct(uint64_t ts, uint32_t flags, const struct td_tsync_sample *a,
			      const struct td_tsync_sample *b)
{
	int64_t cor = a->offset;

	if (flags & TRACEDAT_TSYNC_INTERPOLATE) {
		int64_t delta = (int64_t)((uint64_t)b->time - (uint64_t)a->time);
		int64_t off = (int64_t)((ts - (uint64_t)a->time) *
					((uint64_t)b->offset - (uint64_t)a->offset));

		cor = (int64_t)((uint64_t)a->offset + (uint64_t)((off + delta / 2) / delta));
	}
	/* Its ts - llabs(cor) for a negative cor is this, modulo 2^64. */
	return ((ts * (uint64_t)a->scaling) >> (a->fraction & 63)) + (uint64_t)cor;
}

uint64_t tracedat_tsync(const struct td_tsync *t, int cpu, uint64_t ts)
{
	const struct td_tsync_sample *s;
	int n, lo, hi, mid;

	if (cpu < 0 || cpu >= t->nr_cpus || !t->nr_samples[cpu])
		return ts;
	s = t->samples[cpu];
	n = t->nr_samples[cpu];
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	if (n == 2 || (int64_t)ts <= s[0].time)
		return tsync_correct(ts, t->flags, &s[0], &s[1]);
	if ((int64_t)ts >= s[n - 1].time)
		return tsync_correct(ts, t->flags, &s[n - 2], &s[n - 1]);
	lo = 0;
	hi = n - 1;
	mid = (lo + hi) / 2;
	while (lo <= hi) {
		if ((int64_t)ts < s[mid].time)
			hi = mid - 1;
		else if ((int64_t)ts > s[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	return tsync_correct(ts, t->flags, &s[mid], &s[mid + 1]);
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
	case TRACEDAT_OPT_PROCMAPS:
		strbuf_addstr(&td->procmaps, data);
		if (td->procmaps.len && td->procmaps.buf[td->procmaps.len - 1] != '\n')
			strbuf_addch(&td->procmaps, '\n');
		break;
	case TRACEDAT_OPT_TK_BUILDIDS:
		strbuf_addstr(&td->build_ids, data);
		break;
	case TRACEDAT_OPT_TK_SIGNED_FIELDS:
		strbuf_addstr(&td->signed_text, data);
		if (td->signed_text.len && td->signed_text.buf[td->signed_text.len - 1] != '\n')
			strbuf_addch(&td->signed_text, '\n');
		break;
	case TRACEDAT_OPT_BUFFER:
		return parse_buffer_option(td, data, len, off);
	case TRACEDAT_OPT_TRACECLOCK:
		td->have_clock_option = 1;
		parse_clock(td, data);
		break;
	case TRACEDAT_OPT_UNAME:
		set_text(td, TD_UNAME, xstrdup(data));
		break;
	case TRACEDAT_OPT_VERSION:
		set_text(td, TD_TRACER_VERSION, xstrdup(data));
		break;
	case TRACEDAT_OPT_CPUCOUNT:
		if (len < 4)
			return tracedat_bad(td, off, "CPUCOUNT option of %llu bytes",
					    (unsigned long long)len);
		td->info.cpus = tracedat_num(td, data, 4);
		if (td->info.cpus < 0 || td->info.cpus > MAX_CPUS)
			return tracedat_bad(td, off, "absurd CPUCOUNT %d", td->info.cpus);
		tep_set_cpus(td->tep, td->info.cpus);
		break;
	case TRACEDAT_OPT_TIME_SHIFT:
		return parse_time_shift(td, data, len, off);
	case TRACEDAT_OPT_TSC2NSEC:
		if (len < 16)
			return tracedat_bad(td, off, "TSC2NSEC option of %llu bytes",
					    (unsigned long long)len);
		td->tsc_mult = tracedat_num(td, data, 4);
		td->tsc_shift = tracedat_num(td, data + 4, 4);
		td->tsc_offset = tracedat_num(td, data + 8, 8);
		if (td->tsc_shift > 63)
			return tracedat_bad(td, off, "TSC2NSEC shift %u", td->tsc_shift);
		td->info.in_usecs = 1;
		break;
	case TRACEDAT_OPT_HEADER_INFO:
	case TRACEDAT_OPT_FTRACE_EVENTS:
	case TRACEDAT_OPT_EVENT_FORMATS:
	case TRACEDAT_OPT_KALLSYMS:
	case TRACEDAT_OPT_PRINTK:
	case TRACEDAT_OPT_CMDLINES:
		if (len < 8)
			return tracedat_bad(td, off, "section option %u of %llu bytes", id,
					    (unsigned long long)len);
		td->sec_off[id] = tracedat_num(td, data, 8);
		break;
	default:
		break;
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
		if (cur_num(c, 2, &id, "option id"))
			return -1;
		if (id == TRACEDAT_OPT_DONE && c->td->info.version < 7)
			return 0;
		off = cur_off(c);
		data = cur_sized(c, 4, &len, "option");
		if (!data)
			return -1;
		if (id == TRACEDAT_OPT_DONE) {
			ret = len < 8 ? tracedat_bad(c->td, off, "DONE option of %llu bytes",
						     (unsigned long long)len) : 0;
			if (!ret)
				*next = tracedat_num(c->td, data, 8);
			free(data);
			return ret;
		}
		ret = handle_option(c->td, id, data, len, off);
		free(data);
		if (ret)
			return -1;
	}
}

int tracedat_decompress(struct tracedat *td, void *dst, uint64_t usize, const void *src,
			uint64_t csize, uint64_t off, const char *what)
{
	uLongf zlen = usize;
	size_t r;
	int zr;

	if (td->compression == TD_COMPRESS_ZLIB) {
		/* trace-cmd's zlib writes compress2()'s zlib stream, one per chunk. */
		zr = uncompress(dst, &zlen, src, csize);
		if (zr != Z_OK || zlen != usize)
			return tracedat_bad(td, off, "corrupt zlib %s: %s", what,
					    zr == Z_OK ? "short output" :
					    zr == Z_BUF_ERROR ? "longer than claimed" : zError(zr));
		return 0;
	}
	r = ZSTD_decompressDCtx(td->zctx, dst, usize, src, csize);
	if (ZSTD_isError(r) || r != usize)
		return tracedat_bad(td, off, "corrupt zstd %s: %s", what,
				    ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short output");
	return 0;
}

/*
 * Before usize bytes are allocated for a section: a zstd frame states
 * its size; deflate expands at most 1032 to 1 (zlib's FAQ), and
 * trace-cmd's sections are whole zlib streams.
 */
static int claimed_size_sane(struct tracedat *td, const void *cdata, uint64_t csize,
			     uint64_t usize, uint64_t off)
{
	unsigned long long fsize;

	if (td->compression == TD_COMPRESS_ZLIB) {
		if (usize > csize * 1032 + 64)
			return tracedat_bad(td, off,
					    "corrupt zlib section: %llu bytes claimed from %llu",
					    (unsigned long long)usize, (unsigned long long)csize);
		return 0;
	}
	fsize = ZSTD_getFrameContentSize(cdata, csize);
	if (fsize == ZSTD_CONTENTSIZE_ERROR ||
	    (fsize != ZSTD_CONTENTSIZE_UNKNOWN && fsize != usize) ||
	    (fsize == ZSTD_CONTENTSIZE_UNKNOWN && usize > MAX_CHUNK_SIZE))
		return tracedat_bad(td, off, "corrupt zstd section: %llu bytes claimed, frame says %s",
				    (unsigned long long)usize,
				    fsize == ZSTD_CONTENTSIZE_ERROR ? "it is not zstd" : "otherwise");
	return 0;
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
	if (tracedat_pread(td, hdr, sizeof(hdr), off, "section header"))
		return -1;
	id = tracedat_num(td, hdr, 2);
	flags = tracedat_num(td, hdr + 2, 2);
	size = tracedat_num(td, hdr + 8, 8);
	if (id != want_id)
		return tracedat_bad(td, off, "section id %u where %u was expected", id, want_id);
	off += sizeof(hdr);
	if (size > td->info.file_size - off || size > MAX_SECTION_SIZE)
		return tracedat_bad(td, off, "section size %llu exceeds the file (%llu bytes left)",
				    (unsigned long long)size,
				    (unsigned long long)(td->info.file_size - off));
	if (!(flags & TRACEDAT_SEC_FL_COMPRESS)) {
		*c = (struct cursor){ td, NULL, off, off + size, off };
		return 0;
	}
	if (td->compression == TD_COMPRESS_NONE)
		return tracedat_bad(td, off, "compressed section in a file without compression");
	if (tracedat_pread(td, hdr, TRACEDAT_CHUNK_HDR_SIZE, off, "compression header"))
		return -1;
	csize = tracedat_num(td, hdr, 4);
	usize = tracedat_num(td, hdr + 4, 4);
	if (csize + TRACEDAT_CHUNK_HDR_SIZE != size)
		return tracedat_bad(td, off, "compressed size %llu does not match section size %llu",
				    (unsigned long long)csize, (unsigned long long)size);
	cdata = xmalloc(csize ? csize : 1);
	if (tracedat_pread(td, cdata, csize, off + TRACEDAT_CHUNK_HDR_SIZE, "section data")) {
		free(cdata);
		return -1;
	}
	/* Trust the claimed size only as far as the frame confirms it. */
	if (claimed_size_sane(td, cdata, csize, usize, off)) {
		free(cdata);
		return -1;
	}
	udata = xmalloc(usize + BUF_PAD);
	prefault(udata, usize);
	r = tracedat_decompress(td, udata, usize, cdata, csize, off, "section");
	free(cdata);
	if (r) {
		free(udata);
		return -1;
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
			tracedat_bad(td, 0, "no HEADER_INFO section (ring buffer layout)") : 0;
	if (load_section(td, td->sec_off[id], id, &mem, &c))
		return -1;
	switch (id) {
	case TRACEDAT_OPT_HEADER_INFO:
		ret = parse_headers(&c);
		break;
	case TRACEDAT_OPT_FTRACE_EVENTS:
		ret = parse_formats(&c, "ftrace", 0);
		break;
	case TRACEDAT_OPT_EVENT_FORMATS:
		ret = parse_systems(&c);
		/* The formats waiting to be parsed lie in it (one such section). */
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
	if (cur_num(&c, 8, &next, "first options offset"))
		return -1;
	while (next) {
		if (++n > MAX_OPTION_SECTIONS)
			return tracedat_bad(td, next, "more than %d options sections (a loop?)",
					    MAX_OPTION_SECTIONS);
		if (load_section(td, next, TRACEDAT_OPT_DONE, &mem, &c))
			return -1;
		next = 0;
		ret = read_options_section(&c, &next);
		free(mem);
		if (ret)
			return -1;
	}
	/*
	 * The kallsyms section (5 MB decompressed) is read at the first
	 * lookup: reading it at open was a third of `report` on a file of
	 * 87 sched_switch records, and reports of sched and syscall events
	 * look nothing up.  Names the formats wait with need it now.
	 */
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == TRACEDAT_OPT_KALLSYMS)
			td->kallsyms_sec = td->sec_off[order[i]];
		else if (parse_section(td, order[i]))
			return -1;
	}
	if (td->nr_sym_names)
		return read_kallsyms(td);
	if (td->kallsyms_sec)
		set_resolver(td);
	return 0;
}

/*
 * The kallsyms section, read where a lookup needs it after the file was
 * opened.  The lookup may be libtraceevent's resolver, which cannot
 * fail: a corrupt section leaves the file without kallsyms, and the
 * line the open would have given waits in late_err for
 * tracedat_late_error().
 */
static void kallsyms_now(struct tracedat *td)
{
	struct strbuf *was = td->err;

	if (!td->kallsyms_sec)
		return;
	td->err = &td->late_err;
	read_kallsyms(td);
	td->err = was;
}

int tracedat_late_error(const struct tracedat *td, struct strbuf *err)
{
	if (!td->late_err.len)
		return 0;
	strbuf_add(err, td->late_err.buf, td->late_err.len);
	return -1;
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
		return tracedat_bad(td, pos, "latency (text) traces are not supported");
	if (memcmp(tag, "flyrecord", 10))
		return tracedat_bad(td, pos, "expected \"flyrecord\"");
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

	if (parse_headers(&c) || parse_formats(&c, "ftrace", 0) || parse_systems(&c) ||
	    parse_text(&c, 4, TRACEDAT_OPT_KALLSYMS) ||
	    parse_text(&c, 4, TRACEDAT_OPT_PRINTK) ||
	    parse_text(&c, 8, TRACEDAT_OPT_CMDLINES))
		return -1;
	if (cur_num(&c, 4, &cpus, "cpu count"))
		return -1;
	if (cpus > MAX_CPUS)
		return tracedat_bad(td, c.pos - 4, "absurd cpu count %llu", (unsigned long long)cpus);
	td->info.cpus = cpus;
	tep_set_cpus(td->tep, cpus);
	new_buffer(td, "");
	if (cur_read(&c, tag, 10, "options tag"))
		return -1;
	if (!memcmp(tag, "options  ", 10)) {
		if (read_options_section(&c, &next))
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

/* The name as C would spell it: an error is one line of text. */
static int bad_compression(struct tracedat *td, uint64_t off, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (; *name; name++)
		if (isprint((unsigned char)*name) && *name != '"' && *name != '\\')
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

	if (cur_read(&c, b, TRACEDAT_MAGIC_LEN, "magic"))
		return -1;
	if (memcmp(b, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN))
		return tracedat_bad(td, 0, "bad magic: not a trace.dat file");
	ver = cur_str(&c, "version");
	if (!ver)
		return -1;
	td->info.version = atoi(ver);
	free(ver);
	if (td->info.version != 6 && td->info.version != 7)
		return tracedat_bad(td, TRACEDAT_MAGIC_LEN, "unsupported file version %d",
				    td->info.version);
	if (cur_read(&c, b, 2, "endianness and long size"))
		return -1;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8))
		return tracedat_bad(td, c.pos - 2, "bad endianness %u or long size %u", b[0], b[1]);
	td->info.big_endian = b[0];
	td->info.long_size = b[1];
	if (cur_num(&c, 4, &v, "page size"))
		return -1;
	if (v < 64 || v > MAX_PAGE_SIZE || (v & (v - 1)))
		return tracedat_bad(td, c.pos - 4, "page size %llu is not a sane power of two",
				    (unsigned long long)v);
	td->info.page_size = v;
	if (td->info.version >= 7) {
		name = td->text[TD_COMPRESSION] = cur_str(&c, "compression name");
		if (name)
			td->text[TD_COMPRESSION_VERSION] = cur_str(&c, "compression version");
		if (!td->text[TD_COMPRESSION_VERSION])
			return -1;
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
						    cpu->cpu, (unsigned long long)cpu->size,
						    (unsigned long long)td->info.file_size);
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
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		tracedat_close(td);
		return -1;
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
	guard_stop(td);
	if (td->plugins)
		tep_unload_plugins(td->plugins, td->tep);
	if (td->tep)
		tep_free(td->tep);
	if (td->ksyms)
		tep_free(td->ksyms);
	syms_free(td->syms);
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
	tsync_release(&td->tsync);
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

const char *tracedat_procmaps(const struct tracedat *td)
{
	return td->procmaps.buf;
}

const char *tracedat_build_ids(const struct tracedat *td)
{
	return td->build_ids.buf;
}

const char *tracedat_path(const struct tracedat *td)
{
	return td->path;
}

const struct tracedat_info *tracedat_info(const struct tracedat *td)
{
	return &td->info;
}

int tracedat_bad_formats(const struct tracedat *td, const struct tracedat_bad_format **bad)
{
	*bad = td->bad;
	return td->nr_bad;
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
