// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/arch.h"
#include "util/array.h"
#include "util/json.h"
#include "util/probe-btf.h"
#include "util/run-command.h"
#include "util/stack-tracer.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"
#include "util/usage.h"

/* ---- the stack_trace table ---- */

/*
 * t_show() in kernel/trace/trace_stack.c prints
 *   "        Depth    Size   Location    (%d entries)\n"
 *   "        -----    ----   --------\n"
 * then, when the tracer is off and the maximum is 0, a block of '#'
 * lines, then one "%3ld) %8d   %5d   %pS\n" row per entry.  A reset does
 * not clear the rows: they stay until the next maximum replaces them.
 */
static int parse_header(const char *line, struct stack_trace *st)
{
	int n, used = 0;

	if (sscanf(line, " Depth Size Location (%d entries)%n", &n, &used) != 1 ||
	    line[used] || n < 0)
		return 0;
	st->header_entries = n;
	return 1;
}

static int is_separator(const char *line)
{
	char a[8], b[8], c[12];
	int used = 0;

	return sscanf(line, " %7s %7s %11s%n", a, b, c, &used) == 3 && !line[used] &&
	       !strcmp(a, "-----") && !strcmp(b, "----") && !strcmp(c, "--------");
}

static int parse_hex(const char *s, const char *end, unsigned long long *v)
{
	char *e;

	if (end - s < 3 || s[0] != '0' || s[1] != 'x' ||
	    !isxdigit((unsigned char)s[2]))
		return -1;
	errno = 0;
	*v = strtoull(s + 2, &e, 16);
	return errno || e != end ? -1 : 0;
}

/*
 * %pS: "sym+0xoff/0xlen", then " [module]" for a module symbol (with a
 * build id after the name on kernels with CONFIG_STACKTRACE_BUILD_ID),
 * or a bare "0x..." address when kallsyms has no symbol for it.
 */
static int parse_location(const char *loc, struct stack_entry *e)
{
	const char *end = loc + strlen(loc), *bracket = strchr(loc, '[');
	const char *plus, *slash;
	unsigned long long off, len;

	if (bracket) {
		const char *close = strchr(bracket, ']');
		size_t n;

		if (!close || close[1] || bracket == loc || bracket[-1] != ' ')
			return -1;
		n = strcspn(bracket + 1, " ]");
		if (!n)
			return -1;
		e->module = xstrndup(bracket + 1, n);
		end = bracket - 1;
	}
	plus = memchr(loc, '+', end - loc);
	if (!plus) {
		if (parse_hex(loc, end, &e->address) == 0)
			return 0;
		e->symbol = xstrndup(loc, end - loc);
		return strcspn(e->symbol, " \t") == strlen(e->symbol) && *e->symbol ? 0 : -1;
	}
	slash = memchr(plus, '/', end - plus);
	if (plus == loc || !slash || parse_hex(plus + 1, slash, &off) ||
	    parse_hex(slash + 1, end, &len))
		return -1;
	e->symbol = xstrndup(loc, plus - loc);
	e->offset = off;
	e->length = len;
	return 0;
}

static int parse_row(const char *line, struct stack_entry *e)
{
	unsigned int idx;
	unsigned long depth, size;
	int loc = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, " %u) %lu %lu %n", &idx, &depth, &size, &loc) != 3 || !loc ||
	    !line[loc])
		return -1;
	e->index = idx;
	e->depth = depth;
	e->size = size;
	e->location = xstrdup(line + loc);
	return parse_location(e->location, e);
}

static void entry_release(struct stack_entry *e)
{
	free(e->location);
	free(e->symbol);
	free(e->module);
}

void stack_trace_release(struct stack_trace *st)
{
	int i;

	for (i = 0; i < st->nr; i++)
		entry_release(&st->v[i]);
	free(st->v);
	memset(st, 0, sizeof(*st));
}

