// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit probe's -a and -D: the specs of one command line translated,
 * SDT specs on their own path, then their definitions printed or their
 * events added, all said into a struct probe_output (util/probe-add.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/parse-options.h"
#include "util/probe-add.h"
#include "util/probe-event.h"
#include "util/probe-spec.h"
#include "util/strbuf.h"
#include "util/usage.h"

static void say(struct probe_output *said, enum probe_say kind,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(struct probe_output *said, enum probe_say kind,
		const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	grow_array(said->v, said->nr, said->alloc, 16);
	said->v[said->nr].kind = kind;
	said->v[said->nr++].text = strbuf_detach(&sb, NULL);
}

void probe_output_release(struct probe_output *said)
{
	int i;

	for (i = 0; i < said->nr; i++)
		free(said->v[i].text);
	free(said->v);
	release_array(said->events, said->nr_events, free_ptr);
	memset(said, 0, sizeof(*said));
}

/* A failure of the command line: usage, not the probes. */
static int usage_error(struct probe_output *said, const char *msg)
{
	say(said, PROBE_SAY_ERROR, "%s", msg);
	said->usage = 1;
	return -EINVAL;
}

/* --call-graph: the capture arguments after the user's. */
static int add_call_graph(const struct probe_add_opts *o,
			  struct probe_events *evs, struct probe_output *said)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (o->call_graph &&
	    probe_events_call_graph(evs, o->call_graph, &err))
		ret = usage_error(said, err.buf);
	strbuf_release(&err);
	return ret;
}

static void say_warnings(struct probe_output *said, struct strbuf *warn)
{
	say(said, PROBE_SAY_WARN, "%s", warn->buf);
	strbuf_reset(warn);
}

/* -v: how the functions were found where it was not by their names. */
static void say_notes(const struct probe_events *evs, int verbose,
		      struct probe_output *said)
{
	int i;

	for (i = 0; verbose && i < evs->nr; i++)
		if (evs->v[i].note)
			say(said, PROBE_SAY_NOTE, "%s", evs->v[i].note);
}

/*
 * perf's --bootconfig: each kprobe as a key of the kernel's boot-time
 * tracing (Documentation/trace/boottime-trace.rst), whose kprobes are
 * all in the group "kprobes"; a return probe as PLACE%return, which
 * the kernel takes since 5.11 (perf 6.1 drops the return).
 */
static void say_bootconfig(const struct probe_event *ev,
			   struct probe_output *said)
{
	const char *place = strchrnul(ev->def.line, ' ');
	const char *args = *place ? strchrnul(place + 1, ' ') : place;

	say(said, PROBE_SAY_OUT, "ftrace.event.kprobes.%s.probe = '%.*s%s%s'\n",
	    ev->def.event, (int)(args - place - !!*place), place + !!*place,
	    ev->def.type == 'r' ? "%return" : "", args);
}

static void say_definitions(const struct probe_add_opts *o,
			    const struct probe_events *evs,
			    struct probe_output *said)
{
	int i;

	for (i = 0; i < evs->nr; i++)
		if (o->bootconfig)
			say_bootconfig(&evs->v[i], said);
		else
			say(said, PROBE_SAY_OUT, "%s\n", evs->v[i].def.line);
}

static void say_added(const struct probe_events *evs, int width,
		      struct probe_output *said)
{
	struct strbuf out = STRBUF_INIT;
	int i;

	/* An event inlined in several places has a line for each. */
	for (i = 0; i < evs->nr; i++) {
		const struct probe_def *d = &evs->v[i].def;

		strbuf_reset(&out);
		strbuf_addf(&out, "%s:%s", d->group, d->event);
		if (said->nr_events &&
		    !strcmp(said->events[said->nr_events - 1], out.buf))
			continue;
		grow_array(said->events, said->nr_events, said->alloc_events,
			   16);
		said->events[said->nr_events++] = strbuf_detach(&out, NULL);
	}

	probe_events_summary(evs, width, &out);
	say(said, PROBE_SAY_OUT, "%s", out.buf);
	strbuf_release(&out);
}

/* o->group's: each definition renamed into it before it is written. */
static void regroup(struct probe_events *evs, const char *group)
{
	int i;

	for (i = 0; group && i < evs->nr; i++) {
		struct probe_def *d = &evs->v[i].def;
		const char *rest = strchrnul(d->line, ' ');
		struct strbuf line = STRBUF_INIT;

		strbuf_addf(&line, "%c:%s/%s%s", d->type, group, d->event,
			    rest);
		free(d->line);
		d->line = strbuf_detach(&line, NULL);
		free(d->group);
		d->group = xstrdup(group);
	}
}

/* evs, all of one kind: printed with define_only, else added. */
static int print_or_add(const struct probe_add_opts *o,
			const struct probe_events *evs,
			struct probe_output *said)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (o->define_only) {
		say_definitions(o, evs, said);
	} else if (o->dry_run) {
		say_added(evs, 0, said);
	} else {
		ret = probe_events_add(evs->v[0].def.kind, evs, o->undo, &err);
		if (ret)
			say(said, PROBE_SAY_ERROR, "%s", err.buf);
		else
			say_added(evs, 0, said);
	}
	strbuf_release(&err);
	return ret;
}

