// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit probe: perf-probe compatible front end.  Specs are translated
 * (util/probe-spec -> util/probe-dwarf -> util/fetcharg) into tracefs
 * definition lines, all of them before anything is written, then printed
 * (-D) or added all-or-nothing (util/probe-file).
 */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "builtin.h"
#include "util/fetcharg.h"
#include "util/parse-options.h"
#include "util/probe-dwarf.h"
#include "util/probe-file.h"
#include "util/probe-spec.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
#include "util/usage.h"

struct probe_opts {
	const char *exec;
	const char *module;
	const char *vmlinux;
	struct opt_string_list add;
	struct opt_string_list def;
	struct opt_string_list del;
	int list;
	const char *vars;
	const char *lines;
	int funcs;
	const char *funcs_glob;
	int force_regs;
};

/* The binary being probed and how its probes are spelled. */
struct probe_target {
	enum probe_kind kind;
	char *path;		/* absolute: the kernel keeps the path it is given */
	char *modname;		/* -m: the module's name as the kernel knows it */
	char *group;		/* default group */
	struct probe_debuginfo *dbg;
	struct probe_defs existing;	/* for default names that do not clash */
};

/* One translated spec, ready to be written. */
struct probe_line {
	char *group;
	char *event;
	char *text;
	char *where;		/* "FUNC in PATH" for the summary */
};

static const char *const probe_usage[] = {
	"tracekit probe [-x BINARY | -m MODULE | -k VMLINUX] [-D|-a] SPEC...",
	"tracekit probe [-x BINARY | -m MODULE | -k VMLINUX] -V FUNC | -L FUNC | -F [GLOB]",
	"tracekit probe -l | -d EVENT_GLOB",
	NULL
};

static int funcs_cb(const struct option *opt, const char *arg, int unset)
{
	struct probe_opts *po = opt->value;

	po->funcs = !unset;
	po->funcs_glob = arg;
	return 0;
}

static void sanitize_name(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, isalnum((unsigned char)*s) ? *s : '_');
}

/* The kernel treats '-' and '_' in module names alike. */
static int module_file_matches(const char *base, const char *name)
{
	for (; *name; base++, name++)
		if (*base != *name && !(strchr("-_", *base) && strchr("-_", *name)))
			return 0;
	return !strcmp(base, ".ko");
}

/* Depth-first search of dir for NAME.ko; the path, or NULL. */
static char *search_module(const char *dir, const char *name, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (de = readdir(d))) {
		struct strbuf path = STRBUF_INIT;

		if (de->d_name[0] == '.')
			continue;
		strbuf_addf(&path, "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR && depth < 16)
			found = search_module(path.buf, name, depth + 1);
		else if (de->d_type == DT_REG && module_file_matches(de->d_name, name))
			found = strbuf_detach(&path, NULL);
		strbuf_release(&path);
	}
	closedir(d);
	return found;
}

/* -m NAME without a path: NAME.ko under /lib/modules/$(uname -r). */
static char *find_module_file(const char *name)
{
	struct utsname u;
	char dir[PATH_MAX], *found;

	if (strchr(name, '/') || strstr(name, ".ko") || uname(&u))
		return xstrdup(name);
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	found = search_module(dir, name, 0);
	return found ? found : xstrdup(name);
}

static char *module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = xstrdup(base ? base + 1 : path), *p;

	p = strstr(name, ".ko");
	if (p)
		*p = '\0';
	/* The kernel names modules with '_' where the file has '-'. */
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

static char *default_vmlinux(void)
{
	static const char *const fmts[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/vmlinux-%s",
		"/lib/modules/%s/build/vmlinux",
	};
	struct utsname u;
	char buf[PATH_MAX];
	size_t i;

	if (uname(&u))
		return NULL;
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(buf, sizeof(buf), fmts[i], u.release);
		if (access(buf, R_OK) == 0)
			return xstrdup(buf);
	}
	return NULL;
}

