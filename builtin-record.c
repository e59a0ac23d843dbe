// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "util/array.h"
#include "util/parse-options.h"
#include "util/record.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
#include "util/usage.h"

static int opt_sleep(const struct option *opt, const char *arg, int unset)
{
	int *us = opt->value;
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 0 || v > INT_MAX || errno)
		return error("-s %s: not a number of microseconds", arg);
	*us = v;
	return 0;
}

static void human_bytes(char *buf, size_t len, double b)
{
	if (b >= 1 << 20)
		snprintf(buf, len, "%.1f MB", b / (1 << 20));
	else if (b >= 1 << 10)
		snprintf(buf, len, "%.1f KB", b / (1 << 10));
	else
		snprintf(buf, len, "%.0f B", b);
}

/* One line, rewritten in place: \r and clear to the end of the line. */
static void show_status(const struct record_status *st, void *data)
{
	char in[32], out[32];
	int i;

	human_bytes(in, sizeof(in), st->bytes_in);
	human_bytes(out, sizeof(out), st->bytes_out);
	fprintf(stderr, "\r%6.1fs %llu events (%.0f/s) in %s out %s lost",
		st->elapsed, (unsigned long long)st->events,
		st->elapsed > 0 ? st->events / st->elapsed : 0.0, in, out);
	for (i = 0; i < st->nr_cpus; i++)
		fprintf(stderr, " cpu%d:%llu", st->cpu[i], (unsigned long long)st->lost[i]);
	fputs("\033[K", stderr);
	fflush(stderr);
}

static void show_warning(const char *msg, void *data)
{
	warning("%s", msg);
}

/* -M: trace-cmd's hex CPU mask, as the CPU list --cpus takes. */
static int opt_cpumask(const struct option *opt, const char *arg, int unset)
{
	struct strbuf *list = opt->value;
	const char *p = arg + (!strncmp(arg, "0x", 2) ? 2 : 0), *end = p + strlen(p);
	int cpu = 0;

	if (p == end)
		return error("-M '%s': not a hex CPU mask", arg);
	strbuf_reset(list);
	/*
	 * Commas group the digits in 32-bit words, as tracing_cpumask prints.
	 */
	while (end-- > p) {
		int digit, bit;

		if (*end == ',')
			continue;
		if (!isxdigit((unsigned char)*end))
			return error("-M '%s': not a hex CPU mask", arg);
		digit = isdigit((unsigned char)*end) ? *end - '0'
						     : tolower(*end) - 'a' + 10;
		for (bit = 0; bit < 4; bit++, cpu++)
			if (digit & (1 << bit))
				strbuf_addf(list, "%s%d", list->len ? "," : "", cpu);
	}
	if (!list->len)
		return error("-M '%s': selects no CPU", arg);
	return 0;
}

static void take_list(struct record_strings *dst,
		      const struct opt_string_list *src)
{
	dst->nr = src->nr;
	dst->v = src->items;
}

static int print_available_events(void)
{
	struct strbuf sb = STRBUF_INIT;
	long ret = tk_tracefs_read(NULL, "available_events", &sb);

	if (ret < 0) {
		error("available_events: %s", strerror(-ret));
		strbuf_release(&sb);
		return TK_EXIT_ENV;
	}
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
	return TK_EXIT_OK;
}

static const char *const record_usage[] = {
	"tracekit record [-e EVENT [-f FILTER]]... [-p TRACER [-l FUNC]... [-n FUNC]...\n"
	"                [-g FUNC]... [--max-graph-depth N] [--func-stack]] [-O OPTION]...\n"
	"                [-o FILE] [-b KB] [-C CLOCK] [-P PID [-c]] [--proc-map]\n"
	"                [--cpus LIST | -M MASK] [-z LEVEL | --no-compress] [-T]\n"
	"                [--duration S] [--top | -B NAME] [-s USEC] [-m KB]\n"
	"                [-- COMMAND [ARGS...]]",
	NULL
};