/*
 * Defines (or with define_only prints) one event per marker site that
 * spec selects, with the user's argument requests applied to each.
 */
static int sdt_add(const struct probe_add_opts *o, const char *spec,
		   const char *const *args, int nargs,
		   struct probe_output *said)
{
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT;
	struct sdt_request rq;
	struct probe_events evs;
	int ret;

	ret = sdt_request_parse(&rq, spec, args, nargs, &err);
	if (ret) {
		ret = usage_error(said, err.buf);
		goto out;
	}
	ret = probe_events_sdt(o->exec, o->sysroot, spec, &rq, o->define_only,
			       &evs, &warn, &err);
	if (ret) {
		say(said, PROBE_SAY_ERROR, "%s", err.buf);
		goto out;
	}
	ret = add_call_graph(o, &evs, said);
	regroup(&evs, o->group);
	if (!ret) {
		say_warnings(said, &warn);
		ret = print_or_add(o, &evs, said);
	}
	probe_events_release(&evs);
out:
	sdt_request_release(&rq);
	strbuf_release(&err);
	strbuf_release(&warn);
	return ret;
}

/*
 * SDT specs ("sdt_P:N", "%P:N") and DWARF specs take different paths; one
 * command line holds one kind.
 */
static int sdt_specs(const struct probe_add_opts *o, const char *const *specs,
		     int nr, int nsdt, struct probe_output *said)
{
	struct strbuf msg = STRBUF_INIT;
	int i, ret = 0;

	if (nsdt != nr)
		return usage_error(said,
				   "SDT and DWARF specs cannot be mixed in one command");
	if (!o->exec) {
		strbuf_addf(&msg, "%s: SDT events need -x BIN", specs[0]);
		ret = usage_error(said, msg.buf);
		strbuf_release(&msg);
		return ret;
	}
	for (i = 0; i < nr && !ret; i++) {
		struct opt_string_list words = { 0 };
		char *copy = xstrdup(specs[i]), *tok, *save = NULL;

		/* perf's form: the event and its arguments, one word or more */
		for (tok = strtok_r(copy, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save))
			opt_string_list_append(&words, tok);
		ret = sdt_add(o, words.items[0], words.items + 1,
			      words.nr - 1, said);
		opt_string_list_clear(&words);
		free(copy);
	}
	return ret;
}

/*
 * Definitions as tracefs takes them, made elsewhere (probe --sysroot or
 * --btf on a build host): checked, then printed or written as they are,
 * with --call-graph's capture after the arguments of a uprobe.
 */
static int raw_specs(const struct probe_add_opts *o, const char *const *specs,
		     int nr, int nraw, struct probe_output *said)
{
	struct strbuf err = STRBUF_INIT;
	struct probe_events evs;
	int ret;

	if (nraw != nr)
		return usage_error(said, "definitions and specs cannot be mixed in one command");
	if (o->exec || o->module || o->vmlinux || o->btf)
		return usage_error(said, "a definition names its own place: no -x, -m, -k "
				   "or --btf with it");
	ret = probe_events_raw(specs, nr, &evs, &err);
	if (ret) {
		say(said, PROBE_SAY_ERROR, "%s", err.buf);
		goto out;
	}
	regroup(&evs, o->group);
	ret = add_call_graph(o, &evs, said);
	if (!ret)
		ret = print_or_add(o, &evs, said);
	probe_events_release(&evs);
out:
	strbuf_release(&err);
	return ret;
}

static int open_target(struct probe_target *t, const struct probe_add_opts *o,
		       struct probe_output *said)
{
	struct strbuf err = STRBUF_INIT;
	const struct probe_target_names n = {
		.exec = o->exec, .module = o->module, .vmlinux = o->vmlinux,
		.sysroot = o->sysroot, .btf = o->btf,
	};
	int ret = probe_target_open(t, &n, &err);

	if (ret)
		say(said, PROBE_SAY_ERROR, "%s", err.buf);
	else if (o->verbose)
		say(said, PROBE_SAY_NOTE, "types and locations from %s\n",
		    t->source);
	strbuf_release(&err);
	return ret;
}

/*
 * -D --keep-going: each spec on its own, so that one that does not
 * translate costs only its own line, on stderr, named by the spec.
 */
