// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "util/parse-options.h"
#include "util/record.h"
#include "util/strbuf.h"
#include "util/usage.h"

struct event_args {
	struct record_event *v;
	int nr, alloc;
};

static int opt_event(const struct option *opt, const char *arg, int unset)
{
	struct event_args *ev = opt->value;

	if (ev->nr == ev->alloc) {
		ev->alloc = ev->alloc ? 2 * ev->alloc : 8;
		ev->v = xrealloc(ev->v, ev->alloc * sizeof(*ev->v));
	}
	ev->v[ev->nr].spec = arg;
	ev->v[ev->nr].filter = NULL;
	ev->nr++;
	return 0;
}

static int opt_filter(const struct option *opt, const char *arg, int unset)
{
	struct event_args *ev = opt->value;

	if (!ev->nr)
		return error("-f '%s': give it after the -e it filters", arg);
	if (ev->v[ev->nr - 1].filter)
		return error("-f '%s': -e %s already has a filter", arg,
			     ev->v[ev->nr - 1].spec);
	ev->v[ev->nr - 1].filter = arg;
	return 0;
}

static int opt_duration(const struct option *opt, const char *arg, int unset)
{
	double *d = opt->value;
	char *end;

	*d = strtod(arg, &end);
	if (end == arg || *end || *d <= 0)
		return error("--duration %s: not a positive number of seconds", arg);
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

static const char *const record_usage[] = {
	"tracekit record [-e EVENT [-f FILTER]]... [-o FILE] [-b KB] [-C CLOCK] [-p PID]\n"
	"                [--cpus LIST] [-z LEVEL | --no-compress] [-T] [--duration S]\n"
	"                [--top] [-- COMMAND [ARGS...]]",
	NULL
};

int cmd_record(int argc, const char **argv)
{
	struct event_args ev = { 0 };
	struct record_opts o = { .zlevel = 1 };
	struct record_result res;
	struct record_hooks hooks = { 0 };
	struct strbuf err = STRBUF_INIT;
	const char *output = "trace.dat";
	int no_compress = 0, quiet = 0, ret;
	unsigned long buffer_kb = 0;
	struct strbuf version = STRBUF_INIT;
	char size[32];
	const struct option options[] = {
		OPT_GROUP("What to record"),
		OPT_CALLBACK('e', "event", &ev, "EVENT",
			     "SYSTEM:EVENT, SYSTEM, or a glob (sched:sched_*, 'sdt_app:*'); repeatable",
			     opt_event),
		OPT_CALLBACK('f', "filter", &ev, "FILTER",
			     "event filter (tracefs syntax) for the preceding -e", opt_filter),
		OPT_INTEGER('p', "pid", &o.pid, "PID",
			    "only events of PID and the children it forks; stop when it exits"),
		OPT_STRING(0, "cpus", &o.cpus, "LIST", "only these CPUs (0-3,6)"),
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
			     "stop after S seconds", opt_duration),
		OPT_BOOL(0, "top", &o.top,
			 "use the top-level buffer instead of a private instance"),
		OPT_BOOL('q', "quiet", &quiet, "no live status line"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, record_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!ev.nr) {
		error("no events to record: give -e EVENT");
		usage_with_options(record_usage, options);
	}
	if (o.zlevel < 1 || o.zlevel > 22)
		die_code(TK_EXIT_USAGE, "-z %d: zstd levels are 1 to 22", o.zlevel);
	if (o.pid < 0)
		die_code(TK_EXIT_USAGE, "-p %d: not a process id", o.pid);
	if (o.pid && argc)
		die_code(TK_EXIT_USAGE, "-p and a COMMAND exclude each other");
	if (no_compress)
		o.zlevel = -1;
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
	if (ret == -ENODEV || ret == -EACCES || ret == -EPERM)
		return TK_EXIT_ENV;
	if (ret)
		return TK_EXIT_FAIL;
	human_bytes(size, sizeof(size), res.file_size);
	fprintf(stderr, "tracekit record: %llu events (%llu lost) written to %s (%s, ratio %.1f)\n",
		(unsigned long long)res.events, (unsigned long long)res.lost, output, size,
		res.bytes_out ? (double)res.bytes_in / res.bytes_out : 1.0);
	return TK_EXIT_OK;
}
