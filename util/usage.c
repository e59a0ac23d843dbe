// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/usage.h"

static const char *the_cmd;

void set_cmd_name(const char *name)
{
	the_cmd = name;
}

const char *cmd_name(void)
{
	return the_cmd;
}

static void report(const char *kind, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	if (the_cmd)
		fprintf(stderr, "tracekit %s: %s%s\n", the_cmd, kind, msg);
	else
		fprintf(stderr, "tracekit: %s%s\n", kind, msg);
}

void die_code(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("", fmt, ap);
	va_end(ap);
	exit(code);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", nmemb, n);
	return p;
}

void *xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die("out of memory");
	return p;
}

/* Library code reports into a strbuf, one problem per line. */
static void report_lines(const char *kind, const char *text)
{
	const char *nl;

	for (; text && *text; text = *nl ? nl + 1 : nl) {
		nl = strchrnul(text, '\n');
		if (the_cmd)
			fprintf(stderr, "tracekit %s: %s%.*s\n", the_cmd, kind,
				(int)(nl - text), text);
		else
			fprintf(stderr, "tracekit: %s%.*s\n", kind, (int)(nl - text), text);
	}
}

void error_lines(const char *text)
{
	fflush(stdout);
	report_lines("", text);
}

void warning_lines(const char *text)
{
	fflush(stdout);
	report_lines("warning: ", text);
}
