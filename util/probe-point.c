// SPDX-License-Identifier: GPL-2.0
/*
 * The probe layer under DWARF and BTF (util/probe-point.h): the fetch
 * args of a probe point from what its source says of each variable, and
 * the kernel's rules that hold whatever the source.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/probe-point.h"
#include "util/usage.h"

int probe_need_memory(struct fetch_arg *fa, const char *what,
		      struct strbuf *err)
{
	if (fa->nr_derefs)
		return 0;
	strbuf_addf(err, "'%s' is held in a register here, so it has no address to offset",
		    what);
	return -EINVAL;
}

/*
 * $params: a struct or union of size bytes passed by value in registers,
 * fetched as perf fetches it: its first bytes, in hex, cut down to 64
 * bits ("pt exceeds max-bitwidth"), with a line in warn (unless NULL)
 * when that is not all of it.  0, or -EINVAL with err for a size the
 * kernel cannot fetch.
 */
static int whole_aggregate(long size, const char *type_name, const char *path,
			   struct fetch_arg *fa, struct strbuf *warn,
			   struct strbuf *err)
{
	int bits = size > 8 ? 64 : (int)size * 8;

	if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
		strbuf_addf(err, "'%s' has %ld bytes: the kernel fetches 1, 2, 4 or 8",
			    path, size);
		return -EINVAL;
	}
	fa->type = xmalloc(16);
	snprintf(fa->type, 16, "x%d", bits);
	if (warn && size > 8)
		strbuf_addf(warn, "$params: '%s' is a %s passed by value: only its first 8 bytes are fetched (x64), as perf does\n",
			    path, type_name);
	return 0;
}

static int string_cast(const struct probe_type *t, const char *cast)
{
	return !strcmp(cast, "string") ||
	       (!strcmp(cast, "ustring") && !t->ustring_as_is);
}

static int final_array(const struct probe_type *t, const char *str,
		       struct fetch_arg *fa, const char *path,
		       struct strbuf *err)
{
	char *et;

	if (!t->has_elem) {
		strbuf_addf(err, "'%s': array of void", path);
		return -EINVAL;
	}
	if (probe_need_memory(fa, path, err))
		return -EINVAL;
	if (t->elem_text) {
		fa->type = xstrdup(str);
		return 0;
	}
	if (t->count <= 0) {
		strbuf_addf(err, "'%s': array of unknown size: index it", path);
		return -EINVAL;
	}
	if (t->count > FETCH_MAX_ARRAY_LEN) {
		strbuf_addf(err, "'%s' has %lld elements: the kernel fetches at most %d; index it",
			    path, t->count, FETCH_MAX_ARRAY_LEN);
		return -E2BIG;
	}
	et = t->elem_char ? xstrdup("x8") : t->scalar(t->ctx, 1, path, err);
	if (!et)
		return -EINVAL;
	fa->type = xmalloc(strlen(et) + 24);
	sprintf(fa->type, "%s[%lld]", et, t->count);
	free(et);
	return 0;
}

int probe_final_type(const struct probe_type *t, const struct probe_arg *arg,
		     const struct probe_opts *opts, struct fetch_arg *fa,
		     char *bf, const char *path, struct strbuf *warn,
		     struct strbuf *err)
{
	const char *str = opts->kind == PROBE_UPROBE && opts->ustring ?
			  "ustring" : "string";

	if (bf) {
		if (arg->type) {
			strbuf_addf(err, "'%s' is a bitfield: no cast allowed",
				    path);
			free(bf);
			return -EINVAL;
		}
		fetch_arg_bitfield(fa, bf, t->is_signed, path, warn);
		return 0;
	}
	if (arg->type && string_cast(t, arg->type)) {
		if ((t->kind != PROBE_TYPE_POINTER &&
		     t->kind != PROBE_TYPE_ARRAY) ||
		    !t->has_elem || !t->elem_char) {
			strbuf_addf(err, "'%s': only char pointers and char arrays can be strings",
				    path);
			return -EINVAL;
		}
		if (t->kind == PROBE_TYPE_POINTER) {
			if (fetch_arg_push_deref(fa, 0))
				return -E2BIG;
		} else if (probe_need_memory(fa, path, err)) {
			return -EINVAL;
		}
	}
	if (arg->type) {
		fa->type = xstrdup(arg->type);
		return 0;
	}
	if (t->kind == PROBE_TYPE_ARRAY)
		return final_array(t, str, fa, path, err);
	if (t->kind == PROBE_TYPE_AGGREGATE && t->whole)
		return whole_aggregate(t->size, t->name.buf, path, fa, warn,
				       err);
	if (t->kind == PROBE_TYPE_AGGREGATE) {
		strbuf_addf(err, "'%s' is a %s: choose a member (%s)", path,
			    t->name.buf, t->members.buf);
		return -EINVAL;
	}
	fa->type = t->scalar(t->ctx, 0, path, err);
	return fa->type ? 0 : -EINVAL;
}

void probe_type_release(struct probe_type *t)
{
	strbuf_release(&t->name);
	strbuf_release(&t->members);
}

