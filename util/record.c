// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "util/record.h"
#include "util/run-command.h"
#include "util/wrapper.h"
#include "util/tracedat-write.h"
#include "util/tracefs.h"
#include "util/usage.h"

/* Pages per compressed chunk: larger chunks compress better, and the
 * reader keeps one chunk per CPU uncompressed. */
#define CHUNK_PAGES	32
/* Bound on the memory holding pages not yet compressed. */
#define QUEUE_BYTES	(32u << 20)

struct cpu_stats {
	uint64_t entries, overrun, commit_overrun, dropped, read;
};

struct chunk {
	struct chunk *next;
	struct cpu_reader *r;
	size_t len;
	unsigned char data[];
};

struct cpu_reader {
	struct record *rec;
	int cpu;
	int fd;			/* trace_pipe_raw */
	int pipe[2];		/* for splice() */
	int scratch;		/* this CPU's chunks */
	pthread_t thread;
	int started;
	uint64_t scratch_size;	/* compressor only */
	uint32_t nr_chunks;	/* compressor only */
	uint64_t bytes_in;	/* atomic */
	uint64_t bytes_out;	/* atomic */
	struct cpu_stats base;
};

struct event_name {
	char *system;
	char *name;
};

struct record {
	const struct record_opts *o;
	const char *inst;	/* NULL: top level */
	char inst_name[64];
	unsigned int psize;	/* ring-buffer sub-buffer size */
	size_t chunk_size;
	int nr_sys_cpus;
	struct cpu_reader *cpus;
	int nr_cpus;
	struct event_name *events;
	int nr_events, alloc_events;

	int stop_fd;		/* readers: drain and stop */
	int fail_fd;		/* main loop: a worker failed */
	pthread_mutex_t lock;
	pthread_cond_t queued, freed;
	struct chunk *head, **tail, *free;
	size_t allocated;
	int closed;
	int err;
	pthread_t compressor;
	int compressor_started;

	char *output;
	char *dir;
	int out_fd;
	char *out_tmp;		/* named temporary, when O_TMPFILE is not there */
	struct tracedat_writer *w;
	struct child_process cmd;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_err(struct record *rec, int err)
{
	pthread_mutex_lock(&rec->lock);
	if (!rec->err)
		rec->err = err;
	pthread_mutex_unlock(&rec->lock);
	eventfd_write(rec->fail_fd, 1);
}

/* ---- tracefs setup: every change registers its undo first ---- */

static int set_file(struct record *rec, const char *file, const char *val,
		    const char *restore)
{
	int ret = tk_tracefs_set(rec->inst, file, val, restore);

	if (ret)
		error("%s: cannot write '%s': %s", file, val, strerror(-ret));
	return ret;
}

static int read_first_word(struct record *rec, const char *file, struct strbuf *out)
{
	long n = tk_tracefs_read(rec->inst, file, out);

	if (n < 0)
		return (int)n;
	strbuf_setlen(out, strcspn(out->buf, " \n"));
	return 0;
}

static int make_instance(struct record *rec)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	snprintf(rec->inst_name, sizeof(rec->inst_name), "tracekit-%d", (int)getpid());
	tk_tracefs_path(&path, rec->inst_name, NULL);
	ret = tk_restore_push_rmdir(path.buf);
	if (!ret && mkdir(path.buf, 0755) < 0) {
		ret = -errno;
		tk_restore_forget(path.buf, NULL);
		error("cannot create instance %s: %s", path.buf, strerror(errno));
	}
	strbuf_release(&path);
	if (!ret)
		rec->inst = rec->inst_name;
	return ret;
}

static void add_event(struct record *rec, const char *sys, const char *name)
{
	int i;

	for (i = 0; i < rec->nr_events; i++)
		if (!strcmp(rec->events[i].system, sys) && !strcmp(rec->events[i].name, name))
			return;
	if (rec->nr_events == rec->alloc_events) {
		rec->alloc_events = rec->alloc_events ? 2 * rec->alloc_events : 16;
		rec->events = xrealloc(rec->events, rec->alloc_events * sizeof(*rec->events));
	}
	rec->events[rec->nr_events].system = xstrdup(sys);
	rec->events[rec->nr_events].name = xstrdup(name);
	rec->nr_events++;
}

static int is_dir_entry(const struct dirent *de)
{
	return de->d_type == DT_DIR && de->d_name[0] != '.';
}

/*
 * Adds the events of system sys whose names match glob; with filter, sets
 * it on each.  Returns the number matched or -errno.
 */
static int enable_system(struct record *rec, const char *sys, const char *glob,
			 const char *filter)
{
	struct strbuf path = STRBUF_INIT, file = STRBUF_INIT;
	struct dirent *de;
	int n = 0, ret = 0;
	DIR *d;

	strbuf_addf(&path, "events/%s", sys);
	strbuf_reset(&file);
	tk_tracefs_path(&file, rec->inst, path.buf);
	d = opendir(file.buf);
	if (!d) {
		ret = -errno;
		goto out;
	}
	while ((de = readdir(d)) && ret >= 0) {
		if (!is_dir_entry(de) || fnmatch(glob, de->d_name, 0))
			continue;
		if (filter) {
			strbuf_reset(&file);
			strbuf_addf(&file, "events/%s/%s/filter", sys, de->d_name);
			ret = tk_tracefs_set(rec->inst, file.buf, filter, "0");
			if (ret) {
				error("-f '%s': refused for %s:%s: %s", filter, sys,
				      de->d_name, strerror(-ret));
				break;
			}
		}
		strbuf_reset(&file);
		strbuf_addf(&file, "events/%s/%s/enable", sys, de->d_name);
		ret = set_file(rec, file.buf, "1", "0");
		if (ret)
			break;
		add_event(rec, sys, de->d_name);
		n++;
	}
	closedir(d);
out:
	strbuf_release(&path);
	strbuf_release(&file);
	return ret < 0 ? ret : n;
}

