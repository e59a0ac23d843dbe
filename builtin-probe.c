// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit probe: perf-probe compatible front end.  The options pick an
 * action; util/probe-event translates the specs (util/probe-spec ->
 * util/probe-dwarf or util/probe-sdt -> util/fetcharg) into tracefs
 * definition lines, all of them before anything is written, which are
 * printed (-D) or added all-or-nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/callgraph.h"
#include "util/fetcharg.h"
#include "util/parse-options.h"
#include "util/probe-event.h"
#include "util/probe-target.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
#include "util/usage.h"

struct probe_cmd_opts {
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
	int verbose;
	int keep_going;
	unsigned int call_graph;	/* bytes of stack to capture, 0: none */
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
	struct probe_cmd_opts *po = opt->value;

	po->funcs = !unset;
	po->funcs_glob = arg;
	return 0;
}

static int call_graph_cb(const struct option *opt, const char *arg, int unset)
{
	struct probe_cmd_opts *po = opt->value;

	if (unset)
		po->call_graph = 0;
	else if (callgraph_parse_size(arg, &po->call_graph))
		die_code(TK_EXIT_USAGE, "--call-graph: '%s': the stack size is "
			 "a multiple of 8 bytes, 8 to %d", arg,
			 CALLGRAPH_MAX_STACK);
	return 0;
}

/* --call-graph: the capture arguments after the user's. */
static void add_call_graph(const struct probe_cmd_opts *po, struct probe_events *evs)
{
	struct strbuf err = STRBUF_INIT;

	if (po->call_graph && probe_events_call_graph(evs, po->call_graph, &err))
		die_code(TK_EXIT_USAGE, "%s", err.buf);
	strbuf_release(&err);
}

static void print_warnings(struct strbuf *warn)
{
	warning_lines(warn->buf);
	strbuf_reset(warn);
}

/* -v: how the functions were found where it was not by their names. */
static void print_notes(const struct probe_events *evs, int verbose)
{
	int i;

	for (i = 0; verbose && i < evs->nr; i++)
		if (evs->v[i].note)
			fputs(evs->v[i].note, stderr);
}

static void print_definitions(const struct probe_events *evs)
{
	int i;

	for (i = 0; i < evs->nr; i++)
		printf("%s\n", evs->v[i].def.line);
}

static void print_added(const struct probe_events *evs, int width)
{
	struct strbuf out = STRBUF_INIT;

	probe_events_summary(evs, width, &out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
}

/* --sdt: the markers of exec whose sdt_PROVIDER:NAME matches filter. */
static int sdt_list(const char *exec, const char *filter)
{
	char *pglob = NULL, *nglob = NULL;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int n;

	if (filter && sdt_spec_parse(filter, &pglob, &nglob, &err) != 1)
		die_code(TK_EXIT_USAGE, "%s", err.len ? err.buf :
			 "--sdt filters by sdt_PROVIDER:NAME (globs allowed)");
	n = sdt_markers_list(exec, pglob, nglob, &out, &err);
	if (n < 0)
		die_code(tk_exit_code(n), "%s", err.buf);
	if (!n)
		warning("%s: no SDT marker%s%s", exec,
			filter ? " matches " : "",
			filter ? filter : " (no .note.stapsdt)");
	fputs(out.buf, stdout);
	free(pglob);
	free(nglob);
	strbuf_release(&out);
	strbuf_release(&err);
	return TK_EXIT_OK;
}

/*
 * Defines (or with define_only prints) one event per marker site that
 * spec selects, with the user's argument requests applied to each.
 */
static int sdt_add(const struct probe_cmd_opts *po, const char *spec,
		   const char *const *args, int nargs, int define_only)
{
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT;
	struct sdt_request rq;
	struct probe_events evs;
	int ret;

	if (sdt_request_parse(&rq, spec, args, nargs, &err))
		die_code(TK_EXIT_USAGE, "%s", err.buf);
	ret = probe_events_sdt(po->exec, spec, &rq, define_only, &evs, &warn,
			       &err);
	if (ret)
		die_code(tk_exit_code(ret), "%s", err.buf);
	add_call_graph(po, &evs);
	print_warnings(&warn);
	if (define_only) {
		print_definitions(&evs);
	} else {
		ret = probe_events_add(PROBE_UPROBE, &evs, &err);
		if (ret)
			die_code(tk_exit_code(ret), "%s", err.buf);
		print_added(&evs, 0);
	}
	probe_events_release(&evs);
	sdt_request_release(&rq);
	strbuf_release(&err);
	strbuf_release(&warn);
	return TK_EXIT_OK;
}

/*
 * SDT specs ("sdt_P:N", "%P:N") and DWARF specs take different paths; one
 * command line holds one kind.  Returns -1 when specs are not SDT.
 */
static int sdt_specs(const struct probe_cmd_opts *po, const struct opt_string_list *specs,
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
		ret = sdt_add(po, words.items[0], words.items + 1,
			      words.nr - 1, define_only);
		opt_string_list_clear(&words);
		free(copy);
	}
	return ret;
}

static int open_target(struct probe_target *t, const struct probe_cmd_opts *po)
{
	struct strbuf err = STRBUF_INIT;
	int ret = probe_target_open(t, po->exec, po->module, po->vmlinux, &err);

	if (ret)
		error("%s", err.buf);
	else if (po->verbose)
		fprintf(stderr, "types and locations from %s\n", t->source);
	strbuf_release(&err);
	return ret;
}

/*
 * -D --keep-going: each spec on its own, so that one that does not
 * translate costs only its own line, on stderr, named by the spec.
 */
