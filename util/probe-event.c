// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "util/array.h"
#include "util/callgraph.h"
#include "util/elf-addr.h"
#include "util/fetcharg.h"
#include "util/probe-btf.h"
#include "util/probe-dwarf.h"
#include "util/probe-event.h"
#include "util/probe-note.h"
#include "util/probe-spec.h"
#include "util/tracefs.h"
#include "util/usage.h"

static void event_release(struct probe_event *ev)
{
	probe_def_release(&ev->def);
	free(ev->where);
	free(ev->signed_fields);
	free(ev->note);
}

void probe_events_release(struct probe_events *evs)
{
	release_array(evs->v, evs->nr, event_release);
	memset(evs, 0, sizeof(*evs));
}

/* Takes line and where. */
static void event_push(struct probe_events *evs, enum probe_kind kind,
		       char type, const char *group, const char *event,
		       char *line, char *where)
{
	struct probe_event *ev;

	grow_array(evs->v, evs->nr, evs->alloc, 8);
	ev = &evs->v[evs->nr++];
	ev->def.kind = kind;
	ev->def.type = type;
	ev->def.group = xstrdup(group);
	ev->def.event = xstrdup(event);
	ev->def.line = line;
	ev->where = where;
	ev->signed_fields = NULL;
	ev->note = NULL;
}

static int def_named(const struct probe_def *d, const char *group,
		     const char *event)
{
	return !strcmp(d->group, group) && !strcmp(d->event, event);
}

/* group:event is in tracefs already. */
static int existing(const struct probe_target *t, const char *group,
		    const char *event)
{
	int i;

	for (i = 0; i < t->existing.nr; i++)
		if (def_named(&t->existing.v[i], group, event))
			return 1;
	return 0;
}

static int name_used(const struct probe_target *t,
		     const struct probe_events *evs, const char *group,
		     const char *event)
{
	int i;

	for (i = 0; i < evs->nr; i++)
		if (def_named(&evs->v[i].def, group, event))
			return 1;
	return existing(t, group, event);
}

/*
 * perf's default: FUNC, FUNC__return, FUNC_L<line>, then _1, _2... on clashes.
 */
/*
 * perf's names: an event that exists already is an error but with
 * force, where the name is numbered as one this run took is.  NULL with
 * err set for the error.
 */
static char *event_name(const struct probe_target *t,
			const struct probe_spec *spec, const char *func,
			const char *group, const struct probe_events *done,
			int force, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	size_t base;
	int i;

	if (spec->event) {
		strbuf_addstr(&sb, spec->event);
	} else {
		/* SRC:LINE's events are named by their functions alone. */
		probe_name_sanitize(&sb, func);
		if (spec->retprobe)
			strbuf_addstr(&sb, "__return");
		else if (spec->has_line && spec->func)
			strbuf_addf(&sb, "_L%d", spec->line);
		else if (spec->has_offset && spec->offset)
			strbuf_addf(&sb, "_%lu", spec->offset);
	}
	/* Room for a number. */
	if (sb.len > 58 && !spec->event)
		strbuf_setlen(&sb, 58);
	if (!force && existing(t, group, sb.buf)) {
		strbuf_addf(err, "event %s:%s already exists (remove it with -d %s:%s, or --force to add another)",
			    group, sb.buf, group, sb.buf);
		strbuf_release(&sb);
		return NULL;
	}
	/*
	 * EVENT= is as given, but for a wildcard's functions, which share
	 * it, numbered as perf does.
	 */
	if (spec->event && !spec->glob && !force)
		return strbuf_detach(&sb, NULL);
	base = sb.len;
	for (i = 1; name_used(t, done, group, sb.buf); i++) {
		strbuf_setlen(&sb, base);
		strbuf_addf(&sb, "_%d", i);
	}
	return strbuf_detach(&sb, NULL);
}

static void format_place(const struct probe_target *t,
			 const struct probe_point *pp, struct strbuf *sb)
{
	if (t->kind == PROBE_UPROBE) {
		strbuf_addf(sb, "%s:0x%llx", t->path, (unsigned long long)pp->file_off);
		return;
	}
	if (pp->module || t->modname)
		strbuf_addf(sb, "%s:", pp->module ? pp->module : t->modname);
	/*
	 * BTF knows no addresses: the kernel finds the symbol's entry itself.
	 */
	if (t->btf)
		strbuf_addstr(sb, pp->sym);
	else
		strbuf_addf(sb, "%s+%llu", pp->sym, (unsigned long long)pp->sym_off);
}