/* The ftrace system holds the tracers' own formats; it cannot be enabled. */
static int enableable_system(const char *name)
{
	return strcmp(name, "ftrace");
}

static int enable_spec(struct record *rec, const struct record_event *ev)
{
	struct strbuf events = STRBUF_INIT;
	const char *colon = strchr(ev->spec, ':');
	char *sysglob = colon ? xstrndup(ev->spec, colon - ev->spec) : xstrdup(ev->spec);
	const char *evglob = colon ? colon + 1 : "*";
	struct dirent *de;
	int n = 0, ret = 0, pass;
	DIR *d;

	tk_tracefs_path(&events, rec->inst, "events");
	/* Without ':' the spec names systems; failing that, events anywhere. */
	for (pass = 0; pass < (colon ? 1 : 2) && !n && !ret; pass++) {
		d = opendir(events.buf);
		if (!d) {
			ret = -errno;
			error("%s: %s", events.buf, strerror(errno));
			break;
		}
		while ((de = readdir(d))) {
			int r;

			if (!is_dir_entry(de) || !enableable_system(de->d_name))
				continue;
			if (pass == 0 && fnmatch(sysglob, de->d_name, 0))
				continue;
			r = enable_system(rec, de->d_name, pass ? ev->spec : evglob, ev->filter);
			if (r < 0) {
				ret = r;
				break;
			}
			n += r;
		}
		closedir(d);
	}
	if (!ret && !n) {
		error("-e %s: no such event", ev->spec);
		ret = -ENOENT;
	}
	free(sysglob);
	strbuf_release(&events);
	return ret;
}

static int cpumask_text(const unsigned char *mask, int nr, struct strbuf *out)
{
	int group, bit;

	/* tracing_cpumask is hex in 32-bit groups, most significant first. */
	for (group = (nr - 1) / 32; group >= 0; group--) {
		uint32_t v = 0;

		for (bit = 0; bit < 32; bit++) {
			int cpu = group * 32 + bit;

			if (cpu < nr && mask[cpu])
				v |= 1u << bit;
		}
		strbuf_addf(out, group ? "%08x," : "%08x", v);
	}
	return 0;
}

int record_parse_cpus(const char *list, unsigned char *mask, int nr)
{
	const char *p = list;

	memset(mask, 0, nr);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -EINVAL;
		}
		if (b >= nr)
			return -EINVAL;
		for (; a <= b; a++)
			mask[a] = 1;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	return 0;
}

static int count_cpus(struct record *rec)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *de;
	int n = 0;
	DIR *d;

	tk_tracefs_path(&path, rec->inst, "per_cpu");
	d = opendir(path.buf);
	if (d) {
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "cpu", 3))
				n++;
		closedir(d);
	}
	strbuf_release(&path);
	return n;
}

static int setup_cpus(struct record *rec)
{
	const struct record_opts *o = rec->o;
	unsigned char *mask;
	int cpu, ret = 0;

	rec->nr_sys_cpus = count_cpus(rec);
	if (rec->nr_sys_cpus <= 0) {
		error("no per_cpu directories in tracefs");
		return -ENODEV;
	}
	mask = xmalloc(rec->nr_sys_cpus);
	memset(mask, 1, rec->nr_sys_cpus);
	if (o->cpus) {
		struct strbuf text = STRBUF_INIT, old = STRBUF_INIT;

		if (record_parse_cpus(o->cpus, mask, rec->nr_sys_cpus)) {
			error("--cpus %s: not a list of CPUs 0-%d", o->cpus,
			      rec->nr_sys_cpus - 1);
			free(mask);
			return -EINVAL;
		}
		cpumask_text(mask, rec->nr_sys_cpus, &text);
		ret = read_first_word(rec, "tracing_cpumask", &old);
		if (!ret)
			ret = set_file(rec, "tracing_cpumask", text.buf, old.buf);
		strbuf_release(&text);
		strbuf_release(&old);
		if (ret) {
			free(mask);
			return ret;
		}
	}
	rec->cpus = xcalloc(rec->nr_sys_cpus, sizeof(*rec->cpus));
	for (cpu = 0; cpu < rec->nr_sys_cpus; cpu++) {
		struct cpu_reader *r;

		if (!mask[cpu])
			continue;
		r = &rec->cpus[rec->nr_cpus++];
		r->rec = rec;
		r->cpu = cpu;
		r->fd = r->scratch = r->pipe[0] = r->pipe[1] = -1;
	}
	free(mask);
	if (!rec->nr_cpus) {
		error("--cpus %s: no CPU selected", o->cpus);
		ret = -EINVAL;
	}
	return ret;
}

