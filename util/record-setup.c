// SPDX-License-Identifier: GPL-2.0
/* record: the tracefs side, set up before and read during the recording. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/array.h"
#include "util/callgraph.h"
#include "util/probe-note.h"
#include "util/record-int.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"
#include "util/usage.h"

/* ---- tracefs setup: every change registers its undo first ---- */

static int set_file(struct record *rec, const char *file, const char *val,
		    const char *restore)
{
	int ret = tk_tracefs_set(rec->setup.inst, file, val, restore);

	if (ret)
		record_error(rec, "%s: cannot write '%s': %s", file, val, strerror(-ret));
	return ret;
}

static int read_first_word(struct record *rec, const char *file,
			   struct strbuf *out)
{
	long n = tk_tracefs_read(rec->setup.inst, file, out);

	if (n < 0)
		return (int)n;
	strbuf_setlen(out, strcspn(out->buf, " \n"));
	return 0;
}

/* events/SYS/EVENT/FILE set to "0" where it holds more, the undo its text. */
static int event_clear(struct record *rec, const char *sys, const char *event,
		       const char *file, struct strbuf *sb)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	strbuf_reset(sb);
	strbuf_addf(&path, "events/%s/%s/%s", sys, event, file);
	if (tk_tracefs_read(rec->setup.inst, path.buf, sb) > 0) {
		strbuf_rtrim(sb);
		if (strcmp(sb->buf, "0") && strcmp(sb->buf, "none"))
			ret = tk_event_set(rec->setup.inst, sys, event, file,
					   "0", sb->buf);
		if (ret)
			record_error(rec, "%s: cannot write '0': %s", path.buf, strerror(-ret));
	}
	strbuf_release(&path);
	return ret;
}

/*
 * An instance -B found may have events enabled and filtered: the file
 * would hold events whose formats it lacks, and miss filtered ones.
 * All are switched off and unfiltered for the recording, then restored.
 */
static int quiet_instance(struct record *rec)
{
	struct strbuf events = STRBUF_INIT, sys = STRBUF_INIT, sb = STRBUF_INIT;
	struct dirent *de, *ev;
	DIR *d, *e;
	int ret = 0;

	tk_tracefs_path(&events, rec->setup.inst, "events");
	d = opendir(events.buf);
	if (!d) {
		ret = -errno;
		record_error(rec, "%s: %s", events.buf, strerror(errno));
	}
	while (!ret && d && (de = readdir(d))) {
		if (!is_dir_entry(de))
			continue;
		strbuf_reset(&sys);
		strbuf_addf(&sys, "%s/%s", events.buf, de->d_name);
		e = opendir(sys.buf);
		while (!ret && e && (ev = readdir(e)))
			if (is_dir_entry(ev))
				ret = event_clear(rec, de->d_name, ev->d_name, "enable", &sb) ||
				      event_clear(rec, de->d_name, ev->d_name, "filter", &sb) ?
				      -EIO : 0;
		if (e)
			closedir(e);
	}
	if (d)
		closedir(d);
	strbuf_release(&events);
	strbuf_release(&sys);
	strbuf_release(&sb);
	return ret;
}

/*
 * -B NAME, as trace-cmd record -B: an instance it creates goes at the
 * end; one that was there is kept, its buffer cleared (the one change
 * that is not undone: the kernel cannot put events back), its settings
 * restored.
 */
static int named_instance(struct record *rec, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		record_error(rec, "-B '%s': not an instance name", name);
		return -EINVAL;
	}
	rec->setup.inst = name;
	ret = tk_instance_create(name);
	if (ret == -EEXIST) {
		rec->setup.inst_reused = 1;
		ret = rec->o->tracer ? 0 : tk_tracefs_set(name, "current_tracer", "nop", NULL);
		if (!ret && quiet_instance(rec))
			return -EIO;
	}
	if (ret) {
		tk_tracefs_path(&path, name, NULL);
		record_error(rec, "-B %s: %s: %s", name, path.buf, strerror(-ret));
		rec->setup.inst = NULL;
	}
	strbuf_release(&path);
	return ret;
}

