// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/probe-line.h"
#include "util/usage.h"

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

/*
 * The ':' that starts the range: the first one, but that "ns::name" (a
 * C++ scope, which perf does not take) is part of the name.
 */
static const char *range_colon(const char *s)
{
	const char *c;

	for (c = strchr(s, ':'); c; c = strchr(c + 2, ':')) {
		if (c[1] != ':' || !is_ident_start((unsigned char)c[2]))
			return c;
	}
	return NULL;
}

/* A C identifier, or C++ identifiers joined by "::". */
static int is_func_name(const char *s)
{
	if (!is_ident_start((unsigned char)*s))
		return 0;
	for (s++; *s; s++) {
		if (s[0] == ':' && s[1] == ':' &&
		    is_ident_start((unsigned char)s[2]))
			s += 2;
		else if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	}
	return 1;
}

/* strtol(3) of any base into *val, as perf reads line numbers. */
static int line_number(const char **p, int *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(*p, &end, 0);
	if (errno || end == *p || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*p = end;
	*val = (int)v;
	return 0;
}

static int line_error(struct strbuf *err, const char *text, const char *why)
{
	strbuf_addf(err, "'%s': %s", text, why);
	return -EINVAL;
}

/* ":START[+NUM|-END]" at p into lr. */
static int parse_range(const char *text, const char *p,
		       struct probe_line_range *lr, struct strbuf *err)
{
	long long end;
	char c;

	if (line_number(&p, &lr->start))
		return line_error(err, text, "the start line is not a number");
	if (*p == '+' || *p == '-') {
		c = *p++;
		if (line_number(&p, &lr->end))
			return line_error(err, text,
					  "the end line is not a number");
		/* +NUM: NUM lines, the start line the first of them. */
		end = c == '+' ? (long long)lr->start + lr->end - 1 : lr->end;
		if (end < INT_MIN || end > INT_MAX)
			return line_error(err, text, "the end line is out of range");
		lr->end = (int)end;
	}
	if (lr->start > lr->end)
		return line_error(err, text,
				  "the start line is after the end line");
	if (*p) {
		strbuf_addf(err, "'%s': '%s' follows the range", text, p);
		return -EINVAL;
	}
	return 0;
}

int probe_line_parse(const char *text, struct probe_line_range *lr,
		     struct strbuf *err)
{
	const char *colon = range_colon(text), *at;
	char *name;
	int ret = 0;

	memset(lr, 0, sizeof(*lr));
	lr->end = PROBE_LINE_OPEN;
	if (colon) {
		ret = parse_range(text, colon + 1, lr, err);
		if (ret)
			return ret;
	}
	name = colon ? xstrndup(text, colon - text) : xstrdup(text);
	at = strchr(name, '@');
	if (at) {
		lr->file = xstrdup(at + 1);
		lr->func = xstrndup(name, at - name);
		free(name);
	} else if (strpbrk(name, "/.")) {
		lr->file = name;
	} else if (is_func_name(name)) {
		lr->func = name;
	} else {
		free(name);
		ret = line_error(err, text,
				 "neither a function name nor a source file");
	}
	return ret;
}

void probe_line_release(struct probe_line_range *lr)
{
	free(lr->func);
	free(lr->file);
	memset(lr, 0, sizeof(*lr));
}