static int setup_tracefs(struct record *rec)
{
	const struct record_opts *o = rec->o;
	struct strbuf sb = STRBUF_INIT;
	int i, ret;

	if (!o->top) {
		ret = make_instance(rec);
		if (ret)
			return ret;
	}
	ret = set_file(rec, "tracing_on", "0", NULL);
	if (ret)
		goto out;
	ret = setup_cpus(rec);
	if (ret)
		goto out;
	if (o->buffer_kb) {
		ret = read_first_word(rec, "buffer_size_kb", &sb);
		if (!ret) {
			char val[32];

			snprintf(val, sizeof(val), "%lu", o->buffer_kb);
			ret = set_file(rec, "buffer_size_kb", val, sb.buf);
		}
		if (ret)
			goto out;
	}
	if (o->clock) {
		struct strbuf cur = STRBUF_INIT;
		char *l, *r;

		tk_tracefs_read(rec->inst, "trace_clock", &cur);
		l = strchr(cur.buf, '[');
		r = l ? strchr(l, ']') : NULL;
		if (r)
			*r = 0;
		ret = tk_tracefs_set(rec->inst, "trace_clock", o->clock, l ? l + 1 : "local");
		strbuf_release(&cur);
		if (ret) {
			error("-C %s: clock refused: %s", o->clock, strerror(-ret));
			goto out;
		}
	}
	for (i = 0; i < o->nr_events; i++) {
		ret = enable_spec(rec, &o->events[i]);
		if (ret)
			goto out;
	}
	/*
	 * Wake the readers when a tenth of the buffer is full instead of half
	 * (the default): on a busy machine they may wait long for a CPU.
	 */
	if (tk_tracefs_set(rec->inst, "buffer_percent", "10", NULL))
		warning("buffer_percent: cannot set, readers wake at its default");
	if (o->stacktrace) {
		int r = tk_tracefs_set(rec->inst, "options/stacktrace", "1", NULL);

		if (r)
			warning("-T: stack traces unavailable: options/stacktrace: %s",
				strerror(-r));
	}
out:
	strbuf_release(&sb);
	return ret;
}

static int set_pid_filter(struct record *rec, pid_t pid)
{
	char val[32];
	int ret;

	snprintf(val, sizeof(val), "%d", (int)pid);
	/* event-fork adds the children of the filtered tasks to the filter. */
	ret = set_file(rec, "options/event-fork", "1", NULL);
	if (!ret)
		ret = set_file(rec, "set_event_pid", val, NULL);
	return ret;
}

/* ---- per-CPU stats (per_cpu/cpuN/stats) ---- */

static uint64_t stat_field(const char *text, const char *key)
{
	const char *p = text;
	size_t len = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static int read_stats(struct record *rec, int cpu, struct cpu_stats *st, struct strbuf *text)
{
	struct strbuf file = STRBUF_INIT, local = STRBUF_INIT;
	struct strbuf *t = text ? text : &local;
	long n;

	strbuf_addf(&file, "per_cpu/cpu%d/stats", cpu);
	n = tk_tracefs_read(rec->inst, file.buf, t);
	strbuf_release(&file);
	if (n >= 0) {
		st->entries = stat_field(t->buf, "entries");
		st->overrun = stat_field(t->buf, "overrun");
		st->commit_overrun = stat_field(t->buf, "commit overrun");
		st->dropped = stat_field(t->buf, "dropped events");
		st->read = stat_field(t->buf, "read events");
	}
	strbuf_release(&local);
	return n < 0 ? (int)n : 0;
}

static uint64_t stats_lost(const struct cpu_stats *now, const struct cpu_stats *base)
{
	return (now->overrun - base->overrun) + (now->commit_overrun - base->commit_overrun) +
	       (now->dropped - base->dropped);
}

/* ---- files ---- */

static int open_scratch(struct record *rec, const char *base)
{
	struct strbuf name = STRBUF_INIT;
	int fd;

	fd = open(rec->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT))
		return fd < 0 ? -errno : fd;
	/* No O_TMPFILE here: a named file, unlinked at once. */
	strbuf_addf(&name, "%s.tk-XXXXXX", base);
	fd = mkostemp(name.buf, O_CLOEXEC);
	if (fd >= 0)
		unlink(name.buf);
	strbuf_release(&name);
	return fd < 0 ? -errno : fd;
}

