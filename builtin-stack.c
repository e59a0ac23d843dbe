// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit stack: drive the kernel's stack tracer, in the manner of
 * `trace-cmd stack`, and measure the deepest kernel stack a command
 * reaches.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "util/json.h"
#include "util/parse-options.h"
#include "util/run-command.h"
#include "util/stack-tracer.h"
#include "util/strbuf.h"
#include "util/tracefs.h"
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

/* What the kernel reports, read while the tracer cannot change it. */
struct stack_report {
	int enabled;
	struct stack_filter filter;
	unsigned long max;
	struct stack_trace trace;
	unsigned long thread_size;
	const char *thread_size_source;
};

static int exit_code_for(int err)
{
	return err == -EACCES || err == -EPERM || err == -ENOENT ?
	       TK_EXIT_ENV : TK_EXIT_FAIL;
}

static void die_errno(int err, const char *what)
{
	die_code(exit_code_for(err), "%s: %s%s", what, strerror(-err),
		 (err == -EACCES || err == -EPERM) && geteuid() ? " (run as root)" : "");
}

/*
 * The maximum and its table are two files; a new maximum between the
 * reads would pair a number with another stack, so read until the
 * number is the same on both sides of the table.
 */
static void read_report(struct stack_report *r)
{
	struct strbuf err = STRBUF_INIT;
	unsigned long after;
	int ret, tries;

	memset(r, 0, sizeof(*r));
	ret = stack_tracer_enabled(&r->enabled);
	if (ret)
		die_errno(ret, "reading " STACK_TRACER_SYSCTL);
	ret = stack_tracer_filter(&r->filter);
	if (ret)
		die_errno(ret, "reading stack_trace_filter");
	for (tries = 0; tries < 5; tries++) {
		stack_trace_release(&r->trace);
		ret = stack_tracer_max_size(&r->max);
		if (ret)
			die_errno(ret, "reading stack_max_size");
		ret = stack_tracer_read(&r->trace, &err);
		if (ret == -EINVAL)
			die("stack_trace: %s", err.buf);
		if (ret)
			die_errno(ret, "reading stack_trace");
		if (!stack_tracer_max_size(&after) && after == r->max)
			break;
	}
	r->thread_size = stack_tracer_thread_size(&r->thread_size_source);
	strbuf_release(&err);
}

static void release_report(struct stack_report *r)
{
	stack_filter_release(&r->filter);
	stack_trace_release(&r->trace);
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

static void print_text(const struct stack_report *r)
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

static void print_json(const struct stack_report *r, const int *exit_status)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	char addr[32];
	int i;

	jw_object_begin(&jw, NULL);
	jw_int(&jw, "enabled", r->enabled);
	jw_array_begin(&jw, "filter");
	for (i = 0; i < r->filter.nr; i++)
		jw_string(&jw, NULL, r->filter.v[i]);
	jw_end(&jw);
	jw_uint(&jw, "max_stack_size", r->max);
	jw_uint(&jw, "thread_size", r->thread_size);
	jw_string(&jw, "thread_size_source", r->thread_size_source);
	if (r->thread_size)
		jw_double(&jw, "percent", 2, 100.0 * r->max / r->thread_size);
	if (exit_status)
		jw_int(&jw, "exit_status", *exit_status);
	jw_array_begin(&jw, "entries");
	for (i = 0; r->max && i < r->trace.nr; i++) {
		const struct stack_entry *e = &r->trace.v[i];

		jw_object_begin(&jw, NULL);
		jw_uint(&jw, "index", e->index);
		jw_uint(&jw, "depth", e->depth);
		jw_uint(&jw, "size", e->size);
		jw_string(&jw, "symbol", e->symbol);
		jw_uint(&jw, "offset", e->offset);
		jw_uint(&jw, "length", e->length);
		jw_string(&jw, "module", e->module);
		if (!e->symbol) {
			snprintf(addr, sizeof(addr), "0x%llx", e->address);
			jw_string(&jw, "address", addr);
		}
		jw_string(&jw, "location", e->location);
		jw_end(&jw);
	}
	jw_end(&jw);
	jw_end(&jw);
	puts(sb.buf);
	strbuf_release(&sb);
}

