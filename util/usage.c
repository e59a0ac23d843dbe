// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
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

static void put_line(const char *kind, const char *msg, int len)
{
	if (the_cmd)
		fprintf(stderr, "tracekit %s: %s%.*s\n", the_cmd, kind, len, msg);
	else
		fprintf(stderr, "tracekit: %s%.*s\n", kind, len, msg);
}

static void vreportf(const char *kind, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	put_line(kind, msg, (int)strlen(msg));
}

void die_code(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreportf("", fmt, ap);
	va_end(ap);
	exit(code);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreportf("", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreportf("warning: ", fmt, ap);
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

void *xreallocarray(void *old, size_t nmemb, size_t n)
{
	if (n && nmemb > SIZE_MAX / n)
		die("out of memory allocating %zu x %zu bytes", nmemb, n);
	return xrealloc(old, nmemb * n);
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

	fflush(stdout);
	for (; text && *text; text = *nl ? nl + 1 : nl) {
		nl = strchrnul(text, '\n');
		put_line(kind, text, (int)(nl - text));
	}
}

void error_lines(const char *text)
{
	report_lines("", text);
}

void warning_lines(const char *text)
{
	report_lines("warning: ", text);
}

int tk_exit_code(int err)
{
	if (!err)
		return TK_EXIT_OK;
	return err == -EACCES || err == -EPERM || err == -ENODEV ?
	       TK_EXIT_ENV : TK_EXIT_FAIL;
}
