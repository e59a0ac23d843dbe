// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/fetcharg.h"
#include "util/probe-file.h"
#include "util/probe-spec.h"
#include "util/usage.h"

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* Length of the C identifier at p (0 if none). */
static size_t ident_len(const char *p)
{
	size_t n = 0;

	if (!is_ident_start((unsigned char)*p))
		return 0;
	while (is_ident((unsigned char)p[n]))
		n++;
	return n;
}

int probe_spec_is_raw(const char *text)
{
	const char *p = text;
	size_t n;

	if (*p != 'p' && *p != 'r')
		return 0;
	for (p++; isdigit((unsigned char)*p); p++)
		;
	if (*p++ != ':')
		return 0;
	/*
	 * A spec with a group is GROUP:EVENT=FUNC: without an '=' in its
	 * first word, "p:..." or "r10:..." is a definition (checked later).
	 */
	n = strcspn(p, " \t");
	return n && !memchr(p, '=', n);
}

int probe_spec_is_sdt(const char *text)
{
	const char *colon;

	if (*text == '%')
		return 1;
	if (strncmp(text, "sdt_", 4))
		return 0;
	colon = strchr(text, ':');
	/* "sdt_foo:12" is line 12 of a function named sdt_foo. */
	return colon && !isdigit((unsigned char)colon[1]) &&
	       !memchr(text, '=', colon - text);
}

/*
 * A type is a kernel type name with optional [N] or a bitfield; only the
 * characters those use, so nothing can close the definition line early.
 */
#define TYPE_CHARS "@/[]_"
/* Characters of the kernel's fetcharg grammar (raw arguments). */
#define RAW_CHARS "%$+-()@:._[]/\\"

/* s is not empty and holds only letters, digits and chars of punct. */
static int only_chars(const char *s, const char *punct)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(punct, *s))
			return 0;
	return 1;
}

static void spec_error(struct strbuf *err, const char *tok, const char *why)
{
	strbuf_addf(err, "'%s': %s", tok, why);
}

static int parse_fields(const char *p, struct probe_arg *arg, const char *tok,
			struct strbuf *err)
{
	int alloc = 0;

	while (*p) {
		struct probe_field f = { 0 };
		size_t n;

		if (p[0] == '-' && p[1] == '>') {
			f.kind = PROBE_FIELD_ARROW;
			p += 2;
		} else if (*p == '.') {
			f.kind = PROBE_FIELD_MEMBER;
			p++;
		} else if (*p == '[') {
			char *end;

			f.kind = PROBE_FIELD_INDEX;
			errno = 0;
			f.index = strtol(p + 1, &end, 0);
			if (end == p + 1 || *end != ']' || errno ||
			    f.index < 0) {
				spec_error(err, tok, "array index must be a non-negative number");
				return -EINVAL;
			}
			p = end + 1;
			goto push;
		} else {
			spec_error(err, tok, "expected ->FIELD, .FIELD or [INDEX]");
			return -EINVAL;
		}
		n = ident_len(p);
		if (!n) {
			spec_error(err, tok, "expected a field name");
			return -EINVAL;
		}
		f.name = xstrndup(p, n);
		p += n;
push:
		grow_array(arg->fields, arg->nr_fields, alloc, 4);
		arg->fields[arg->nr_fields++] = f;
	}
	return 0;
}

