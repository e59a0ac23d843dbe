// SPDX-License-Identifier: GPL-2.0
/*
 * The safety checks on a trace.dat's event formats before libtraceevent
 * parses them: how much of a format looks as the kernel writes it, and
 * the guard, a child that parses each format first, so that a format
 * that kills libtraceevent kills the child and not the report.  Also
 * what the reader does to the events libtraceevent makes of them (the
 * element sizes of a probe's arrays).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/tracedat-read-int.h"


/* The name declared by one "field:TYPE NAME[N];" line, into name. */
static int field_name(const char *line, const char *end, char *name,
		      size_t size)
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
	static const char *const keys[] = { "\toffset:", "\tsize:",
					    "\tsigned:" };
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
	/*
	 * As C reads it: "0000008" is an octal 0 (the text is NUL-terminated).
	 */
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
 * (libtraceevent uses freed memory on "sizeof(int)(x)", found by the fuzzer).
 */
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
	return q >= end || !(*q == '(' || *q == '"' || *q == '_' ||
			     isalnum((unsigned char)*q));
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
		"!", "~", "*", "/", "%", "+", "-", "<", ">", "&", "^", "|",
		"?", ":", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
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
	struct pf_token t, prev[3] = { { PF_END, "", 0 },
				       { PF_END, "", 0 },
				       { PF_END, "", 0 } };
	int depth = 0, after_index = 0;

	memset(lv, 0, sizeof(lv));
	for (;; prev[2] = prev[1], prev[1] = prev[0], prev[0] = t) {
		p = pf_next(p, end, &t);
		if (after_index &&
		    !(t.type == PF_END || pf_is(&t, ",") || pf_is(&t, ")") ||
		      (t.type == PF_OP && pf_known_op(&t))))
			return 0;
		after_index = 0;
		if (t.type == PF_END)
			return !depth && !lv[0].conds;
		if (t.type == PF_NEWLINE)
			return 0;
		if (pf_is(&t, "(") || pf_is(&t, "[") ||
		    (pf_is(&t, "{") && pf_is(&prev[0], ","))) {
			if (depth == 64 || (*t.p == '[' && lv[depth].in_else))
				return 0;
			depth++;
			lv[depth].open = *t.p;
			lv[depth].conds = lv[depth].in_else = 0;
		} else if (pf_is(&t, "{")) {
			return pf_is(&prev[0], "(");
		} else if (pf_is(&t, ")") || pf_is(&t, "]") || pf_is(&t, "}")) {
			if (!depth || lv[depth].conds ||
			    lv[depth].open != (*t.p == ')' ? '(' :
					       *t.p == ']' ? '[' : '{'))
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
			if (!(pf_is(&prev[0], "REC") &&
			      prev[1].type != PF_NAME) &&
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
		/*
		 * C expressions only; ';' only in statement
		 * expressions "({ ...; })".
		 */
		if (!isalnum((unsigned char)*p) &&
		    !strchr(" \n_,()<>-{}&|:?*=+[]%.~!/^\"'", *p) &&
		    !(*p == ';' && memchr(stack, '}', depth)))
			return 0;
		if (*p == '"' || *p == '\'') {
			in_str = *p;
		} else if (*p == '!' && !unary_position(start, p) &&
			   !(p + 1 < end && p[1] == '=')) {
			return 0;
		} else if (*p == 's' && !sizeof_sane(start, p, end)) {
			return 0;
		} else if ((*p == '/' || *p == '%') &&
			   !divisor_sane(p + 1, end)) {
			return 0;
		} else if (strchr("([{", *p)) {
			if (depth == (int)sizeof(stack))
				return 0;
			stack[depth++] = *p == '(' ? ')' :
					 *p == '[' ? ']' : '}';
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
	const char *end = text + len,
		   *fmt = memmem(text, len, "\nprint fmt:", 11);
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
		for (q = p;
		     q < nl && (isprint((unsigned char)*q) || *q == '\t'); q++)
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
	for (q = fields_end;
	     q < end && (isprint((unsigned char)*q) || *q == '\n'); q++)
		;
	/* The print fmt runs to the end: its strings may hold newlines. */
	ok = q == end && print_fmt_sane(fields_end + 10, end);
	for (q = fields_end; ok && (q = memmem(q, end - q, "REC->", 5)); ) {
		size_t n = 0;

		q += 5;
		while (q + n < end &&
		       (isalnum((unsigned char)q[n]) || q[n] == '_') && n < 250)
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

/* The "name: " of a format for a message, printable or "?". */
void tracedat_format_name(const char *text, size_t len, char *name, size_t size)
{
	const char *end = text + len, *p = text;
	size_t n = 0;

	if (len > 6 && !memcmp(text, "name: ", 6))
		for (p += 6;
		     p < end && n + 1 < size && isgraph((unsigned char)*p); p++)
			name[n++] = *p;
	if (!n)
		name[n++] = '?';
	name[n] = '\0';
}

/* The id of a format's "ID: N" line, or -1. */
int tracedat_format_id(const char *text, size_t len)
{
	const char *p = memmem(text, len, "\nID: ", 5), *end = text + len;
	int id = 0;

	if (!p)
		return -1;
	for (p += 5; p < end && isdigit((unsigned char)*p) &&
	     id < TRACEDAT_MAX_EVENT_ID; p++)
		id = id * 10 + *p - '0';
	return p < end && *p == '\n' && id < TRACEDAT_MAX_EVENT_ID ? id : -1;
}

unsigned int tracedat_type_size(const char *type, int long_size)
{
	static const struct { const char *name; unsigned int size; } types[] = {
		{ "s8", 1 }, { "u8", 1 }, { "x8", 1 }, { "char", 1 },
		{ "unsigned char", 1 },
		{ "s16", 2 }, { "u16", 2 }, { "x16", 2 }, { "short", 2 },
		{ "unsigned short", 2 },
		{ "s32", 4 }, { "u32", 4 }, { "x32", 4 }, { "int", 4 },
		{ "unsigned int", 4 },
		{ "s64", 8 }, { "u64", 8 }, { "x64", 8 }, { "long", 0 },
		{ "unsigned long", 0 },
	};
	size_t i, n;

	if (!strncmp(type, "__data_loc ", 11))
		type += 11;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		n = strlen(types[i].name);
		if (!strncmp(type, types[i].name, n) &&
		    (type[n] == ' ' || type[n] == '[' || !type[n]))
			return types[i].size ? types[i].size :
			       (unsigned int)long_size;
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
		if (!(f->flags & TEP_FIELD_IS_ARRAY) || f->arraylen ||
		    f->elementsize ||
		    (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) ||
		    f->size <= 0)
			continue;
		n = tracedat_type_size(f->type, tep_get_long_size(event->tep));
		if (n && f->size % n == 0) {
			f->elementsize = n;
			f->arraylen = f->size / n;
		}
	}
}

/*
 * libtraceevent keeps an event whose format it cannot parse to the end,
 * marked TEP_EVENT_FL_FAILED, with the fields read before the fault,
 * and prints it as "[FAILED TO PARSE]" and those fields: that is what
 * trace-cmd report shows.  A format with a line too malformed to hand
 * over is cut there and given a line that fails on its first token, for
 * the same result.  Without a sane "format:" header there is no event.
 */
void tracedat_parse_upto(struct tep_handle *tep, const char *data, size_t len,
			 size_t sane, const char *system,
			 struct tep_event **event)
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

size_t tracedat_format_parse(struct tep_handle *tep, const char *data,
			     size_t len, const char *system,
			     struct tep_event **event)
{
	size_t sane = format_sane_part(data, len);

	tracedat_parse_upto(tep, data, len, sane, system, event);
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
static void __attribute__((noreturn))
guard_serve(struct tep_handle *tep, int fd)
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
		tracedat_parse_upto(tep, data, req.len, req.sane, system,
				    &event);
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
		/*
		 * What the parse says (a sanitizer's report of its death) is
		 * noise.
		 */
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

void tracedat_guard_stop(struct tracedat *td)
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
 * Whether tracedat_parse_upto() returns, tried first in the guard; a guard that
 * died is replaced at the next format, from this process's handle, which
 * has not seen the format that killed it.  Without a guard (no fork())
 * the format is parsed unchecked, as before there was one.
 */
static int parse_survives(struct tracedat *td, const char *data, size_t len,
			  size_t sane, const char *system)
{
	struct guard_request req = { len, sane, strlen(system) };
	char verdict;

	if (!td->guard.pid && guard_start(td))
		return 1;
	if (!send_all(td->guard.fd, &req, sizeof(req)) &&
	    !send_all(td->guard.fd, data, len) &&
	    !send_all(td->guard.fd, system, req.syslen) &&
	    !recv_all(td->guard.fd, &verdict, 1))
		return 1;
	tracedat_guard_stop(td);
	return 0;
}

/*
 * How much of the format this process parses: the sane part if a child
 * parsed it, else the fields before its print fmt (the event prints as
 * "[FAILED TO PARSE]" with them, as for any print fmt that fails) if a
 * child parsed those, else nothing.  *died says whether a child did.
 */
size_t tracedat_guarded_sane_part(struct tracedat *td, const char *data,
				  size_t len, const char *system, int *died)
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
