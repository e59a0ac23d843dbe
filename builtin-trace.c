// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit trace: one command line that defines probes for the run,
 * traces them and tracepoints, and prints each event as it happens (as
 * report prints it) or aggregates them into a table (as bpftrace prints
 * its maps), then removes everything it made.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "util/array.h"
#include "util/callgraph.h"
#include "util/parse-options.h"
#include "util/trace.h"
#include "util/usage.h"
#include "util/wrapper.h"

struct trace_cmd {
	struct trace_opts o;
	struct record_event_list ev;
	struct report_agg_opts agg;
	unsigned long top, buffer_kb;
	const char *format, *where;
	double interval;
	char *lat_probes[2];		/* --latency FUNC's specs */
};

static const char *const trace_usage[] = {
	"tracekit trace [-x BIN | -m MODULE | -k VMLINUX] [PROBE-SPEC...]\n"
	"               [-e EVENT [-f FILTER]]... [--count[=KEYS] | --sum F |\n"
	"               --min F | --max F | --avg F | --hist F |\n"
	"               --lhist F,MIN,MAX,STEP | --latency FUNC|START,END\n"
	"               [--match FIELD[,FIELD]]] [--by KEYS] [--top N]\n"
	"               [--interval S] [--where kernel|user] [--format text|json]\n"
	"               [-o FILE] [-P PID | -- COMMAND [ARGS...]]",
	NULL
};

static int write_out(void *data, const struct strbuf *out, struct strbuf *err)
{
	int ret = write_in_full(STDOUT_FILENO, out->buf, out->len);

	(void)data;
	/* A reader gone (`| head`) ends the run, as Ctrl-C would. */
	if (ret && ret != -EPIPE)
		strbuf_addf(err, "write error on standard output: %s",
			    strerror(-ret));
	return ret;
}

static void show_warning(const char *msg, void *data)
{
	(void)data;
	warning_lines(msg);
}

static void show_note(const char *msg, void *data)
{
	(void)data;
	fputs(msg, stderr);
}

/*
 * What defining the probes said, on stderr (standard output is the
 * events'), but the summary of the probes added: they are the run's own.
 */
static void print_said(const struct probe_output *said)
{
	int i;

	for (i = 0; i < said->nr; i++) {
		const char *text = said->v[i].text;

		switch (said->v[i].kind) {
		case PROBE_SAY_OUT:
			break;
		case PROBE_SAY_NOTE:
			fputs(text, stderr);
			break;
		case PROBE_SAY_WARN:
			warning_lines(text);
			break;
		case PROBE_SAY_ERROR:
			error("%s", text);
			break;
		}
	}
}

/*
 * --latency FUNC: the probes on FUNC's entry and return, which the
 * aggregation knows as FUNC and FUNC__return (as probe -a names them),
 * unless -e gives FUNC.  --latency SYSTEM:START,SYSTEM:END: those
 * events, unless -e gives them.
 */
static void add_latency_probes(struct trace_cmd *c,
			       struct opt_string_list *specs)
{
	const char *start = c->agg.latency[0];
	struct strbuf ret = STRBUF_INIT;
	int i, k;

	if (!start)
		return;
	/* SYSTEM:EVENT of START,END: traced as -e would trace it. */
	for (k = 0; k < 2; k++) {
		if (!strchr(c->agg.latency[k], ':'))
			continue;
		for (i = 0; i < c->ev.nr; i++)
			if (!strcmp(c->ev.v[i].spec, c->agg.latency[k]))
				break;
		if (i == c->ev.nr) {
			grow_array(c->ev.v, c->ev.nr, c->ev.alloc, 8);
			c->ev.v[c->ev.nr].spec = c->agg.latency[k];
			c->ev.v[c->ev.nr++].filter = NULL;
		}
	}
	if (strchr(start, ':'))
		return;
	strbuf_addf(&ret, "%s__return", start);
	for (i = 0; i < c->ev.nr; i++)
		if (!strcmp(c->ev.v[i].spec, start))
			break;
	if (!strcmp(c->agg.latency[1], ret.buf) && i == c->ev.nr) {
		strbuf_reset(&ret);
		strbuf_addf(&ret, "%s%%return", start);
		c->lat_probes[0] = xstrdup(start);
		c->lat_probes[1] = strbuf_detach(&ret, NULL);
		opt_string_list_append(specs, c->lat_probes[0]);
		opt_string_list_append(specs, c->lat_probes[1]);
	}
	strbuf_release(&ret);
}