int stack_trace_parse(const char *text, struct stack_trace *st,
		      struct strbuf *err)
{
	const char *p = text;
	int lineno = 0, seen_header = 0, seen_sep = 0;

	memset(st, 0, sizeof(*st));
	st->header_entries = -1;
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		struct stack_entry e;
		const char *why = NULL;

		lineno++;
		p += n + (p[n] == '\n');
		if (!seen_header) {
			if (!parse_header(line, st))
				why = "expected the \"Depth Size Location (N entries)\" header";
			seen_header = 1;
		} else if (!seen_sep) {
			if (!is_separator(line))
				why = "expected the \"----- ---- --------\" line";
			seen_sep = 1;
		} else if (line[0] == '#') {
			if (strstr(line, "Stack tracer disabled"))
				st->disabled_note = 1;
		} else if (parse_row(line, &e) < 0) {
			entry_release(&e);
			why = "expected \"N) DEPTH SIZE LOCATION\"";
		} else if (e.index != (unsigned int)st->nr) {
			entry_release(&e);
			why = "entry out of sequence";
		} else {
			grow_array(st->v, st->nr, st->alloc, 32);
			st->v[st->nr++] = e;
		}
		if (why) {
			if (err)
				strbuf_addf(err, "line %d: %s: \"%s\"", lineno, why, line);
			free(line);
			stack_trace_release(st);
			return -EINVAL;
		}
		free(line);
	}
	if (!seen_sep) {
		if (err)
			strbuf_addf(err, "line %d: truncated before the table", lineno);
		stack_trace_release(st);
		return -EINVAL;
	}
	return 0;
}

/* ---- the live interface ---- */

/* "WHAT: why" into err, with the hint a user refused by tracefs needs. */
static int errno_error(struct strbuf *err, int ret, const char *what)
{
	strbuf_addf(err, "%s: %s%s", what, strerror(-ret),
		    (ret == -EACCES || ret == -EPERM) && geteuid() ?
		    " (run as root)" : "");
	return ret;
}

static int read_long(const char *path, long *v)
{
	struct strbuf sb = STRBUF_INIT;
	long n = strbuf_read_file(&sb, path, 0);
	char *end;
	int ret = 0;

	if (n < 0) {
		ret = (int)n;
		goto out;
	}
	errno = 0;
	*v = strtol(sb.buf, &end, 10);
	if (errno || end == sb.buf || (*end && *end != '\n'))
		ret = -EINVAL;
out:
	strbuf_release(&sb);
	return ret;
}

static void tracefs_file(struct strbuf *sb, const char *file)
{
	strbuf_reset(sb);
	tk_tracefs_path(sb, NULL, file);
}

int stack_tracer_check(struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT;
	struct utsname u;
	int fd, ret = 0;

	if (!tk_tracefs_dir()) {
		strbuf_addstr(why, "tracefs is not mounted "
			      "(mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENODEV;
	}
	if (access(STACK_TRACER_SYSCTL, F_OK) < 0) {
		uname(&u);
		strbuf_addf(why, "the stack tracer is not available: kernel %s has no %s "
			    "(built without CONFIG_STACK_TRACER)", u.release,
			    STACK_TRACER_SYSCTL);
		return -ENODEV;
	}
	tracefs_file(&path, "stack_trace");
	if (access(path.buf, F_OK) < 0) {
		strbuf_addf(why, "the stack tracer is not available: no %s", path.buf);
		ret = -ENODEV;
		goto out;
	}
	/* tracefs files are root's; lockdown refuses even root (EPERM). */
	fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(why, "not permitted to read %s: %s%s", path.buf,
			    strerror(errno), geteuid() ? " (run as root)" : "");
		goto out;
	}
	close(fd);
out:
	strbuf_release(&path);
	return ret;
}

int stack_tracer_enabled(int *val)
{
	long v;
	int ret = read_long(STACK_TRACER_SYSCTL, &v);

	if (!ret)
		*val = (int)v;
	return ret;
}

