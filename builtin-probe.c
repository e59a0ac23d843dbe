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
#include <fnmatch.h>
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
#include "util/probe-sdt.h"
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
	int sdt;
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
	"tracekit probe -x BINARY [-D|-a] [%]sdt_PROVIDER:NAME [[NAME=]argN[:TYPE]...]",
	"tracekit probe -x BINARY --sdt [sdt_PROVIDER:NAME]",
	"tracekit probe -l [GROUP:EVENT] | -d GROUP:EVENT",
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

/* ---- SDT markers (util/probe-sdt): .note.stapsdt, no DWARF needed ---- */

static void print_warnings(const struct strbuf *warn)
{
	const char *p = warn->buf, *nl;

	for (; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		warning("%.*s", (int)(nl - p), p);
		if (!*nl)
			break;
	}
}

static void read_markers(const char *exec, struct sdt_markers *ms)
{
	struct strbuf err = STRBUF_INIT;
	int ret = sdt_markers_read(exec, ms, &err);

	if (ret)
		die_code(ret == -EACCES || ret == -ENOENT ? TK_EXIT_ENV : TK_EXIT_FAIL,
			 "%s", err.buf);
	strbuf_release(&err);
}

/* --sdt: the markers of exec whose sdt_PROVIDER:NAME matches filter. */
static int probe_sdt_list(const char *exec, const char *filter)
{
	struct sdt_markers ms;
	char *pglob = NULL, *nglob = NULL;
	struct strbuf err = STRBUF_INIT;
	int i, j, shown = 0;

	if (filter && sdt_spec_parse(filter, &pglob, &nglob, &err) != 1)
		die_code(TK_EXIT_USAGE, "%s", err.len ? err.buf :
			 "--sdt filters by sdt_PROVIDER:NAME (globs allowed)");
	read_markers(exec, &ms);
	for (i = 0; i < ms.nr; i++) {
		const struct sdt_marker *m = &ms.v[i];
		struct strbuf group = STRBUF_INIT, event = STRBUF_INIT;
		struct strbuf args = STRBUF_INIT, warn = STRBUF_INIT;

		if (pglob && !sdt_marker_matches(m, pglob, nglob))
			continue;
		shown++;
		strbuf_reset(&err);
		if (sdt_marker_event(&ms, i, &group, &event, &err))
			strbuf_addf(&group, "(%s)", err.buf);
		sdt_marker_fetchargs(m, NULL, 0, &args, &warn, &err);
		printf("%s:%s  provider %s  name %s  offset 0x%llx  semaphore ",
		       group.buf, event.buf, m->provider, m->name,
		       (unsigned long long)m->pc_off);
		if (m->has_sema)
			printf("0x%llx\n", (unsigned long long)m->sema_off);
		else
			printf("none\n");
		printf("  arguments: %s\n", m->args);
		printf("  fetchargs:%s\n", args.len ? args.buf : " (none)");
		for (j = 0; j < m->argc; j++)
			if (!m->argv[j].fetch)
				printf("  left out:  arg%d (%s): %s\n", j + 1,
				       m->argv[j].text, m->argv[j].why);
		strbuf_release(&group);
		strbuf_release(&event);
		strbuf_release(&args);
		strbuf_release(&warn);
	}
	if (!shown)
		warning("%s: no SDT marker%s%s", exec, filter ? " matches " : "",
			filter ? filter : " (no .note.stapsdt)");
	sdt_markers_release(&ms);
	free(pglob);
	free(nglob);
	strbuf_release(&err);
	return TK_EXIT_OK;
}

static int tracefs_error_code(int ret)
{
	return ret == -EACCES || ret == -EPERM || ret == -ENOENT ? TK_EXIT_ENV : TK_EXIT_FAIL;
}

/* What one add request selects: markers by glob, argument requests. */
struct sdt_request {
	char *provider, *name;
	struct sdt_user_arg *ua;
	int nua;
	int ref_ctr;
	const struct probe_defs *defs;	/* NULL with -D: nothing is written */
};

/*
 * The definition of every marker site the request selects, in lines;
 * "  GROUP:EVENT (on PATH:0xOFF)" for each in names, the first GROUP/EVENT
 * in first.  Dies on a request that cannot be met.
 */