static int open_output(struct record *rec)
{
	struct strbuf name = STRBUF_INIT;
	char *copy = xstrdup(rec->output);

	rec->dir = xstrdup(dirname(copy));
	free(copy);
	rec->out_fd = open(rec->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (rec->out_fd >= 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != EISDIR) {
		error("%s: cannot create: %s", rec->output, strerror(errno));
		return -errno;
	}
	strbuf_addf(&name, "%s.tk-XXXXXX", rec->output);
	rec->out_fd = mkostemp(name.buf, O_CLOEXEC);
	if (rec->out_fd < 0) {
		error("%s: cannot create: %s", name.buf, strerror(errno));
		strbuf_release(&name);
		return -errno;
	}
	fchmod(rec->out_fd, 0644);
	rec->out_tmp = strbuf_detach(&name, NULL);
	return 0;
}

/* The file appears under its name only once complete. */
static int publish_output(struct record *rec)
{
	struct strbuf tmp = STRBUF_INIT, proc = STRBUF_INIT;
	int ret = 0;

	if (fsync(rec->out_fd) < 0) {
		ret = -errno;
		error("%s: %s", rec->output, strerror(errno));
		return ret;
	}
	if (!rec->out_tmp) {
		strbuf_addf(&tmp, "%s.tk-%d", rec->output, (int)getpid());
		strbuf_addf(&proc, "/proc/self/fd/%d", rec->out_fd);
		unlink(tmp.buf);
		if (linkat(AT_FDCWD, proc.buf, AT_FDCWD, tmp.buf, AT_SYMLINK_FOLLOW) < 0) {
			ret = -errno;
			error("%s: cannot link: %s", tmp.buf, strerror(errno));
			goto out;
		}
		rec->out_tmp = strbuf_detach(&tmp, NULL);
	}
	if (rename(rec->out_tmp, rec->output) < 0) {
		ret = -errno;
		error("%s: cannot rename: %s", rec->output, strerror(errno));
		goto out;
	}
	free(rec->out_tmp);
	rec->out_tmp = NULL;
out:
	strbuf_release(&tmp);
	strbuf_release(&proc);
	return ret;
}

/* ---- metadata ---- */

static int add_file_u64(struct strbuf *sb, const char *path)
{
	struct strbuf data = STRBUF_INIT;
	long n = strbuf_read_file(&data, path, 0);

	if (n >= 0) {
		tdw_put_u64(sb, data.len);
		strbuf_add(sb, data.buf, data.len);
	}
	strbuf_release(&data);
	return n < 0 ? (int)n : 0;
}

static void set_u32_le(char *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

static int write_file_section(struct record *rec, enum tracedat_option id,
			      const char *path, int size_bytes)
{
	struct strbuf sb = STRBUF_INIT, data = STRBUF_INIT;
	long n = strbuf_read_file(&data, path, 0);
	int ret;

	if (n < 0) {
		/* Not readable (no trace_printk users, kallsyms refused): empty. */
		strbuf_reset(&data);
	}
	if (size_bytes == 8)
		tdw_put_u64(&sb, data.len);
	else
		tdw_put_u32(&sb, data.len);
	strbuf_add(&sb, data.buf, data.len);
	ret = tdw_section(rec->w, id, sb.buf, sb.len);
	strbuf_release(&sb);
	strbuf_release(&data);
	return ret;
}

static int write_headers(struct record *rec)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	static const char *const files[] = { "header_page", "header_event" };
	int i, ret = 0;

	for (i = 0; i < 2 && !ret; i++) {
		strbuf_add(&sb, files[i], strlen(files[i]) + 1);
		strbuf_reset(&path);
		tk_tracefs_path(&path, NULL, "events");
		strbuf_addf(&path, "/%s", files[i]);
		ret = add_file_u64(&sb, path.buf);
	}
	if (!ret)
		ret = tdw_section(rec->w, TRACEDAT_OPT_HEADER_INFO, sb.buf, sb.len);
	strbuf_release(&sb);
	strbuf_release(&path);
	return ret;
}

static int write_ftrace_formats(struct record *rec)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	struct dirent *de;
	uint32_t count = 0;
	int ret = 0;
	DIR *d;

	tdw_put_u32(&sb, 0);
	tk_tracefs_path(&path, NULL, "events/ftrace");
	d = opendir(path.buf);
	while (d && (de = readdir(d))) {
		struct strbuf f = STRBUF_INIT;

		if (!is_dir_entry(de))
			continue;
		tk_tracefs_path(&f, NULL, "events/ftrace");
		strbuf_addf(&f, "/%s/format", de->d_name);
		if (!add_file_u64(&sb, f.buf))
			count++;
		strbuf_release(&f);
	}
	if (d)
		closedir(d);
	set_u32_le(sb.buf, count);
	ret = tdw_section(rec->w, TRACEDAT_OPT_FTRACE_EVENTS, sb.buf, sb.len);
	strbuf_release(&sb);
	strbuf_release(&path);
	return ret;
}