int stack_tracer_max_size(unsigned long *bytes)
{
	struct strbuf path = STRBUF_INIT;
	long v;
	int ret;

	tracefs_file(&path, "stack_max_size");
	ret = read_long(path.buf, &v);
	if (!ret)
		*bytes = v;
	strbuf_release(&path);
	return ret;
}

int stack_tracer_read(struct stack_trace *st, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	long n = tk_tracefs_read(NULL, "stack_trace", &sb);
	int ret;

	if (n < 0) {
		memset(st, 0, sizeof(*st));
		strbuf_release(&sb);
		return (int)n;
	}
	ret = stack_trace_parse(sb.buf, st, err);
	strbuf_release(&sb);
	return ret;
}

static void filter_append(struct stack_filter *f, const char *name)
{
	grow_array(f->v, f->nr, f->alloc, 8);
	f->v[f->nr++] = xstrdup(name);
}

void stack_filter_release(struct stack_filter *f)
{
	int i;

	for (i = 0; i < f->nr; i++)
		free(f->v[i]);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

int stack_tracer_filter(struct stack_filter *f)
{
	struct strbuf sb = STRBUF_INIT;
	long n = tk_tracefs_read(NULL, "stack_trace_filter", &sb);
	char *line, *save = NULL;

	memset(f, 0, sizeof(*f));
	if (n < 0) {
		strbuf_release(&sb);
		return (int)n;
	}
	/* An empty filter reads "#### all functions enabled ####". */
	for (line = strtok_r(sb.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !line[0])
			continue;
		filter_append(f, line);
	}
	strbuf_release(&sb);
	return 0;
}

/*
 * The filter lists a module function as "func [mod]".  Written back, the
 * bare name is what works: "func:mod:mod" is refused with ENODEV by
 * stack_trace_filter (its ops belong to no trace_array).
 */
static char *filter_input_name(const char *listed)
{
	return xstrndup(listed, strcspn(listed, " "));
}

/*
 * The filter takes one name per write(): a write of "a\nb\n" returns 2
 * and applies "a" only, and a name without its newline is applied at
 * close, where a refusal reaches nobody.  So each name is written on its
 * own, newline included: the first truncating, the others appending.
 * Returns 0, or -errno with *failed the index of the refused name.
 */
static int write_filter(const char *const *names, int nr, int *failed)
{
	struct strbuf line = STRBUF_INIT;
	int i, ret = 0;

	if (!nr)
		ret = tk_tracefs_write(NULL, "stack_trace_filter", "");
	for (i = 0; i < nr && !ret; i++) {
		strbuf_reset(&line);
		strbuf_addf(&line, "%s\n", names[i]);
		ret = i ? tk_tracefs_append(NULL, "stack_trace_filter", line.buf) :
			  tk_tracefs_write(NULL, "stack_trace_filter", line.buf);
		*failed = i;
	}
	strbuf_release(&line);
	return ret;
}

/*
 * The undo of a filter change, in the same one-name-per-write form:
 * the registry replays newest first, so the appends are pushed before
 * the truncating write of the first name.
 */
static int push_filter_undo(const char *path, char **names, int nr)
{
	struct strbuf line = STRBUF_INIT;
	int i, ret = 0;

	if (!nr)
		return tk_restore_push_write(path, "", 0);
	for (i = nr - 1; i >= 0 && !ret; i--) {
		strbuf_reset(&line);
		strbuf_addf(&line, "%s\n", names[i]);
		ret = tk_restore_push_write(path, line.buf, i > 0);
	}
	strbuf_release(&line);
	return ret;
}

static void forget_filter_undo(const char *path, char **names, int nr)
{
	struct strbuf line = STRBUF_INIT;
	int i;

	if (!nr)
		tk_restore_forget(path, "");
	for (i = 0; i < nr; i++) {
		strbuf_reset(&line);
		strbuf_addf(&line, "%s\n", names[i]);
		tk_restore_forget(path, line.buf);
	}
	strbuf_release(&line);
}

static int write_sysctl(const char *val)
{
	int fd = open(STACK_TRACER_SYSCTL, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(val))
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int stack_tracer_set_enabled(int on, int keep, struct strbuf *err)
{
	char old[32];
	int val, ret = stack_tracer_enabled(&val);

	if (ret)
		goto out;
	snprintf(old, sizeof(old), "%d", val);
	ret = tk_restore_push_write(STACK_TRACER_SYSCTL, old, 0);
	if (ret)
		goto out;
	ret = write_sysctl(on ? "1" : "0");
	if (ret || keep)
		tk_restore_forget(STACK_TRACER_SYSCTL, old);
out:
	return ret ? errno_error(err, ret, "writing " STACK_TRACER_SYSCTL) : 0;
}

/*
 * No undo: the maximum is a measurement, not a setting, and writing the
 * old number back would pair it with whatever table the kernel has then.
 */
int stack_tracer_reset(struct strbuf *err)
{
	int ret = tk_tracefs_write(NULL, "stack_max_size", "0");

	return ret ? errno_error(err, ret, "writing stack_max_size") : 0;
}

/* "a,b" and repeated --filter both give one name per element. */
static void split_filters(const char *const *args, int nr,
			  struct stack_filter *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nr; i++) {
		char *dup = xstrdup(args[i]), *tok, *save = NULL;

		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			filter_append(out, tok);
		free(dup);
	}
}

/* A name the kernel refused: the input is at fault, whatever its errno. */
static int refused_error(struct strbuf *err, int ret, const char *name)
{
	strbuf_addf(err, "--filter %s: %s", name, ret == -EINVAL ?
		    "not a function the stack tracer can trace "
		    "(see available_filter_functions)" : strerror(-ret));
	return -EINVAL;
}

int stack_tracer_set_filter(const char *const *args, int nr, int keep,
			    struct strbuf *err)
{
	struct stack_filter old, funcs;
	struct strbuf path = STRBUF_INIT;
	char **prev;
	int i, failed = 0, ret = stack_tracer_filter(&old);

	if (ret)
		return errno_error(err, ret, "writing stack_trace_filter");
	split_filters(args, nr, &funcs);
	prev = xcalloc(old.nr + 1, sizeof(*prev));
	for (i = 0; i < old.nr; i++)
		prev[i] = filter_input_name(old.v[i]);
	tracefs_file(&path, "stack_trace_filter");
	ret = push_filter_undo(path.buf, prev, old.nr);
	if (ret) {
		errno_error(err, ret, "writing stack_trace_filter");
		goto out;
	}
	ret = write_filter((const char *const *)funcs.v, funcs.nr, &failed);
	if (ret && funcs.nr)
		ret = refused_error(err, ret, funcs.v[failed]);
	else if (ret)
		errno_error(err, ret, "writing stack_trace_filter");
	if (ret)
		write_filter((const char *const *)prev, old.nr, &failed);
	if (ret || keep)
		forget_filter_undo(path.buf, prev, old.nr);
out:
	for (i = 0; i < old.nr; i++)
		free(prev[i]);
	free(prev);
	stack_filter_release(&old);
	stack_filter_release(&funcs);
	strbuf_release(&path);
	return ret;
}

/* ---- THREAD_SIZE ---- */

/*
 * x86-64, arch/x86/include/asm/page_64_types.h: THREAD_SIZE is PAGE_SIZE
 * << (2 + KASAN_STACK_ORDER), KASAN_STACK_ORDER being 1 with
 * CONFIG_KASAN, and IRQ_STACK_SIZE has the same order.  The kernel
 * exports neither macro, but its BTF has struct irq_stack { char
 * stack[IRQ_STACK_SIZE]; }, so the running kernel answers; else its
 * config; else the default.
 */
static unsigned long x86_64_thread_size(unsigned long page,
					const char **source)
{
	unsigned long btf = probe_btf_struct_size("irq_stack");
	int have_config, kasan;

	if (btf) {
		*source = "x86-64: sizeof(struct irq_stack) in the kernel's BTF";
		return btf;
	}
	kasan = tk_kconfig_has("CONFIG_KASAN", &have_config);
	if (!have_config) {
		*source = "x86-64 default: PAGE_SIZE << 2";
		return page << 2;
	}
	*source = kasan ? "x86-64 with CONFIG_KASAN: PAGE_SIZE << 3" :
			  "x86-64, kernel config: PAGE_SIZE << 2";
	return page << (kasan ? 3 : 2);
}

/*
 * arm64, arch/arm64/include/asm/memory.h: MIN_THREAD_SHIFT is 14, one
 * more with KASAN; with CONFIG_VMAP_STACK (Debian's, and the default) a
 * page larger than that (64 KiB pages) is the THREAD_SIZE.  No type of
 * its BTF has that size, so the config answers, else the default.
 */
static unsigned long arm64_thread_size(unsigned long page,
				       const char **source)
{
	int have_config, kasan = tk_kconfig_has("CONFIG_KASAN", &have_config);
	int vmap = !have_config || tk_kconfig_has("CONFIG_VMAP_STACK", NULL);
	unsigned long size = 16384UL << kasan;

	*source = have_config ? "arm64, kernel config: 16 KiB (32 with KASAN), "
				"or the page with VMAP_STACK" :
				"arm64 default: 16 KiB, or the page when larger";
	return vmap && page > size ? page : size;
}

unsigned long stack_tracer_thread_size(const char **source)
{
	struct strbuf why = STRBUF_INIT;
	const struct arch *a = arch_of_kernel(&why);
	unsigned long page = sysconf(_SC_PAGESIZE);

	strbuf_release(&why);
	*source = "unknown for this architecture";
	if (a == &arch_x86_64)
		return x86_64_thread_size(page, source);
	if (a == &arch_arm64)
		return arm64_thread_size(page, source);
	return 0;
}

/* ---- the report and the measurement ---- */

/*
 * The maximum and its table are two files; a new maximum between the
 * reads would pair a number with another stack, so read until the
 * number is the same on both sides of the table.
 */
static int read_consistent(struct stack_report *r, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	unsigned long after;
	int ret = 0, tries;

	for (tries = 0; tries < 5; tries++) {
		stack_trace_release(&r->trace);
		ret = stack_tracer_max_size(&r->max);
		if (ret)
			return errno_error(err, ret, "reading stack_max_size");
		ret = stack_tracer_read(&r->trace, &why);
		if (ret == -EINVAL)
			strbuf_addf(err, "stack_trace: %s", why.buf);
		else if (ret)
			errno_error(err, ret, "reading stack_trace");
		if (ret || (!stack_tracer_max_size(&after) && after == r->max))
			break;
	}
	strbuf_release(&why);
	return ret;
}

int stack_report_read(struct stack_report *r, struct strbuf *err)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = stack_tracer_enabled(&r->enabled);
	if (ret)
		return errno_error(err, ret, "reading " STACK_TRACER_SYSCTL);
	ret = stack_tracer_filter(&r->filter);
	if (ret) {
		errno_error(err, ret, "reading stack_trace_filter");
		goto fail;
	}
	ret = read_consistent(r, err);
	if (ret)
		goto fail;
	r->thread_size = stack_tracer_thread_size(&r->thread_size_source);
	return 0;
fail:
	stack_report_release(r);
	return ret;
}

