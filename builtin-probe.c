// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit probe: perf-probe compatible front end.  The options pick an
 * action; util/probe-add runs -a and -D, in which util/probe-event
 * translates the specs (util/probe-spec -> util/probe-dwarf or
 * util/probe-sdt -> util/fetcharg) into tracefs definition lines, all of
 * them before anything is written, which are printed (-D) or added
 * all-or-nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/callgraph.h"
#include "util/fetcharg.h"
#include "util/parse-options.h"
#include "util/probe-add.h"
#include "util/probe-event.h"
#include "util/probe-target.h"
#include "util/strbuf.h"
#include "util/usage.h"

struct probe_cmd_opts {
	const char *exec;
	const char *module;
	const char *vmlinux;
	const char *sysroot;
	const char *btf;
	struct opt_string_list add;
	struct opt_string_list def;
	struct opt_string_list del;
	int list;
	struct opt_string_list vars;
	struct opt_string_list lines;
	int funcs;
	const char *funcs_glob;
	struct opt_string_list filters;
	int externs;
	int range;
	int force_regs;
	int sdt;
	int verbose;
	int keep_going;
	unsigned int call_graph;	/* bytes of stack to capture, 0: none */
	int dry_run;
	int force;
	int quiet;
	int no_inlines;
	int max_probes;
	int bootconfig;
};

/*
 * perf's options tracekit has no use for: refused with what it does
 * instead, the reason the option's help; arg is its ARGH, or NULL.
 */
static int refused_cb(const struct option *opt, const char *arg, int unset)
{
	(void)arg;
	(void)unset;
	die_code(TK_EXIT_USAGE, "--%s: %s", opt->long_name, opt->help);
}

#define REFUSED(s, l, arg, why) \
	{ .type = OPTION_CALLBACK, .short_name = (s), .long_name = (l), \
	  .argh = (arg), .help = (why), .callback = refused_cb, \
	  .flags = (arg) ? 0 : PARSE_OPT_NOARG }
#define DEMANGLE "tracekit demangles nothing: a C++ function is named by " \
	"its DWARF name (ns::Cls::method) or its mangled symbol"