static int cmp_event(const void *a, const void *b)
{
	const struct event_name *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

/* Only the formats of the enabled events: all a reader can meet. */
static int write_event_formats(struct record *rec)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t nr_sys = 0;
	int i = 0, ret = 0;

	qsort(rec->events, rec->nr_events, sizeof(*rec->events), cmp_event);
	tdw_put_u32(&sb, 0);
	while (i < rec->nr_events && !ret) {
		const char *sys = rec->events[i].system;
		size_t count_at;
		uint32_t count = 0;

		strbuf_add(&sb, sys, strlen(sys) + 1);
		count_at = sb.len;
		tdw_put_u32(&sb, 0);
		for (; i < rec->nr_events && !strcmp(rec->events[i].system, sys); i++) {
			struct strbuf f = STRBUF_INIT;

			tk_tracefs_path(&f, NULL, "events");
			strbuf_addf(&f, "/%s/%s/format", sys, rec->events[i].name);
			ret = add_file_u64(&sb, f.buf);
			if (ret)
				error("%s: %s", f.buf, strerror(-ret));
			strbuf_release(&f);
			if (ret)
				break;
			count++;
		}
		set_u32_le(sb.buf + count_at, count);
		nr_sys++;
	}
	set_u32_le(sb.buf, nr_sys);
	if (!ret)
		ret = tdw_section(rec->w, TRACEDAT_OPT_EVENT_FORMATS, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

static int write_metadata(struct record *rec)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	ret = tdw_new(rec->out_fd, getpagesize(), rec->o->zlevel, &rec->w);
	if (!ret)
		ret = write_headers(rec);
	if (!ret)
		ret = write_ftrace_formats(rec);
	if (!ret)
		ret = write_event_formats(rec);
	if (!ret)
		ret = write_file_section(rec, TRACEDAT_OPT_KALLSYMS, "/proc/kallsyms", 4);
	if (!ret) {
		tk_tracefs_path(&path, NULL, "printk_formats");
		ret = write_file_section(rec, TRACEDAT_OPT_PRINTK, path.buf, 4);
	}
	strbuf_release(&path);
	if (ret)
		error("%s: %s", rec->output, strerror(-ret));
	return ret;
}

static int write_trailer(struct record *rec, struct record_result *res)
{
	struct strbuf sb = STRBUF_INIT, clock = STRBUF_INIT;
	struct tdw_cpu_data *cd = xcalloc(rec->nr_cpus, sizeof(*cd));
	struct utsname un;
	uint64_t id = 0;
	uint32_t ncpu = rec->nr_sys_cpus;
	char *l, *r;
	int i, ret;

	tk_tracefs_path(&sb, NULL, "saved_cmdlines");
	ret = write_file_section(rec, TRACEDAT_OPT_CMDLINES, sb.buf, 8);
	if (ret)
		goto out;
	strbuf_reset(&sb);
	tk_tracefs_read(rec->inst, "trace_clock", &clock);
	tdw_option_str(rec->w, TRACEDAT_OPT_TRACECLOCK, clock.buf);
	if (!uname(&un)) {
		strbuf_addf(&sb, "%s %s %s %s", un.sysname, un.nodename, un.release, un.machine);
		tdw_option_str(rec->w, TRACEDAT_OPT_UNAME, sb.buf);
	}
	tdw_option_str(rec->w, TRACEDAT_OPT_VERSION, rec->o->version ? rec->o->version : "tracekit");
	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint64_t)getpid() << 32 | (uint64_t)time(NULL);
	strbuf_reset(&sb);
	tdw_put_u64(&sb, id);
	tdw_option(rec->w, TRACEDAT_OPT_TRACEID, sb.buf, sb.len);
	res->lost = 0;
	res->events = 0;
	for (i = 0; i < rec->nr_cpus; i++) {
		struct cpu_reader *cr = &rec->cpus[i];
		struct strbuf text = STRBUF_INIT;
		struct cpu_stats st = { 0 };

		strbuf_reset(&sb);
		strbuf_addf(&sb, "CPU: %d\n", cr->cpu);
		if (!read_stats(rec, cr->cpu, &st, &text)) {
			strbuf_add(&sb, text.buf, text.len);
			res->events += st.read - cr->base.read;
			res->lost += stats_lost(&st, &cr->base);
		}
		strbuf_release(&text);
		tdw_option_str(rec->w, TRACEDAT_OPT_CPUSTAT, sb.buf);
		cd[i].cpu = cr->cpu;
		cd[i].fd = cr->scratch;
		cd[i].size = cr->scratch_size;
		cd[i].nr_chunks = cr->nr_chunks;
	}
	strbuf_reset(&sb);
	tdw_put_u32(&sb, ncpu);
	tdw_option(rec->w, TRACEDAT_OPT_CPUCOUNT, sb.buf, sb.len);

	l = strchr(clock.buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (r)
		*r = 0;
	ret = tdw_finish(rec->w, "", l ? l + 1 : "local", rec->psize, cd, rec->nr_cpus);
out:
	if (ret)
		error("%s: %s", rec->output, strerror(-ret));
	res->file_size = tdw_offset(rec->w);
	strbuf_release(&sb);
	strbuf_release(&clock);
	free(cd);
	return ret;
}

/* ---- readers and the compressor ---- */

static struct chunk *get_chunk(struct record *rec, struct cpu_reader *r)
{
	struct chunk *c;

	pthread_mutex_lock(&rec->lock);
	while (!rec->free && rec->allocated + rec->chunk_size > QUEUE_BYTES &&
	       rec->allocated)
		pthread_cond_wait(&rec->freed, &rec->lock);
	c = rec->free;
	if (c)
		rec->free = c->next;
	else
		rec->allocated += rec->chunk_size;
	pthread_mutex_unlock(&rec->lock);
	if (!c)
		c = xmalloc(sizeof(*c) + rec->chunk_size);
	c->next = NULL;
	c->r = r;
	c->len = 0;
	return c;
}

static void put_chunk(struct record *rec, struct chunk *c)
{
	pthread_mutex_lock(&rec->lock);
	c->next = rec->free;
	rec->free = c;
	pthread_cond_signal(&rec->freed);
	pthread_mutex_unlock(&rec->lock);
}

static void queue_chunk(struct record *rec, struct chunk *c)
{
	pthread_mutex_lock(&rec->lock);
	*rec->tail = c;
	rec->tail = &c->next;
	pthread_cond_signal(&rec->queued);
	pthread_mutex_unlock(&rec->lock);
}

/*
 * splice() moves only full pages (the kernel's splice_read asks the ring
 * buffer for full pages): a reader racing the writer would otherwise copy
 * the page being written to again and again, mostly empty.  The pipe
 * holds one chunk.  Returns bytes moved into c, 0 when no page is full.
 */
static ssize_t splice_pages(struct cpu_reader *r, struct chunk *c)
{
	struct record *rec = r->rec;
	ssize_t n = splice(r->fd, NULL, r->pipe[1], NULL, rec->chunk_size - c->len,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	size_t got = 0;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	while (got < (size_t)n) {
		ssize_t m = read(r->pipe[0], c->data + c->len + got, n - got);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return m < 0 ? -errno : -EIO;
		got += m;
	}
	return n;
}

/* At the end: read() also returns the page the writer had not filled. */
static ssize_t read_page(struct cpu_reader *r, struct chunk *c)
{
	struct record *rec = r->rec;
	ssize_t n;

	do
		n = read(r->fd, c->data + c->len, rec->psize);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	/* Whole pages only: readers of the file walk it page by page. */
	if (n > 0 && (size_t)n < rec->psize)
		memset(c->data + c->len + n, 0, rec->psize - n);
	return n > 0 ? (ssize_t)rec->psize : 0;
}

enum reader_phase { READ_RUNNING, READ_DRAIN_FULL, READ_DRAIN_PARTIAL };

static void *reader_main(void *arg)
{
	struct cpu_reader *r = arg;
	struct record *rec = r->rec;
	struct chunk *c = get_chunk(rec, r);
	enum reader_phase phase = READ_RUNNING;

	for (;;) {
		ssize_t n = phase == READ_DRAIN_PARTIAL ? read_page(r, c) : splice_pages(r, c);

		if (n < 0) {
			error("cpu%d/trace_pipe_raw: %s", r->cpu, strerror(-n));
			set_err(rec, n);
			break;
		}
		if (n > 0) {
			c->len += n;
			__atomic_add_fetch(&r->bytes_in, n, __ATOMIC_RELAXED);
			if (c->len == rec->chunk_size) {
				queue_chunk(rec, c);
				c = get_chunk(rec, r);
			}
			continue;
		}
		/* Nothing (full) left.  Tracing is off once told to stop. */
		if (phase == READ_DRAIN_PARTIAL)
			break;
		if (phase == READ_DRAIN_FULL) {
			phase = READ_DRAIN_PARTIAL;
			continue;
		}
		{
			struct pollfd pfd[2] = {
				{ .fd = r->fd, .events = POLLIN },
				{ .fd = rec->stop_fd, .events = POLLIN },
			};

			if (poll(pfd, 2, 1000) > 0 && (pfd[1].revents & POLLIN))
				phase = READ_DRAIN_FULL;
		}
	}
	if (c->len)
		queue_chunk(rec, c);
	else
		put_chunk(rec, c);
	return NULL;
}

static void *compressor_main(void *arg)
{
	struct record *rec = arg;
	struct strbuf out = STRBUF_INIT;
	struct tdw_chunker *z = NULL;
	int failed = 0, ret;

	ret = tdw_chunker_new(rec->o->zlevel, &z);
	if (ret) {
		set_err(rec, ret);
		failed = 1;
	}
	for (;;) {
		struct chunk *c;
		struct cpu_reader *r;

		pthread_mutex_lock(&rec->lock);
		while (!rec->head && !rec->closed)
			pthread_cond_wait(&rec->queued, &rec->lock);
		c = rec->head;
		if (c) {
			rec->head = c->next;
			if (!rec->head)
				rec->tail = &rec->head;
		}
		pthread_mutex_unlock(&rec->lock);
		if (!c)
			break;
		r = c->r;
		if (!failed) {
			strbuf_reset(&out);
			ret = tdw_chunk_encode(z, c->data, c->len, &out);
			if (!ret)
				ret = write_in_full(r->scratch, out.buf, out.len);
			if (ret) {
				error("%s: write failed: %s", rec->output, strerror(-ret));
				set_err(rec, ret);
				failed = 1;
			} else {
				r->scratch_size += out.len;
				r->nr_chunks++;
				__atomic_add_fetch(&r->bytes_out, out.len, __ATOMIC_RELAXED);
			}
		}
		put_chunk(rec, c);
	}
	tdw_chunker_free(z);
	strbuf_release(&out);
	return NULL;
}

static int open_readers(struct record *rec)
{
	int i, ret;

	for (i = 0; i < rec->nr_cpus; i++) {
		struct cpu_reader *r = &rec->cpus[i];
		struct strbuf file = STRBUF_INIT, path = STRBUF_INIT;

		strbuf_addf(&file, "per_cpu/cpu%d/trace_pipe_raw", r->cpu);
		tk_tracefs_path(&path, rec->inst, file.buf);
		r->fd = open(path.buf, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ret = r->fd < 0 ? -errno : 0;
		if (ret)
			error("%s: %s", path.buf, strerror(-ret));
		strbuf_release(&path);
		strbuf_release(&file);
		if (ret)
			return ret;
		if (pipe2(r->pipe, O_CLOEXEC) < 0) {
			error("pipe: %s", strerror(errno));
			return -errno;
		}
		if (fcntl(r->pipe[1], F_SETPIPE_SZ, (int)rec->chunk_size) < (int)rec->chunk_size) {
			error("pipe of %zu bytes: %s", rec->chunk_size, strerror(errno));
			return -errno;
		}
		r->scratch = open_scratch(rec, rec->output);
		if (r->scratch < 0) {
			error("%s: scratch file: %s", rec->dir, strerror(-r->scratch));
			return r->scratch;
		}
		read_stats(rec, r->cpu, &r->base, NULL);
	}
	return 0;
}

static int start_threads(struct record *rec)
{
	int i, ret;

	ret = pthread_create(&rec->compressor, NULL, compressor_main, rec);
	if (ret)
		return -ret;
	rec->compressor_started = 1;
	for (i = 0; i < rec->nr_cpus; i++) {
		ret = pthread_create(&rec->cpus[i].thread, NULL, reader_main, &rec->cpus[i]);
		if (ret)
			return -ret;
		rec->cpus[i].started = 1;
	}
	return 0;
}

static void stop_threads(struct record *rec)
{
	int i;

	eventfd_write(rec->stop_fd, 1);
	for (i = 0; i < rec->nr_cpus; i++)
		if (rec->cpus[i].started) {
			pthread_join(rec->cpus[i].thread, NULL);
			rec->cpus[i].started = 0;
		}
	if (rec->compressor_started) {
		pthread_mutex_lock(&rec->lock);
		rec->closed = 1;
		pthread_cond_broadcast(&rec->queued);
		pthread_mutex_unlock(&rec->lock);
		pthread_join(rec->compressor, NULL);
		rec->compressor_started = 0;
	}
}

static int open_pidfd(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

static void report_status(struct record *rec, double start, record_status_fn *fn,
			  void *data, uint64_t *lost)
{
	struct record_status st = { 0 };
	int *cpu = xcalloc(rec->nr_cpus, sizeof(*cpu));
	int i;

	for (i = 0; i < rec->nr_cpus; i++) {
		struct cpu_reader *r = &rec->cpus[i];
		struct cpu_stats s = { 0 };

		read_stats(rec, r->cpu, &s, NULL);
		st.events += (s.read - r->base.read) + s.entries;
		lost[i] = stats_lost(&s, &r->base);
		st.bytes_in += __atomic_load_n(&r->bytes_in, __ATOMIC_RELAXED);
		st.bytes_out += __atomic_load_n(&r->bytes_out, __ATOMIC_RELAXED);
		cpu[i] = r->cpu;
	}
	st.elapsed = now_s() - start;
	st.nr_cpus = rec->nr_cpus;
	st.cpu = cpu;
	st.lost = lost;
	fn(&st, data);
	free(cpu);
}

/* Waits for the end of the recording; returns the stopping signal or 0. */
static int wait_for_end(struct record *rec, int sfd, int pidfd, record_status_fn *fn,
			void *data, struct record_result *res)
{
	const struct record_opts *o = rec->o;
	double start = now_s(), next = start + 1;
	uint64_t *lost = xcalloc(rec->nr_cpus, sizeof(*lost));
	int sig = 0;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = rec->fail_fd, .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		double t = now_s(), until = next;
		int timeout;

		if (o->duration > 0 && start + o->duration < until)
			until = start + o->duration;
		if (o->duration > 0 && t >= start + o->duration)
			break;
		if (fn && t >= next) {
			report_status(rec, start, fn, data, lost);
			next = t + 1;
			continue;
		}
		timeout = (int)((until - t) * 1000) + 1;
		if (poll(pfd, pidfd >= 0 ? 3 : 2, timeout) <= 0)
			continue;
		if (pfd[1].revents & POLLIN)
			break;
		if (pfd[2].revents & POLLIN)
			break;
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			int status;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo != SIGCHLD) {
				sig = si.ssi_signo;
				break;
			}
			if (command_exited(&rec->cmd, &status)) {
				res->child_status = status;
				break;
			}
		}
	}
	if (fn)
		report_status(rec, start, fn, data, lost);
	free(lost);
	return sig;
}

/* ---- the session ---- */

/* An instance cannot be removed while its files are open. */
static void close_readers(struct record *rec)
{
	int i;

	for (i = 0; i < rec->nr_cpus; i++) {
		if (rec->cpus[i].fd >= 0)
			close(rec->cpus[i].fd);
		rec->cpus[i].fd = -1;
	}
}

static void release(struct record *rec)
{
	int i;

	for (i = 0; i < rec->nr_cpus; i++) {
		struct cpu_reader *r = &rec->cpus[i];

		if (r->scratch >= 0)
			close(r->scratch);
		if (r->pipe[0] >= 0)
			close(r->pipe[0]);
		if (r->pipe[1] >= 0)
			close(r->pipe[1]);
	}
	free(rec->cpus);
	while (rec->free) {
		struct chunk *c = rec->free;

		rec->free = c->next;
		free(c);
	}
	for (i = 0; i < rec->nr_events; i++) {
		free(rec->events[i].system);
		free(rec->events[i].name);
	}
	free(rec->events);
	if (rec->out_fd >= 0)
		close(rec->out_fd);
	if (rec->out_tmp)
		unlink(rec->out_tmp);
	free(rec->out_tmp);
	free(rec->dir);
	tdw_free(rec->w);
	child_process_clear(&rec->cmd);
	if (rec->stop_fd >= 0)
		close(rec->stop_fd);
	if (rec->fail_fd >= 0)
		close(rec->fail_fd);
	pthread_mutex_destroy(&rec->lock);
	pthread_cond_destroy(&rec->queued);
	pthread_cond_destroy(&rec->freed);
}

static unsigned int subbuf_size(struct record *rec)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned int size = getpagesize();

	if (tk_tracefs_read(rec->inst, "buffer_subbuf_size_kb", &sb) > 0 && atoi(sb.buf) > 0)
		size = atoi(sb.buf) * 1024;
	strbuf_release(&sb);
	return size;
}