static char *default_arg_name(const struct probe_arg *arg)
{
	int i;

	for (i = arg->nr_fields - 1; i >= 0; i--)
		if (arg->fields[i].kind != PROBE_FIELD_INDEX)
			return xstrdup(arg->fields[i].name);
	return xstrdup(arg->var);
}

static void push_fetch(struct probe_point *pp, int *alloc, struct fetch_arg *fa)
{
	grow_array(pp->args, pp->nr_args, *alloc, 8);
	pp->args[pp->nr_args++] = *fa;
}

static int name_taken(const struct probe_point *pp, const char *name)
{
	int i;

	for (i = 0; i < pp->nr_args; i++)
		if (!strcmp(pp->args[i].name, name))
			return 1;
	return 0;
}

/* Default names collide (obj->id, @g.id): make them unique, kernel-sized. */
static void unique_name(const struct probe_point *pp, struct fetch_arg *fa)
{
	char buf[32];
	int i;

	if (strlen(fa->name) > 31)
		fa->name[31] = '\0';
	if (!name_taken(pp, fa->name))
		return;
	for (i = 1; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "%.27s_%d", fa->name, i);
		if (!name_taken(pp, buf))
			break;
	}
	free(fa->name);
	fa->name = xstrdup(buf);
}

/* $params, or (vars) $vars: each variable ops names, fetched whole. */
static int resolve_params(const struct probe_arg_ops *ops, void *ctx,
			  struct probe_point *pp, int *alloc, int vars,
			  struct strbuf *warn, struct strbuf *err)
{
	const char **names = NULL, *what = vars ? "$vars" : "$params";
	int i, nr = 0, ret;

	ret = vars ? ops->vars(ctx, &names, &nr, err) :
	      ops->params(ctx, &names, &nr);
	for (i = 0; i < nr && !ret; i++) {
		struct probe_arg a = { .kind = PROBE_ARG_VAR,
				       .var = (char *)names[i] };
		struct fetch_arg fa = { 0 };
		struct strbuf why = STRBUF_INIT;

		/* Like perf: what cannot be fetched here is left out. */
		if (ops->var(ctx, &a, 1, &fa, &why)) {
			if (warn)
				strbuf_addf(warn, "%s: '%s' left out: %s\n",
					    what, names[i], why.buf);
			fetch_arg_release(&fa);
		} else {
			fa.name = xstrdup(names[i]);
			unique_name(pp, &fa);
			push_fetch(pp, alloc, &fa);
		}
		strbuf_release(&why);
	}
	free(names);
	return ret;
}

int probe_point_args(struct probe_point *pp, const struct probe_spec *spec,
		     const struct probe_arg_ops *ops, void *ctx,
		     struct strbuf *warn, struct strbuf *err)
{
	int i, alloc = 0, ret = 0;

	for (i = 0; i < spec->nr_args && !ret; i++) {
		const struct probe_arg *a = &spec->args[i];
		struct fetch_arg fa = { 0 };

		switch (a->kind) {
		case PROBE_ARG_PARAMS:
		case PROBE_ARG_VARS:
			ret = resolve_params(ops, ctx, pp, &alloc,
					     a->kind == PROBE_ARG_VARS, warn,
					     err);
			continue;
		case PROBE_ARG_RETVAL:
			if (!spec->retprobe) {
				strbuf_addstr(err, "$retval needs FUNC%return");
				ret = -EINVAL;
				continue;
			}
			fa.base = FETCH_RETVAL;
			if (a->type)
				fa.type = xstrdup(a->type);
			else
				ret = ops->retval(ctx, &fa, err);
			fa.name = xstrdup(a->name ? a->name : "ret");
			break;
		case PROBE_ARG_RAW:
			fa.base = FETCH_RAW;
			fa.raw = xstrdup(a->var);
			fa.type = a->type ? xstrdup(a->type) : NULL;
			fa.name = a->name ? xstrdup(a->name) : NULL;
			if (!fa.name) {
				fa.name = xmalloc(16);
				snprintf(fa.name, 16, "arg%d", i + 1);
			}
			break;
		case PROBE_ARG_VAR:
			if (spec->retprobe) {
				strbuf_addf(err, "'%s': a return probe sees only $retval",
					    a->var);
				ret = -EINVAL;
				continue;
			}
			ret = ops->var(ctx, a, 0, &fa, err);
			fa.name = a->name ?
				xstrdup(a->name) : default_arg_name(a);
			break;
		}
		if (ret) {
			fetch_arg_release(&fa);
			continue;
		}
		if (a->name && name_taken(pp, fa.name)) {
			strbuf_addf(err, "argument name '%s' used twice",
				    fa.name);
			fetch_arg_release(&fa);
			ret = -EINVAL;
			continue;
		}
		unique_name(pp, &fa);
		push_fetch(pp, &alloc, &fa);
	}
	return ret;
}

void probe_points_release(struct probe_point *pps, int nr)
{
	release_array(pps, nr, probe_point_release);
}

void probe_point_release(struct probe_point *pp)
{
	release_array(pp->args, pp->nr_args, fetch_arg_release);
	free(pp->func);
	free(pp->note);
	free(pp->sym);
	free(pp->module);
	memset(pp, 0, sizeof(*pp));
}