static const char *const probe_usage[] = {
	"tracekit probe [-x BINARY | -m MODULE | -k VMLINUX] [-D|-a] SPEC...",
	"tracekit probe [-x BINARY | -m MODULE | -k VMLINUX] -V SPEC... | -L LINE | -F [FILTER]",
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

/*
 * What probe_add() said, said; quiet: the errors and -D's definitions
 * only.  A failure of the command line, or of an SDT spec, ends the
 * command at its error (die_code()); the others are an error line and
 * the exit code.
 */
static int print_output(const struct probe_output *said, int ret,
			int define_only, int quiet)
{
	int i, code = !ret ? TK_EXIT_OK :
		      said->usage ? TK_EXIT_USAGE : tk_exit_code(ret);

	for (i = 0; i < said->nr; i++) {
		const char *text = said->v[i].text;

		if (quiet && said->v[i].kind != PROBE_SAY_ERROR &&
		    (said->v[i].kind != PROBE_SAY_OUT || !define_only))
			continue;
		switch (said->v[i].kind) {
		case PROBE_SAY_OUT:
			fputs(text, stdout);
			break;
		case PROBE_SAY_NOTE:
			fputs(text, stderr);
			break;
		case PROBE_SAY_WARN:
			warning_lines(text);
			break;
		case PROBE_SAY_ERROR:
			if (i == said->nr - 1 && ret &&
			    (said->usage || said->sdt))
				die_code(code, "%s", text);
			error("%s", text);
			break;
		}
	}
	return code;
}

static int do_add(struct probe_cmd_opts *po,
		  const struct opt_string_list *specs, int define_only)
{
	struct probe_add_opts o = {
		.exec = po->exec, .module = po->module, .vmlinux = po->vmlinux,
		.sysroot = po->sysroot, .btf = po->btf,
		.define_only = define_only, .keep_going = po->keep_going,
		.force_regs = po->force_regs, .verbose = po->verbose,
		.call_graph = po->call_graph, .dry_run = po->dry_run,
		.force = po->force, .no_inlines = po->no_inlines,
		.max_probes = po->max_probes, .bootconfig = po->bootconfig,
	};
	struct probe_output said = { 0 };
	int ret = probe_add(&o, specs->items, specs->nr, &said);

	ret = print_output(&said, ret, define_only, po->quiet);
	probe_output_release(&said);
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

static int do_del(const struct opt_string_list *globs, int quiet)
{
	struct strbuf deleted = STRBUF_INIT, err = STRBUF_INIT;
	char *l, *save = NULL;
	int ret = probe_events_del(globs->items, globs->nr, &deleted, &err);

	for (l = strtok_r(deleted.buf, "\n", &save); l && !quiet;
	     l = strtok_r(NULL, "\n", &save))
		printf("Removed event: %s\n", l);
	if (ret < 0)
		error("%s", err.buf);
	else if (!ret)
		error("no event matches %s", globs->items[globs->nr - 1]);
	strbuf_release(&deleted);
	strbuf_release(&err);
	return ret < 0 ? tk_exit_code(ret) : ret ? TK_EXIT_OK : TK_EXIT_FAIL;
}

static int open_target(struct probe_target *t, const struct probe_cmd_opts *po)
{
	struct strbuf err = STRBUF_INIT;
	const struct probe_target_names n = {
		.exec = po->exec, .module = po->module, .vmlinux = po->vmlinux,
		.sysroot = po->sysroot, .btf = po->btf,
	};
	int ret = probe_target_open(t, &n, &err);

	if (ret)
		error("%s", err.buf);
	else if (po->verbose)
		fprintf(stderr, "types and locations from %s\n", t->source);
	strbuf_release(&err);
	return ret;
}

/* -F, -L or each -V in turn; what was listed before a failure is printed. */
static int do_listing(struct probe_cmd_opts *po)
{
	const struct probe_target_listing l = {
		.funcs = po->funcs, .funcs_filter = po->funcs_glob,
		.lines = po->lines.items, .nr_lines = po->lines.nr,
		.vars = po->vars.items, .nr_vars = po->vars.nr,
		.filters = po->filters.items, .nr_filters = po->filters.nr,
		.externs = po->externs, .range = po->range,
		.no_inlines = po->no_inlines,
	};
	struct probe_target t;
	struct strbuf out = STRBUF_INIT, note = STRBUF_INIT, err = STRBUF_INIT;
	int ret;

	if (probe_target_listing_check(&l, &err))
		die_code(TK_EXIT_USAGE, "%s", err.buf);
	if (po->lines.nr > 1)
		warning("-L %s: the first -L is listed, as perf lists it", po->lines.items[0]);
	if (open_target(&t, po))
		return TK_EXIT_FAIL;
	ret = probe_target_list(&t, &l, &out, &note, &err);
	if (po->verbose)
		fputs(note.buf, stderr);
	fputs(out.buf, stdout);
	if (ret)
		error("%s", err.buf);
	strbuf_release(&out);
	strbuf_release(&note);
	strbuf_release(&err);
	probe_target_close(&t);
	return ret ? tk_exit_code(ret) : TK_EXIT_OK;
}

int cmd_probe(int argc, const char **argv)
{
	struct probe_cmd_opts po = { 0 };
	struct probe_output said = { 0 };
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
		OPT_STRING(0, "sysroot", &po.sysroot, "DIR",
			   "-x names a binary of another machine whose file tree is "
			   "copied at DIR here: DIR/PATH is read, PATH is defined"),
		OPT_STRING(0, "symfs", &po.sysroot, "DIR", "perf's name of --sysroot"),
		OPT_STRING(0, "btf", &po.btf, "FILE",
			   "kprobes of another kernel from its BTF (its "
			   "/sys/kernel/btf/vmlinux copied here), checked against nothing here"),
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
		OPT_STRING_LIST('V', "vars", &po.vars, "SPEC",
				"list the variables available at a probe point (a spec without arguments), with types"),
		OPT_BOOL(0, "externs", &po.externs,
			 "with -V: the globals of the source file too"),
		OPT_BOOL(0, "range", &po.range,
			 "with -V: whether each is located at the point, and where"),
		OPT_STRING_LIST('L', "line", &po.lines, "LINE",
				"list source lines, numbered where they can be probed: FUNC[@SRC][:RLN[+NUM|-RLN2]] or SRC[:ALN[+NUM|-ALN2]]"),
		{ .type = OPTION_CALLBACK, .short_name = 'F',
		  .long_name = "funcs", .value = &po, .argh = "FILTER",
		  .callback = funcs_cb,
		  .flags = PARSE_OPT_OPTARG,
		  .help = "list the functions with code (matching FILTER, default '!_* & !*@plt')" },
		OPT_STRING_LIST(0, "filter", &po.filters, "FILTER",
				"with -V and -F: the names listed, globs with ! & | ( ) (-V: '!__k???tab_* & !__crc_*')"),
		OPT_GROUP("Translation"),
		OPT_BOOL(0, "keep-going", &po.keep_going,
			 "with -D: translate each spec on its own, print those that translate, and one error per spec that does not (exit 1)"),
		OPT_BOOL(0, "regs", &po.force_regs,
			 "kprobes: spell arguments as registers, not $argN"),
		OPT_BOOL('n', "dry-run", &po.dry_run,
			 "translate and check as -a does, say what would be added, add nothing"),
		OPT_BOOL('f', "force", &po.force,
			 "an EVENT= name already taken gets a number (_1, _2...) instead of an error"),
		OPT_BOOL(0, "no-inlines", &po.no_inlines,
			 "leave out inlined copies (a function only inlined has no probe)"),
		OPT_INTEGER(0, "max-probes", &po.max_probes, "N",
			    "refuse a spec of more than N probe points (default 128)"),
		REFUSED(0, "no-demangle", NULL, DEMANGLE),
		OPT_BOOL(0, "bootconfig", &po.bootconfig,
			 "with -D: kprobes as boot-time tracing's ftrace.event.kprobes keys"),
		REFUSED('s', "source", "DIR", "tracekit reads a source where its DWARF says it was compiled (DW_AT_comp_dir): put the tree there"),
		REFUSED(0, "target-ns", "PID", "name the binary as the container sees it under /proc/PID/root: -x /proc/PID/root/PATH"),
		REFUSED(0, "cache", NULL, "tracekit keeps no probe cache: keep -D's definitions and add them with -a"),
		REFUSED(0, "demangle", NULL, DEMANGLE),
		REFUSED(0, "demangle-kernel", NULL, DEMANGLE),
		OPT_BOOL('q', "quiet", &po.quiet,
			 "print errors (and -D's definitions) only"),
		OPT_BOOL('v', "verbose", &po.verbose,
			 "say where the types and locations come from (DWARF or BTF), and what aliases are of"),
		{ .type = OPTION_CALLBACK, .long_name = "call-graph",
		  .value = &po.call_graph, .argh = "SIZE",
		  .callback = callgraph_opt,
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
			die_code(TK_EXIT_USAGE,
				 "--sdt takes one sdt_PROVIDER:NAME filter");
		said.sdt = 1;
		ret = probe_sdt_list(po.exec, po.sysroot,
				     argc ? argv[0] : NULL, &said);
		ret = print_output(&said, ret, 1, po.quiet);
		probe_output_release(&said);
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
	actions = !!(po.add.nr || po.def.nr || rest.len) + !!po.del.nr +
		  po.list + !!po.vars.nr + !!po.lines.nr + po.funcs;
	if (actions != 1) {
		error(actions ? "give one action at a time" :
		      "no probe spec given");
		usage_with_options(probe_usage, options);
	}
	if (po.sysroot && !po.exec)
		die_code(TK_EXIT_USAGE, "--sysroot goes with -x");
	if (po.keep_going && !po.def.nr)
		die_code(TK_EXIT_USAGE, "--keep-going goes with -D");
	if ((po.externs || po.range) && !po.vars.nr)
		die_code(TK_EXIT_USAGE, "--externs and --range go with -V");
	if (po.filters.nr && !po.vars.nr && !po.funcs)
		die_code(TK_EXIT_USAGE, "--filter goes with -V or -F");
	if (po.bootconfig && (!po.def.nr || po.exec))
		die_code(TK_EXIT_USAGE, "--bootconfig goes with -D of kprobes (boot-time tracing has no uprobes)");
	if (po.max_probes < 0)
		die_code(TK_EXIT_USAGE, "--max-probes: %d: not a number of probe points", po.max_probes);
	if (po.list) {
		ret = do_list(list_glob);
	} else if (po.del.nr) {
		ret = do_del(&po.del, po.quiet);
	} else if (po.vars.nr || po.lines.nr || po.funcs) {
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
	opt_string_list_clear(&po.vars);
	opt_string_list_clear(&po.lines);
	opt_string_list_clear(&po.filters);
	return ret;
}
