// SPDX-License-Identifier: GPL-2.0
/*
 * The restore-on-exit registry: every change to tracefs registers its
 * undo here before it is made, and tk_restore_run() replays the undos at
 * exit, on error and on fatal signals.  Also the changes that register
 * their own undo (tk_tracefs_set(), tk_event_set(), tk_instance_create()
 * ...).  What reads and writes tracefs without an undo is util/tracefs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "util/tracefs-int.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"
#include "util/usage.h"

static int write_path(const char *path, const char *val, int append)
{
	size_t len = strlen(val);
	int fd = open(path, O_WRONLY | O_CLOEXEC |
		      (append ? O_APPEND : O_TRUNC));
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	/* An empty write still has to reach the kernel to clear a file. */
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/* ---- restore-on-exit registry: the one piece of global mutable state ---- */

enum undo_kind { UNDO_WRITE, UNDO_APPEND, UNDO_RMDIR };

struct undo {
	enum undo_kind kind;
	char *path;
	char *value;
	int done;
	int deferred;
};

static struct undo *undos;
static int nr_undos, alloc_undos;
static volatile sig_atomic_t restoring;

static int push_undo(enum undo_kind kind, const char *path, const char *value)
{
	struct undo *u;

	if (nr_undos == alloc_undos) {
		int n = alloc_undos ? 2 * alloc_undos : 16;
		struct undo *nu = realloc(undos, n * sizeof(*nu));

		if (!nu)
			return -ENOMEM;
		undos = nu;
		alloc_undos = n;
	}
	u = &undos[nr_undos];
	u->kind = kind;
	u->path = xstrdup(path);
	u->value = value ? xstrdup(value) : NULL;
	u->done = 0;
	u->deferred = 0;
	/* Publish only once filled in: a signal may run the registry now. */
	__atomic_store_n(&nr_undos, nr_undos + 1, __ATOMIC_SEQ_CST);
	return 0;
}

int tk_restore_push_write(const char *path, const char *value, int append)
{
	return push_undo(append ? UNDO_APPEND : UNDO_WRITE, path, value);
}

int tk_restore_push_rmdir(const char *path)
{
	return push_undo(UNDO_RMDIR, path, NULL);
}

void tk_restore_forget(const char *path, const char *value)
{
	int i;

	for (i = nr_undos - 1; i >= 0; i--) {
		struct undo *u = &undos[i];

		if (u->done || strcmp(u->path, path))
			continue;
		if (value && (!u->value || strcmp(u->value, value)))
			continue;
		u->done = 1;
		return;
	}
}

/*
 * Files of an instance that go with it: its rmdir disables its events,
 * clears its pid filters and frees its buffers.  Undoing them right before
 * is kernel work for nothing: in a 1-CPU guest under TCG, clearing
 * set_event_pid alone took 40 ms of wall time (a grace period), the event
 * and buffer undos of `record -e sched -e raw_syscalls` another 30 ms
 * (strace -T).  Not a tracer's own options (options/func_stack_trace):
 * those belong to the tracer and every instance shares them, on 6.1 too.
 */
static const char *const goes_with_instance[] = {
	"events/", "per_cpu/", "set_event_pid", "set_event_notrace_pid",
	"buffer_size_kb", "buffer_percent", "tracing_on", "trace_clock",
	"tracing_cpumask", "options/event-fork", "options/function-fork",
	"options/stacktrace",
};

static const char *under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/' ? path + n + 1 : NULL;
}

/* Whether an rmdir still to come takes undos[at]'s file with it. */
static int removed_later(int at)
{
	int i;

	for (i = at - 1; i >= 0; i--) {
		const struct undo *u = &undos[i];
		const char *rel;
		size_t k;

		if (u->kind != UNDO_RMDIR || u->done ||
		    !(rel = under(undos[at].path, u->path)))
			continue;
		for (k = 0; k < sizeof(goes_with_instance) /
			     sizeof(goes_with_instance[0]); k++) {
			const char *g = goes_with_instance[k];
			size_t n = strlen(g);

			if (g[n - 1] == '/' ? !strncmp(rel, g, n) :
			    !strcmp(rel, g))
				return 1;
		}
	}
	return 0;
}

static void undo_write(struct undo *u)
{
	write_path(u->path, u->value, u->kind == UNDO_APPEND);
}

/* Only open/write/close/rmdir here: this also runs in signal handlers. */
void tk_restore_run(void)
{
	int i, j;

	if (restoring)
		return;
	restoring = 1;
	for (i = nr_undos - 1; i >= 0; i--) {
		struct undo *u = &undos[i];

		if (u->done)
			continue;
		u->done = 1;
		if (u->kind != UNDO_RMDIR) {
			if (removed_later(i))
				u->deferred = 1;
			else
				undo_write(u);
			continue;
		}
		if (!rmdir(u->path))
			continue;
		/*
		 * Still there (a reader holds a file open): undo it after
		 * all.
		 */
		for (j = nr_undos - 1; j > i; j--) {
			if (undos[j].deferred &&
			    under(undos[j].path, u->path)) {
				undos[j].deferred = 0;
				undo_write(&undos[j]);
			}
		}
	}
	restoring = 0;
}

static void restore_and_die(int sig)
{
	tk_restore_run();
	signal(sig, SIG_DFL);
	raise(sig);
}