void stack_report_release(struct stack_report *r)
{
	stack_filter_release(&r->filter);
	stack_trace_release(&r->trace);
}

void stack_report_json(const struct stack_report *r, const int *exit_status,
		       struct strbuf *out)
{
	struct json_writer jw = JSON_WRITER_INIT(out);
	char addr[32];
	int i;

	json_writer_object_begin(&jw, NULL);
	json_writer_int(&jw, "enabled", r->enabled);
	json_writer_array_begin(&jw, "filter");
	for (i = 0; i < r->filter.nr; i++)
		json_writer_string(&jw, NULL, r->filter.v[i]);
	json_writer_end(&jw);
	json_writer_uint(&jw, "max_stack_size", r->max);
	json_writer_uint(&jw, "thread_size", r->thread_size);
	json_writer_string(&jw, "thread_size_source", r->thread_size_source);
	if (r->thread_size)
		json_writer_double(&jw, "percent", 2,
				   100.0 * r->max / r->thread_size);
	if (exit_status)
		json_writer_int(&jw, "exit_status", *exit_status);
	json_writer_array_begin(&jw, "entries");
	for (i = 0; r->max && i < r->trace.nr; i++) {
		const struct stack_entry *e = &r->trace.v[i];

		json_writer_object_begin(&jw, NULL);
		json_writer_uint(&jw, "index", e->index);
		json_writer_uint(&jw, "depth", e->depth);
		json_writer_uint(&jw, "size", e->size);
		json_writer_string(&jw, "symbol", e->symbol);
		json_writer_uint(&jw, "offset", e->offset);
		json_writer_uint(&jw, "length", e->length);
		json_writer_string(&jw, "module", e->module);
		if (!e->symbol) {
			snprintf(addr, sizeof(addr), "0x%llx", e->address);
			json_writer_string(&jw, "address", addr);
		}
		json_writer_string(&jw, "location", e->location);
		json_writer_end(&jw);
	}
	json_writer_end(&jw);
	json_writer_end(&jw);
}

