// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit stack: drive the kernel's stack tracer, in the manner of
 * `trace-cmd stack`, and measure the deepest kernel stack a command
 * reaches.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "util/parse-options.h"
#include "util/stack-tracer.h"
#include "util/strbuf.h"
#include "util/tracefs-restore.h"
#include "util/usage.h"

static const char *const stack_usage[] = {
	"tracekit stack [--json]",
	"tracekit stack [--start | --stop] [--reset] [--filter FUNC... | --clear-filter]",
	"tracekit stack [--filter FUNC...] [--json] [--] COMMAND [ARGS...]",
	NULL
};

struct stack_opts {
	int start, stop, reset, clear_filter, json;
	struct opt_string_list filter;
};

static void die_err(int ret, const struct strbuf *err)
{
	die_code(tk_exit_code(ret), "%s", err->buf);
}

static void location_text(const struct stack_entry *e, struct strbuf *sb)
{
	if (!e->symbol)
		strbuf_addf(sb, "0x%llx", e->address);
	else if (e->length)
		strbuf_addf(sb, "%s+0x%lx/0x%lx", e->symbol, e->offset, e->length);
	else
		strbuf_addstr(sb, e->symbol);
	if (e->module)
		strbuf_addf(sb, " [%s]", e->module);
}

#define FILTER_SHOWN 4

static void show_text(const struct stack_report *r)
{
	struct strbuf loc = STRBUF_INIT;
	int i;

	printf("Stack tracer: %s, ", r->enabled ? "running" : "stopped");
	if (!r->filter.nr)
		printf("checking all functions");
	/* A glob can select hundreds: name a few, --json lists them all. */
	for (i = 0; i < r->filter.nr && i < FILTER_SHOWN; i++)
		printf("%s%s", i ? ", " : "filter: ", r->filter.v[i]);
	if (r->filter.nr > FILTER_SHOWN)
		printf(", ... (%d functions)", r->filter.nr);
	putchar('\n');
	/* After a reset the kernel keeps listing the old rows: stale. */
	if (!r->max) {
		printf("No maximum recorded%s.\n", r->enabled ? " yet" :
		       "; start the tracer with --start or run a COMMAND");
		return;
	}
	printf("Maximum stack: %lu bytes", r->max);
	if (r->thread_size)
		printf(", %.1f%% of THREAD_SIZE %lu (%s)",
		       100.0 * r->max / r->thread_size, r->thread_size,
		       r->thread_size_source);
	printf("\n\n        Depth    Size   Location    (%d entries)\n"
	       "        -----    ----   --------\n", r->trace.nr);
	for (i = 0; i < r->trace.nr; i++) {
		const struct stack_entry *e = &r->trace.v[i];

		strbuf_reset(&loc);
		location_text(e, &loc);
		printf("%3u) %8lu   %5lu   %s\n", e->index, e->depth, e->size, loc.buf);
	}
	strbuf_release(&loc);
}

static void show_json(const struct stack_report *r, const int *exit_status)
{
	struct strbuf sb = STRBUF_INIT;

	stack_report_json(r, exit_status, &sb);
	puts(sb.buf);
	strbuf_release(&sb);
}

static void print_report(const struct stack_report *r,
			 const struct stack_opts *o, const int *exit_status)
{
	if (o->json)
		show_json(r, exit_status);
	else
		show_text(r);
	if (fflush(stdout) || ferror(stdout))
		die("writing the report: %s", strerror(errno));
}

/*
 * The tracer's settings are put back before printing, so that a reader
 * that goes away (SIGPIPE) cannot leave them changed.
 */
static int measure_command(const char **argv, const struct stack_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	struct stack_measure m;
	int ret;

	ret = stack_measure_command(argv, o->filter.items, o->filter.nr, &m,
				    &err);
	if (ret)
		die_code(m.not_run ? 127 : tk_exit_code(ret), "%s", err.buf);
	print_report(&m.report, o, &m.status);
	stack_report_release(&m.report);
	strbuf_release(&err);
	return m.status;
}

/* --filter, --clear-filter, --reset, --start, --stop, in that order. */
static void change_settings(const struct stack_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (o->filter.nr || o->clear_filter)
		ret = stack_tracer_set_filter(o->filter.items, o->filter.nr, 1,
					      &err);
	if (!ret && o->reset)
		ret = stack_tracer_reset(&err);
	if (!ret && (o->start || o->stop))
		ret = stack_tracer_set_enabled(o->start, 1, &err);
	if (ret)
		die_err(ret, &err);
	strbuf_release(&err);
}

int cmd_stack(int argc, const char **argv)
{
	struct stack_opts o = { 0 };
	const struct option options[] = {
		OPT_GROUP("Actions (without them: show the maximum)"),
		OPT_BOOL(0, "start", &o.start,
			 "enable the stack tracer (stays enabled after tracekit exits)"),
		OPT_BOOL(0, "stop", &o.stop, "disable the stack tracer"),
		OPT_BOOL(0, "reset", &o.reset, "forget the maximum (stack_max_size = 0)"),
		OPT_STRING_LIST('f', "filter", &o.filter, "FUNC",
				"check the stack only at calls of FUNC (ftrace glob; "
				"repeat or separate with commas)"),
		OPT_BOOL(0, "clear-filter", &o.clear_filter,
			 "check the stack at every traced function again"),
		OPT_GROUP("Output"),
		OPT_BOOL(0, "json", &o.json, "print the report as one JSON object"),
		OPT_END(),
	};
	struct strbuf why = STRBUF_INIT;
	struct stack_report r;
	int ret, action;

	argc = parse_options(argc, argv, options, stack_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION |
				     PARSE_OPT_KEEP_DASHDASH);
	if (argc > 0 && !strcmp(argv[0], "--")) {
		argc--;
		argv++;
	}
	action = o.start || o.stop || o.reset || o.filter.nr || o.clear_filter;
	if (o.start && o.stop) {
		error("--start and --stop are mutually exclusive");
		usage_with_options(stack_usage, options);
	}
	if (o.filter.nr && o.clear_filter) {
		error("--filter and --clear-filter are mutually exclusive");
		usage_with_options(stack_usage, options);
	}
	if (argc > 0 && (o.start || o.stop || o.reset || o.clear_filter)) {
		error("--start, --stop, --reset and --clear-filter do not take a COMMAND");
		usage_with_options(stack_usage, options);
	}
	if (!argc && action && o.json) {
		error("--json: nothing is shown with --start, --stop, --reset or --filter");
		usage_with_options(stack_usage, options);
	}

	ret = stack_tracer_check(&why);
	if (ret)
		die_err(ret, &why);
	strbuf_reset(&why);
	tk_restore_install();

	if (argc > 0) {
		ret = measure_command(argv, &o);
	} else if (action) {
		change_settings(&o);
		ret = TK_EXIT_OK;
	} else {
		ret = stack_report_read(&r, &why);
		if (ret)
			die_err(ret, &why);
		print_report(&r, &o, NULL);
		stack_report_release(&r);
		ret = TK_EXIT_OK;
	}
	strbuf_release(&why);
	opt_string_list_clear(&o.filter);
	return ret;
}