static void print_report(const struct stack_report *r, const struct stack_opts *o,
			 const int *exit_status)
{
	if (o->json)
		print_json(r, exit_status);
	else
		print_text(r);
	if (fflush(stdout) || ferror(stdout))
		die("writing the report: %s", strerror(errno));
}

/* "a,b" and repeated --filter both give one name per element, owned by out. */
static void split_filters(const struct opt_string_list *in, struct opt_string_list *out)
{
	int i;

	for (i = 0; i < in->nr; i++) {
		char *dup = xstrdup(in->items[i]), *tok, *save = NULL;

		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			opt_string_list_append(out, xstrdup(tok));
		free(dup);
	}
}

static void apply_filter(const struct stack_opts *o, int keep)
{
	struct opt_string_list funcs = { 0 };
	struct strbuf refused = STRBUF_INIT;
	int ret;

	if (!o->filter.nr && !o->clear_filter)
		return;
	split_filters(&o->filter, &funcs);
	ret = stack_tracer_set_filter(funcs.items, funcs.nr, keep, &refused);
	if (ret && refused.len)
		die("--filter %s: %s", refused.buf, ret == -EINVAL ?
		    "not a function the stack tracer can trace (see available_filter_functions)" :
		    strerror(-ret));
	if (ret)
		die_errno(ret, "writing stack_trace_filter");
	while (funcs.nr)
		free((char *)funcs.items[--funcs.nr]);
	opt_string_list_clear(&funcs);
	strbuf_release(&refused);
}

static void set_enabled(int on, int keep)
{
	int ret = stack_tracer_set_enabled(on, keep);

	if (ret)
		die_errno(ret, "writing " STACK_TRACER_SYSCTL);
}

static void reset_max(void)
{
	int ret = stack_tracer_reset();

	if (ret)
		die_errno(ret, "writing stack_max_size");
}

/*
 * SIGINT and SIGQUIT from the terminal go to the command; tracekit
 * waits for it and then shows and restores, as time(1) and perf stat do.
 */
static int run_command(const char **argv)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct sigaction ign, old_int, old_quit;
	int status, exec_err, ret;

	cmd.argv = (char *const *)argv;
	if (start_command(&cmd, &err))
		die("%s", err.buf);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	exec_err = release_command(&cmd);
	ret = finish_command(&cmd, &status);
	if (ret)
		die("waitpid: %s", strerror(-ret));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	child_process_clear(&cmd);
	if (exec_err)
		die_code(127, "cannot run '%s': %s", argv[0], strerror(-exec_err));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * reset, start, run, stop, read; then put the enabled state and the
 * filter back before printing, so a reader that goes away (SIGPIPE)
 * cannot leave them changed.
 */
static int measure_command(const char **argv, const struct stack_opts *o)
{
	struct stack_report r;
	int status;

	/*
	 * A command that is not there is reported before the tracer is turned
	 * on: hooking every function only to fail to exec is slow for nothing.
	 */
	if (!command_in_path(argv[0]))
		die_code(127, "cannot run '%s': %s", argv[0],
			 strchr(argv[0], '/') ? strerror(ENOENT) : "command not found");
	apply_filter(o, 0);
	reset_max();
	set_enabled(1, 0);
	status = run_command(argv);
	/*
	 * Keep no undo of this stop: replayed first, it would turn the tracer
	 * back on until the start's undo ran, and the maximum could grow
	 * under the report (seen under ASan in the VM).
	 */
	set_enabled(0, 1);
	read_report(&r);
	tk_restore_run();
	print_report(&r, o, &status);
	release_report(&r);
	return status;
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
			     PARSE_OPT_STOP_AT_NON_OPTION | PARSE_OPT_KEEP_DASHDASH);
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
		die_code(TK_EXIT_ENV, "%s", why.buf);
	strbuf_release(&why);
	tk_restore_install();

	if (argc > 0) {
		ret = measure_command(argv, &o);
	} else if (action) {
		apply_filter(&o, 1);
		if (o.reset)
			reset_max();
		if (o.start || o.stop)
			set_enabled(o.start, 1);
		ret = TK_EXIT_OK;
	} else {
		read_report(&r);
		print_report(&r, &o, NULL);
		release_report(&r);
		ret = TK_EXIT_OK;
	}
	opt_string_list_clear(&o.filter);
	return ret;
}