/* One definition line for probe point pp of spec, appended to evs. */
static int format_line(const struct probe_target *t,
		       const struct probe_spec *spec,
		       const struct probe_point *pp, const char *group,
		       const char *event, struct probe_events *evs,
		       struct strbuf *err)
{
	struct fetch_ctx fctx = { .kind = t->kind, .arch = t->arch,
				  .load_delta = pp->load_delta };
	struct strbuf line = STRBUF_INIT, where = STRBUF_INIT,
		      sig = STRBUF_INIT;
	int i, ret = 0;

	if (pp->nr_args > FETCH_MAX_ARGS) {
		strbuf_addf(err, "%s: %d arguments, the kernel takes at most %d", event,
			    pp->nr_args, FETCH_MAX_ARGS);
		return -E2BIG;
	}
	strbuf_addf(&line, "%c:%s/%s ", pp->retprobe ? 'r' : 'p', group, event);
	format_place(t, pp, &line);
	for (i = 0; i < pp->nr_args && !ret; i++)
		ret = fetch_arg_format(&pp->args[i], &fctx, &line, err);
	if (ret) {
		strbuf_release(&line);
		return ret;
	}
	strbuf_addf(&where, "%s%s in %s", pp->func, spec->retprobe ? "%return" : "", t->path);
	if (pp->module)
		strbuf_addf(&where, " [%s]", pp->module);
	event_push(evs, t->kind, pp->retprobe ? 'r' : 'p', group, event,
		   strbuf_detach(&line, NULL), strbuf_detach(&where, NULL));
	for (i = 0; i < pp->nr_args; i++)
		if (pp->args[i].signed_bits)
			strbuf_addf(&sig, "%s %d\n", pp->args[i].name, pp->args[i].signed_bits);
	evs->v[evs->nr - 1].signed_fields = strbuf_detach(&sig, NULL);
	return 0;
}

/*
 * The DWARF of the running kernel: each symbol probed must be one the
 * kernel takes, as probe-btf requires of a function (probe_ksyms_check).
 */
static int kernel_takes(const struct probe_target *t,
			const struct probe_point *pps, int nr,
			struct strbuf *err)
{
	int i, ret = 0;

	for (i = 0; i < nr && !ret; i++)
		ret = probe_ksyms_check(
			t->ksyms, pps[i].sym,
			pps[i].module ? pps[i].module : t->modname, err);
	return ret;
}

/* The events from first on, dropped: a spec that failed half way. */
static void events_truncate(struct probe_events *evs, int first)
{
	while (evs->nr > first)
		event_release(&evs->v[--evs->nr]);
}

/* A spec of one function (or SRC): its points, an event per function. */
static int translate_func(const struct probe_target *t,
			  const struct probe_spec *spec,
			  const struct probe_opts *dopts,
			  struct probe_events *evs, struct strbuf *warn,
			  struct strbuf *err)
{
	struct probe_point *pps;
	char *group, *event = NULL;
	int i, nr, ret, first;

	ret = t->btf ? probe_btf_resolve(t->btf, spec, dopts, &pps, &nr, warn,
					 err)
		     : probe_dwarf_resolve(t->dbg, spec, dopts, &pps, &nr,
					   warn, err);
	if (!ret && t->ksyms) {
		ret = kernel_takes(t, pps, nr, err);
		if (ret)
			probe_points_release(pps, nr);
	}
	if (ret)
		return ret;
	if (nr > 1 && tk_features()->readme && !tk_features()->multiprobe) {
		strbuf_addf(err, "%s has %d copies (inlined, or static in several files): this kernel cannot put several probes on one event",
			    pps[0].func, nr);
		ret = -ENOTSUP;
	}
	group = xstrdup(spec->group ? spec->group : t->group);
	first = evs->nr;
	for (i = 0; i < nr && !ret; i++) {
		/* An event per function: a SRC spec's points have several. */
		if (!i || (!spec->func && !spec->event &&
			   strcmp(pps[i].func, pps[i - 1].func))) {
			free(event);
			event = event_name(t, spec, pps[i].func, group, evs,
					   dopts->force, err);
			if (!event) {
				ret = -EEXIST;
				break;
			}
		}
		if (pps[i].skipped_prologue)
			strbuf_addf(warn, "%s is compiled without optimization: probing after its prologue (0x%llx), where its arguments are stored\n",
				    pps[i].func,
				    (unsigned long long)pps[i].addr);
		ret = format_line(t, spec, &pps[i], group, event, evs, err);
	}
	if (!ret && pps[0].note) {
		evs->v[first].note = pps[0].note;
		pps[0].note = NULL;
	}
	if (ret)
		events_truncate(evs, first);
	free(group);
	free(event);
	probe_points_release(pps, nr);
	return ret;
}