int record_run(const struct record_opts *o, record_status_fn *status,
	       void *data, struct record_result *res)
{
	struct record rec = {
		.o = o, .out_fd = -1, .stop_fd = -1, .fail_fd = -1,
		.cmd = CHILD_PROCESS_INIT,
	};
	struct strbuf err = STRBUF_INIT;
	sigset_t mask, oldmask;
	int sfd = -1, pidfd = -1, blocked = 0, tracing = 0, ret;

	memset(res, 0, sizeof(*res));
	res->child_status = -1;
	pthread_mutex_init(&rec.lock, NULL);
	pthread_cond_init(&rec.queued, NULL);
	pthread_cond_init(&rec.freed, NULL);
	rec.tail = &rec.head;
	rec.output = (char *)(o->output ? o->output : "trace.dat");

	if (!tk_tracefs_dir()) {
		error("tracefs is not mounted");
		ret = -ENODEV;
		goto out;
	}
	if (!o->nr_events) {
		error("no events to record: give -e SYSTEM:EVENT");
		ret = -EINVAL;
		goto out;
	}
	if (o->pid > 0 && kill(o->pid, 0) < 0 && errno == ESRCH) {
		error("-p %d: no such process", o->pid);
		ret = -ESRCH;
		goto out;
	}
	/*
	 * Signals are events of the main loop, not deaths, from the start: a
	 * handler that restored tracefs while our trace_pipe_raw files are
	 * open could not remove the instance.  One that comes during setup
	 * ends the recording as soon as it starts.
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &mask, &oldmask);
	blocked = 1;
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	rec.stop_fd = eventfd(0, EFD_CLOEXEC);
	rec.fail_fd = eventfd(0, EFD_CLOEXEC);
	if (sfd < 0 || rec.stop_fd < 0 || rec.fail_fd < 0) {
		ret = -errno;
		error("signalfd/eventfd: %s", strerror(errno));
		goto out;
	}
	ret = open_output(&rec);
	if (ret)
		goto out;
	tk_restore_install();
	ret = setup_tracefs(&rec);
	if (ret)
		goto out;
	rec.psize = subbuf_size(&rec);
	rec.chunk_size = (size_t)rec.psize * CHUNK_PAGES;
	ret = write_metadata(&rec);
	if (ret)
		goto out;
	ret = open_readers(&rec);
	if (ret)
		goto out;

	if (o->argv) {
		/*
		 * Gated until the pid filter names it and tracing is on; in the
		 * child, the signals blocked here for the main loop are not.
		 */
		rec.cmd.argv = o->argv;
		rec.cmd.sigmask = &oldmask;
		rec.cmd.gated = 1;
		ret = start_command(&rec.cmd, &err);
		if (ret)
			error("%s", err.buf);
		else
			ret = set_pid_filter(&rec, rec.cmd.pid);
	} else if (o->pid > 0) {
		ret = set_pid_filter(&rec, o->pid);
		pidfd = open_pidfd(o->pid);
	}
	if (ret)
		goto out;
	ret = start_threads(&rec);
	if (ret) {
		error("cannot start threads: %s", strerror(-ret));
		goto out;
	}
	ret = tk_tracefs_write(rec.inst, "tracing_on", "1");
	tracing = !ret;
	if (ret) {
		error("tracing_on: %s", strerror(-ret));
		goto out;
	}
	if (o->argv) {
		ret = release_command(&rec.cmd);
		if (ret) {
			error("%s: %s", o->argv[0], strerror(-ret));
			goto out;
		}
	}

	res->signal = wait_for_end(&rec, sfd, pidfd, status, data, res);
	tk_tracefs_write(rec.inst, "tracing_on", "0");
	tracing = 0;
	stop_threads(&rec);
	if (rec.err) {
		ret = rec.err;
		goto out;
	}
	ret = write_trailer(&rec, res);
	if (!ret)
		ret = publish_output(&rec);
	if (!ret) {
		int i;

		for (i = 0; i < rec.nr_cpus; i++) {
			res->bytes_in += rec.cpus[i].bytes_in;
			res->bytes_out += rec.cpus[i].bytes_out;
		}
	}
out:
	if (tracing)
		tk_tracefs_write(rec.inst, "tracing_on", "0");
	stop_threads(&rec);
	if (rec.cmd.pid > 0) {
		/* Stopped by a signal or an error: the command goes too. */
		kill(rec.cmd.pid, res->signal ? res->signal : SIGTERM);
		finish_command(&rec.cmd, &res->child_status);
	}
	close_readers(&rec);
	tk_restore_run();
	if (sfd >= 0)
		close(sfd);
	if (pidfd >= 0)
		close(pidfd);
	if (blocked) {
		struct timespec zero = { 0, 0 };

		/* A signal that came during the wrap-up has been answered. */
		while (sigtimedwait(&mask, NULL, &zero) > 0)
			;
		pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	}
	release(&rec);
	strbuf_release(&err);
	return ret;
}
