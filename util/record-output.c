// SPDX-License-Identifier: GPL-2.0
/* record: the output file, its metadata sections and its trailer. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "util/record-int.h"
#include "util/tracedat-write.h"
#include "util/tracefs.h"
#include "util/usage.h"

/* ---- files ---- */

int record_open_scratch(struct record *rec, const char *base)
{
	struct strbuf name = STRBUF_INIT;
	int fd;

	fd = open(rec->out.dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (fd >= 0 ||
	    (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT))
		return fd < 0 ? -errno : fd;
	/* No O_TMPFILE here: a named file, unlinked at once. */
	strbuf_addf(&name, "%s.tk-XXXXXX", base);
	fd = mkostemp(name.buf, O_CLOEXEC);
	if (fd >= 0)
		unlink(name.buf);
	strbuf_release(&name);
	return fd < 0 ? -errno : fd;
}

int record_open_output(struct record *rec)
{
	struct strbuf name = STRBUF_INIT;
	char *copy = xstrdup(rec->out.path);
	int ret;

	rec->out.dir = xstrdup(dirname(copy));
	free(copy);
	rec->out.fd = open(rec->out.dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (rec->out.fd >= 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != EISDIR) {
		ret = -errno;
		record_error(rec, "%s: cannot create: %s", rec->out.path,
			     strerror(-ret));
		return ret;
	}
	strbuf_addf(&name, "%s.tk-XXXXXX", rec->out.path);
	rec->out.fd = mkostemp(name.buf, O_CLOEXEC);
	if (rec->out.fd < 0) {
		ret = -errno;
		/* The user named the output, not our temporary beside it. */
		record_error(rec, "%s: cannot create: %s", rec->out.path,
			     strerror(-ret));
		strbuf_release(&name);
		return ret;
	}
	fchmod(rec->out.fd, 0644);
	rec->out.tmp = strbuf_detach(&name, NULL);
	return 0;
}

/* The file appears under its name only once complete. */
int record_publish_output(struct record *rec)
{
	struct strbuf tmp = STRBUF_INIT, proc = STRBUF_INIT;
	int ret = 0;

	if (fsync(rec->out.fd) < 0) {
		ret = -errno;
		record_error(rec, "%s: %s", rec->out.path, strerror(errno));
		return ret;
	}
	if (!rec->out.tmp) {
		strbuf_addf(&tmp, "%s.tk-%d", rec->out.path, (int)getpid());
		strbuf_addf(&proc, "/proc/self/fd/%d", rec->out.fd);
		unlink(tmp.buf);
		if (linkat(AT_FDCWD, proc.buf, AT_FDCWD, tmp.buf,
			   AT_SYMLINK_FOLLOW) < 0) {
			ret = -errno;
			record_error(rec, "%s: cannot link: %s", tmp.buf, strerror(errno));
			goto out;
		}
		rec->out.tmp = strbuf_detach(&tmp, NULL);
	}
	if (rename(rec->out.tmp, rec->out.path) < 0) {
		ret = -errno;
		record_error(rec, "%s: cannot rename: %s", rec->out.path,
			     strerror(errno));
		goto out;
	}
	free(rec->out.tmp);
	rec->out.tmp = NULL;
out:
	strbuf_release(&tmp);
	strbuf_release(&proc);
	return ret;
}

/* ---- metadata ---- */

/* The length of what follows in size_bytes (4 or 8) bytes. */
static void put_size(struct strbuf *sb, uint64_t len, int size_bytes)
{
	if (size_bytes == 8)
		tracedat_write_put_u64(sb, len);
	else
		tracedat_write_put_u32(sb, len);
}

/*
 * Appends path's length and content, read in place in reads of up to
 * hint bytes; on failure sb is as it was.  Reading /proc/kallsyms (5 MB)
 * into a buffer of its own and copying it over was a fifth of the CPU
 * time of a short `record` (perf record of a 1-event run).
 */
static int add_file(struct strbuf *sb, const char *path, int size_bytes,
		    size_t hint)
{
	size_t at = sb->len;
	long n;

	put_size(sb, 0, size_bytes);
	n = strbuf_read_file(sb, path, hint);
	if (n < 0) {
		strbuf_setlen(sb, at);
		return (int)n;
	}
	tracedat_write_set_le(sb->buf + at, n, size_bytes);
	return 0;
}

/* Format and header files: a few KB each, many into one buffer. */
#define SMALL_FILE_HINT		(64u << 10)
/*
 * Whole-file sections, /proc/kallsyms the biggest: one allocation that
 * holds it, its untouched pages never faulted in.  Grown in steps from
 * 1 MB it was copied on each realloc(): 900 of the 2,700 page faults of
 * a 1-event record (perf record -e page-faults).
 */
#define SECTION_FILE_HINT	(16u << 20)

static int write_file_section(struct record *rec, enum tracedat_option id,
			      const char *path, int size_bytes)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	/*
	 * Not readable (no trace_printk users, kallsyms refused), not needed:
	 * empty.
	 */
	if (!path || add_file(&sb, path, size_bytes, SECTION_FILE_HINT))
		put_size(&sb, 0, size_bytes);
	ret = tracedat_write_section(rec->out.w, id, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

static int write_headers(struct record *rec)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	static const char *const files[] = { "header_page", "header_event" };
	size_t at;
	int i, ret = 0;

	for (i = 0; i < 2 && !ret; i++) {
		strbuf_add(&sb, files[i], strlen(files[i]) + 1);
		strbuf_reset(&path);
		tk_tracefs_path(&path, NULL, "events");
		strbuf_addf(&path, "/%s", files[i]);
		at = sb.len;
		ret = add_file(&sb, path.buf, 8, SMALL_FILE_HINT);
		if (!ret && !i)
			record_ksyms_note_header_page(rec, sb.buf + at + 8);
	}
	if (!ret)
		ret = tracedat_write_section(rec->out.w,
					     TRACEDAT_OPT_HEADER_INFO,
					     sb.buf, sb.len);
	strbuf_release(&sb);
	strbuf_release(&path);
	return ret;
}

static int write_ftrace_formats(struct record *rec)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	struct dirent *de;
	uint32_t count = 0;
	size_t at;
	int ret = 0;
	DIR *d;

	tracedat_write_put_u32(&sb, 0);
	tk_tracefs_path(&path, NULL, "events/ftrace");
	d = opendir(path.buf);
	while (d && (de = readdir(d))) {
		struct strbuf f = STRBUF_INIT;

		if (!is_dir_entry(de))
			continue;
		tk_tracefs_path(&f, NULL, "events/ftrace");
		strbuf_addf(&f, "/%s/format", de->d_name);
		at = sb.len;
		if (!add_file(&sb, f.buf, 8, SMALL_FILE_HINT)) {
			record_ksyms_note_format(rec, sb.buf + at + 8);
			count++;
		}
		strbuf_release(&f);
	}
	if (d)
		closedir(d);
	tracedat_write_set_le(sb.buf, count, 4);
	ret = tracedat_write_section(rec->out.w, TRACEDAT_OPT_FTRACE_EVENTS,
				     sb.buf, sb.len);
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
	int i = 0, ret;

	qsort(rec->setup.events, rec->setup.nr_events,
	      sizeof(*rec->setup.events), cmp_event);
	tracedat_write_put_u32(&sb, 0);
	while (i < rec->setup.nr_events) {
		const char *sys = rec->setup.events[i].system;
		size_t count_at;
		uint32_t count = 0;

		strbuf_add(&sb, sys, strlen(sys) + 1);
		count_at = sb.len;
		tracedat_write_put_u32(&sb, 0);
		for (; i < rec->setup.nr_events &&
		     !strcmp(rec->setup.events[i].system, sys); i++) {
			const struct strbuf *f = &rec->setup.events[i].format;

			put_size(&sb, f->len, 8);
			strbuf_add(&sb, f->buf, f->len);
			count++;
		}
		tracedat_write_set_le(sb.buf + count_at, count, 4);
		nr_sys++;
	}
	tracedat_write_set_le(sb.buf, nr_sys, 4);
	ret = tracedat_write_section(rec->out.w, TRACEDAT_OPT_EVENT_FORMATS,
				     sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

/* The sections a reader needs before the first event, to rec->out.w. */
static int write_formats(struct record *rec)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	ret = write_headers(rec);
	if (!ret)
		ret = write_ftrace_formats(rec);
	if (!ret)
		ret = write_event_formats(rec);
	if (!ret) {
		tk_tracefs_path(&path, NULL, "printk_formats");
		ret = write_file_section(rec, TRACEDAT_OPT_PRINTK, path.buf, 4);
	}
	strbuf_release(&path);
	return ret;
}

int record_write_metadata(struct record *rec)
{
	int ret;

	ret = tracedat_write_new(rec->out.fd, getpagesize(), rec->o->zlevel,
				 &rec->out.w);
	if (!ret)
		ret = write_formats(rec);
	if (ret)
		record_error(rec, "%s: %s", rec->out.path, strerror(-ret));
	return ret;
}

/* /proc/kallsyms (when ksyms, else an empty section) and saved_cmdlines. */
static int write_symbols_tasks(struct record *rec, int ksyms)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	ret = write_file_section(rec, TRACEDAT_OPT_KALLSYMS,
				 ksyms ? "/proc/kallsyms" : NULL, 4);
	tk_tracefs_path(&path, NULL, "saved_cmdlines");
	if (!ret)
		ret = write_file_section(rec, TRACEDAT_OPT_CMDLINES, path.buf,
					 8);
	strbuf_release(&path);
	return ret;
}

/* trace_clock's text ("[local] global"), and the clock selected in it. */
static void read_clock(struct record *rec, struct strbuf *text,
		       struct strbuf *name)
{
	const char *l, *r;

	tk_tracefs_read(rec->setup.inst, "trace_clock", text);
	l = strchr(text->buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (r)
		strbuf_add(name, l + 1, r - l - 1);
	else
		strbuf_addstr(name, "local");
}

/*
 * The live view's file (record_live): the formats, the symbols and the
 * tasks known now, the clock and the CPUs, and no events, in fd.  It is
 * written with the same code as the output file, so that the events
 * read live decode and print as report prints them from that file.
 */
int record_write_snapshot(struct record *rec, int fd)
{
	struct tracedat_writer *out = rec->out.w;
	struct tracedat_write_cpu_data *cd = xcalloc(rec->setup.nr_cpus,
						     sizeof(*cd));
	struct strbuf sb = STRBUF_INIT, clock = STRBUF_INIT;
	struct strbuf name = STRBUF_INIT;
	int i, ret;

	ret = tracedat_write_new(fd, getpagesize(), -1, &rec->out.w);
	if (ret)
		goto out;
	ret = write_formats(rec);
	if (!ret)
		ret = write_symbols_tasks(rec, record_ksyms_any(rec));
	if (ret)
		goto out;
	read_clock(rec, &clock, &name);
	tracedat_write_option_str(rec->out.w, TRACEDAT_OPT_TRACECLOCK,
				  clock.buf);
	if (rec->setup.signed_fields.len)
		tracedat_write_option_str(rec->out.w,
					  TRACEDAT_OPT_TK_SIGNED_FIELDS,
					  rec->setup.signed_fields.buf);
	strbuf_reset(&sb);
	tracedat_write_put_u32(&sb, rec->setup.nr_sys_cpus);
	tracedat_write_option(rec->out.w, TRACEDAT_OPT_CPUCOUNT, sb.buf,
			      sb.len);
	for (i = 0; i < rec->setup.nr_cpus; i++) {
		cd[i].cpu = rec->setup.cpus[i].cpu;
		cd[i].fd = -1;
	}
	ret = tracedat_write_finish(rec->out.w, "", name.buf, rec->setup.psize,
				    cd, rec->setup.nr_cpus);
out:
	if (ret)
		record_error(rec, "live view: %s", strerror(-ret));
	tracedat_write_free(rec->out.w);
	rec->out.w = out;
	strbuf_release(&sb);
	strbuf_release(&clock);
	strbuf_release(&name);
	free(cd);
	return ret;
}

int record_write_trailer(struct record *rec, struct record_result *res)
{
	struct strbuf sb = STRBUF_INIT, clock = STRBUF_INIT;
	struct tracedat_write_cpu_data *cd = xcalloc(rec->setup.nr_cpus,
						     sizeof(*cd));
	struct utsname un;
	uint64_t id = 0;
	uint32_t ncpu = rec->setup.nr_sys_cpus;
	struct strbuf name = STRBUF_INIT;
	int i, ret;

	/* Read now, once the readers have seen whether the events need it. */
	ret = write_symbols_tasks(rec, rec->threads.ksyms_needed);
	if (ret)
		goto out;
	strbuf_reset(&sb);
	read_clock(rec, &clock, &name);
	tracedat_write_option_str(rec->out.w, TRACEDAT_OPT_TRACECLOCK,
				  clock.buf);
	if (!uname(&un)) {
		strbuf_addf(&sb, "%s %s %s %s", un.sysname, un.nodename, un.release, un.machine);
		tracedat_write_option_str(rec->out.w, TRACEDAT_OPT_UNAME,
					  sb.buf);
	}
	tracedat_write_option_str(rec->out.w, TRACEDAT_OPT_VERSION,
				  rec->o->version ? rec->o->version :
				  "tracekit");
	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint64_t)getpid() << 32 | (uint64_t)time(NULL);
	strbuf_reset(&sb);
	tracedat_write_put_u64(&sb, id);
	tracedat_write_option(rec->out.w, TRACEDAT_OPT_TRACEID, sb.buf, sb.len);
	record_procmap_write(rec);
	if (rec->setup.signed_fields.len)
		tracedat_write_option_str(rec->out.w,
					  TRACEDAT_OPT_TK_SIGNED_FIELDS,
					  rec->setup.signed_fields.buf);
	res->lost = 0;
	res->events = 0;
	for (i = 0; i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *cr = &rec->setup.cpus[i];
		struct strbuf text = STRBUF_INIT;
		struct cpu_stats st = { 0 };

		strbuf_reset(&sb);
		strbuf_addf(&sb, "CPU: %d\n", cr->cpu);
		if (!record_read_stats(cr, &st, &text)) {
			strbuf_add(&sb, text.buf, text.len);
			res->events += st.read - cr->base.read;
			res->lost += record_stats_lost(&st, &cr->base);
		}
		strbuf_release(&text);
		tracedat_write_option_str(rec->out.w, TRACEDAT_OPT_CPUSTAT,
					  sb.buf);
		cd[i].cpu = cr->cpu;
		cd[i].fd = cr->comp.scratch;
		cd[i].size = cr->comp.scratch_size;
		cd[i].nr_chunks = cr->comp.nr_chunks;
	}
	strbuf_reset(&sb);
	tracedat_write_put_u32(&sb, ncpu);
	tracedat_write_option(rec->out.w, TRACEDAT_OPT_CPUCOUNT, sb.buf,
			      sb.len);

	ret = tracedat_write_finish(rec->out.w,
				    rec->o->instance ? rec->o->instance : "",
				    name.buf, rec->setup.psize, cd,
				    rec->setup.nr_cpus);
out:
	if (ret)
		record_error(rec, "%s: %s", rec->out.path, strerror(-ret));
	res->file_size = tracedat_write_offset(rec->out.w);
	strbuf_release(&sb);
	strbuf_release(&clock);
	strbuf_release(&name);
	free(cd);
	return ret;
}