static int target_open(struct probe_target *t, const struct probe_opts *po)
{
	struct strbuf err = STRBUF_INIT, grp = STRBUF_INIT;
	char *file, *real;

	memset(t, 0, sizeof(*t));
	if (!!po->exec + !!po->module + !!po->vmlinux > 1) {
		error("-x, -m and -k are exclusive");
		return -EINVAL;
	}
	if (po->exec) {
		t->kind = PROBE_UPROBE;
		file = xstrdup(po->exec);
	} else if (po->module) {
		t->kind = PROBE_KPROBE;
		file = find_module_file(po->module);
	} else {
		t->kind = PROBE_KPROBE;
		file = po->vmlinux ? xstrdup(po->vmlinux) : default_vmlinux();
		if (!file) {
			error("no vmlinux with debug info found: give -k VMLINUX (or -m MODULE)");
			return -ENOENT;
		}
	}
	real = realpath(file, NULL);
	if (!real) {
		error("%s: %s", file, strerror(errno));
		free(file);
		return -errno;
	}
	free(file);
	t->path = real;
	t->dbg = probe_debuginfo_open(t->path, &err);
	if (!t->dbg) {
		error("%s", err.buf);
		strbuf_release(&err);
		free(t->path);
		t->path = NULL;
		return -EINVAL;
	}
	if (po->module)
		t->modname = module_name(t->path);
	if (t->kind == PROBE_UPROBE) {
		const char *base = strrchr(t->path, '/') + 1;

		strbuf_addstr(&grp, "probe_");
		sanitize_name(&grp, base);
		if (grp.len > 63)
			strbuf_setlen(&grp, 63);
	} else {
		strbuf_addstr(&grp, "probe");
	}
	t->group = strbuf_detach(&grp, NULL);
	/* Read once: a lookup per name in eventfs costs more than the DWARF. */
	if (probe_defs_read(&t->existing))
		memset(&t->existing, 0, sizeof(t->existing));
	strbuf_release(&err);
	return 0;
}

static void target_close(struct probe_target *t)
{
	probe_debuginfo_close(t->dbg);
	probe_defs_release(&t->existing);
	free(t->path);
	free(t->modname);
	free(t->group);
}

static int name_used(const struct probe_target *t, const struct probe_line *v, int nr,
		     const char *group, const char *event)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(v[i].group, group) && !strcmp(v[i].event, event))
			return 1;
	for (i = 0; i < t->existing.nr; i++)
		if (!strcmp(t->existing.v[i].group, group) &&
		    !strcmp(t->existing.v[i].event, event))
			return 1;
	return 0;
}

/* perf's default: FUNC, FUNC__return, FUNC_L<line>, then _1, _2... on clashes. */
static char *event_name(const struct probe_target *t, const struct probe_spec *spec,
			const char *group, const struct probe_line *done, int nr,
			int explicit)
{
	struct strbuf sb = STRBUF_INIT;
	size_t base;
	int i;

	if (explicit)
		return xstrdup(spec->event);
	sanitize_name(&sb, spec->func);
	if (spec->retprobe)
		strbuf_addstr(&sb, "__return");
	else if (spec->has_line)
		strbuf_addf(&sb, "_L%d", spec->line);
	else if (spec->has_offset && spec->offset)
		strbuf_addf(&sb, "_%lu", spec->offset);
	if (sb.len > 58)
		strbuf_setlen(&sb, 58);
	base = sb.len;
	for (i = 1; name_used(t, done, nr, group, sb.buf); i++) {
		strbuf_setlen(&sb, base);
		strbuf_addf(&sb, "_%d", i);
	}
	return strbuf_detach(&sb, NULL);
}

