// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit probe: the SDT side (perf's option letters).  The functions
 * probe_sdt_list(), probe_sdt_add(), probe_list() and probe_del() take
 * parsed options, so that they sit beside the DWARF side unchanged.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/parse-options.h"
#include "util/probe-file.h"
#include "util/probe-sdt.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
#include "util/usage.h"

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
			strbuf_addf(first, "%s/%s", group.buf, event.buf);
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
		printf("Added new event%s:\n%s\nEnable with: echo 1 > %s/events/%s/enable\n",
		       n > 1 ? "s" : "", names.buf, tk_tracefs_dir(), first.buf);
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

/* -l: the probe events defined in tracefs, GROUP:EVENT matching filter. */
static int probe_list(const char *filter)
{
	struct probe_defs defs;
	int i, ret;

	ret = probe_defs_read(&defs);
	if (ret)
		die_code(tracefs_error_code(ret), "cannot read probe definitions: %s",
			 strerror(-ret));
	for (i = 0; i < defs.nr; i++) {
		const struct probe_def *d = &defs.v[i];
		struct strbuf full = STRBUF_INIT;
		const char *place = strchr(d->line, ' ');

		strbuf_addf(&full, "%s:%s", d->group, d->event);
		if (!filter || !fnmatch(filter, strchr(filter, ':') ? full.buf : d->event, 0))
			printf("  %-30s (on %s)\n", full.buf, place ? place + 1 : "?");
		strbuf_release(&full);
	}
	probe_defs_release(&defs);
	return TK_EXIT_OK;
}

/* -d: deletes every event matching one of the globs. */
static int probe_del(const struct opt_string_list *globs)
{
	struct strbuf deleted = STRBUF_INIT, err = STRBUF_INIT;
	const char *p;
	int i, n;

	for (i = 0; i < globs->nr; i++) {
		n = probe_defs_del(globs->items[i], &deleted, &err);
		for (p = deleted.buf; *p; p = strchr(p, '\n') + 1)
			printf("Removed event: %.*s\n", (int)strcspn(p, "\n"), p);
		strbuf_reset(&deleted);
		if (n < 0)
			die_code(tracefs_error_code(n), "%s", err.buf);
		if (!n)
			warning("no event matches %s", globs->items[i]);
	}
	strbuf_release(&deleted);
	strbuf_release(&err);
	return TK_EXIT_OK;
}

static const char *const probe_usage[] = {
	"tracekit probe -x BIN [-D | -a] [%]sdt_PROVIDER:NAME [[NAME=]argN[:TYPE]...]",
	"tracekit probe -x BIN --sdt [sdt_PROVIDER:NAME]",
	"tracekit probe -l [GROUP:EVENT]",
	"tracekit probe -d GROUP:EVENT...",
	NULL
};

struct list_opt {
	int set;
	const char *filter;
};

static int opt_list(const struct option *opt, const char *arg, int unset)
{
	struct list_opt *l = opt->value;

	l->set = !unset;
	l->filter = arg;
	return 0;
}

int cmd_probe(int argc, const char **argv)
{
	const char *exec = NULL, *def = NULL, *add = NULL, *spec;
	struct opt_string_list dels = { 0 };
	struct list_opt list = { 0 };
	struct strbuf words = STRBUF_INIT;
	struct opt_string_list specargs = { 0 };
	int sdt = 0, i, ret;
	char *tok, *save;
	const struct option options[] = {
		OPT_STRING('x', "exec", &exec, "PATH",
			   "the executable or shared library whose SDT markers to probe"),
		OPT_STRING('D', "definition", &def, "EVENT",
			   "print the uprobe definitions of EVENT instead of adding them"),
		OPT_STRING('a', "add", &add, "EVENT",
			   "add the events of EVENT ([%]sdt_PROVIDER:NAME, globs allowed)"),
		{ .type = OPTION_CALLBACK, .short_name = 'l', .long_name = "list",
		  .value = &list, .argh = "GROUP:EVENT", .callback = opt_list,
		  .flags = PARSE_OPT_OPTARG,
		  .help = "list the probe events in tracefs (with --sdt: the markers of -x)" },
		OPT_STRING_LIST('d', "del", &dels, "GROUP:EVENT",
				"delete the events matching the glob (repeatable)"),
		OPT_BOOL(0, "sdt", &sdt,
			 "list the SDT markers of -x: offsets, semaphore, arguments and fetchargs"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, probe_usage, 0);
	if (sdt) {
		if (!exec)
			die_code(TK_EXIT_USAGE, "--sdt needs -x BIN");
		if (argc > 1 || (argc && list.filter))
			die_code(TK_EXIT_USAGE, "--sdt takes one sdt_PROVIDER:NAME filter");
		return probe_sdt_list(exec, list.filter ? list.filter : argc ? argv[0] : NULL);
	}
	if (list.set) {
		/* perf's "-l GLOB": the filter may also be the next word. */
		if (argc > 1 || (argc && list.filter))
			die_code(TK_EXIT_USAGE, "-l takes one GROUP:EVENT filter");
		return probe_list(list.filter ? list.filter : argc ? argv[0] : NULL);
	}
	if (dels.nr) {
		if (argc || def || add)
			die_code(TK_EXIT_USAGE, "-d cannot be combined with adding events");
		ret = probe_del(&dels);
		opt_string_list_clear(&dels);
		return ret;
	}
	if (def && add)
		die_code(TK_EXIT_USAGE, "-D and -a are exclusive");
	/* perf's form: the event and its arguments may be one quoted word. */
	spec = def ? def : add;
	if (spec)
		strbuf_addstr(&words, spec);
	for (i = 0; i < argc; i++)
		strbuf_addf(&words, "%s%s", words.len ? " " : "", argv[i]);
	for (tok = strtok_r(words.buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		opt_string_list_append(&specargs, tok);
	if (!specargs.nr)
		usage_with_options(probe_usage, options);
	if (!exec)
		die_code(TK_EXIT_USAGE, "%s: SDT events need -x BIN", specargs.items[0]);
	ret = probe_sdt_add(exec, specargs.items[0], specargs.items + 1, specargs.nr - 1,
			    def != NULL);
	opt_string_list_clear(&specargs);
	strbuf_release(&words);
	return ret;
}