void tk_restore_install(void)
{
	static int installed;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;

	if (installed)
		return;
	installed = 1;
	atexit(tk_restore_run);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = restore_and_die;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Registers the undo, then makes the change; on failure drops the undo. */
static int set_with_undo(const char *path, const char *restore,
			 int (*change)(const void *arg), const void *arg)
{
	int ret = push_undo(UNDO_WRITE, path, restore);

	if (ret)
		return ret;
	ret = change(arg);
	if (ret)
		tk_restore_forget(path, restore);
	return ret;
}

struct file_change {
	const char *instance, *file, *val;
};

static int change_file(const void *arg)
{
	const struct file_change *c = arg;

	return tk_tracefs_write(c->instance, c->file, c->val);
}

int tk_tracefs_set(const char *instance, const char *file, const char *val,
		   const char *restore)
{
	struct strbuf path = STRBUF_INIT, old = STRBUF_INIT;
	struct file_change c = { instance, file, val };
	int ret = 0;

	if (!restore) {
		long n = tk_tracefs_read(instance, file, &old);

		if (n < 0)
			ret = (int)n;
		strbuf_setlen(&old, strcspn(old.buf, "\n"));
		restore = old.buf;
	}
	tk_tracefs_path(&path, instance, file);
	if (!ret)
		ret = set_with_undo(path.buf, restore, change_file, &c);
	strbuf_release(&old);
	strbuf_release(&path);
	return ret;
}

int tk_tracefs_set_lines(const char *instance, const char *file,
			 const char *const *lines, int n, int *failed)
{
	struct strbuf path = STRBUF_INIT, old = STRBUF_INIT, buf = STRBUF_INIT;
	int first = nr_undos, ret = 0, i;
	long len = tk_tracefs_read(instance, file, &old);

	if (len < 0) {
		ret = (int)len;
		goto out;
	}
	tk_tracefs_path(&path, instance, file);
	/*
	 * Undos run newest first: the old lines are pushed last to first,
	 * then the truncation that must run before them.
	 */
	strbuf_rtrim(&old);
	while (old.len && !ret) {
		char *line = strrchr(old.buf, '\n');

		line = line ? line + 1 : old.buf;
		if (*line != '#')
			ret = push_undo(UNDO_APPEND, path.buf, line);
		strbuf_setlen(&old, line > old.buf ?
			      (size_t)(line - old.buf - 1) : 0);
	}
	if (!ret)
		ret = push_undo(UNDO_WRITE, path.buf, "");
	/*
	 * The newline makes the kernel parse the line inside write(): without
	 * one, set_ftrace_filter's parser waits for close(), which drops a
	 * "no function matched" silently.
	 */
	for (i = 0; i < n && !ret; i++) {
		strbuf_reset(&buf);
		strbuf_addf(&buf, "%s\n", lines[i]);
		ret = write_path(path.buf, buf.buf, i > 0);
		if (ret && failed)
			*failed = i;
	}
	if (ret) {
		/* Put the old lines back now, and only those undos. */
		for (i = nr_undos - 1; i >= first; i--) {
			struct undo *u = &undos[i];

			if (!u->done)
				write_path(u->path, u->value,
					   u->kind == UNDO_APPEND);
			u->done = 1;
		}
	}
out:
	strbuf_release(&buf);
	strbuf_release(&old);
	strbuf_release(&path);
	return ret;
}

struct event_change {
	struct tracefs_instance *inst;
	const char *sys, *event, *file, *val;
};

static int change_event(const void *arg)
{
	const struct event_change *c = arg;
	int n;

	errno = 0;
	n = tracefs_event_file_write(c->inst, c->sys, c->event, c->file,
				     c->val);
	return n < 0 ? tk_tracefs_neg_errno() :
	       (size_t)n != strlen(c->val) ? -EIO : 0;
}

int tk_event_set(const char *instance, const char *sys, const char *event,
		 const char *file, const char *val, const char *restore)
{
	struct event_change c = { NULL, sys, event, file, val };
	int ret = tk_tracefs_instance(instance, &c.inst);
	char *path;

	if (ret)
		return ret;
	path = tracefs_event_get_file(c.inst, sys, event, file);
	ret = path ? set_with_undo(path, restore, change_event, &c) : -ENOMEM;
	tracefs_put_tracing_file(path);
	tracefs_instance_free(c.inst);
	return ret;
}

int tk_instance_create(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	struct tracefs_instance *inst;
	int ret;

	tk_tracefs_dir();
	if (tracefs_instance_exists(name))
		return -EEXIST;
	tk_tracefs_path(&path, name, NULL);
	ret = push_undo(UNDO_RMDIR, path.buf, NULL);
	if (ret)
		goto out;
	errno = 0;
	inst = tracefs_instance_create(name);
	if (!inst)
		ret = tk_tracefs_neg_errno();
	else if (!tracefs_instance_is_new(inst))
		ret = -EEXIST;
	if (ret)
		tk_restore_forget(path.buf, NULL);
	tracefs_instance_free(inst);
out:
	strbuf_release(&path);
	return ret;
}

int tk_instance_remove(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	tk_tracefs_path(&path, name, NULL);
	if (rmdir(path.buf) < 0)
		ret = -errno;
	else
		tk_restore_forget(path.buf, NULL);
	strbuf_release(&path);
	return ret;
}
