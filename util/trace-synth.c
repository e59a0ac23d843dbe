// SPDX-License-Identifier: GPL-2.0
/*
 * --latency in the kernel: the synthetic event libtracefs describes,
 * written here line by line so that each has its undo registered
 * before it is written (tracefs_synth_create() writes all three at once,
 * with no way to undo them from a signal handler).
 */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/trace-seq.h>
#include <tracefs.h>

#include "util/trace-synth.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"
#include "util/usage.h"
#include "util/wrapper.h"

/*
 * The undos of a run's synthetic event, "PATH\tLINE\n" as they are
 * registered, for the next run to replay if a SIGKILL kept this one from
 * it: the END trigger names its START event only in its own text, and
 * libtracefs names the START trigger's variables, so nothing in tracefs
 * tells a leftover trigger from another tool's.
 */
#define SYNTH_UNDO_DIR		"/run/tracekit"
#define SYNTH_UNDO_PREFIX	"synth-"

/* What is written, in order; undone in the reverse order. */
enum { SYNTH_EVENT, SYNTH_START, SYNTH_END, SYNTH_LINES };

struct trace_synth {
	struct tracefs_synth *synth;
	char *file[SYNTH_LINES];	/* relative to the top level */
	char *line[SYNTH_LINES];
	char *undo[SYNTH_LINES];	/* what removes each line's */
	int written;			/* lines written so far */
	char *undo_file;		/* SYNTH_UNDO_DIR/synth-PID, or NULL */
};

/*
 * The three lines and their files, from libtracefs's description: the
 * shell commands tracefs_synth_echo_cmd() prints, "echo 'LINE' >>
 * FILE" (it makes the texts only when it creates the event or so
 * describes it).
 */
static int describe(struct trace_synth *s, struct tep_event *start,
		    struct tep_event *end, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct trace_seq seq;
	char *line, *save = NULL, *q;
	int i = 0;

	trace_seq_init(&seq);
	if (!tracefs_synth_echo_cmd(&seq, s->synth)) {
		trace_seq_terminate(&seq);
		for (line = strtok_r(seq.buffer, "\n", &save);
		     line && i < SYNTH_LINES;
		     line = strtok_r(NULL, "\n", &save)) {
			q = strstr(line, "' >> ");
			if (strncmp(line, "echo '", 6) || !q)
				break;
			s->line[i++] = xstrndup(line + 6, q - line - 6);
		}
	}
	trace_seq_destroy(&seq);
	if (i < SYNTH_LINES) {
		strbuf_addstr(err, "--latency: libtracefs cannot describe the synthetic event");
		return -EINVAL;
	}
	for (i = 0; i < SYNTH_LINES; i++) {
		strbuf_reset(&sb);
		if (i == SYNTH_EVENT)
			strbuf_addstr(&sb, "dynamic_events");
		else
			strbuf_addf(&sb, "events/%s/%s/trigger",
				    (i == SYNTH_START ? start : end)->system,
				    (i == SYNTH_START ? start : end)->name);
		s->file[i] = strbuf_detach(&sb, NULL);
	}
	return 0;
}

