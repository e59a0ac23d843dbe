// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled print formats.  The rules are libtraceevent 1.7's
 * (src/event-parse.c): parse_args() and parse_arg_format() split the
 * format into literal text and conversions, one argument each;
 * eval_num_arg() gives numbers (fields read with tep_read_number(),
 * casts as masks, "[" indexing by the field's element size, ?:, C
 * operators on unsigned long long); print_arg_number() casts by the
 * count of h/l letters before printf; print_str_arg() gives strings.
 * Where the compiled walk and the library could disagree, the event or
 * the record is refused rather than approximated; tests/print-fmt.c
 * compares the two over every format of the running kernel.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/print-fmt.h"
#include "util/usage.h"

enum node_kind {
	N_CONST,	/* val */
	N_FIELD,	/* size bytes at off */
	N_INDEX,	/* size bytes at off + a * size */
	N_OP,		/* a op b */
	N_COND,		/* a ? b : c */
	N_MASK,		/* a & val: a cast */
};

struct node {
	enum node_kind kind;
	char op[3];
	unsigned int off, size;
	unsigned long long val;
	struct node *a, *b, *c;
};

enum str_kind {
	STR_ATOM,	/* text */
	/* a char array field: len bytes at off, 0 = to the end */
	STR_ARRAY,
	STR_DYN,	/* __get_str(): the __data_loc word at off */
	STR_SYMBOL,	/* __print_symbolic(val, syms) */
	STR_FLAGS,	/* __print_flags(val, delim, syms) */
	STR_COND,	/* val ? t : f */
};

struct sym {
	long long val;
	const char *str;
};

struct str {
	enum str_kind kind;
	const char *text, *delim;
	unsigned int off, len;
	int relative;
	struct node *val;
	struct sym *syms;
	int nr_syms;
	struct str *t, *f;
};

enum seg_kind {
	SEG_TEXT,	/* text, len bytes */
	SEG_INT,	/* printf(text, val cast by ls) */
	SEG_STR,	/* printf(text, str) */
	SEG_PTR,	/* "%p" */
	SEG_FUNC,	/* %ps: symbol, %pS: symbol+0xoff */
};

struct seg {
	enum seg_kind kind;
	char *text;
	size_t len;
	struct node *val;
	struct str *str;
	int ls;
	/* When the spec is plain enough to format here, without printf. */
	int fast, left, zero, width, prec, with_offset;
	char conv;
	unsigned int bits;
};

struct print_fmt {
	struct tep_handle *tep;
	int long_size, swap;
	struct seg *segs;
	int nr_segs, alloc_segs;
	void **allocs;	/* every node, str and table, freed together */
	int nr_allocs, alloc_allocs;
	size_t room;	/* what the text and fast numbers can take */
};

/* Literal text is allocated this much longer, for fixed-size copies. */
#define TEXT_PAD	16
/* "0x" and 16 digits, or "(nil)" */
#define PTR_ROOM	18

struct rec_ctx {
	const struct print_fmt *f;
	const unsigned char *data;
	unsigned int size;
};

static void *fmt_alloc(struct print_fmt *f, size_t n)
{
	void *p = xcalloc(1, n);

	grow_array(f->allocs, f->nr_allocs, f->alloc_allocs, 16);
	f->allocs[f->nr_allocs++] = p;
	return p;
}

static void seg_release(struct seg *s)
{
	free(s->text);
}

void print_fmt_free(struct print_fmt *f)
{
	if (!f)
		return;
	release_array(f->allocs, f->nr_allocs, free_ptr);
	release_array(f->segs, f->nr_segs, seg_release);
	free(f);
}

static struct seg *add_seg(struct print_fmt *f, enum seg_kind kind)
{
	struct seg *s;