static void format_place(const struct probe_target *t, const struct probe_point *pp,
			 struct strbuf *sb)
{
	if (t->kind == PROBE_UPROBE) {
		strbuf_addf(sb, "%s:0x%llx", t->path, (unsigned long long)pp->file_off);
		return;
	}
	if (t->modname)
		strbuf_addf(sb, "%s:", t->modname);
	strbuf_addf(sb, "%s+%llu", pp->sym, (unsigned long long)pp->sym_off);
}

struct line_list {
	struct probe_line *v;
	int nr, alloc;
};

static void lines_release(struct line_list *ll)
{
	int i;

	for (i = 0; i < ll->nr; i++) {
		free(ll->v[i].group);
		free(ll->v[i].event);
		free(ll->v[i].text);
		free(ll->v[i].where);
	}
	free(ll->v);
	memset(ll, 0, sizeof(*ll));
}

static struct probe_line *line_push(struct line_list *ll)
{
	if (ll->nr == ll->alloc) {
		ll->alloc = ll->alloc ? 2 * ll->alloc : 8;
		ll->v = xrealloc(ll->v, ll->alloc * sizeof(*ll->v));
	}
	memset(&ll->v[ll->nr], 0, sizeof(ll->v[0]));
	return &ll->v[ll->nr++];
}

/* One definition line for probe point pp of spec, appended to ll. */
static int format_line(const struct probe_target *t, const struct probe_spec *spec,
		       const struct probe_point *pp, const char *group, const char *event,
		       struct line_list *ll, struct strbuf *err)
{
	struct fetch_ctx fctx = { .kind = t->kind, .load_delta = pp->load_delta };
	struct strbuf line = STRBUF_INIT, where = STRBUF_INIT;
	struct probe_line *out;
	int i, ret = 0;

	strbuf_addf(&line, "%c:%s/%s ", pp->retprobe ? 'r' : 'p', group, event);
	format_place(t, pp, &line);
	for (i = 0; i < pp->nr_args && !ret; i++)
		ret = fetch_arg_format(&pp->args[i], &fctx, &line, err);
	if (ret) {
		strbuf_release(&line);
		return ret;
	}
	strbuf_addf(&where, "%s%s in %s", spec->func, spec->retprobe ? "%return" : "", t->path);
	out = line_push(ll);
	out->group = xstrdup(group);
	out->event = xstrdup(event);
	out->text = strbuf_detach(&line, NULL);
	out->where = strbuf_detach(&where, NULL);
	return 0;
}

static int translate(const struct probe_target *t, const char *text,
		     const struct probe_dwarf_opts *dopts, struct line_list *ll)
{
	struct probe_spec spec;
	struct probe_point *pps;
	struct strbuf err = STRBUF_INIT;
	char *group = NULL, *event = NULL;
	int i, nr, ret;

	ret = probe_spec_parse(text, &spec, &err);
	if (ret) {
		error("%s", err.buf);
		goto out;
	}
	ret = probe_dwarf_resolve(t->dbg, &spec, dopts, &pps, &nr, &err);
	if (ret) {
		error("%s", err.buf);
		probe_spec_release(&spec);
		goto out;
	}
	if (nr > 1 && tk_features()->readme && !tk_features()->multiprobe) {
		error("%s is inlined %d times: this kernel cannot put several probes on one event",
		      spec.func, nr);
		ret = -ENOTSUP;
	}
	group = xstrdup(spec.group ? spec.group : t->group);
	event = event_name(t, &spec, group, ll->v, ll->nr, !!spec.event);
	for (i = 0; i < nr && !ret; i++) {
		if (pps[i].skipped_prologue)
			warning("%s is compiled without optimization: probing after its prologue (0x%llx), where its arguments are stored",
				spec.func, (unsigned long long)pps[i].addr);
		ret = format_line(t, &spec, &pps[i], group, event, ll, &err);
		if (ret)
			error("%s", err.buf);
	}
	free(group);
	free(event);
	probe_points_release(pps, nr);
	probe_spec_release(&spec);
out:
	strbuf_release(&err);
	return ret;
}