int cmd_record(int argc, const char **argv)
{
	struct record_event_list ev = { 0 };
	struct record_opts o = { .zlevel = 1, .sleep_us = -1 };
	struct record_result res;
	struct record_hooks hooks = { 0 };
	struct strbuf err = STRBUF_INIT;
	const char *output = "trace.dat";
	int no_compress = 0, quiet = 0, list_events = 0, ret;
	unsigned long buffer_kb = 0;
	struct strbuf version = STRBUF_INIT, cpumask = STRBUF_INIT;
	struct opt_string_list filter = { 0 }, notrace = { 0 }, graph = { 0 },
			       topts = { 0 };
	char size[32];
	const struct option options[] = {
		OPT_GROUP("What to record"),
		OPT_CALLBACK('e', "event", &ev, "EVENT",
			     "SYSTEM:EVENT, SYSTEM, or a glob (sched:sched_*, 'sdt_app:*'); repeatable",
			     record_opt_event),
		OPT_CALLBACK('f', "filter", &ev, "FILTER",
			     "event filter (tracefs syntax) for the preceding -e", record_opt_filter),
		OPT_GROUP("Tracer"),
		OPT_STRING('p', "tracer", &o.tracer, "TRACER",
			   "a tracer of available_tracers (function, function_graph)"),
		OPT_STRING_LIST('l', "ftrace-filter", &filter, "FUNC",
				"trace only FUNC (a glob; set_ftrace_filter); repeatable"),
		OPT_STRING_LIST('n', "ftrace-notrace", &notrace, "FUNC",
				"do not trace FUNC (set_ftrace_notrace); repeatable"),
		OPT_STRING_LIST('g', "graph-function", &graph, "FUNC",
				"function_graph: graph only FUNC and what it calls; repeatable"),
		OPT_INTEGER(0, "max-graph-depth", &o.max_graph_depth, "N",
			    "function_graph: N levels of calls at most"),
		OPT_BOOL(0, "func-stack", &o.func_stack,
			 "function: a stack trace with every function traced (needs -l)"),
		OPT_STRING_LIST('O', "option", &topts, "OPTION",
				"set trace option OPTION (options/OPTION), noOPTION clears it"),
		OPT_GROUP("Which tasks and CPUs"),
		OPT_INTEGER('P', "pid", &o.pid, "PID",
			    "only events of PID; stop when it exits"),
		OPT_BOOL('c', "children", &o.children,
			 "with -P: the children PID forks too"),
		OPT_BOOL(0, "proc-map", &o.proc_map,
			 "store the address maps of -P PID or COMMAND (and children) at their exit"),
		OPT_STRING(0, "cpus", &o.cpus, "LIST", "only these CPUs (0-3,6)"),
		OPT_CALLBACK('M', "cpumask", &cpumask, "MASK",
			     "only the CPUs of hex MASK (as tracing_cpumask)", opt_cpumask),
		OPT_BOOL('T', "stacktrace", &o.stacktrace,
			 "a kernel stack trace with every event, where permitted"),
		OPT_GROUP("How"),
		OPT_STRING('o', "output", &output, "FILE", "output file (default trace.dat)"),
		OPT_ULONG('b', "buffer-size", &buffer_kb, "KB", "ring buffer size per CPU"),
		OPT_STRING('C', "clock", &o.clock, "CLOCK", "trace clock (see trace_clock)"),
		OPT_INTEGER('z', "compression-level", &o.zlevel, "LEVEL",
			    "zstd level 1-22 (default 1: fastest, and smallest on trace pages)"),
		OPT_BOOL(0, "no-compress", &no_compress, "write an uncompressed file"),
		OPT_CALLBACK(0, "duration", &o.duration, "S",
			     "stop after S seconds", record_opt_duration),
		OPT_STRING('B', "buffer", &o.instance, "NAME",
			   "record into instance NAME (kept if it exists, else removed at the end)"),
		OPT_CALLBACK('s', "sleep", &o.sleep_us, "USEC",
			     "readers sleep USEC between reads (0: woken by every write)",
			     opt_sleep),
		OPT_ULONG('m', "max-kb", &o.max_kb, "KB",
			  "keep only the last KB (in halves) of each CPU's data"),
		OPT_BOOL(0, "top", &o.top,
			 "use the top-level buffer instead of a private instance"),
		OPT_BOOL('q', "quiet", &quiet, "no live status line"),
		/* What -e takes, for the completion script. */
		OPT_HIDDEN_BOOL(0, "list-events", &list_events, "print available_events"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, record_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (list_events)
		return print_available_events();
	if (!ev.nr && !o.tracer) {
		error("nothing to record: give -e EVENT or -p TRACER");
		usage_with_options(record_usage, options);
	}
	if (!o.tracer && (filter.nr || notrace.nr || graph.nr ||
			  o.max_graph_depth || o.func_stack))
		die_code(TK_EXIT_USAGE, "-l, -n, -g, --max-graph-depth and --func-stack "
			 "configure a tracer: give -p TRACER");
	if (o.func_stack && !filter.nr)
		die_code(TK_EXIT_USAGE, "--func-stack needs -l: a stack trace of every "
			 "function call can live-lock the machine");
	if (o.max_graph_depth < 0)
		die_code(TK_EXIT_USAGE, "--max-graph-depth %d: not a depth", o.max_graph_depth);
	if (cpumask.len && o.cpus)
		die_code(TK_EXIT_USAGE, "--cpus and -M exclude each other");
	if (cpumask.len)
		o.cpus = cpumask.buf;
	if (o.proc_map && !o.pid && !argc)
		die_code(TK_EXIT_USAGE, "--proc-map stores the maps of -P PID or a COMMAND: give one");
	if (o.children && !o.pid)
		die_code(TK_EXIT_USAGE, "-c follows the children of -P PID: give -P");
	if (o.zlevel < 1 || o.zlevel > 22)
		die_code(TK_EXIT_USAGE, "-z %d: zstd levels are 1 to 22", o.zlevel);
	if (o.pid < 0)
		die_code(TK_EXIT_USAGE, "-P %d: not a process id", o.pid);
	if (o.pid && argc)
		die_code(TK_EXIT_USAGE, "-P and a COMMAND exclude each other");
	if (o.instance && o.top)
		die_code(TK_EXIT_USAGE, "-B and --top exclude each other");
	if (no_compress)
		o.zlevel = -1;
	take_list(&o.ftrace_filter, &filter);
	take_list(&o.ftrace_notrace, &notrace);
	take_list(&o.graph_funcs, &graph);
	take_list(&o.trace_options, &topts);
	o.events = ev.v;
	o.nr_events = ev.nr;
	o.output = output;
	o.buffer_kb = buffer_kb;
	o.argv = argc ? (char *const *)argv : NULL;
	strbuf_addf(&version, "tracekit %s", tracekit_version_string);
	o.version = version.buf;

	hooks.status = !quiet && isatty(STDERR_FILENO) ? show_status : NULL;
	hooks.warn = show_warning;
	ret = record_run(&o, &hooks, &res, &err);
	if (hooks.status)
		fputs("\r\033[K", stderr);
	error_lines(err.buf);
	strbuf_release(&err);
	free(ev.v);
	strbuf_release(&version);
	strbuf_release(&cpumask);
	opt_string_list_clear(&filter);
	opt_string_list_clear(&notrace);
	opt_string_list_clear(&graph);
	opt_string_list_clear(&topts);
	if (ret)
		return tk_exit_code(ret);
	human_bytes(size, sizeof(size), res.file_size);
	fprintf(stderr,
		"tracekit record: %llu events (%llu lost) written to %s (%s, ratio %.1f)\n",
		(unsigned long long)res.events, (unsigned long long)res.lost,
		output, size,
		res.bytes_out ? (double)res.bytes_in / res.bytes_out : 1.0);
	return TK_EXIT_OK;
}