	grow_array(f->segs, f->nr_segs, f->alloc_segs, 8);
	s = &f->segs[f->nr_segs++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->prec = -1;
	return s;
}

static struct tep_format_field *arg_field(struct tep_event *ev,
					  struct tep_print_arg *arg)
{
	return arg->field.field ? arg->field.field :
	       tep_find_any_field(ev, arg->field.name);
}

static int number_size(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* eval_type_str() with pointer == 0: every cast it knows is a mask. */
static unsigned long long cast_mask(const char *type)
{
	size_t len = strlen(type);

	if (!len || type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return ~0ULL;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return 0xff;
	if (!strcmp(type, "short"))
		return 0xffff;
	if (!strcmp(type, "int"))
		return 0xffffffff;
	return ~0ULL;
}

static const char *const binary_ops[] = {
	"!", "!=", "~", "|", "||", "&", "&&", "<", "<<", "<=", ">", ">>", ">=",
	"==", "-", "+", "/", "%", "*",
};

static struct node *compile_num(struct print_fmt *f, struct tep_event *ev,
				struct tep_print_arg *arg)
{
	struct tep_format_field *field;
	struct node *n;
	size_t i;

	if (!arg)
		return NULL;
	n = fmt_alloc(f, sizeof(*n));
	switch (arg->type) {
	case TEP_PRINT_NULL:
		n->kind = N_CONST;
		return n;
	case TEP_PRINT_ATOM:
		n->kind = N_CONST;
		n->val = strtoull(arg->atom.atom, NULL, 0);
		/*
		 * eval_num_arg() looks a name (mm_page_alloc's vmemmap_base)
		 * up among the functions registered in the handle
		 * (test_for_symbol()), and reads 0 where it finds none; a
		 * handle with no functions at all (the report's, which
		 * resolves them elsewhere) finds none.
		 */
		if (!n->val && !isdigit((unsigned char)arg->atom.atom[0]) &&
		    tep_get_function_count(f->tep))
			return NULL;
		return n;
	case TEP_PRINT_FIELD:
		field = arg_field(ev, arg);
		if (!field || field->offset < 0 || !number_size(field->size))
			return NULL;
		n->kind = N_FIELD;
		n->off = field->offset;
		n->size = field->size;
		return n;
	case TEP_PRINT_TYPE:
		n->kind = N_MASK;
		n->val = cast_mask(arg->typecast.type);
		n->a = compile_num(f, ev, arg->typecast.item);
		return n->a ? n : NULL;
	case TEP_PRINT_OP:
		break;
	default:
		return NULL;
	}
	if (!strcmp(arg->op.op, "[")) {
		if (!arg->op.left || arg->op.left->type != TEP_PRINT_FIELD)
			return NULL;
		field = arg_field(ev, arg->op.left);
		if (!field || field->offset < 0 ||
		    !number_size(field->elementsize))
			return NULL;
		n->kind = N_INDEX;
		n->off = field->offset;
		n->size = field->elementsize;
		n->a = compile_num(f, ev, arg->op.right);
		/*
		 * A constant index (sys_enter's args[0] to args[5]) reads one
		 * field: eval() checks its end against the record as it
		 * would the indexed element's.
		 */
		if (n->a && n->a->kind == N_CONST && n->a->val < 65536) {
			n->kind = N_FIELD;
			n->off += n->a->val * n->size;
		}
		return n->a ? n : NULL;
	}
	if (!strcmp(arg->op.op, "?")) {
		struct tep_print_arg *choice = arg->op.right;

		if (!choice || choice->type != TEP_PRINT_OP ||
		    strcmp(choice->op.op, ":"))
			return NULL;
		n->kind = N_COND;
		n->a = compile_num(f, ev, arg->op.left);
		n->b = compile_num(f, ev, choice->op.left);
		n->c = compile_num(f, ev, choice->op.right);
		return n->a && n->b && n->c ? n : NULL;
	}
	for (i = 0; i < sizeof(binary_ops) / sizeof(binary_ops[0]); i++)
		if (!strcmp(arg->op.op, binary_ops[i]))
			break;
	if (i == sizeof(binary_ops) / sizeof(binary_ops[0]))
		return NULL;
	n->kind = N_OP;
	strcpy(n->op, binary_ops[i]);
	/*
	 * Both sides are evaluated even for the unary ones, as the library
	 * does.
	 */
	n->a = compile_num(f, ev, arg->op.left);
	n->b = compile_num(f, ev, arg->op.right);
	return n->a && n->b ? n : NULL;
}

static int eval(const struct rec_ctx *c, const struct node *n,
		unsigned long long *v)
{
	unsigned long long a, b;
	unsigned int off;

	switch (n->kind) {
	case N_CONST:
		*v = n->val;
		return 0;
	case N_FIELD:
		if (n->off + n->size > c->size)
			return -EINVAL;
		*v = print_fmt_read_number(c->data + n->off, n->size,
					   c->f->swap);
		return 0;
	case N_INDEX:
		if (eval(c, n->a, &a) || a > c->size)
			return -EINVAL;
		off = n->off + a * n->size;
		if (off + n->size > c->size)
			return -EINVAL;
		*v = print_fmt_read_number(c->data + off, n->size, c->f->swap);
		return 0;
	case N_MASK:
		if (eval(c, n->a, &a))
			return -EINVAL;
		*v = a & n->val;
		return 0;
	case N_COND:
		if (eval(c, n->a, &a))
			return -EINVAL;
		return eval(c, a ? n->b : n->c, v);
	case N_OP:
		break;
	}
	if (eval(c, n->a, &a) || eval(c, n->b, &b))
		return -EINVAL;
	switch (n->op[0]) {
	case '!':
		*v = n->op[1] ? a != b : !b;
		break;
	case '~':
		*v = ~b;
		break;
	case '|':
		*v = n->op[1] ? a || b : a | b;
		break;
	case '&':
		*v = n->op[1] ? a && b : a & b;
		break;
	case '<':
		if (n->op[1] == '<' && b >= 64)
			return -EINVAL;
		*v = n->op[1] == '<' ? a << b :
		     n->op[1] == '=' ? a <= b : a < b;
		break;
	case '>':
		if (n->op[1] == '>' && b >= 64)
			return -EINVAL;
		*v = n->op[1] == '>' ? a >> b :
		     n->op[1] == '=' ? a >= b : a > b;
		break;
	case '=':
		*v = a == b;
		break;
	case '-':
		*v = a - b;
		break;
	case '+':
		*v = a + b;
		break;
	case '*':
		*v = a * b;
		break;
	case '/':
	case '%':
		if (!b)
			return -EINVAL;
		*v = n->op[0] == '/' ? a / b : a % b;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* libtraceevent's eval_flag(): numbers, or the few names it knows. */
static long long flag_value(const char *s)
{
	static const struct { const char *name; long long val; } names[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 },
		{ "NET_TX_SOFTIRQ", 2 }, { "NET_RX_SOFTIRQ", 3 },
		{ "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 },
		{ "HRTIMER_SOFTIRQ", 8 }, { "RCU_SOFTIRQ", 9 },
		{ "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	size_t i;

	if (isdigit((unsigned char)s[0]))
		return strtoull(s, NULL, 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, s))
			return names[i].val;
	return -EINVAL;
}

static int compile_syms(struct print_fmt *f, struct str *s,
			struct tep_print_flag_sym *list)
{
	struct tep_print_flag_sym *fs;
	int n = 0;

	for (fs = list; fs; fs = fs->next) {
		if (!fs->value || !fs->str)
			return -EINVAL;
		n++;
	}
	s->syms = fmt_alloc(f, (n ? n : 1) * sizeof(*s->syms));
	s->nr_syms = n;
	for (n = 0, fs = list; fs; fs = fs->next, n++) {
		s->syms[n].val = flag_value(fs->value);
		s->syms[n].str = fs->str;
	}
	return 0;
}

static struct str *compile_str(struct print_fmt *f, struct tep_event *ev,
			       struct tep_print_arg *arg)
{
	struct tep_format_field *field;
	struct str *s;

	if (!arg)
		return NULL;
	s = fmt_alloc(f, sizeof(*s));
	switch (arg->type) {
	case TEP_PRINT_ATOM:
		s->kind = STR_ATOM;
		s->text = arg->atom.atom;
		return s;
	case TEP_PRINT_FIELD:
		field = arg_field(ev, arg);
		/* A long-sized scalar is looked up in printk_formats. */
		if (!field || field->offset < 0 || field->size < 0 ||
		    (!(field->flags & TEP_FIELD_IS_ARRAY) &&
		     field->size == f->long_size))
			return NULL;
		s->kind = STR_ARRAY;
		s->off = field->offset;
		s->len = field->size;
		return s;
	case TEP_PRINT_STRING:
		field = arg->string.field ? arg->string.field :
			tep_find_any_field(ev, arg->string.string);
		/* A 2-byte __data_loc has no length: not worth its own path. */
		if (!field || field->offset < 0 || field->size != 4)
			return NULL;
		s->kind = STR_DYN;
		s->off = field->offset;
		s->relative = !!(field->flags & TEP_FIELD_IS_RELATIVE);
		return s;
	case TEP_PRINT_SYMBOL:
		s->kind = STR_SYMBOL;
		s->val = compile_num(f, ev, arg->symbol.field);
		return s->val && !compile_syms(f, s, arg->symbol.symbols) ?
		       s : NULL;
	case TEP_PRINT_FLAGS:
		s->kind = STR_FLAGS;
		s->delim = arg->flags.delim;
		s->val = compile_num(f, ev, arg->flags.field);
		return s->val && !compile_syms(f, s, arg->flags.flags) ?
		       s : NULL;
	case TEP_PRINT_OP:
		if (arg->op.op[0] != '?' || !arg->op.right ||
		    arg->op.right->type != TEP_PRINT_OP)
			return NULL;
		s->kind = STR_COND;
		s->val = compile_num(f, ev, arg->op.left);
		s->t = compile_str(f, ev, arg->op.right->op.left);
		s->f = compile_str(f, ev, arg->op.right->op.right);
		return s->val && s->t && s->f ? s : NULL;
	default:
		return NULL;
	}
}

/* parse_arg_string(): text up to the next lone '%', with C escapes. */
static int compile_text(struct print_fmt *f, const char *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct seg *s;
	int ret = 0;

	for (; *p; p++, ret++) {
		if (*p == '\\') {
			p++;
			ret++;
			switch (*p) {
			case '\0':
				/* The library would read past the end. */
				strbuf_release(&sb);
				return -EINVAL;
			case 'n':
				strbuf_addch(&sb, '\n');
				break;
			case 't':
				strbuf_addch(&sb, '\t');
				break;
			case 'r':
				strbuf_addch(&sb, '\r');
				break;
			default:
				strbuf_addch(&sb, *p);
				break;
			}
		} else if (*p == '%') {
			if (p[1] != '%')
				break;
			strbuf_addch(&sb, '%');
			p++;
			ret++;
		} else {
			strbuf_addch(&sb, *p);
		}
	}
	s = add_seg(f, SEG_TEXT);
	s->len = sb.len;
	s->text = xcalloc(1, sb.len + TEXT_PAD);
	memcpy(s->text, sb.buf, sb.len);
	f->room += sb.len;
	strbuf_release(&sb);
	return ret;
}

/*
 * Decides whether a spec is one formatted here: flags '-' and '0',
 * a width, for strings a precision, and for integers the length
 * modifiers matching ls.  Others go through printf as the library does.
 */
static void classify(struct seg *s)
{
	const char *p = s->text + 1;

	for (;; p++) {
		if (*p == '-')
			s->left = 1;
		else if (*p == '0')
			s->zero = 1;
		else
			break;
	}
	while (isdigit((unsigned char)*p))
		s->width = s->width * 10 + (*p++ - '0');
	if (*p == '.') {
		if (s->kind != SEG_STR)
			return;
		s->prec = 0;
		while (isdigit((unsigned char)*++p))
			s->prec = s->prec * 10 + (*p - '0');
	}
	if (s->width > 4096 || s->prec > 4096)
		return;
	if (s->kind == SEG_STR) {
		s->fast = !s->zero && !strcmp(p, "s");
		return;
	}
	if (p[0] == 'h' && p[1] == 'h') {
		s->bits = 8;
		p += 2;
	} else if (p[0] == 'h') {
		s->bits = 16;
		p++;
	} else if (p[0] == 'l' && p[1] == 'l') {
		s->bits = 64;
		p += 2;
	} else if (p[0] == 'l' || p[0] == 'z') {
		s->bits = 64;
		p++;
	} else {
		s->bits = 32;
	}
	if (!*p || p[1] || !strchr("diuxX", *p))
		return;
	if ((s->bits == 8 && s->ls != -2) || (s->bits == 16 && s->ls != -1) ||
	    (s->bits == 32 && s->ls != 0) || (s->bits == 64 && s->ls < 1))
		return;
	s->conv = *p;
	s->fast = 1;
}

/* parse_arg_format(): one conversion and the argument it takes. */
static int compile_spec(struct print_fmt *f, struct tep_event *ev,
			const char *start, struct tep_print_arg **arg)
{
	const char *p = start + 1;
	struct seg *s;
	int ls = 0, sized = 0, len;

	for (; *p; p++) {
		switch (*p) {
		case 'h':
			ls--;
			sized = 1;
			continue;
		case 'l':
			ls++;
			sized = 1;
			continue;
		case 'L':
			ls = 2;
			sized = 1;
			continue;
		case 'z':
		case 'Z':
			ls = 1;
			sized = 1;
			continue;
		case '#':
		case '.':
		case '-':
			continue;
		default:
			if (isdigit((unsigned char)*p))
				continue;
			break;
		}
		break;
	}
	if (!*p || !*arg)
		return -EINVAL;
	switch (*p) {
	case 'p':
		/*
		 * Plain %p, or %pS %ps %pF %pf; MAC, IP, UUID, hex are not
		 * here.
		 */
		if (p[1] && strchr("FfSs", p[1])) {
			s = add_seg(f, SEG_FUNC);
			s->with_offset = p[1] == 'F' || p[1] == 'S';
			p++;
		} else if (p[1] && strchr("MmIiUh", p[1])) {
			return -EINVAL;
		} else {
			s = add_seg(f, SEG_PTR);
		}
		s->val = compile_num(f, ev, *arg);
		if (!s->val)
			return -EINVAL;
		break;
	case 'd':
	case 'u':
	case 'i':
	case 'x':
	case 'X':
	case 'o':
		if (ls < -2 || ls > 2 ||
		    (ls == 1 && f->long_size == 8 && sizeof(long) != 8))
			return -EINVAL;
		s = add_seg(f, SEG_INT);
		s->ls = ls;
		s->val = compile_num(f, ev, *arg);
		if (!s->val)
			return -EINVAL;
		break;
	case 's':
		/* %ls would read a wide string: left to libtraceevent. */
		if (sized)
			return -EINVAL;
		s = add_seg(f, SEG_STR);
		s->str = compile_str(f, ev, *arg);
		if (!s->str)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	len = p + 1 - start;
	if (len > 30)
		return -EINVAL;
	s->text = xstrndup(start, len);
	if (s->kind == SEG_INT || s->kind == SEG_STR)
		classify(s);
	/* put_int(): the width or the digits of a 64-bit value and a sign */
	if (s->kind == SEG_INT && s->fast)
		f->room += s->width + 21;
	else if (s->kind == SEG_PTR)
		f->room += PTR_ROOM;
	*arg = (*arg)->next;
	return len;
}

struct print_fmt *print_fmt_compile(struct tep_event *ev)
{
	struct tep_print_arg *arg = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;
	struct print_fmt *f;
	int len, ret;

	if (!p || (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT |
				TEP_EVENT_FL_PRINTRAW)))
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->room = TEXT_PAD + PRINT_DIGITS_COPY;
	f->tep = ev->tep;
	f->long_size = tep_get_long_size(ev->tep);
	f->swap = print_fmt_needs_swap(ev->tep);
	len = strlen(p);
	while (*p) {
		if (p[0] == '%' && p[1] != '%')
			ret = compile_spec(f, ev, p, &arg);
		else
			ret = compile_text(f, p);
		if (ret <= 0) {
			print_fmt_free(f);
			return NULL;
		}
		len -= ret;
		if (len <= 0)
			break;
		p += ret;
	}
	return f;
}

static void add_pad(struct strbuf *out, int n)
{
	if (n <= 0)
		return;
	strbuf_grow(out, n);
	memset(out->buf + out->len, ' ', n);
	strbuf_setlen(out, out->len + n);
}

/* One string through a %s spec: print_str_to_seq(). */
static void put_str(struct strbuf *out, const struct seg *s, const char *str,
		    size_t n)
{
	char *copy;

	if (!s->fast) {
		copy = xmalloc(n + 1);
		memcpy(copy, str, n);
		copy[n] = '\0';
		strbuf_addf(out, s->text, copy);
		free(copy);
		return;
	}
	if (s->prec >= 0 && n > (size_t)s->prec)
		n = s->prec;
	if (!s->left)
		add_pad(out, s->width - (int)n);
	strbuf_add(out, str, n);
	if (s->left)
		add_pad(out, s->width - (int)n);
}

static int str_out(const struct rec_ctx *c, struct strbuf *out,
		   const struct seg *seg, const struct str *s)
{
	unsigned long long v, loc;
	unsigned int off, len, i;
	const char *p;
	long long sv;
	int printed;

	switch (s->kind) {
	case STR_ATOM:
		put_str(out, seg, s->text, strlen(s->text));
		return 0;
	case STR_ARRAY:
		if (s->off > c->size)
			return -EINVAL;
		len = s->len ? s->len : c->size - s->off;
		if (s->off + len > c->size)
			return -EINVAL;
		p = (const char *)c->data + s->off;
		put_str(out, seg, p, strnlen(p, len));
		return 0;
	case STR_DYN:
		/* dynamic_offset_field() */
		if (s->off + 4 > c->size)
			return 0;
		loc = print_fmt_read_number(c->data + s->off, 4, c->f->swap);
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > c->size || !len)
			return 0;
		if (s->relative)
			off += s->off + 4;
		if (off >= c->size)
			return -EINVAL;
		p = (const char *)c->data + off;
		len = strnlen(p, c->size - off);
		if (off + len == c->size)
			return -EINVAL;
		put_str(out, seg, p, len);
		return 0;
	case STR_COND:
		if (eval(c, s->val, &v))
			return -EINVAL;
		return str_out(c, out, seg, v ? s->t : s->f);
	case STR_SYMBOL:
		if (eval(c, s->val, &v))
			return -EINVAL;
		sv = v;
		for (i = 0; i < (unsigned int)s->nr_syms; i++)
			if (sv == s->syms[i].val) {
				put_str(out, seg, s->syms[i].str,
					strlen(s->syms[i].str));
				return 0;
			}
		strbuf_addf(out, "0x%llx", v);
		return 0;
	case STR_FLAGS:
		if (eval(c, s->val, &v))
			return -EINVAL;
		sv = v;
		printed = 0;
		for (i = 0; i < (unsigned int)s->nr_syms; i++) {
			long long fv = s->syms[i].val;

			if (!sv && fv < 0) {
				put_str(out, seg, s->syms[i].str,
					strlen(s->syms[i].str));
				break;
			}
			if (fv > 0 && (sv & fv) == fv) {
				if (printed && s->delim)
					strbuf_addstr(out, s->delim);
				put_str(out, seg, s->syms[i].str,
					strlen(s->syms[i].str));
				printed = 1;
				sv &= ~fv;
			}
		}
		if (sv) {
			if (printed && s->delim)
				strbuf_addstr(out, s->delim);
			strbuf_addf(out, "0x%llx", (unsigned long long)sv);
		}
		return 0;
	}
	return -EINVAL;
}

/* n copies of c at o */
static char *fill(char *o, int c, int n)
{
	while (n-- > 0)
		*o++ = c;
	return o;
}

/* A fast integer spec, into the room print_fmt_info() reserved. */
static char *put_int(char *o, const struct seg *s, unsigned long long v)
{
	char buf[2 * PRINT_DIGITS_COPY];
	char *end = buf + PRINT_DIGITS_COPY, *p = end;
	int neg = 0, digits, pad;
	unsigned long long u;

	if (s->bits < 64)
		v &= (1ULL << s->bits) - 1;
	u = v;
	if (s->conv == 'd' || s->conv == 'i') {
		long long sv = s->bits == 8 ? (signed char)v :
			       s->bits == 16 ? (short)v :
			       s->bits == 32 ? (int)v : (long long)v;

		neg = sv < 0;
		u = neg ? -(unsigned long long)sv : (unsigned long long)sv;
	}
	if (s->conv == 'x' || s->conv == 'X') {
		const char *hex = s->conv == 'x' ? "0123456789abcdef" :
						   "0123456789ABCDEF";

		do
			*--p = hex[u & 15];
		while (u >>= 4);
	} else {
		do
			*--p = '0' + u % 10;
		while (u /= 10);
	}
	digits = end - p;
	pad = s->width - digits - neg;
	if (!s->left && !s->zero)
		o = fill(o, ' ', pad);
	if (neg)
		*o++ = '-';
	if (!s->left && s->zero)
		o = fill(o, '0', pad);
	o = print_move_digits(o, p, end);
	if (s->left)
		o = fill(o, ' ', pad);
	return o;
}

/* print_arg_number(): the value cast by the count of h and l letters. */
static void printf_int(struct strbuf *out, const struct seg *s,
		       unsigned long long v)
{
	switch (s->ls) {
	case -2:
		strbuf_addf(out, s->text, (char)v);
		break;
	case -1:
		strbuf_addf(out, s->text, (short)v);
		break;
	case 0:
		strbuf_addf(out, s->text, (int)v);
		break;
	case 1:
		strbuf_addf(out, s->text, (long)v);
		break;
	default:
		strbuf_addf(out, s->text, (long long)v);
		break;
	}
}

/* "0x%llx", at most 18 bytes */
static char *put_hex(char *o, unsigned long long v)
{
	int digits = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	char *p;

	*o++ = '0';
	*o++ = 'x';
	for (p = o + digits; p > o; v >>= 4)
		*--p = "0123456789abcdef"[v & 15];
	return o + digits;
}

/* print_function(), not raw. */
static void put_func(struct strbuf *out, const struct rec_ctx *c,
		     const struct seg *s, unsigned long long v)
{
	unsigned long long start;
	const char *name;

	if (tep_find_function_info(c->f->tep, v, &name, &start, NULL)) {
		strbuf_addstr(out, name);
		if (s->with_offset) {
			strbuf_addch(out, '+');
			strbuf_setend(out, put_hex(strbuf_room(out, PTR_ROOM),
						   v - start));
		}
		return;
	}
	/*
	 * "0x%lx" of a long for 4-byte longs: the same digits on a 64-bit
	 * host.
	 */
	strbuf_setend(out, put_hex(strbuf_room(out, PTR_ROOM), v));
}

/*
 * The text and the fast numbers are written into room reserved once
 * (f->room); the rest is appended to out, and room reserved again.
 */
int print_fmt_info(const struct print_fmt *f, struct strbuf *out,
		   const struct tep_record *rec)
{
	struct rec_ctx c = { f, rec->data, rec->size > 0 ? rec->size : 0 };
	size_t start = out->len;
	char *o = strbuf_room(out, f->room);
	unsigned long long v;
	int i;

	for (i = 0; i < f->nr_segs; i++) {
		const struct seg *s = &f->segs[i];

		if (s->kind == SEG_TEXT) {
			/*
			 * The text is padded: one fixed-size copy for short
			 * ones.
			 */
			if (s->len <= TEXT_PAD)
				memcpy(o, s->text, TEXT_PAD);
			else
				memcpy(o, s->text, s->len);
			o += s->len;
			continue;
		}
		if (s->kind != SEG_STR) {
			const struct node *n = s->val;

			if (n->kind == N_FIELD && n->off + n->size <= c.size)
				v = print_fmt_read_number(c.data + n->off,
							  n->size, f->swap);
			else if (eval(&c, n, &v))
				goto refuse;
			if (s->kind == SEG_INT && s->fast) {
				o = put_int(o, s, v);
				continue;
			}
			if (s->kind == SEG_PTR) {
				o = v ? put_hex(o, v) :
				    (char *)memcpy(o, "(nil)", 5) + 5;
				continue;
			}
		}
		strbuf_setend(out, o);
		if (s->kind == SEG_STR) {
			if (str_out(&c, out, s, s->str))
				goto refuse;
		} else if (s->kind == SEG_FUNC) {
			put_func(out, &c, s, v);
		} else {
			printf_int(out, s, v);
		}
		o = strbuf_room(out, f->room);
	}
	strbuf_setend(out, o);
	return 0;
refuse:
	strbuf_setlen(out, start);
	return -EINVAL;
}