static int make_instance(struct record *rec)
{
	struct strbuf stale = STRBUF_INIT;
	const char *p, *nl;
	int ret;

	/*
	 * A recorder killed by SIGKILL leaves its instance, events enabled
	 * (and any uprobe in it busy): the next one clears it.
	 */
	if (tk_instance_remove_stale("tracekit-", &stale) > 0)
		for (p = stale.buf; (nl = strchr(p, '\n')); p = nl + 1)
			record_warn(rec, "removed instance %.*s: its recorder is gone",
				    (int)(nl - p), p);
	strbuf_release(&stale);
	if (rec->o->instance)
		return named_instance(rec, rec->o->instance);
	snprintf(rec->setup.inst_name, sizeof(rec->setup.inst_name),
		 "tracekit-%d", (int)getpid());
	ret = tk_instance_create(rec->setup.inst_name);
	if (ret) {
		struct strbuf path = STRBUF_INIT;

		tk_tracefs_path(&path, rec->setup.inst_name, NULL);
		record_error(rec, "cannot create instance %s: %s", path.buf, strerror(-ret));
		strbuf_release(&path);
	} else {
		rec->setup.inst = rec->setup.inst_name;
	}
	return ret;
}

static void add_event(struct record *rec, const char *sys, const char *name,
		      const char *filter)
{
	int i;

	for (i = 0; i < rec->setup.nr_events; i++)
		if (!strcmp(rec->setup.events[i].system, sys) &&
		    !strcmp(rec->setup.events[i].name, name))
			return;
	grow_array(rec->setup.events, rec->setup.nr_events,
		   rec->setup.alloc_events, 16);
	rec->setup.events[rec->setup.nr_events].system = xstrdup(sys);
	rec->setup.events[rec->setup.nr_events].name = xstrdup(name);
	rec->setup.events[rec->setup.nr_events].filter = filter;
	strbuf_init(&rec->setup.events[rec->setup.nr_events].format, 0);
	rec->setup.nr_events++;
}

/* record_live.events_off: the caller's triggers enable the events. */
static int events_off(const struct record *rec)
{
	return rec->o->live && rec->o->live->events_off;
}

/*
 * A whole system in an instance of our own: one write to the system's
 * enable file instead of one per event (libtracefs checks and opens
 * each), and nothing to undo event by event: the instance goes.
 */