static int define_each(const struct probe_target *t, const struct opt_string_list *specs,
		       const struct probe_opts *dopts, int verbose)
{
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT;
	int i, failed = 0;

	for (i = 0; i < specs->nr; i++) {
		struct probe_events evs;

		strbuf_reset(&err);
		if (probe_events_translate(t, &specs->items[i], 1, dopts, &evs, &warn, &err)) {
			error("'%s': %s", specs->items[i], err.buf);
			failed++;
		} else {
			print_notes(&evs, verbose);
			print_definitions(&evs);
			probe_events_release(&evs);
		}
		print_warnings(&warn);
	}
	strbuf_release(&err);
	strbuf_release(&warn);
	return failed ? TK_EXIT_FAIL : TK_EXIT_OK;
}

static int do_add(struct probe_cmd_opts *po, const struct opt_string_list *specs, int define_only)
{
	struct probe_target t;
	struct probe_opts dopts;
	struct probe_events evs = { 0 };
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT;
	int ret;

	ret = sdt_specs(po, specs, define_only);
	if (ret >= 0)
		return ret;
	if (open_target(&t, po))
		return TK_EXIT_FAIL;
	probe_target_opts(&t, po->force_regs, &dopts);
	if (define_only && po->keep_going) {
		ret = define_each(&t, specs, &dopts, po->verbose);
		goto out;
	}
	ret = probe_events_translate(&t, specs->items, specs->nr, &dopts, &evs, &warn, &err);
	print_warnings(&warn);
	if (ret) {
		error("%s", err.buf);
		ret = TK_EXIT_FAIL;
		goto out;
	}
	print_notes(&evs, po->verbose);
	add_call_graph(po, &evs);
	if (define_only) {
		print_definitions(&evs);
		ret = TK_EXIT_OK;
		goto out;
	}
	ret = probe_events_write(&t, specs->items, specs->nr, &dopts, &evs, &warn, &err);
	print_warnings(&warn);
	if (ret) {
		error("%s", err.buf);
		ret = tk_exit_code(ret);
		goto out;
	}
	print_added(&evs, 20);
	ret = TK_EXIT_OK;
out:
	probe_events_release(&evs);
	strbuf_release(&err);
	strbuf_release(&warn);
	probe_target_close(&t);
	return ret;
}

static int do_list(const char *filter)
{
	struct strbuf out = STRBUF_INIT;
	int ret = probe_events_list(filter, &out);

	if (ret) {
		error("cannot read probe definitions: %s", strerror(-ret));
		return TK_EXIT_ENV;
	}
	fputs(out.buf, stdout);
	strbuf_release(&out);
	return TK_EXIT_OK;
}

static int do_del(const struct opt_string_list *globs)
{
	struct strbuf deleted = STRBUF_INIT, err = STRBUF_INIT;
	char *l, *save = NULL;
	int ret = probe_events_del(globs->items, globs->nr, &deleted, &err);

	for (l = strtok_r(deleted.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		printf("Removed event: %s\n", l);
	if (ret < 0)
		error("%s", err.buf);
	else if (!ret)
		error("no event matches %s", globs->items[globs->nr - 1]);
	strbuf_release(&deleted);
	strbuf_release(&err);
	return ret < 0 ? tk_exit_code(ret) : ret ? TK_EXIT_OK : TK_EXIT_FAIL;
}

static int do_listing(struct probe_cmd_opts *po)
{
	struct probe_target t;
	struct strbuf out = STRBUF_INIT, note = STRBUF_INIT, err = STRBUF_INIT;
	enum probe_listing what = po->funcs ? PROBE_LIST_FUNCS :
				  po->vars ? PROBE_LIST_VARS : PROBE_LIST_LINES;
	const char *arg = po->funcs ? po->funcs_glob :
			  po->vars ? po->vars : po->lines;
	int ret;

	if (open_target(&t, po))
		return TK_EXIT_FAIL;
	ret = probe_target_list(&t, what, arg, &out, &note, &err);
	if (po->verbose)
		fputs(note.buf, stderr);
	if (ret)
		error("%s", err.buf);
	else
		fputs(out.buf, stdout);
	strbuf_release(&out);
	strbuf_release(&note);
	strbuf_release(&err);
	probe_target_close(&t);
	return ret ? TK_EXIT_FAIL : TK_EXIT_OK;
}

int cmd_probe(int argc, const char **argv)
{
	struct probe_cmd_opts po = { 0 };
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
			   "kernel image with debug info (default: search the usual places, "
			   "else the kernel's BTF)"),
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
		OPT_BOOL(0, "keep-going", &po.keep_going,
			 "with -D: translate each spec on its own, print those that translate, and one error per spec that does not (exit 1)"),
		OPT_BOOL(0, "regs", &po.force_regs,
			 "kprobes: spell arguments as registers, not $argN"),
		OPT_BOOL('v', "verbose", &po.verbose,
			 "say where the types and locations come from (DWARF or BTF), and what aliases are of"),
		{ .type = OPTION_CALLBACK, .long_name = "call-graph",
		  .value = &po, .argh = "SIZE", .callback = call_graph_cb,
		  .flags = PARSE_OPT_OPTARG,
		  .help = "uprobes: capture the registers and SIZE bytes of user stack "
			  "(default 2944) for report to unwind" },
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
		ret = sdt_list(po.exec, argc ? argv[0] : NULL);
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
	if (po.keep_going && !po.def.nr)
		die_code(TK_EXIT_USAGE, "--keep-going goes with -D");
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