/*
 * A wildcard: each function it matches, an event each, as perf probes
 * them.  One that does not translate (it lacks a variable asked for,
 * the kernel refuses it) is left out with a warning: perf fetches a
 * dummy constant for a missing variable and skips blacklisted functions.
 */
static int translate_glob(const struct probe_target *t,
			  struct probe_spec *spec,
			  const struct probe_opts *dopts,
			  struct probe_events *evs, struct strbuf *warn,
			  struct strbuf *err)
{
	char *glob = spec->func;
	const char **names;
	int i, nr, done = 0, ret;

	ret = t->btf ? probe_btf_match_funcs(t->btf, glob, &names, &nr, err) :
	      probe_dwarf_match_funcs(t->dbg, glob, !dopts->no_inlines,
				      &names, &nr);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		struct strbuf why = STRBUF_INIT;

		spec->func = (char *)names[i];
		if (translate_func(t, spec, dopts, evs, warn, &why))
			strbuf_addf(warn, "%s: %s left out: %s\n", glob,
				    names[i], why.buf);
		else
			done++;
		strbuf_release(&why);
	}
	spec->func = glob;
	free(names);
	if (done)
		return 0;
	strbuf_addf(err, nr ? "%s: none of the %d functions it matches translates (the warnings say why)" :
		    "%s: no function with code matches", glob, nr);
	return -ENOENT;
}

static int translate(const struct probe_target *t, const char *text,
		     const struct probe_opts *dopts, struct probe_events *evs,
		     struct strbuf *warn, struct strbuf *err)
{
	struct probe_spec spec;
	int ret, first = evs->nr;

	ret = probe_spec_parse(text, &spec, err);
	if (ret)
		return ret;
	ret = spec.glob ? translate_glob(t, &spec, dopts, evs, warn, err) :
	      translate_func(t, &spec, dopts, evs, warn, err);
	if (!ret && evs->nr - first > dopts->max_probes) {
		strbuf_addf(err, "%s: %d probe points, more than %d (--max-probes)",
			    text, evs->nr - first, dopts->max_probes);
		ret = -E2BIG;
	}
	probe_spec_release(&spec);
	return ret;
}

int probe_events_translate(const struct probe_target *t,
			   const char *const *specs, int nr,
			   const struct probe_opts *dopts,
			   struct probe_events *evs, struct strbuf *warn,
			   struct strbuf *err)
{
	int i;

	memset(evs, 0, sizeof(*evs));
	evs->arch = t->arch;
	for (i = 0; i < nr; i++) {
		if (translate(t, specs[i], dopts, evs, warn, err)) {
			probe_events_release(evs);
			return -EINVAL;
		}
	}
	return 0;
}

/* The fetchargs of a definition line "p:G/E PLACE ARG...": the words after PLACE. */
static int count_args(const char *line)
{
	int n = -2;

	while (*line) {
		line += strspn(line, " ");
		if (*line)
			n++;
		line += strcspn(line, " ");
	}
	return n < 0 ? 0 : n;
}

int probe_events_call_graph(struct probe_events *evs, unsigned int stack_size,
			    struct strbuf *err)
{
	struct strbuf capture = STRBUF_INIT, line = STRBUF_INIT;
	int i, nr, ret = 0;