static int enable_whole_system(struct record *rec, const char *sys, DIR *d)
{
	struct strbuf file = STRBUF_INIT;
	struct dirent *de;
	int n = 0, ret;

	strbuf_addf(&file, "events/%s/enable", sys);
	ret = tk_tracefs_set(rec->setup.inst, file.buf, "1", "0");
	if (ret)
		record_error(rec, "%s: cannot write '1': %s", file.buf, strerror(-ret));
	while (!ret && (de = readdir(d)))
		if (is_dir_entry(de)) {
			add_event(rec, sys, de->d_name, NULL);
			n++;
		}
	strbuf_release(&file);
	return ret ? ret : n;
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
	tk_tracefs_path(&file, rec->setup.inst, path.buf);
	d = opendir(file.buf);
	if (!d) {
		ret = -errno;
		goto out;
	}
	if (!filter && !strcmp(glob, "*") && rec->setup.inst &&
	    !rec->setup.inst_reused && !events_off(rec)) {
		ret = enable_whole_system(rec, sys, d);
		goto done;
	}
	while ((de = readdir(d)) && ret >= 0) {
		if (!is_dir_entry(de) || fnmatch(glob, de->d_name, 0))
			continue;
		if (events_off(rec)) {
			add_event(rec, sys, de->d_name, filter);
			n++;
			continue;
		}
		if (filter) {
			ret = tk_event_set(rec->setup.inst, sys, de->d_name,
					   "filter", filter, "0");
			if (ret) {
				record_error(rec, "-f '%s': refused for %s:%s: %s", filter, sys,
				      de->d_name, strerror(-ret));
				break;
			}
		}
		ret = tk_event_set(rec->setup.inst, sys, de->d_name, "enable",
				   "1", "0");
		if (ret) {
			record_error(rec, "events/%s/%s/enable: cannot write '1': %s", sys,
			      de->d_name, strerror(-ret));
			break;
		}
		add_event(rec, sys, de->d_name, filter);
		n++;
	}
	ret = ret < 0 ? ret : n;
done:
	closedir(d);
out:
	strbuf_release(&path);
	strbuf_release(&file);
	return ret;
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
	char *sysglob = colon ? xstrndup(ev->spec, colon - ev->spec)
			      : xstrdup(ev->spec);
	const char *evglob = colon ? colon + 1 : "*";
	struct dirent *de;
	int n = 0, ret = 0, pass;
	DIR *d;

	tk_tracefs_path(&events, rec->setup.inst, "events");
	/* Without ':' the spec names systems; failing that, events anywhere. */
	for (pass = 0; pass < (colon ? 1 : 2) && !n && !ret; pass++) {
		d = opendir(events.buf);
		if (!d) {
			ret = -errno;
			record_error(rec, "%s: %s", events.buf, strerror(errno));
			break;
		}
		while ((de = readdir(d))) {
			int r;

			if (!is_dir_entry(de) || !enableable_system(de->d_name))
				continue;
			if (pass == 0 && fnmatch(sysglob, de->d_name, 0))
				continue;
			r = enable_system(rec, de->d_name,
					  pass ? ev->spec : evglob, ev->filter);
			if (r < 0) {
				ret = r;
				break;
			}
			n += r;
		}
		closedir(d);
	}
	if (!ret && !n) {
		record_error(rec, "-e %s: no such event", ev->spec);
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

	tk_tracefs_path(&path, rec->setup.inst, "per_cpu");
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

	rec->setup.nr_sys_cpus = count_cpus(rec);
	if (rec->setup.nr_sys_cpus <= 0) {
		record_error(rec, "no per_cpu directories in tracefs");
		return -ENODEV;
	}
	mask = xmalloc(rec->setup.nr_sys_cpus);
	memset(mask, 1, rec->setup.nr_sys_cpus);
	if (o->cpus) {
		struct strbuf text = STRBUF_INIT, old = STRBUF_INIT;

		if (record_parse_cpus(o->cpus, mask, rec->setup.nr_sys_cpus)) {
			record_error(rec, "--cpus %s: not a list of CPUs 0-%d", o->cpus,
			      rec->setup.nr_sys_cpus - 1);
			free(mask);
			return -EINVAL;
		}
		cpumask_text(mask, rec->setup.nr_sys_cpus, &text);
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
	rec->setup.cpus = xcalloc(rec->setup.nr_sys_cpus,
				  sizeof(*rec->setup.cpus));
	for (cpu = 0; cpu < rec->setup.nr_sys_cpus; cpu++) {
		struct cpu_reader *r;

		if (!mask[cpu])
			continue;
		r = &rec->setup.cpus[rec->setup.nr_cpus++];
		r->rec = rec;
		r->cpu = cpu;
		r->fd = r->stats_fd = -1;
		r->comp.scratch = r->comp.scratch_old = -1;
	}
	free(mask);
	if (!rec->setup.nr_cpus) {
		record_error(rec, "--cpus %s: no CPU selected", o->cpus);
		ret = -EINVAL;
	}
	return ret;
}

/* ---- the tracer (-p) and what configures it ---- */

static int listed(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (!p[n] || isspace((unsigned char)p[n])))
			return 1;
		p += n;
	}
	return 0;
}

/*
 * An instance offers only the tracers that allow instances (6.1: function
 * and nop; function_graph only from 6.12's fgraph rework, not in 6.1): the
 * others run in the top-level buffer, as with --top.
 */