/* The options checked against each other: a usage error ends it. */
static void check_args(struct trace_cmd *c, int argc)
{
	const struct report_format *fmt = report_format_find(c->format);
	struct strbuf err;
	int i;

	if (!fmt || (strcmp(c->format, "text") && strcmp(c->format, "json")))
		die_code(TK_EXIT_USAGE, "--format: '%s' is neither text nor json",
			 c->format);
	c->o.format = fmt;
	strbuf_init(&err, 0);
	if (report_agg_finish(&c->agg, &err))
		die_code(TK_EXIT_USAGE, "%s", err.buf);
	strbuf_release(&err);
	if (!c->agg.option && (c->agg.nr_keys || c->top || c->interval))
		die_code(TK_EXIT_USAGE, "%s: needs an aggregation (--count, --sum, --hist, --lhist, --min, --max or --avg)",
			 c->top ? "--top" : c->interval ? "--interval" :
			 "--by");
	for (i = 0; i < c->agg.nr_keys; i++)
		/* the kernel's stack trace after each event (record -T) */
		if (!strcmp(c->agg.keys[i], "kstack"))
			c->o.rec.stacktrace = 1;
	if (c->agg.option) {
		c->agg.json = !strcmp(fmt->name, "json");
		c->agg.top = c->top;
		c->o.agg = &c->agg;
	}
	c->o.interval = c->interval;
	if (c->where && strcmp(c->where, "kernel") && strcmp(c->where, "user"))
		die_code(TK_EXIT_USAGE, "--where: '%s' is neither kernel nor user",
			 c->where);
	if (c->where && !c->agg.option)
		die_code(TK_EXIT_USAGE, "--where: needs an aggregation");
	c->o.where = !c->where ? TRACE_WHERE_AUTO :
		     !strcmp(c->where, "kernel") ? TRACE_WHERE_KERNEL :
		     TRACE_WHERE_USER;
	if (!argc && !c->ev.nr)
		die_code(TK_EXIT_USAGE, "nothing to trace: give a PROBE-SPEC or -e EVENT");
	if (c->o.rec.pid < 0)
		die_code(TK_EXIT_USAGE, "-P %d: not a process id", c->o.rec.pid);
	if (c->o.rec.pid && c->o.rec.argv)
		die_code(TK_EXIT_USAGE, "-P and a COMMAND exclude each other");
	if (c->o.rec.children && !c->o.rec.pid)
		die_code(TK_EXIT_USAGE, "-c follows the children of -P PID: give -P");
	if (c->o.probe.call_graph && !c->o.probe.exec)
		die_code(TK_EXIT_USAGE, "--call-graph captures user stacks: give -x BIN");
}