static int collect_definitions(const struct sdt_markers *ms, const char *path,
			       const struct sdt_request *rq, const char **lines,
			       struct strbuf *names, struct strbuf *first,
			       struct strbuf *warn)
{
	struct strbuf err = STRBUF_INIT;
	int i, n = 0;

	for (i = 0; i < ms->nr; i++) {
		const struct sdt_marker *m = &ms->v[i];
		struct strbuf group = STRBUF_INIT, event = STRBUF_INIT, def = STRBUF_INIT;

		if (!sdt_marker_matches(m, rq->provider, rq->name))
			continue;
		if (sdt_marker_event(ms, i, &group, &event, &err) ||
		    sdt_marker_definition(m, path, group.buf, event.buf, rq->ref_ctr,
					  rq->ua, rq->nua, &def, warn, &err))
			die("%s", err.buf);
		if (rq->defs && probe_event_exists(group.buf, event.buf))
			die("event %s:%s already exists (remove it with -d %s:%s)",
			    group.buf, event.buf, group.buf, event.buf);
		if (rq->defs && sdt_ref_ctr_conflict(rq->defs, path, m, rq->ref_ctr, &err))
			die("%s probes %s:0x%llx without semaphore offset 0x%llx (or with "
			    "another): the kernel allows one per place, remove it first",
			    err.buf, path, (unsigned long long)m->pc_off,
			    (unsigned long long)m->sema_off);
		if (!n)
			strbuf_addf(first, "%s:%s", group.buf, event.buf);
		strbuf_addf(names, "  %s:%s (on %s:0x%llx)\n", group.buf, event.buf,
			    path, (unsigned long long)m->pc_off);
		lines[n++] = strbuf_detach(&def, NULL);
		strbuf_release(&group);
		strbuf_release(&event);
	}
	strbuf_release(&err);
	return n;
}

/*
 * Defines (or with define_only prints) one event per marker site that
 * spec selects, with the user's argument requests applied to each.
 */
static int probe_sdt_add(const char *exec, const char *spec, const char *const *args,
			 int nargs, int define_only)
{
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT, names = STRBUF_INIT;
	struct strbuf first = STRBUF_INIT;
	struct sdt_request rq = { .nua = nargs };
	struct probe_defs defs = { 0 };
	struct sdt_markers ms;
	const char **lines;
	char *path;
	int i, n, ret;

	if (sdt_spec_parse(spec, &rq.provider, &rq.name, &err) != 1)
		die_code(TK_EXIT_USAGE, "%s%s", err.len ? err.buf : spec, err.len ? "" :
			 ": not an SDT event: write [%]sdt_PROVIDER:NAME or %PROVIDER:NAME");
	rq.ua = xcalloc(nargs ? nargs : 1, sizeof(*rq.ua));
	for (i = 0; i < nargs; i++)
		if (sdt_user_arg_parse(args[i], &rq.ua[i], &err))
			die_code(TK_EXIT_USAGE, "%s", err.buf);
	path = realpath(exec, NULL);
	if (!path)
		die_code(TK_EXIT_ENV, "%s: %s", exec, strerror(errno));
	read_markers(path, &ms);
	rq.ref_ctr = tk_features()->ref_ctr;
	if (!define_only) {
		if (!tk_features()->uprobe_events)
			die_code(TK_EXIT_ENV, "uprobe_events: not available (tracefs not "
				 "mounted, not root, or no CONFIG_UPROBE_EVENTS)");
		ret = probe_defs_read(&defs);
		if (ret)
			die_code(tracefs_error_code(ret), "cannot read probe definitions: %s",
				 strerror(-ret));
		rq.defs = &defs;
	}
	lines = xcalloc(ms.nr ? ms.nr : 1, sizeof(*lines));
	n = collect_definitions(&ms, path, &rq, lines, &names, &first, &warn);
	if (!n)
		die("no SDT marker in %s matches %s", path, spec);
	print_warnings(&warn);
	if (define_only) {
		for (i = 0; i < n; i++)
			printf("%s\n", lines[i]);
	} else {
		ret = probe_defs_add(PROBE_UPROBE, lines, n, 0, &err);
		if (ret)
			die_code(tracefs_error_code(ret), "%s", err.buf);
		printf("Added new event%s:\n%s\nYou can now record it:\n\n"
		       "\ttracekit record -e %s -- COMMAND\n",
		       n > 1 ? "s" : "", names.buf, first.buf);
	}
	for (i = 0; i < n; i++)
		free((char *)lines[i]);
	free(lines);
	for (i = 0; i < nargs; i++)
		sdt_user_arg_release(&rq.ua[i]);
	free(rq.ua);
	free(rq.provider);
	free(rq.name);
	sdt_markers_release(&ms);
	probe_defs_release(&defs);
	free(path);
	strbuf_release(&err);
	strbuf_release(&warn);
	strbuf_release(&names);
	strbuf_release(&first);
	return TK_EXIT_OK;
}