static int choose_buffer(struct record *rec)
{
	struct strbuf avail = STRBUF_INIT, top = STRBUF_INIT;
	const char *tracer = rec->o->tracer;
	int ret = 0;

	if (tk_tracefs_read(NULL, "available_tracers", &top) < 0 || !listed(top.buf, tracer)) {
		strbuf_rtrim(&top);
		record_error(rec, "-p %s: not a tracer of this kernel (available_tracers: %s)",
			     tracer, top.len ? top.buf : "none");
		ret = -EOPNOTSUPP;
	} else if (rec->setup.inst &&
		   (tk_tracefs_read(rec->setup.inst, "available_tracers",
				    &avail) < 0 ||
		    !listed(avail.buf, tracer))) {
		if (rec->o->instance) {
			record_error(rec, "-p %s: this kernel's instances do not offer it: no -B",
				     tracer);
			ret = -EOPNOTSUPP;
		} else {
			ret = tk_instance_remove(rec->setup.inst);
			if (ret)
				record_error(rec,
					     "cannot remove instance %s: %s",
					     rec->setup.inst, strerror(-ret));
			rec->setup.inst = NULL;
		}
	}
	strbuf_release(&avail);
	strbuf_release(&top);
	return ret;
}

static int set_list(struct record *rec, const char *opt, const char *file,
		    const struct record_strings *l)
{
	int failed = 0, ret;

	if (!l->nr)
		return 0;
	ret = tk_tracefs_set_lines(rec->setup.inst, file, l->v, l->nr, &failed);
	if (ret == -ENOENT)
		record_error(rec, "%s %s: this kernel has no %s%s", opt, l->v[0], file,
			     rec->setup.inst ? " in instances" : "");
	else if (ret == -EINVAL)
		record_error(rec, "%s %s: no such function (%s refused it)", opt,
			     l->v[failed], file);
	else if (ret)
		record_error(rec, "%s %s: the kernel refused %s: %s", opt, l->v[failed], file,
			     strerror(-ret));
	return ret;
}

/* -O NAME sets options/NAME; -O noNAME clears it, as trace_options takes. */
static int set_trace_option(struct record *rec, const char *arg,
			    const char *what)
{
	struct strbuf file = STRBUF_INIT;
	const char *val = "1";
	int ret;

	strbuf_addf(&file, "options/%s", arg);
	ret = tk_tracefs_set(rec->setup.inst, file.buf, val, NULL);
	if (ret == -ENOENT && !strncmp(arg, "no", 2) && arg[2]) {
		strbuf_reset(&file);
		strbuf_addf(&file, "options/%s", arg + 2);
		val = "0";
		ret = tk_tracefs_set(rec->setup.inst, file.buf, val, NULL);
	}
	if (ret == -ENOENT)
		record_error(rec, "%s %s: no such trace option (options/%s)", what, arg, arg);
	else if (ret)
		record_error(rec, "%s %s: %s: cannot write '%s': %s", what, arg, file.buf, val,
			     strerror(-ret));
	strbuf_release(&file);
	return ret ? -EOPNOTSUPP : 0;
}

/*
 * Every refusal here is the kernel's answer about the tracer (EPERM from a
 * lockdown, EINVAL for a function it does not know), not a tracefs we cannot
 * reach: -EOPNOTSUPP, whatever the errno the message names.
 */
static int setup_tracer(struct record *rec)
{
	const struct record_opts *o = rec->o;
	int ret;

	ret = set_list(rec, "-l", "set_ftrace_filter", &o->ftrace_filter);
	if (!ret)
		ret = set_list(rec, "-n", "set_ftrace_notrace", &o->ftrace_notrace);
	if (!ret)
		ret = set_list(rec, "-g", "set_graph_function", &o->graph_funcs);
	if (!ret && o->max_graph_depth) {
		char val[32];

		snprintf(val, sizeof(val), "%d", o->max_graph_depth);
		ret = tk_tracefs_set(rec->setup.inst, "max_graph_depth", val,
				     NULL);
		if (ret)
			record_error(rec, "--max-graph-depth %d: max_graph_depth: %s",
				     o->max_graph_depth, strerror(-ret));
	}
	if (ret)
		return -EOPNOTSUPP;
	ret = tk_tracefs_set(rec->setup.inst, "current_tracer", o->tracer,
			     NULL);
	if (ret) {
		record_error(rec, "-p %s: the kernel refused current_tracer: %s", o->tracer,
			     strerror(-ret));
		return -EOPNOTSUPP;
	}
	/* The tracer's own options appear in options/ once it is current. */
	return o->func_stack ? set_trace_option(rec, "func_stack_trace", "--func-stack") : 0;
}