static int parse_arg(const char *tok, struct probe_arg *arg, struct strbuf *err)
{
	const char *body = tok, *eq, *colon;
	char *expr;
	size_t n;
	int ret = 0;

	memset(arg, 0, sizeof(*arg));
	eq = strchr(tok, '=');
	if (eq) {
		arg->name = xstrndup(tok, eq - tok);
		if (!fetch_arg_name_valid(arg->name)) {
			spec_error(err, tok, "argument name must be a C identifier of at most 31 characters");
			return -EINVAL;
		}
		body = eq + 1;
	}
	/* The type follows the last ':' (fetchargs themselves have none). */
	colon = strrchr(body, ':');
	if (colon) {
		arg->type = xstrdup(colon + 1);
		if (!only_chars(arg->type, TYPE_CHARS)) {
			spec_error(err, tok, "invalid type");
			return -EINVAL;
		}
		expr = xstrndup(body, colon - body);
	} else {
		expr = xstrdup(body);
	}
	if (!*expr) {
		spec_error(err, tok, "empty argument");
		ret = -EINVAL;
	} else if (!strcmp(expr, "$retval")) {
		arg->kind = PROBE_ARG_RETVAL;
	} else if (!strcmp(expr, "$params") || !strcmp(expr, "$vars")) {
		arg->kind = expr[1] == 'p' ? PROBE_ARG_PARAMS : PROBE_ARG_VARS;
		if (arg->name || arg->type) {
			spec_error(err, tok, "$params and $vars take no name or type");
			ret = -EINVAL;
		}
	} else if (is_ident_start((unsigned char)expr[0]) ||
		   (expr[0] == '@' && is_ident_start((unsigned char)expr[1]))) {
		const char *v = expr + (expr[0] == '@');

		arg->kind = PROBE_ARG_VAR;
		arg->global = expr[0] == '@';
		n = ident_len(v);
		arg->var = xstrndup(v, n);
		ret = parse_fields(v + n, arg, tok, err);
	} else {
		arg->kind = PROBE_ARG_RAW;
		if (!only_chars(expr, RAW_CHARS)) {
			spec_error(err, tok, "not a variable and not a valid fetcharg");
			ret = -EINVAL;
		}
		arg->var = expr;
		expr = NULL;
	}
	free(expr);
	return ret;
}

/* A wildcard function name: C identifier characters and fnmatch(3)'s. */
#define GLOB_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
		   "0123456789_.*?[]!^"

/*
 * The length of a wildcard function name at p (perf's strisglob: one of
 * '*', '?' or '['), 0 if it is none.
 */
static size_t glob_len(const char *p)
{
	size_t n = strspn(p, GLOB_CHARS);

	return n && strcspn(p, "*?[") < n ? n : 0;
}

/*
 * perf's rule for a place that is a source file (SRC:LINE, SRC;PATTERN)
 * rather than a function: no '+', '@' or '%', and a '.' before its ':'
 * or ';'.
 */
static int is_src_place(const char *p)
{
	const char *sep = strpbrk(p, ":;");

	return !strpbrk(p, "+@%") && sep && memchr(p, '.', sep - p);
}

/* The PATTERN of ;PATTERN. */
static int parse_lazy(const char *p, struct probe_spec *spec, const char *tok,
		      struct strbuf *err)
{
	if (!*p) {
		spec_error(err, tok, "empty lazy-line pattern after ';'");
		return -EINVAL;
	}
	spec->lazy = xstrdup(p);
	return 0;
}

/* SRC:LINE (a line of the file) or SRC;PATTERN. */
static int parse_src(const char *p, struct probe_spec *spec, const char *tok,
		     struct strbuf *err)
{
	size_t n = strcspn(p, ":;");
	char *end;

	spec->file = xstrndup(p, n);
	p += n;
	if (*p == ';')
		return parse_lazy(p + 1, spec, tok, err);
	errno = 0;
	spec->line = (int)strtol(p + 1, &end, 10);
	if (!isdigit((unsigned char)p[1]) || *end || errno || spec->line < 1) {
		spec_error(err, tok, "line must be a number from 1");
		return -EINVAL;
	}
	spec->has_line = 1;
	return 0;
}

/*
 * [[GROUP:]EVENT=]FUNC[@SRC][:RLINE|+OFFS|%return|;PATTERN],
 * [[GROUP:]EVENT=]SRC:LINE or SRC;PATTERN
 */
static int parse_point(const char *tok, struct probe_spec *spec,
		       struct strbuf *err)
{
	const char *p = tok, *eq = strchr(tok, '=');
	size_t n;