int cmd_trace(int argc, const char **argv)
{
	struct trace_cmd c = { .format = "text" };
	struct probe_output said = { 0 };
	struct record_result res;
	struct strbuf err = STRBUF_INIT;
	struct opt_string_list specs = { 0 };
	int i, nr, ret;
	const struct option options[] = {
		OPT_GROUP("What to trace"),
		OPT_STRING('x', "exec", &c.o.probe.exec, "PATH",
			   "the specs are uprobes in this executable or library"),
		OPT_STRING('m', "module", &c.o.probe.module, "MODULE",
			   "the specs are kprobes in this kernel module"),
		OPT_STRING('k', "vmlinux", &c.o.probe.vmlinux, "FILE",
			   "the kernel's DWARF from FILE (default: BTF, then vmlinux)"),
		OPT_CALLBACK('e', "event", &c.ev, "EVENT",
			     "a tracepoint, SYSTEM:EVENT or a glob; repeatable",
			     record_opt_event),
		OPT_CALLBACK('f', "filter", &c.ev, "FILTER",
			     "event filter (tracefs syntax) for the preceding -e",
			     record_opt_filter),
		{ .type = OPTION_CALLBACK, .long_name = "call-graph",
		  .value = &c.o.probe.call_graph, .argh = "SIZE",
		  .callback = callgraph_opt, .flags = PARSE_OPT_OPTARG,
		  .help = "uprobes: capture SIZE bytes of user stack (default 2944) for report of -o to unwind" },
		OPT_GROUP("Aggregation (instead of the events)"),
		OPT_AGGREGATIONS(&c.agg),
		OPT_ULONG(0, "top", &c.top, "N",
			  "print the N greatest entries of the table only"),
		OPT_CALLBACK(0, "interval", &c.interval, "S",
			     "print the table every S seconds, and empty it",
			     record_opt_duration),
		OPT_STRING(0, "where", &c.where, "kernel|user",
			   "aggregate in the kernel (hist triggers) or in user space; default: the kernel where it can"),
		OPT_GROUP("Which tasks and CPUs"),
		OPT_INTEGER('P', "pid", &c.o.rec.pid, "PID",
			    "only events of PID; stop when it exits"),
		OPT_BOOL('c', "children", &c.o.rec.children,
			 "with -P: the children PID forks too"),
		OPT_STRING(0, "cpus", &c.o.rec.cpus, "LIST",
			   "only these CPUs (0-3,6)"),
		OPT_GROUP("How"),
		OPT_STRING(0, "format", &c.format, "text|json",
			   "the events as report's text (default) or JSON lines; the table as bpftrace's text or JSON"),
		OPT_STRING('o', "output", &c.o.rec.output, "FILE",
			   "also write the events to FILE, a trace.dat"),
		OPT_CALLBACK(0, "duration", &c.o.rec.duration, "S",
			     "stop after S seconds", record_opt_duration),
		OPT_ULONG('b', "buffer-size", &c.buffer_kb, "KB",
			  "ring buffer size per CPU"),
		OPT_STRING('C', "clock", &c.o.rec.clock, "CLOCK",
			   "trace clock (see trace_clock)"),
		OPT_BOOL('v', "verbose", &c.o.probe.verbose,
			 "say where the probes' types and locations come from"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, trace_usage,
			     PARSE_OPT_KEEP_DASHDASH);
	for (i = 0; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (i < argc) {
		if (i + 1 == argc)
			die_code(TK_EXIT_USAGE, "--: no COMMAND after it");
		c.o.rec.argv = (char *const *)argv + i + 1;
	}
	for (nr = i, i = 0; i < nr; i++)
		opt_string_list_append(&specs, argv[i]);
	add_latency_probes(&c, &specs);
	c.o.specs = specs.items;
	c.o.nr_specs = specs.nr;
	check_args(&c, specs.nr);
	c.o.rec.events = c.ev.v;
	c.o.rec.nr_events = c.ev.nr;
	c.o.rec.buffer_kb = c.buffer_kb;
	c.o.rec.zlevel = 1;
	c.o.rec.sleep_us = -1;
	c.o.rec.version = "tracekit trace";
	c.o.write = write_out;
	c.o.warn = show_warning;
	c.o.note = c.o.probe.verbose ? show_note : NULL;
	/* EPIPE, not death: the probes and the instance are to be removed. */
	signal(SIGPIPE, SIG_IGN);
	ret = trace_run(&c.o, &said, &res, &err);
	print_said(&said);
	if (ret == -EPIPE)
		ret = 0;
	else
		error_lines(err.buf);
	if (!ret && res.lost)
		warning("%llu events lost: the ring buffer filled (-b KB makes it bigger)",
			(unsigned long long)res.lost);
	ret = !ret ? TK_EXIT_OK : said.usage ? TK_EXIT_USAGE :
	      tk_exit_code(ret);
	probe_output_release(&said);
	opt_string_list_clear(&specs);
	free(c.lat_probes[0]);
	free(c.lat_probes[1]);
	report_agg_opts_release(&c.agg);
	strbuf_release(&err);
	free(c.ev.v);
	return ret;
}