/* The formats of the enabled events, for the file and what it needs. */
static int read_formats(struct record *rec)
{
	struct strbuf path = STRBUF_INIT;
	int i, ret = 0;

	for (i = 0; i < rec->setup.nr_events && !ret; i++) {
		struct event_name *e = &rec->setup.events[i];
		long n;

		strbuf_reset(&path);
		strbuf_addf(&path, "events/%s/%s/format", e->system, e->name);
		n = tk_tracefs_read(rec->setup.inst, path.buf, &e->format);
		if (n < 0) {
			ret = (int)n;
			record_error(rec, "%s: %s", path.buf, strerror(-ret));
		} else {
			record_ksyms_note_format(rec, e->format.buf);
		}
	}
	strbuf_release(&path);
	return ret;
}

/*
 * The signed bitfields the notes of `tracekit probe` give for the events
 * recorded, read once they are enabled: the kernel refuses to delete or
 * redefine an enabled probe (EBUSY), so the definitions a note is checked
 * against hold for the whole recording.
 */
static void read_probe_notes(struct record *rec)
{
	struct strbuf fields = STRBUF_INIT, err = STRBUF_INIT;
	struct probe_defs defs;
	const char *f;
	int i;

	if (probe_defs_read(&defs))
		return;
	for (i = 0; i < rec->setup.nr_events; i++) {
		struct event_name *e = &rec->setup.events[i];

		strbuf_reset(&fields);
		if (probe_note_fields(&defs, e->system, e->name, &fields,
				      &err)) {
			record_warn(rec, "%s: its signed bitfields read unsigned", err.buf);
			strbuf_reset(&err);
			continue;
		}
		for (f = fields.buf; *f; f += strcspn(f, "\n") + 1)
			strbuf_addf(&rec->setup.signed_fields, "%s %s %.*s\n",
				    e->system, e->name,
				    (int)strcspn(f, "\n"), f);
	}
	probe_defs_release(&defs);
	strbuf_release(&fields);
	strbuf_release(&err);
}

/*
 * An event of probe --call-graph is unwound by report with the maps of
 * its processes: it implies --proc-map when there is a process to trace.
 */
static int call_graph_events(struct record *rec)
{
	int i;

	for (i = 0; i < rec->setup.nr_events; i++)
		if (strstr(rec->setup.events[i].format.buf,
			   " " CALLGRAPH_STACK "0["))
			return 1;
	return 0;
}

int record_setup_tracefs(struct record *rec)
{
	const struct record_opts *o = rec->o;
	struct strbuf sb = STRBUF_INIT;
	int i, ret;

	if (!o->top) {
		ret = make_instance(rec);
		if (ret)
			return ret;
	}
	if (o->tracer) {
		ret = choose_buffer(rec);
		if (ret)
			return ret;
	}
	ret = set_file(rec, "tracing_on", "0", NULL);
	/* What -B's instance held before, now that nothing adds to it. */
	if (!ret && rec->setup.inst_reused) {
		ret = tk_tracefs_write(rec->setup.inst, "trace", "");
		if (ret)
			record_error(rec, "-B %s: trace: cannot clear: %s",
				     rec->setup.inst, strerror(-ret));
	}
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

		tk_tracefs_read(rec->setup.inst, "trace_clock", &cur);
		l = strchr(cur.buf, '[');
		r = l ? strchr(l, ']') : NULL;
		if (r)
			*r = 0;
		ret = tk_tracefs_set(rec->setup.inst, "trace_clock", o->clock,
				     l ? l + 1 : "local");
		strbuf_release(&cur);
		if (ret) {
			record_error(rec, "-C %s: clock refused: %s", o->clock, strerror(-ret));
			goto out;
		}
	}
	for (i = 0; i < o->nr_events; i++) {
		ret = enable_spec(rec, &o->events[i]);
		if (ret)
			goto out;
	}
	record_ksyms_setup(rec);
	ret = read_formats(rec);
	if (ret)
		goto out;
	read_probe_notes(rec);
	rec->setup.proc_map = o->proc_map;
	if (!rec->setup.proc_map && (o->argv || o->pid > 0) &&
	    call_graph_events(rec)) {
		rec->setup.proc_map = 1;
		record_warn(rec, "--call-graph events: storing the maps of the traced "
			    "processes, as --proc-map does");
	}
	if (o->tracer) {
		ret = setup_tracer(rec);
		if (ret)
			goto out;
	}
	for (i = 0; i < o->trace_options.nr; i++) {
		ret = set_trace_option(rec, o->trace_options.v[i], "-O");
		if (ret)
			goto out;
	}
	/*
	 * Wake the readers when a tenth of the buffer is full instead of half
	 * (the default): on a busy machine they may wait long for a CPU.
	 * trace-cmd's -s 0 is a reader woken by every write: 0 percent.
	 */
	if (tk_tracefs_set(rec->setup.inst, "buffer_percent",
			   o->sleep_us ? "10" : "0", NULL))
		record_warn(rec, "buffer_percent: cannot set, readers wake at its default");
	if (o->stacktrace) {
		int r = tk_tracefs_set(rec->setup.inst, "options/stacktrace",
				       "1", NULL);

		if (r)
			record_warn(rec, "-T: stack traces unavailable: options/stacktrace: %s",
				strerror(-r));
	}