	if (eq) {
		const char *colon = memchr(tok, ':', eq - tok);

		if (colon) {
			spec->group = xstrndup(tok, colon - tok);
			spec->event = xstrndup(colon + 1, eq - colon - 1);
		} else {
			spec->event = xstrndup(tok, eq - tok);
		}
		if ((spec->group && !probe_name_valid(spec->group)) ||
		    !probe_name_valid(spec->event)) {
			spec_error(err, tok, "group and event names must be C identifiers below 64 characters");
			return -EINVAL;
		}
		p = eq + 1;
	}
	if (is_src_place(p))
		return parse_src(p, spec, tok, err);
	n = glob_len(p);
	if (n) {
		spec->glob = 1;
		goto func;
	}
	n = ident_len(p);
	/* C++ qualified names: ns::Cls::method (a ':' alone starts a line). */
	while (n && p[n] == ':' && p[n + 1] == ':' &&
	       is_ident_start((unsigned char)p[n + 2]))
		n += 2 + ident_len(p + n + 2);
	/* Clones keep their suffix: foo.isra.0 */
	while (n && p[n] == '.' && is_ident((unsigned char)p[n + 1])) {
		n++;
		while (is_ident((unsigned char)p[n]))
			n++;
	}
	if (!n) {
		spec_error(err, tok, "expected a function name");
		return -EINVAL;
	}
func:
	spec->func = xstrndup(p, n);
	p += n;
	if (*p == '@') {
		n = strcspn(++p, ":+%;");
		if (!n) {
			spec_error(err, tok, "empty source file after '@'");
			return -EINVAL;
		}
		spec->file = xstrndup(p, n);
		p += n;
	}
	if (*p == ':' || *p == '+') {
		char *end;
		int is_line = *p == ':';
		unsigned long v;

		errno = 0;
		v = strtoul(p + 1, &end, 0);
		if (end == p + 1 || *end || errno ||
		    !isdigit((unsigned char)p[1])) {
			spec_error(err, tok, is_line ? "line must be a number" :
				   "offset must be a number");
			return -EINVAL;
		}
		if (is_line) {
			spec->line = (int)v;
			spec->has_line = 1;
		} else {
			spec->offset = v;
			spec->has_offset = 1;
		}
		return 0;
	}
	if (!strcmp(p, "%return")) {
		spec->retprobe = 1;
		return 0;
	}
	if (*p == ';')
		return parse_lazy(p + 1, spec, tok, err);
	if (*p) {
		spec_error(err, tok, "expected :LINE, +OFFSET, %return or ;PATTERN after the function");
		return -EINVAL;
	}
	return 0;
}

int probe_spec_parse(const char *text, struct probe_spec *spec,
		     struct strbuf *err)
{
	char *copy = xstrdup(text), *tok, *save = NULL;
	const char *c;
	int ret = 0, alloc = 0;

	memset(spec, 0, sizeof(*spec));
	for (c = text; *c; c++) {
		/*
		 * Tabs and spaces separate words; nothing else may break a
		 * line.
		 */
		if (iscntrl((unsigned char)*c) && *c != '\t') {
			strbuf_addstr(err, "control characters are not allowed in a probe spec");
			ret = -EINVAL;
			goto out;
		}
		if (*c == '"' || *c == '\'' || *c == '`') {
			strbuf_addstr(err, "quotes are not allowed in a probe spec");
			ret = -EINVAL;
			goto out;
		}
	}
	tok = strtok_r(copy, " \t", &save);
	if (!tok) {
		strbuf_addstr(err, "empty probe spec");
		ret = -EINVAL;
		goto out;
	}
	ret = parse_point(tok, spec, err);
	while (!ret && (tok = strtok_r(NULL, " \t", &save))) {
		grow_array(spec->args, spec->nr_args, alloc, 8);
		ret = parse_arg(tok, &spec->args[spec->nr_args++], err);
	}
out:
	free(copy);
	if (ret)
		probe_spec_release(spec);
	return ret;
}

static void field_release(struct probe_field *f)
{
	free(f->name);
}

static void arg_release(struct probe_arg *a)
{
	release_array(a->fields, a->nr_fields, field_release);
	free(a->name);
	free(a->var);
	free(a->type);
}

void probe_spec_release(struct probe_spec *spec)
{
	release_array(spec->args, spec->nr_args, arg_release);
	free(spec->group);
	free(spec->event);
	free(spec->func);
	free(spec->file);
	free(spec->lazy);
	memset(spec, 0, sizeof(*spec));
}
