// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/help.h"
#include "util/parse-options.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define PARSE_ERR	(-1)
#define PARSE_HELP	(-2)	/* -h: the usage */
#define PARSE_MAN	(-3)	/* --help: the manual, else the usage */
#define PARSE_LIST_OPTS	(-4)	/* --list-opts: for the completion script */

struct parse_ctx {
	int argc;
	const char **argv;
	struct strbuf *err;
};

static int fail(struct parse_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(c->err, fmt, ap);
	va_end(ap);
	return PARSE_ERR;
}

static const char *optname(const struct option *o, int is_long, char *buf,
			   size_t len)
{
	if (is_long)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static int takes_arg(const struct option *o)
{
	switch (o->type) {
	case OPTION_INTEGER:
	case OPTION_ULONG:
	case OPTION_STRING:
	case OPTION_STRING_LIST:
		return 1;
	case OPTION_CALLBACK:
		return !(o->flags & PARSE_OPT_NOARG);
	default:
		return 0;
	}
}

/*
 * Applies one option.  `inline_arg` is the text after '=' or after a short
 * option letter; when the option needs an argument and there is none inline,
 * the next argv element is consumed.
 */
static int apply(struct parse_ctx *c, const struct option *o, int is_long,
		 const char *inline_arg, int unset)
{
	char name[80];
	const char *arg = inline_arg;
	char *end;

	optname(o, is_long, name, sizeof(name));
	if (unset && (o->flags & PARSE_OPT_NONEG))
		return fail(c, "option '--no-%s' isn't available", o->long_name);
	if (!takes_arg(o) || unset) {
		if (inline_arg && is_long)
			return fail(c, "option '%s' takes no value", name);
	} else if (!arg && !(o->flags & PARSE_OPT_OPTARG)) {
		if (c->argc < 2)
			return fail(c, "option '%s' requires a value", name);
		c->argc--;
		c->argv++;
		arg = c->argv[0];
	}

	switch (o->type) {
	case OPTION_BOOL:
		*(int *)o->value = !unset;
		return 0;
	case OPTION_INCR:
		(*(int *)o->value)++;
		return 0;
	case OPTION_SET_INT:
		*(int *)o->value = (int)o->defval;
		return 0;
	case OPTION_INTEGER: {
		long v;

		if (unset) {
			*(int *)o->value = 0;
			return 0;
		}
		errno = 0;
		v = strtol(arg, &end, 0);
		if (!*arg || *end || errno || v < INT_MIN || v > INT_MAX)
			return fail(c, "option '%s' expects an integer, not '%s'",
				    name, arg);
		*(int *)o->value = (int)v;
		return 0;
	}
	case OPTION_ULONG: {
		unsigned long v;

		if (unset) {
			*(unsigned long *)o->value = 0;
			return 0;
		}
		errno = 0;
		v = strtoul(arg, &end, 0);
		if (!*arg || *end || errno || *arg == '-')
			return fail(c, "option '%s' expects a non-negative number, not '%s'",
				    name, arg);
		*(unsigned long *)o->value = v;
		return 0;
	}
	case OPTION_STRING:
		*(const char **)o->value = unset ? NULL : arg;
		return 0;
	case OPTION_STRING_LIST:
		if (unset)
			opt_string_list_clear(o->value);
		else
			opt_string_list_append(o->value, arg);
		return 0;
	case OPTION_CALLBACK:
		if (o->callback(o, unset ? NULL : arg, unset) < 0)
			return fail(c, "bad value for option '%s'", name);
		return 0;
	default:
		return fail(c, "internal error: option '%s' has no type", name);
	}
}

static int parse_long(struct parse_ctx *c, const struct option *opts)
{
	const char *body = c->argv[0] + 2;
	const char *eq = strchr(body, '=');
	size_t len = eq ? (size_t)(eq - body) : strlen(body);
	const struct option *abbrev = NULL, *o;
	int abbrev_unset = 0, ambiguous = 0;

	if (len == 4 && !strncmp(body, "help", 4))
		return PARSE_MAN;
	if (len == 9 && !strncmp(body, "list-opts", 9))
		return PARSE_LIST_OPTS;
	for (o = opts; o->type != OPTION_END; o++) {
		const char *ln = o->long_name;
		int unset = 0;

		if (!ln)
			continue;
		if (strlen(ln) == len && !strncmp(ln, body, len))
			return apply(c, o, 1, eq ? eq + 1 : NULL, 0);
		if (!strncmp(body, "no-", 3) && len > 3 &&
		    strlen(ln) == len - 3 && !strncmp(ln, body + 3, len - 3))
			return apply(c, o, 1, eq ? eq + 1 : NULL, 1);
		/* Unique prefixes are accepted, as git does. */
		if (!strncmp(ln, body, len))
			unset = 0;
		else if (!strncmp(body, "no-", 3) && len > 3 &&
			 !strncmp(ln, body + 3, len - 3))
			unset = 1;
		else
			continue;
		if (abbrev && abbrev != o)
			ambiguous = 1;
		abbrev = o;
		abbrev_unset = unset;
	}
	if (ambiguous)
		return fail(c, "ambiguous option '--%.*s'", (int)len, body);
	if (abbrev)
		return apply(c, abbrev, 1, eq ? eq + 1 : NULL, abbrev_unset);
	return fail(c, "unknown option '--%.*s'", (int)len, body);
}

static int parse_short(struct parse_ctx *c, const struct option *opts)
{
	const char *p = c->argv[0] + 1;

	while (*p) {
		const struct option *o;
		int ret;

		if (*p == 'h') {
			for (o = opts; o->type != OPTION_END; o++)
				if (o->short_name == 'h')
					break;
			if (o->type == OPTION_END)
				return PARSE_HELP;
		}
		for (o = opts; o->type != OPTION_END; o++)
			if (o->short_name == *p)
				break;
		if (o->type == OPTION_END)
			return fail(c, "unknown switch '%c'", *p);
		if (takes_arg(o)) {
			ret = apply(c, o, 0, p[1] ? p + 1 : NULL, 0);
			return ret;
		}
		ret = apply(c, o, 0, NULL, 0);
		if (ret)
			return ret;
		p++;
	}
	return 0;
}

static int parse_core(int argc, const char **argv, const struct option *opts,
		      int flags, struct strbuf *err)
{
	struct parse_ctx c = { argc, argv, err };
	int nout = 0;

	/* argv[0] is the command name and is not kept. */
	c.argc--;
	c.argv++;
	for (; c.argc > 0; c.argc--, c.argv++) {
		const char *a = c.argv[0];
		int ret;

		if (a[0] != '-' || !a[1]) {
			if (flags & PARSE_OPT_STOP_AT_NON_OPTION)
				break;
			argv[nout++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			if (flags & PARSE_OPT_KEEP_DASHDASH)
				break;
			c.argc--;
			c.argv++;
			break;
		}
		ret = a[1] == '-' ? parse_long(&c, opts)
				  : parse_short(&c, opts);
		if (ret)
			return ret;
	}
	memmove(argv + nout, c.argv, c.argc * sizeof(*argv));
	nout += c.argc;
	argv[nout] = NULL;
	return nout;
}

int parse_options_noexit(int argc, const char **argv, const struct option *opts,
			 int flags, struct strbuf *err)
{
	int ret = parse_core(argc, argv, opts, flags, err);

	return ret == PARSE_MAN || ret == PARSE_LIST_OPTS ? PARSE_HELP : ret;
}

void parse_options_list(FILE *fp, const struct option *opts)
{
	const struct option *o;
	int own_h = 0;

	for (o = opts; o->type != OPTION_END; o++) {
		const char *arg = takes_arg(o) && !(o->flags & PARSE_OPT_OPTARG)
					  ? (o->argh ? o->argh : "...")
					  : NULL;

		own_h |= o->short_name == 'h';
		if (o->type == OPTION_GROUP || (o->flags & PARSE_OPT_HIDDEN))
			continue;
		if (o->short_name)
			fprintf(fp, "-%c%s%s\n", o->short_name, arg ? "=" : "", arg ? arg : "");
		if (o->long_name)
			fprintf(fp, "--%s%s%s\n", o->long_name, arg ? "=" : "", arg ? arg : "");
	}
	if (!own_h)
		fputs("-h\n", fp);
	fputs("--help\n", fp);
}

/* --help: tracekit-CMD(1) where man finds it, else what -h prints. */
static void __attribute__((noreturn)) show_manual(const char *const *usagestr,
						  const struct option *opts)
{
	struct strbuf page = STRBUF_INIT, err = STRBUF_INIT;
	int ret;

	strbuf_addf(&page, "tracekit-%s", cmd_name() ? cmd_name() : "");
	ret = cmd_name() ? help_show_man_page(page.buf, &err) : -ENOENT;
	if (ret == -ENOENT) {
		usage_with_options_to(stdout, usagestr, opts);
		ret = TK_EXIT_OK;
	} else if (ret < 0) {
		error("%s", err.buf);
		ret = TK_EXIT_FAIL;
	}
	strbuf_release(&page);
	strbuf_release(&err);
	exit(ret);
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usagestr, int flags)
{
	struct strbuf err = STRBUF_INIT;
	int ret = parse_core(argc, argv, opts, flags, &err);

	if (ret == PARSE_ERR)
		error("%s", err.buf);
	strbuf_release(&err);
	if (ret == PARSE_HELP) {
		usage_with_options_to(stdout, usagestr, opts);
		exit(TK_EXIT_OK);
	}
	if (ret == PARSE_MAN)
		show_manual(usagestr, opts);
	if (ret == PARSE_LIST_OPTS) {
		parse_options_list(stdout, opts);
		exit(TK_EXIT_OK);
	}
	if (ret == PARSE_ERR) {
		usage_with_options_to(stderr, usagestr, opts);
		exit(TK_EXIT_USAGE);
	}
	return ret;
}

#define USAGE_OPTS_WIDTH 26

void usage_with_options_to(FILE *fp, const char *const *usagestr,
			   const struct option *opts)
{
	const struct option *o;
	int first = 1;

	for (; usagestr && *usagestr; usagestr++) {
		fprintf(fp, "%s %s\n", first ? "usage:" : "   or:", *usagestr);
		first = 0;
	}
	for (o = opts; o->type != OPTION_END; o++) {
		int pos;

		if (o->type == OPTION_GROUP) {
			fprintf(fp, "\n%s\n", o->help ? o->help : "");
			continue;
		}
		if (o->flags & PARSE_OPT_HIDDEN)
			continue;
		if (o == opts)
			fputc('\n', fp);
		pos = fprintf(fp, "    ");
		if (o->short_name)
			pos += fprintf(fp, "-%c", o->short_name);
		if (o->short_name && o->long_name)
			pos += fprintf(fp, ", ");
		if (o->long_name)
			pos += fprintf(fp, "--%s", o->long_name);
		if (takes_arg(o)) {
			const char *argh = o->argh ? o->argh : "...";

			if (o->flags & PARSE_OPT_OPTARG)
				pos += fprintf(fp, o->long_name ? "[=<%s>]" : "[<%s>]", argh);
			else
				pos += fprintf(fp, " <%s>", argh);
		}
		if (pos >= USAGE_OPTS_WIDTH) {
			fputc('\n', fp);
			pos = 0;
		}
		fprintf(fp, "%*s%s\n", USAGE_OPTS_WIDTH - pos, "",
			o->help ? o->help : "");
	}
	fputc('\n', fp);
}

void usage_with_options(const char *const *usagestr, const struct option *opts)
{
	usage_with_options_to(stderr, usagestr, opts);
	exit(TK_EXIT_USAGE);
}

void opt_string_list_append(struct opt_string_list *l, const char *s)
{
	grow_array(l->items, l->nr + 1, l->alloc, 8);
	l->items[l->nr++] = s;
	l->items[l->nr] = NULL;
}

void opt_string_list_clear(struct opt_string_list *l)
{
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}