out:
	strbuf_release(&sb);
	return ret;
}

int record_set_pid_filter(struct record *rec, pid_t pid, int children)
{
	int tracer = rec->o->tracer != NULL;
	char val[32];
	int ret = 0;

	snprintf(val, sizeof(val), "%d", (int)pid);
	/*
	 * event-fork and function-fork add the children of the filtered
	 * tasks to the filters.
	 */
	if (children)
		ret = set_file(rec, "options/event-fork", "1", NULL);
	if (!ret && children && tracer)
		ret = set_file(rec, "options/function-fork", "1", NULL);
	if (!ret)
		ret = set_file(rec, "set_event_pid", val, NULL);
	if (!ret && tracer)
		ret = set_file(rec, "set_ftrace_pid", val, NULL);
	return ret;
}

unsigned int record_subbuf_size(struct record *rec)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned int size = getpagesize();

	if (tk_tracefs_read(rec->setup.inst, "buffer_subbuf_size_kb",
			    &sb) > 0 && atoi(sb.buf) > 0)
		size = atoi(sb.buf) * 1024;
	strbuf_release(&sb);
	return size;
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

/*
 * One pread() of the reader's open stats file: the kernel writes them
 * afresh at offset 0, a few hundred bytes from one trace_seq (two pages
 * at most), so a stack buffer holds them and a waiting reader can look
 * every few milliseconds without allocating.
 */
int record_read_stats(struct cpu_reader *r, struct cpu_stats *st,
		      struct strbuf *text)
{
	char buf[8192];
	ssize_t n = pread(r->stats_fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	st->entries = stat_field(buf, "entries");
	st->overrun = stat_field(buf, "overrun");
	st->commit_overrun = stat_field(buf, "commit overrun");
	st->dropped = stat_field(buf, "dropped events");
	st->read = stat_field(buf, "read events");
	st->bytes = strstr(buf, "\nbytes:") ? (int64_t)stat_field(buf, "bytes") : -1;
	if (text)
		strbuf_add(text, buf, n);
	return 0;
}

uint64_t record_ring_kb(struct record *rec, int cpu)
{
	struct strbuf file = STRBUF_INIT, text = STRBUF_INIT;
	uint64_t kb = 0;

	strbuf_addf(&file, "per_cpu/cpu%d/buffer_size_kb", cpu);
	if (tk_tracefs_read(rec->setup.inst, file.buf, &text) > 0)
		kb = strtoull(text.buf, NULL, 10);
	strbuf_release(&file);
	strbuf_release(&text);
	return kb;
}

uint64_t record_stats_lost(const struct cpu_stats *now,
			   const struct cpu_stats *base)
{
	return (now->overrun - base->overrun) +
	       (now->commit_overrun - base->commit_overrun) +
	       (now->dropped - base->dropped);
}