	if (!evs->arch) {
		strbuf_addstr(err, "--call-graph: this machine is none tracekit knows the registers of");
		return -EOPNOTSUPP;
	}
	nr = callgraph_fetch_args(evs->arch, stack_size, &capture);
	for (i = 0; i < evs->nr && !ret; i++) {
		struct probe_def *d = &evs->v[i].def;

		if (d->kind != PROBE_UPROBE) {
			strbuf_addf(err, "%s:%s: --call-graph unwinds user stacks: uprobes only",
				    d->group, d->event);
			ret = -EINVAL;
		} else if (strstr(d->line, " " CALLGRAPH_PREFIX)) {
			strbuf_addf(err, "%s:%s: argument names starting with %s are --call-graph's",
				    d->group, d->event, CALLGRAPH_PREFIX);
			ret = -EINVAL;
		} else if (count_args(d->line) + nr > FETCH_MAX_ARGS) {
			strbuf_addf(err, "%s:%s: %d arguments and %d for --call-graph, the kernel "
				    "takes at most %d", d->group, d->event, count_args(d->line),
				    nr, FETCH_MAX_ARGS);
			ret = -E2BIG;
		} else {
			strbuf_reset(&line);
			strbuf_addstr(&line, d->line);
			strbuf_add(&line, capture.buf, capture.len);
			free(d->line);
			d->line = strbuf_detach(&line, NULL);
		}
	}
	strbuf_release(&capture);
	strbuf_release(&line);
	return ret;
}

int probe_events_add(enum probe_kind kind, const struct probe_events *evs,
		     int undo, struct strbuf *err)
{
	const char **lines = xcalloc(evs->nr ? evs->nr : 1, sizeof(*lines));
	int i, ret;

	for (i = 0; i < evs->nr; i++)
		lines[i] = evs->v[i].def.line;
	ret = probe_defs_add(kind, lines, evs->nr, undo, err);
	free(lines);
	return ret;
}

/*
 * The notes of the events just added, from the lines tracefs lists (the
 * kernel writes the place its own way: 0x0000000000001139).  An event of
 * several copies has one line per copy and one note.
 */
static void write_notes(const struct probe_events *evs, struct strbuf *warn)
{
	struct strbuf err = STRBUF_INIT;
	struct probe_defs defs;
	int i, ret = probe_defs_read(&defs);

	for (i = 0; i < evs->nr; i++) {
		const struct probe_event *ev = &evs->v[i];

		if (i &&
		    def_named(&evs->v[i - 1].def, ev->def.group, ev->def.event))
			continue;
		if (ret)
			strbuf_addf(&err, "%s: cannot read: %s", probe_kind_file(ev->def.kind),
				    strerror(-ret));
		else if (!probe_note_write(&defs, ev->def.group, ev->def.event,
					   ev->signed_fields, &err))
			continue;
		if (*ev->signed_fields)
			strbuf_addf(warn, "%s:%s: no note of its signed bitfields (%s): they read unsigned\n",
				    ev->def.group, ev->def.event, err.buf);
		strbuf_reset(&err);
	}
	if (!ret)
		probe_defs_release(&defs);
	strbuf_release(&err);
}

int probe_events_write(const struct probe_target *t, const char *const *specs,
		       int nr, struct probe_opts *dopts, int undo,
		       struct probe_events *evs, struct strbuf *warn,
		       struct strbuf *err)
{
	const struct tk_features *f = tk_features();
	struct strbuf why = STRBUF_INIT;
	const char *first;
	size_t len;
	int ret;

	if (!f->tracefs || !(t->kind == PROBE_KPROBE ? f->kprobe_events :
			     f->uprobe_events)) {
		strbuf_addf(err, "%s is not available on this kernel",
			    probe_kind_file(t->kind));
		return -ENODEV;
	}
	ret = probe_events_add(t->kind, evs, undo, &why);
	first = why.buf + strspn(why.buf, "\n");
	len = strcspn(first, "\n");

	/*
	 * A kernel that lists $arg<N> in README may still refuse it at a
	 * place it cannot see as a function entry ("$arg* can be used only
	 * on function entry"): then registers.  Only for that: the first
	 * line of error_log is the kernel's reason, and one about the probe
	 * itself (a notrace function, a name not unique) stays an error.
	 */
	if (ret && dopts->argn && (memmem(first, len, "$arg", 4) ||
				   memmem(first, len, "$-valiable", 10))) {
		strbuf_addf(warn, "the kernel refused $argN (%.*s); using registers\n",
			    (int)len, first);
		probe_events_release(evs);
		strbuf_reset(&why);
		dopts->argn = 0;
		ret = probe_events_translate(t, specs, nr, dopts, evs, warn,
					     err);
		if (ret)
			goto out;
		ret = probe_events_add(t->kind, evs, undo, &why);
	}
	if (ret)
		strbuf_addf(err, "cannot add probes: %s", why.buf);
	else
		write_notes(evs, warn);
out:
	strbuf_release(&why);
	return ret;
}

