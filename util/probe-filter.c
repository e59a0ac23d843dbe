// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util/probe-filter.h"
#include "util/usage.h"

enum filter_op {
	FILTER_GLOB,
	FILTER_NOT,
	FILTER_AND,
	FILTER_OR,
};

/* A node of the expression: a glob, or an operator on l and r (r alone: !). */
struct probe_filter {
	enum filter_op op;
	char *glob;
	struct probe_filter *l, *r;
};

struct filter_parse {
	const char *rules;
	const char *tok;	/* the token at hand, and its length */
	size_t len;
	const char *why;	/* the first error, at tok */
};

static int is_separator(int c)
{
	return c == '|' || c == '&' || c == '!' || c == '(' || c == ')';
}

/*
 * The next token: an operator, a parenthesis or a glob.  A glob runs to
 * the next space or separator, except that a backslash escapes the
 * character after it and "[!" opens a negated class, as in perf's
 * strfilter.c; len 0 at the end.
 */
static void next_token(struct filter_parse *fp)
{
	const char *s = fp->tok + fp->len, *p;

	while (isspace((unsigned char)*s))
		s++;
	p = s;
	if (*p && is_separator((unsigned char)*p)) {
		p++;
	} else {
		while (*p && !isspace((unsigned char)*p) &&
		       (!is_separator((unsigned char)*p) ||
			(p > s && p[-1] == '[' && *p == '!')))
			p += p[0] == '\\' && p[1] ? 2 : 1;
	}
	fp->tok = s;
	fp->len = p - s;
}

static struct probe_filter *node(enum filter_op op, struct probe_filter *l,
				 struct probe_filter *r)
{
	struct probe_filter *n = xcalloc(1, sizeof(*n));

	n->op = op;
	n->l = l;
	n->r = r;
	return n;
}

static struct probe_filter *parse_or(struct filter_parse *fp);

/* '!' FACTOR | '(' OR ')' | GLOB */
static struct probe_filter *parse_factor(struct filter_parse *fp)
{
	struct probe_filter *n;
	char c = fp->len ? *fp->tok : '\0';

	if (c == '!') {
		next_token(fp);
		n = parse_factor(fp);
		return n ? node(FILTER_NOT, NULL, n) : NULL;
	}
	if (c == '(') {
		next_token(fp);
		n = parse_or(fp);
		if (n && (!fp->len || *fp->tok != ')')) {
			fp->why = "expected ')'";
			probe_filter_free(n);
			return NULL;
		}
		if (n)
			next_token(fp);
		return n;
	}
	if (!fp->len || is_separator((unsigned char)c)) {
		fp->why = "expected a glob, '!' or '('";
		return NULL;
	}
	n = node(FILTER_GLOB, NULL, NULL);
	n->glob = xstrndup(fp->tok, fp->len);
	next_token(fp);
	return n;
}

/* The operands of op, one FACTOR (or AND) after each op token. */
static struct probe_filter *parse_chain(struct filter_parse *fp,
					enum filter_op op)
{
	char sep = op == FILTER_AND ? '&' : '|';
	struct probe_filter *l, *r;

	l = op == FILTER_AND ? parse_factor(fp) : parse_chain(fp, FILTER_AND);
	while (l && fp->len && *fp->tok == sep) {
		next_token(fp);
		r = op == FILTER_AND ? parse_factor(fp) :
		    parse_chain(fp, FILTER_AND);
		if (!r) {
			probe_filter_free(l);
			return NULL;
		}
		l = node(op, l, r);
	}
	return l;
}

static struct probe_filter *parse_or(struct filter_parse *fp)
{
	return parse_chain(fp, FILTER_OR);
}

int probe_filter_add(struct probe_filter **f, const char *rules,
		     struct strbuf *err)
{
	struct filter_parse fp = { .rules = rules, .tok = rules };
	struct probe_filter *n;

	next_token(&fp);
	n = parse_or(&fp);
	if (n && fp.len) {
		fp.why = "expected '&', '|' or the end";
		probe_filter_free(n);
		n = NULL;
	}
	if (!n) {
		strbuf_addf(err, "'%s': %s at column %d", rules, fp.why,
			    (int)(fp.tok - rules) + 1);
		return -EINVAL;
	}
	*f = *f ? node(FILTER_OR, *f, n) : n;
	return 0;
}

int probe_filter_match(const struct probe_filter *f, const char *s)
{
	if (!f)
		return 1;
	switch (f->op) {
	case FILTER_NOT:
		return !probe_filter_match(f->r, s);
	case FILTER_AND:
		return probe_filter_match(f->l, s) &&
		       probe_filter_match(f->r, s);
	case FILTER_OR:
		return probe_filter_match(f->l, s) ||
		       probe_filter_match(f->r, s);
	case FILTER_GLOB:
		break;
	}
	return !fnmatch(f->glob, s, 0);
}

void probe_filter_free(struct probe_filter *f)
{
	if (!f)
		return;
	probe_filter_free(f->l);
	probe_filter_free(f->r);
	free(f->glob);
	free(f);
}