static int define_each(const struct probe_add_opts *o,
		       const struct probe_target *t, const char *const *specs,
		       int nr, const struct probe_opts *dopts,
		       struct probe_output *said)
{
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT;
	int i, failed = 0;

	for (i = 0; i < nr; i++) {
		struct probe_events evs;

		strbuf_reset(&err);
		if (probe_events_translate(t, &specs[i], 1, dopts, &evs, &warn,
					   &err)) {
			say(said, PROBE_SAY_ERROR, "'%s': %s", specs[i],
			    err.buf);
			failed++;
		} else {
			say_notes(&evs, o->verbose, said);
			say_definitions(o, &evs, said);
			probe_events_release(&evs);
		}
		say_warnings(said, &warn);
	}
	strbuf_release(&err);
	strbuf_release(&warn);
	return failed ? -EINVAL : 0;
}

/* DWARF (or BTF) specs on the target of o. */
static int dwarf_specs(const struct probe_add_opts *o, const char *const *specs,
		       int nr, struct probe_output *said)
{
	struct probe_target t;
	struct probe_opts dopts;
	struct probe_events evs = { 0 };
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT;
	int ret;

	if (open_target(&t, o, said))
		return -EINVAL;
	if (o->group) {
		free(t.group);
		t.group = xstrdup(o->group);
	}
	probe_target_opts(&t, o->force_regs, &dopts);
	dopts.no_inlines = o->no_inlines;
	/* -D shows what --force would add: like perf -D, no existing clash. */
	dopts.force = o->force || o->define_only;
	if (o->max_probes)
		dopts.max_probes = o->max_probes;
	if (o->define_only && o->keep_going) {
		ret = define_each(o, &t, specs, nr, &dopts, said);
		goto out;
	}
	ret = probe_events_translate(&t, specs, nr, &dopts, &evs, &warn, &err);
	say_warnings(said, &warn);
	if (ret) {
		say(said, PROBE_SAY_ERROR, "%s", err.buf);
		ret = -EINVAL;
		goto out;
	}
	say_notes(&evs, o->verbose, said);
	ret = add_call_graph(o, &evs, said);
	if (ret)
		goto out;
	if (o->define_only) {
		say_definitions(o, &evs, said);
		goto out;
	}
	if (o->dry_run) {
		say_added(&evs, 20, said);
		goto out;
	}
	ret = probe_events_write(&t, specs, nr, &dopts, o->undo, &evs, &warn,
				 &err);
	say_warnings(said, &warn);
	if (ret) {
		say(said, PROBE_SAY_ERROR, "%s", err.buf);
		goto out;
	}
	say_added(&evs, 20, said);
out:
	probe_events_release(&evs);
	strbuf_release(&err);
	strbuf_release(&warn);
	probe_target_close(&t);
	return ret;
}

int probe_add(const struct probe_add_opts *o, const char *const *specs,
	      int nr, struct probe_output *said)
{
	int i, nsdt = 0, nraw = 0;

	for (i = 0; i < nr; i++) {
		nsdt += probe_spec_is_sdt(specs[i]);
		nraw += probe_spec_is_raw(specs[i]);
	}
	if (nraw)
		return raw_specs(o, specs, nr, nraw, said);
	said->sdt = nsdt > 0;
	if (nsdt)
		return sdt_specs(o, specs, nr, nsdt, said);
	return dwarf_specs(o, specs, nr, said);
}

int probe_sdt_list(const char *exec, const char *sysroot, const char *filter,
		   struct probe_output *said)
{
	char *pglob = NULL, *nglob = NULL, *named, *file;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int n;

	if (filter && sdt_spec_parse(filter, &pglob, &nglob, &err) != 1) {
		n = usage_error(said, err.len ? err.buf :
				"--sdt filters by sdt_PROVIDER:NAME (globs allowed)");
		goto out;
	}
	n = probe_target_file(sysroot, exec, &named, &file, &err);
	if (n < 0) {
		say(said, PROBE_SAY_ERROR, "%s", err.buf);
		goto out;
	}
	free(named);
	n = sdt_markers_list(file, pglob, nglob, &out, &err);
	free(file);
	if (n < 0) {
		say(said, PROBE_SAY_ERROR, "%s", err.buf);
		goto out;
	}
	if (!n)
		say(said, PROBE_SAY_WARN, "%s: no SDT marker%s%s", exec,
		    filter ? " matches " : "",
		    filter ? filter : " (no .note.stapsdt)");
	say(said, PROBE_SAY_OUT, "%s", out.buf);
	n = 0;
out:
	free(pglob);
	free(nglob);
	strbuf_release(&out);
	strbuf_release(&err);
	return n;
}