static int translate_all(const struct probe_target *t, const struct opt_string_list *specs,
			 const struct probe_dwarf_opts *dopts, struct line_list *ll)
{
	int i;

	memset(ll, 0, sizeof(*ll));
	for (i = 0; i < specs->nr; i++) {
		if (translate(t, specs->items[i], dopts, ll)) {
			lines_release(ll);
			return -EINVAL;
		}
	}
	return 0;
}

static void dwarf_opts_init(struct probe_dwarf_opts *o, const struct probe_target *t,
			    int force_regs)
{
	const struct tk_features *f = tk_features();

	memset(o, 0, sizeof(*o));
	o->kind = t->kind;
	/*
	 * uprobes never take $argN (the kernel's check wants a kernel
	 * function entry); README's $arg<N> line is shared with kprobes.
	 */
	o->argn = t->kind == PROBE_KPROBE && f->arg_n && !force_regs;
	o->ustring = f->ustring;
	o->symbol = f->symbol;
	o->imm = f->imm;
	/* Without tracefs (-D on a build host) assume a current kernel. */
	if (!f->readme) {
		o->argn = t->kind == PROBE_KPROBE && !force_regs;
		o->symbol = 1;
	}
}

/* SDT specs belong to util/probe-sdt; this build has no reader for them. */
static int sdt_specs(const struct opt_string_list *specs)
{
	int i;

	for (i = 0; i < specs->nr; i++)
		if (probe_spec_is_sdt(specs->items[i])) {
			error("'%s': SDT markers are not supported by this build", specs->items[i]);
			return 1;
		}
	return 0;
}

static int add_lines(const struct probe_target *t, const struct line_list *ll,
		     struct strbuf *err)
{
	const char **lines = xcalloc(ll->nr, sizeof(*lines));
	int i, ret;

	for (i = 0; i < ll->nr; i++)
		lines[i] = ll->v[i].text;
	ret = probe_defs_add(t->kind, lines, ll->nr, 0, err);
	free(lines);
	return ret;
}

static int do_add(struct probe_opts *po, const struct opt_string_list *specs, int define_only)
{
	struct probe_target t;
	struct probe_dwarf_opts dopts;
	struct line_list ll;
	struct strbuf err = STRBUF_INIT;
	const struct tk_features *f;
	int i, ret;

	if (sdt_specs(specs))
		return TK_EXIT_FAIL;
	if (target_open(&t, po))
		return TK_EXIT_FAIL;
	dwarf_opts_init(&dopts, &t, po->force_regs);
	if (translate_all(&t, specs, &dopts, &ll)) {
		target_close(&t);
		return TK_EXIT_FAIL;
	}
	if (define_only) {
		for (i = 0; i < ll.nr; i++)
			printf("%s\n", ll.v[i].text);
		ret = TK_EXIT_OK;
		goto out;
	}
	f = tk_features();
	if (!f->tracefs || !(t.kind == PROBE_KPROBE ? f->kprobe_events : f->uprobe_events)) {
		error("%s is not available on this kernel", probe_kind_file(t.kind));
		ret = TK_EXIT_ENV;
		goto out;
	}
	ret = add_lines(&t, &ll, &err);
	if (ret && dopts.argn && strstr(err.buf, "$arg")) {
		/* The kernel is the judge of $argN: fall back to registers. */
		warning("the kernel refused $argN (%s); using registers",
			strtok(err.buf, "\n"));
		lines_release(&ll);
		strbuf_reset(&err);
		dopts.argn = 0;
		if (translate_all(&t, specs, &dopts, &ll)) {
			target_close(&t);
			return TK_EXIT_FAIL;
		}
		ret = add_lines(&t, &ll, &err);
	}
	if (ret) {
		error("cannot add probes: %s", err.buf);
		ret = ret == -EACCES || ret == -EPERM ? TK_EXIT_ENV : TK_EXIT_FAIL;
		goto out;
	}
	printf("Added new event%s:\n", ll.nr > 1 ? "s" : "");
	for (i = 0; i < ll.nr; i++)
		if (!i || strcmp(ll.v[i].event, ll.v[i - 1].event) ||
		    strcmp(ll.v[i].group, ll.v[i - 1].group))
			printf("  %s:%-20s (on %s)\n", ll.v[i].group, ll.v[i].event,
			       ll.v[i].where);
	printf("\nYou can now use it in all tools, such as:\n\n\ttrace-cmd record -e %s:%s CMD\n",
	       ll.v[0].group, ll.v[0].event);
	ret = TK_EXIT_OK;
out:
	lines_release(&ll);
	strbuf_release(&err);
	target_close(&t);
	return ret;
}