/*
 * SDT specs ("sdt_P:N", "%P:N") and DWARF specs take different paths; one
 * command line holds one kind.  Returns -1 when specs are not SDT.
 */
static int sdt_specs(const struct probe_opts *po, const struct opt_string_list *specs,
		     int define_only)
{
	int i, nsdt = 0, ret = TK_EXIT_OK;

	for (i = 0; i < specs->nr; i++)
		nsdt += probe_spec_is_sdt(specs->items[i]);
	if (!nsdt)
		return -1;
	if (nsdt != specs->nr)
		die_code(TK_EXIT_USAGE, "SDT and DWARF specs cannot be mixed in one command");
	if (!po->exec)
		die_code(TK_EXIT_USAGE, "%s: SDT events need -x BIN", specs->items[0]);
	for (i = 0; i < specs->nr && ret == TK_EXIT_OK; i++) {
		struct opt_string_list words = { 0 };
		char *copy = xstrdup(specs->items[i]), *tok, *save = NULL;

		/* perf's form: the event and its arguments in one word or several. */
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			opt_string_list_append(&words, tok);
		ret = probe_sdt_add(po->exec, words.items[0], words.items + 1,
				    words.nr - 1, define_only);
		opt_string_list_clear(&words);
		free(copy);
	}
	return ret;
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

	ret = sdt_specs(po, specs, define_only);
	if (ret >= 0)
		return ret;
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
	printf("\nYou can now record it:\n\n\ttracekit record -e %s:%s -- COMMAND\n",
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

static int do_list(const char *filter)
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
		char name[160];

		if (!own_group(d->group))
			continue;
		snprintf(name, sizeof(name), "%s:%s", d->group, d->event);
		if (filter && fnmatch(filter, strchr(filter, ':') ? name : d->event, 0))
			continue;
		/* The place and the fetchargs, as tracefs lists them. */
		printf("  %-30s (on %s)\n", name, place ? place + 1 : "?");
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
			 "list the probes in tracekit's groups (probe, probe_*, sdt_*), "
			 "or those matching a following GROUP:EVENT glob"),
		OPT_BOOL(0, "sdt", &po.sdt,
			 "list the SDT markers of -x: offsets, semaphore, arguments, "
			 "fetchargs (optionally matching sdt_PROVIDER:NAME)"),
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
	const char *list_glob = NULL;

	argc = parse_options(argc, argv, options, probe_usage, 0);
	/* Leftover words form one more spec, as in perf. */
	for (i = 0; i < argc; i++) {
		if (i)
			strbuf_addch(&rest, ' ');
		strbuf_addstr(&rest, argv[i]);
	}
	if (po.sdt) {
		if (!po.exec)
			die_code(TK_EXIT_USAGE, "--sdt needs -x BIN");
		if (argc > 1)
			die_code(TK_EXIT_USAGE, "--sdt takes one sdt_PROVIDER:NAME filter");
		ret = probe_sdt_list(po.exec, argc ? argv[0] : NULL);
		strbuf_release(&rest);
		return ret;
	}
	/* perf takes the filter of -l and -F as a separate word too. */
	if (po.list && argc == 1) {
		list_glob = argv[0];
		argc = 0;
		strbuf_reset(&rest);
	}
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
		ret = do_list(list_glob);
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