/* The undo kept for the next run too; best effort, as a note is. */
static void save_undo(struct trace_synth *s, const char *path,
		      const char *undo)
{
	struct strbuf sb = STRBUF_INIT;
	int fd;

	if (!s->undo_file) {
		if (mkdir(SYNTH_UNDO_DIR, 0755) && errno != EEXIST)
			return;
		strbuf_addf(&sb, SYNTH_UNDO_DIR "/" SYNTH_UNDO_PREFIX "%d",
			    (int)getpid());
		s->undo_file = strbuf_detach(&sb, NULL);
	}
	fd = open(s->undo_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return;
	strbuf_addf(&sb, "%s\t%s\n", path, undo);
	write_in_full(fd, sb.buf, sb.len);
	close(fd);
	strbuf_release(&sb);
}

/*
 * Line i written after its undo is registered: "!LINE" appended to a
 * trigger file, "-:NAME" to dynamic_events.
 */
static int write_line(struct trace_synth *s, int i, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, undo = STRBUF_INIT;
	int ret;

	tk_tracefs_path(&path, NULL, s->file[i]);
	if (i == SYNTH_EVENT)
		strbuf_addf(&undo, "-:%s", tracefs_synth_get_name(s->synth));
	else
		strbuf_addf(&undo, "!%s", s->line[i]);
	s->undo[i] = xstrdup(undo.buf);
	save_undo(s, path.buf, undo.buf);
	ret = tk_restore_push_write(path.buf, undo.buf, 1);
	if (!ret) {
		ret = tk_tracefs_append_err(NULL, s->file[i], s->line[i], err);
		if (ret)
			tk_restore_forget(path.buf, undo.buf);
	}
	if (ret && !err->len)
		strbuf_addf(err, "%s: %s", path.buf, strerror(-ret));
	if (!ret)
		s->written = i + 1;
	strbuf_release(&path);
	strbuf_release(&undo);
	return ret;
}

int trace_synth_start(struct tep_handle *tep, const char *name,
		      const struct report_agg_opts *o,
		      struct trace_synth **out, struct strbuf *err)
{
	struct tep_event *start = report_agg_find_event(tep, o->latency[0]);
	struct tep_event *end = report_agg_find_event(tep, o->latency[1]);
	struct trace_synth *s;
	int i, ret = 0;

	*out = NULL;
	if (!start || !end) {
		strbuf_addf(err, "--latency: no event '%s'",
			    o->latency[start ? 1 : 0]);
		return -EINVAL;
	}
	s = xcalloc(1, sizeof(*s));
	s->synth = tracefs_synth_alloc(tep, name, start->system, start->name,
				       end->system, end->name,
				       o->match[0] ? o->match[0] : "common_pid",
				       o->match[1] ? o->match[1] : "common_pid",
				       NULL);
	if (!s->synth ||
	    tracefs_synth_add_compare_field(s->synth, TRACEFS_TIMESTAMP,
					    TRACEFS_TIMESTAMP,
					    TRACEFS_SYNTH_DELTA_END,
					    REPORT_AGG_LATENCY))
		ret = -EINVAL;
	for (i = 0; !ret && i < o->nr_keys; i++)
		if (report_agg_key_kind(o->keys[i]) == REPORT_AGG_KEY_FIELD &&
		    tracefs_synth_add_end_field(s->synth, o->keys[i], NULL))
			ret = -EINVAL;
	if (ret)
		strbuf_addf(err, "--latency: libtracefs refuses the synthetic event from %s:%s to %s:%s (a match or key field either lacks?)",
			    start->system, start->name, end->system,
			    end->name);
	if (!ret)
		ret = describe(s, start, end, err);
	for (i = 0; !ret && i < SYNTH_LINES; i++)
		ret = write_line(s, i, err);
	if (ret) {
		trace_synth_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void trace_synth_free(struct trace_synth *s)
{
	struct strbuf path = STRBUF_INIT;
	int i;

	if (!s)
		return;
	for (i = s->written; i-- > 0;) {
		strbuf_reset(&path);
		tk_tracefs_path(&path, NULL, s->file[i]);
		/* Where the kernel refuses, the undo at exit tries again. */
		if (!tk_tracefs_append(NULL, s->file[i], s->undo[i]))
			tk_restore_forget(path.buf, s->undo[i]);
	}
	for (i = 0; i < SYNTH_LINES; i++) {
		free(s->file[i]);
		free(s->line[i]);
		free(s->undo[i]);
	}
	if (s->undo_file)
		unlink(s->undo_file);
	free(s->undo_file);
	tracefs_synth_free(s->synth);
	strbuf_release(&path);
	free(s);
}

/* A write of tracefs made with no library: the file's path is absolute. */
static void append_line(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0)
		return;
	write_in_full(fd, line, strlen(line));
	close(fd);
}

/* The undos of a run that is gone, replayed newest first. */
static void replay(const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *tab;

	if (strbuf_read_file(&sb, file, 4096) < 0)
		return;
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		strbuf_setlen(&sb, sb.len - 1);
	while (sb.len) {
		line = strrchr(sb.buf, '\n');
		line = line ? line + 1 : sb.buf;
		tab = strchr(line, '\t');
		if (tab) {
			*tab = 0;
			append_line(line, tab + 1);
		}
		strbuf_setlen(&sb, line > sb.buf ? line - sb.buf - 1 : 0);
	}
	strbuf_release(&sb);
}

int trace_synth_remove_stale(struct strbuf *removed)
{
	size_t n = strlen(SYNTH_UNDO_PREFIX);
	struct strbuf path = STRBUF_INIT;
	DIR *d = opendir(SYNTH_UNDO_DIR);
	struct dirent *de;
	int nr = 0;

	while (d && (de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, SYNTH_UNDO_PREFIX, n))
			continue;
		pid = strtol(de->d_name + n, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX ||
		    !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, SYNTH_UNDO_DIR "/%s", de->d_name);
		replay(path.buf);
		unlink(path.buf);
		strbuf_addf(removed, TRACE_SYNTH_STALE "%ld\n", pid);
		nr++;
	}
	if (d)
		closedir(d);
	strbuf_release(&path);
	return nr;
}

void trace_synth_keep(struct trace_synth *s, const char *path,
		      const char *undo)
{
	save_undo(s, path, undo);
}