/* Groups `tracekit probe` creates (perf's too): probe, probe_BIN, sdt_PROV. */
static int own_group(const char *g)
{
	return !strcmp(g, "probe") || !strncmp(g, "probe_", 6) || !strncmp(g, "sdt_", 4);
}

static int do_list(void)
{
	struct probe_defs defs;
	int i, ret = probe_defs_read(&defs);

	if (ret) {
		error("cannot read probe definitions: %s", strerror(-ret));
		return TK_EXIT_ENV;
	}
	for (i = 0; i < defs.nr; i++) {
		const struct probe_def *d = &defs.v[i];
		const char *place = strchr(d->line, ' ');
		size_t n;
		char name[160];

		if (!own_group(d->group))
			continue;
		place = place ? place + 1 : "";
		n = strcspn(place, " ");
		snprintf(name, sizeof(name), "%s:%s", d->group, d->event);
		printf("  %-30s (on %.*s)\n", name, (int)n, place);
	}
	probe_defs_release(&defs);
	return TK_EXIT_OK;
}

static int do_del(const struct opt_string_list *globs)
{
	struct strbuf deleted = STRBUF_INIT, err = STRBUF_INIT;
	int i, ret = 0, total = 0;

	for (i = 0; i < globs->nr && ret >= 0; i++) {
		strbuf_reset(&deleted);
		ret = probe_defs_del(globs->items[i], &deleted, &err);
		if (ret > 0) {
			char *l, *save = NULL;

			total += ret;
			for (l = strtok_r(deleted.buf, "\n", &save); l;
			     l = strtok_r(NULL, "\n", &save))
				printf("Removed event: %s\n", l);
		}
	}
	if (ret < 0)
		error("%s", err.buf);
	else if (!total)
		error("no event matches %s", globs->items[globs->nr - 1]);
	strbuf_release(&deleted);
	strbuf_release(&err);
	return ret < 0 ? (ret == -EACCES ? TK_EXIT_ENV : TK_EXIT_FAIL) :
	       total ? TK_EXIT_OK : TK_EXIT_FAIL;
}

static int do_listing(struct probe_opts *po)
{
	struct probe_target t;
	struct probe_spec spec;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *what = po->vars ? po->vars : po->lines;
	int ret;

	if (target_open(&t, po))
		return TK_EXIT_FAIL;
	if (po->funcs) {
		ret = probe_dwarf_list_funcs(t.dbg, po->funcs_glob, &out, &err);
	} else {
		ret = probe_spec_parse(what, &spec, &err);
		if (!ret) {
			ret = po->vars ? probe_dwarf_list_vars(t.dbg, &spec, &out, &err) :
			      probe_dwarf_list_lines(t.dbg, &spec, &out, &err);
			probe_spec_release(&spec);
		}
	}
	if (ret)
		error("%s", err.buf);
	else
		fputs(out.buf, stdout);
	strbuf_release(&out);
	strbuf_release(&err);
	target_close(&t);
	return ret ? TK_EXIT_FAIL : TK_EXIT_OK;
}