/* The checks of one marker site before it may be written; -errno with err. */
static int sdt_site_check(const struct sdt_marker *m, const char *path,
			  const char *group, const char *event, int ref_ctr,
			  const struct probe_defs *defs, struct strbuf *err)
{
	struct strbuf who = STRBUF_INIT;

	if (probe_name_taken(group, event)) {
		strbuf_addf(err, "event %s:%s already exists (remove it with -d %s:%s)",
			    group, event, group, event);
		return -EEXIST;
	}
	if (sdt_ref_ctr_conflict(defs, path, m, ref_ctr, &who)) {
		strbuf_addf(err, "%s probes %s:0x%llx without semaphore offset 0x%llx (or with "
			    "another): the kernel allows one per place, remove it first",
			    who.buf, path, (unsigned long long)m->pc_off,
			    (unsigned long long)m->sema_off);
		strbuf_release(&who);
		return -EBUSY;
	}
	return 0;
}

int probe_events_from_sdt(const struct sdt_markers *ms, const char *path,
			  const struct sdt_request *rq, int ref_ctr,
			  const struct probe_defs *defs,
			  struct probe_events *evs, struct strbuf *warn,
			  struct strbuf *err)
{
	int i, ret = 0;

	memset(evs, 0, sizeof(*evs));
	evs->arch = ms->arch;
	for (i = 0; i < ms->nr && !ret; i++) {
		const struct sdt_marker *m = &ms->v[i];
		struct strbuf group = STRBUF_INIT, event = STRBUF_INIT,
			      def = STRBUF_INIT;
		struct strbuf where = STRBUF_INIT;

		if (!sdt_marker_matches(m, rq->provider, rq->name))
			continue;
		ret = sdt_marker_event(ms, i, &group, &event, err);
		if (!ret)
			ret = sdt_marker_definition(m, path, group.buf,
						    event.buf, ref_ctr, rq->ua,
						    rq->nua, &def, warn, err);
		if (!ret && defs)
			ret = sdt_site_check(m, path, group.buf, event.buf,
					     ref_ctr, defs, err);
		if (!ret) {
			strbuf_addf(&where, "%s:0x%llx", path, (unsigned long long)m->pc_off);
			event_push(evs, PROBE_UPROBE, 'p', group.buf, event.buf,
				   strbuf_detach(&def, NULL),
				   strbuf_detach(&where, NULL));
		}
		strbuf_release(&group);
		strbuf_release(&event);
		strbuf_release(&def);
	}
	if (ret)
		probe_events_release(evs);
	return ret;
}

int probe_events_sdt(const char *exec, const char *sysroot, const char *spec,
		     const struct sdt_request *rq, int define_only,
		     struct probe_events *evs, struct strbuf *warn,
		     struct strbuf *err)
{
	struct probe_defs defs = { 0 };
	struct sdt_markers ms;
	char *path, *file;
	int ret;

	ret = probe_target_file(sysroot, exec, &path, &file, err);
	if (ret)
		return ret;
	ret = sdt_markers_read(file, &ms, err);
	free(file);
	if (ret)
		goto out_path;
	if (!define_only) {
		if (!tk_features()->uprobe_events) {
			strbuf_addstr(err, "uprobe_events: not available "
				      "(tracefs not mounted, not root, or no "
				      "CONFIG_UPROBE_EVENTS)");
			ret = -ENODEV;
			goto out;
		}
		ret = probe_defs_read(&defs);
		if (ret) {
			strbuf_addf(err, "cannot read probe definitions: %s",
				    strerror(-ret));
			goto out;
		}
	}
	/* Its -errno is the site's reason, not the run's: one failure. */
	if (probe_events_from_sdt(&ms, path, rq, tk_features()->ref_ctr,
				  define_only ? NULL : &defs, evs, warn, err)) {
		ret = -EINVAL;
		goto out;
	}
	if (!evs->nr) {
		strbuf_addf(err, "no SDT marker in %s matches %s", path, spec);
		ret = -ENOENT;
	}
out:
	sdt_markers_release(&ms);
	probe_defs_release(&defs);
out_path:
	free(path);
	return ret;
}

/*
 * A register a fetcharg of def names ("%di" at s, len bytes with the
 * '%'): refused when it is another machine's, as definitions made for
 * an arm64 target and written on x86 would be; the kernel judges the
 * rest ("Invalid register name" in error_log).
 */