static int cannot_run(struct stack_measure *m, int ret, const char *cmd,
		      const char *why, struct strbuf *err)
{
	m->not_run = 1;
	strbuf_addf(err, "cannot run '%s': %s", cmd, why);
	return ret;
}

/*
 * SIGINT and SIGQUIT from the terminal go to the command; tracekit
 * waits for it and then shows and restores, as time(1) and perf stat do.
 */
static int measure_command(const char *const *argv, struct stack_measure *m,
			   struct strbuf *err)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	int status, exec_err, ret;

	cmd.argv = (char *const *)argv;
	ret = start_command(&cmd, err);
	if (ret)
		return ret;
	ret = wait_command_foreground(&cmd, &exec_err, &status);
	child_process_clear(&cmd);
	if (ret) {
		strbuf_addf(err, "waitpid: %s", strerror(-ret));
		return ret;
	}
	if (exec_err)
		return cannot_run(m, exec_err, argv[0], strerror(-exec_err),
				  err);
	m->status = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
					: WEXITSTATUS(status);
	return 0;
}

int stack_measure_command(const char *const *argv, const char *const *filter,
			  int nr_filter, struct stack_measure *m,
			  struct strbuf *err)
{
	int ret = 0;

	memset(m, 0, sizeof(*m));
	/*
	 * A command that is not there is reported before the tracer is turned
	 * on: hooking every function only to fail to exec is slow for nothing.
	 */
	if (!command_in_path(argv[0]))
		return cannot_run(m, -ENOENT, argv[0], strchr(argv[0], '/') ?
				  strerror(ENOENT) : "command not found", err);
	if (nr_filter)
		ret = stack_tracer_set_filter(filter, nr_filter, 0, err);
	if (!ret)
		ret = stack_tracer_reset(err);
	if (!ret)
		ret = stack_tracer_set_enabled(1, 0, err);
	if (!ret)
		ret = measure_command(argv, m, err);
	/*
	 * Keep no undo of this stop: replayed first, it would turn the tracer
	 * back on until the start's undo ran, and the maximum could grow
	 * under the report (seen under ASan in the VM).
	 */
	if (!ret)
		ret = stack_tracer_set_enabled(0, 1, err);
	if (!ret)
		ret = stack_report_read(&m->report, err);
	if (!ret)
		tk_restore_run();
	return ret;
}