int cmd_probe(int argc, const char **argv)
{
	struct probe_opts po = { 0 };
	const struct option options[] = {
		OPT_GROUP("SPEC: [[GROUP:]EVENT=]FUNC[@SRC][:RLINE|+OFFS|%return] [ARG...]\n"
			  "ARG:  [NAME=]VAR[->FIELD|.FIELD|[IDX]]...[:TYPE] | @GLOBAL[...][:TYPE]\n"
			  "      | $retval | $params | a raw fetcharg (%REG, +OFF(...), $stackN)\n"
			  "\nTarget"),
		OPT_STRING('x', "exec", &po.exec, "PATH",
			   "user-space executable or library: uprobes"),
		OPT_STRING('m', "module", &po.module, "MODULE",
			   "kernel module (.ko path or name) with debug info: kprobes"),
		OPT_STRING('k', "vmlinux", &po.vmlinux, "VMLINUX",
			   "kernel image with debug info (default: search the usual places)"),
		OPT_GROUP("Actions"),
		OPT_STRING_LIST('a', "add", &po.add, "SPEC",
				"translate SPEC and add it to tracefs (the default)"),
		OPT_STRING_LIST('D', "definition", &po.def, "SPEC",
				"print the tracefs definition of SPEC, add nothing"),
		OPT_STRING_LIST('d', "del", &po.del, "GROUP:EVENT",
				"delete the probes matching the glob (EVENT alone: any group)"),
		OPT_BOOL('l', "list", &po.list,
			 "list the probes in tracekit's groups (probe, probe_*, sdt_*)"),
		OPT_STRING('V', "vars", &po.vars, "FUNC",
			   "list the variables available at a probe point, with types"),
		OPT_STRING('L', "line", &po.lines, "FUNC",
			   "list the lines of FUNC, numbered where they can be probed"),
		{ .type = OPTION_CALLBACK, .short_name = 'F', .long_name = "funcs",
		  .value = &po, .argh = "GLOB", .callback = funcs_cb,
		  .flags = PARSE_OPT_OPTARG,
		  .help = "list the functions with code (matching GLOB)" },
		OPT_GROUP("Translation"),
		OPT_BOOL(0, "regs", &po.force_regs,
			 "kprobes: spell arguments as registers, not $argN"),
		OPT_END(),
	};
	int ret, i, actions;
	struct strbuf rest = STRBUF_INIT;

	argc = parse_options(argc, argv, options, probe_usage, 0);
	/* Leftover words form one more spec, as in perf. */
	for (i = 0; i < argc; i++) {
		if (i)
			strbuf_addch(&rest, ' ');
		strbuf_addstr(&rest, argv[i]);
	}
	/* perf takes the filter of -F as a separate word too. */
	if (po.funcs && !po.funcs_glob && argc == 1) {
		po.funcs_glob = argv[0];
		argc = 0;
		strbuf_reset(&rest);
	}
	actions = !!(po.add.nr || po.def.nr || rest.len) + !!po.del.nr + po.list +
		  !!po.vars + !!po.lines + po.funcs;
	if (actions != 1) {
		error(actions ? "give one action at a time" : "no probe spec given");
		usage_with_options(probe_usage, options);
	}
	if (po.list) {
		ret = do_list();
	} else if (po.del.nr) {
		ret = do_del(&po.del);
	} else if (po.vars || po.lines || po.funcs) {
		ret = do_listing(&po);
	} else if (po.def.nr) {
		if (rest.len)
			opt_string_list_append(&po.def, rest.buf);
		ret = do_add(&po, &po.def, 1);
	} else {
		if (rest.len)
			opt_string_list_append(&po.add, rest.buf);
		ret = do_add(&po, &po.add, 0);
	}
	strbuf_release(&rest);
	opt_string_list_clear(&po.add);
	opt_string_list_clear(&po.def);
	opt_string_list_clear(&po.del);
	return ret;
}