static int check_register(const char *def, const char *s, size_t len,
			  const struct arch *mine, struct strbuf *err)
{
	const struct arch *other = arch_other_reg(mine, s + 1, len - 1);

	if (!other)
		return 0;
	strbuf_addf(err, "%s: %.*s is a register of %s, this kernel is %s",
		    def, (int)len, s, other->name, mine->name);
	return -EINVAL;
}

/* uprobes: PATH:0xOFF[(0xREF)], OFF in an executable segment of PATH. */
static int check_uprobe_place(const char *def, const char *place, size_t len,
			      struct strbuf *err)
{
	char *path = xstrndup(place, len), *colon = strrchr(path, ':'), *end;
	unsigned long long off;
	int fd, e, ret = -EINVAL;
	size_t i, n;
	Elf *elf;

	if (!colon || strncmp(colon, ":0x", 3)) {
		strbuf_addf(err, "%s: '%s' is not PATH:0xOFFSET", def, path);
		goto out;
	}
	*colon = '\0';
	off = strtoull(colon + 3, &end, 16);
	if (end == colon + 3 || (*end && *end != '(')) {
		strbuf_addf(err, "%s: bad offset '%s'", def, colon + 1);
		goto out;
	}
	elf = elf_addr_open_file(path, &fd, &e);
	if (!elf) {
		strbuf_addf(err, "%s: %s: %s", def, path,
			    e == -EINVAL ? "not an ELF file" : strerror(-e));
		goto out;
	}
	if (!elf_getphdrnum(elf, &n))
		for (i = 0; i < n && ret; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) && off >= ph.p_offset &&
			    off < ph.p_offset + ph.p_filesz)
				ret = 0;
		}
	elf_addr_close_file(elf, fd);
	if (ret)
		strbuf_addf(err, "%s: offset 0x%llx is in no executable segment of %s",
			    def, off, path);
out:
	free(path);
	return ret;
}

#define REG_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

/*
 * The checks of probe_events_raw() on one line, mine the running
 * kernel's architecture (NULL: unknown); its kind into *kind, its place
 * into *place (len *len).
 */
static int check_raw(const char *line, const struct arch *mine,
		     enum probe_kind *kind, const char **place, size_t *plen,
		     struct probe_def *d, struct strbuf *err)
{
	const char *p;
	size_t len;
	int nargs = 0;

	for (p = line; *p; p++)
		if ((unsigned char)*p < ' ' || *p == '"' || *p == '\'') {
			strbuf_addf(err, "%s: control characters and quotes have no place in a definition",
				    line);
			return -EINVAL;
		}
	*place = line + strcspn(line, " \t");
	*place += strspn(*place, " \t");
	*plen = len = strcspn(*place, " \t");
	*kind = **place == '/' ? PROBE_UPROBE : PROBE_KPROBE;
	if (probe_def_parse(line, *kind, d) || !len) {
		strbuf_addf(err, "%s: not [p|r[MAXACTIVE]]:GROUP/EVENT PLACE [ARG...]", line);
		return -EINVAL;
	}
	if (!probe_name_valid(d->group) || !probe_name_valid(d->event)) {
		strbuf_addf(err, "%s: GROUP and EVENT are C identifiers below 64 characters",
			    line);
		return -EINVAL;
	}
	if (*kind == PROBE_UPROBE && line[1] != ':') {
		strbuf_addf(err, "%s: MAXACTIVE is for kretprobes, not uprobes", line);
		return -EINVAL;
	}
	if (*kind == PROBE_UPROBE && check_uprobe_place(line, *place, len, err))
		return -EINVAL;
	for (p = *place + len; *(p += strspn(p, " \t")); p += len) {
		const char *eq, *r;
		char name[FETCH_MAX_ARG_NAME_LEN + 1];

		len = strcspn(p, " \t");
		eq = memchr(p, '=', len);
		if (++nargs > FETCH_MAX_ARGS || !eq) {
			strbuf_addf(err, "%s: '%.*s': %s", line, (int)len, p,
				    eq ? "past the kernel's 128 arguments" :
				    "an argument is NAME=FETCHARG[:TYPE]");
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
		if ((size_t)(eq - p) >= sizeof(name) ||
		    !fetch_arg_name_valid(name)) {
			strbuf_addf(err, "%s: '%.*s': not an argument name the kernel takes",
				    line, (int)(eq - p), p);
			return -EINVAL;
		}
		if (*kind == PROBE_UPROBE && memmem(eq, p + len - eq, "$arg", 4)) {
			strbuf_addf(err, "%s: '%.*s': uprobes take no $argN (the kernel allows it at kernel function entries only)",
				    line, (int)len, p);
			return -EINVAL;
		}
		for (r = eq; mine && (r = memchr(r, '%', p + len - r)); r++)
			if (check_register(line, r,
					   1 + strspn(r + 1, REG_CHARS), mine,
					   err))
				return -EINVAL;
	}
	return 0;
}

int probe_events_raw(const char *const *lines, int nr, struct probe_events *evs,
		     struct strbuf *err)
{
	enum probe_kind kind, first = PROBE_KPROBE;
	struct strbuf why = STRBUF_INIT;
	const struct arch *mine = arch_of_kernel(&why);
	const char *place;
	size_t len;
	int i;

	strbuf_release(&why);
	memset(evs, 0, sizeof(*evs));
	/* What the registers are checked against: --call-graph's too. */
	evs->arch = mine;
	for (i = 0; i < nr; i++) {
		struct probe_def d = { 0 };

		if (check_raw(lines[i], mine, &kind, &place, &len, &d, err)) {
			probe_def_release(&d);
			probe_events_release(evs);
			return -EINVAL;
		}
		if (i && kind != first) {
			strbuf_addstr(err, "kprobe and uprobe definitions go in one command each");
			probe_def_release(&d);
			probe_events_release(evs);
			return -EINVAL;
		}
		first = kind;
		event_push(evs, kind, d.type, d.group, d.event, xstrdup(d.line),
			   xstrndup(place, len));
		probe_def_release(&d);
	}
	return 0;
}

void probe_events_summary(const struct probe_events *evs, int width,
			  struct strbuf *out)
{
	const struct probe_event *v = evs->v;
	int i;

	strbuf_addf(out, "Added new event%s:\n", evs->nr > 1 ? "s" : "");
	for (i = 0; i < evs->nr; i++)
		if (!i || strcmp(v[i].def.event, v[i - 1].def.event) ||
		    strcmp(v[i].def.group, v[i - 1].def.group))
			strbuf_addf(out, "  %s:%-*s (on %s)\n", v[i].def.group,
				    width, v[i].def.event, v[i].where);
	strbuf_addf(out, "\nYou can now record it:\n\n"
		    "\ttracekit record -e %s:%s -- COMMAND\n",
		    v[0].def.group, v[0].def.event);
}

/* Groups `tracekit probe` creates (perf's too): probe, probe_BIN, sdt_PROV. */
static int own_group(const char *g)
{
	return !strcmp(g, "probe") || !strncmp(g, "probe_", 6) || !strncmp(g, "sdt_", 4);
}

int probe_events_list(const char *filter, struct strbuf *out)
{
	struct probe_defs defs;
	int i, ret = probe_defs_read(&defs);

	if (ret)
		return ret;
	for (i = 0; i < defs.nr; i++) {
		const struct probe_def *d = &defs.v[i];
		const char *place = strchr(d->line, ' ');
		char name[160];

		if (!own_group(d->group))
			continue;
		snprintf(name, sizeof(name), "%s:%s", d->group, d->event);
		if (filter &&
		    fnmatch(filter, strchr(filter, ':') ? name : d->event, 0))
			continue;
		/* The place and the fetchargs, as tracefs lists them. */
		strbuf_addf(out, "  %-30s (on %s)\n", name, place ? place + 1 : "?");
	}
	probe_defs_release(&defs);
	return 0;
}

/* The notes of the "GROUP:EVENT\n" lines of names. */
static void remove_notes(const char *names)
{
	char *copy = xstrdup(names), *line, *save = NULL, *colon;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		probe_note_remove(line, colon + 1);
	}
	free(copy);
}

int probe_events_del(const char *const *globs, int nr, struct strbuf *deleted,
		     struct strbuf *err)
{
	int i, ret, total = 0;

	for (i = 0; i < nr; i++) {
		size_t len = deleted->len;

		ret = probe_defs_del(globs[i], deleted, err);
		if (ret < 0) {
			/* A glob that fails is reported by its error alone. */
			strbuf_setlen(deleted, len);
			return ret;
		}
		remove_notes(deleted->buf + len);
		total += ret;
	}
	return total;
}
