// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "util/tracefs.h"
#include "util/usage.h"

/* Where libtracefs was told tracefs is; see the header for why. */
static const char *tracefs_dir_cache;
static int tracefs_dir_probed;

const char *tk_tracefs_dir(void)
{
	const char *dir = NULL;

	if (tracefs_dir_probed)
		return tracefs_dir_cache;
	tracefs_dir_probed = 1;
	/* Ours to keep: 1.6.4 returns a new strdup() on every call. */
	if (tracefs_tracing_dir_is_mounted(false, &dir) == 1)
		tracefs_dir_cache = dir;
	/* Unmounted, libtracefs's calls then fail as an open would. */
	tracefs_set_tracing_dir((char *)(tracefs_dir_cache ? tracefs_dir_cache :
					 "/sys/kernel/tracing"));
	return tracefs_dir_cache;
}

static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/* The handle of instance NAME (NULL: the top level); 0 or -errno. */
static int instance_get(const char *name, struct tracefs_instance **inst)
{
	*inst = NULL;
	tk_tracefs_dir();
	if (!name || !*name)
		return 0;
	errno = 0;
	*inst = tracefs_instance_alloc(NULL, name);
	return *inst ? 0 : errno ? -errno : -ENOENT;
}

void tk_tracefs_path(struct strbuf *sb, const char *instance, const char *file)
{
	struct strbuf rel = STRBUF_INIT;
	char *path;

	tk_tracefs_dir();
	if (instance && *instance)
		strbuf_addf(&rel, "instances/%s", instance);
	if (file && *file)
		strbuf_addf(&rel, "%s%s", rel.len ? "/" : "", file);
	if (!rel.len) {
		strbuf_addstr(sb, tracefs_tracing_dir());
		return;
	}
	/* Not tracefs_instance_get_file(): the instance may not exist yet. */
	path = tracefs_get_tracing_file(rel.buf);
	if (!path)
		die("out of memory");
	strbuf_addstr(sb, path);
	tracefs_put_tracing_file(path);
	strbuf_release(&rel);
}

long tk_tracefs_read(const char *instance, const char *file, struct strbuf *out)
{
	struct tracefs_instance *inst;
	int size = 0, ret = instance_get(instance, &inst);
	char *buf;

	if (ret)
		return ret;
	/* NULL both when the file cannot be read and when it is empty. */
	errno = 0;
	buf = tracefs_instance_file_read(inst, file, &size);
	ret = buf ? size : errno ? -errno : 0;
	tracefs_instance_free(inst);
	if (buf)
		strbuf_add(out, buf, size);
	free(buf);
	return ret;
}

static int write_path(const char *path, const char *val, int append)
{
	size_t len = strlen(val);
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
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

static int write_file(const char *instance, const char *file, const char *val,
		      int append)
{
	struct tracefs_instance *inst;
	int n, ret = instance_get(instance, &inst);

	if (ret)
		return ret;
	errno = 0;
	n = append ? tracefs_instance_file_append(inst, file, val) :
		     tracefs_instance_file_write(inst, file, val);
	ret = n < 0 ? neg_errno() : (size_t)n != strlen(val) ? -EIO : 0;
	tracefs_instance_free(inst);
	return ret;
}

int tk_tracefs_write(const char *instance, const char *file, const char *val)
{
	return write_file(instance, file, val, 0);
}

int tk_tracefs_append(const char *instance, const char *file, const char *val)
{
	return write_file(instance, file, val, 1);
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

		if (u->kind != UNDO_RMDIR || u->done || !(rel = under(undos[at].path, u->path)))
			continue;
		for (k = 0; k < sizeof(goes_with_instance) / sizeof(goes_with_instance[0]); k++) {
			const char *g = goes_with_instance[k];
			size_t n = strlen(g);

			if (g[n - 1] == '/' ? !strncmp(rel, g, n) : !strcmp(rel, g))
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
		/* Still there (a reader holds a file open): undo it after all. */
		for (j = nr_undos - 1; j > i; j--) {
			if (undos[j].deferred && under(undos[j].path, u->path)) {
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
		strbuf_setlen(&old, line > old.buf ? (size_t)(line - old.buf - 1) : 0);
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
				write_path(u->path, u->value, u->kind == UNDO_APPEND);
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
	n = tracefs_event_file_write(c->inst, c->sys, c->event, c->file, c->val);
	return n < 0 ? neg_errno() : (size_t)n != strlen(c->val) ? -EIO : 0;
}

int tk_event_set(const char *instance, const char *sys, const char *event,
		 const char *file, const char *val, const char *restore)
{
	struct event_change c = { NULL, sys, event, file, val };
	int ret = instance_get(instance, &c.inst);
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
		ret = neg_errno();
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

struct stale_walk {
	const char *prefix;
	struct strbuf *removed;
	int nr, err;
};

static int remove_if_stale(const char *name, void *data)
{
	struct stale_walk *w = data;
	size_t n = strlen(w->prefix);
	struct tracefs_instance *inst;
	char *end;
	long pid;

	if (strncmp(name, w->prefix, n))
		return 0;
	errno = 0;
	pid = strtol(name + n, &end, 10);
	if (errno || end == name + n || *end || pid <= 0 || pid > INT_MAX)
		return 0;
	/* EPERM: alive, someone else's. */
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return 0;
	if (tracefs_instance_destroy(inst)) {
		if (!w->err)
			w->err = neg_errno();
	} else {
		strbuf_addf(w->removed, "%s\n", name);
		w->nr++;
	}
	tracefs_instance_free(inst);
	return 0;
}

int tk_instance_remove_stale(const char *prefix, struct strbuf *removed)
{
	struct stale_walk w = { .prefix = prefix, .removed = removed };

	if (!tk_tracefs_dir())
		return -ENODEV;
	if (tracefs_instances_walk(remove_if_stale, &w) < 0 && !w.err)
		w.err = neg_errno();
	return w.nr ? w.nr : w.err;
}

int tk_dynevent_write(const char *file, const char *line, struct strbuf *err)
{
	char *before = NULL, *after;
	int ret;

	tk_tracefs_dir();
	if (err)
		before = tracefs_error_last(NULL);
	ret = tk_tracefs_append(NULL, file, line);
	if (ret && err) {
		after = tracefs_error_last(NULL);
		if (after && (!before || strcmp(before, after))) {
			strbuf_addstr(err, after);
			strbuf_rtrim(err);
		}
		free(after);
	}
	free(before);
	return ret;
}

int tk_dynevent_delete(const char *file, const char *group, const char *event)
{
	unsigned int types = !strcmp(file, "uprobe_events") ?
		TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE :
		TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE;
	struct tracefs_dynevent **all;
	int i, ret = -ENOENT;

	tk_tracefs_dir();
	all = tracefs_dynevent_get_all(types, group);
	for (i = 0; all && all[i]; i++) {
		char *name = NULL;

		tracefs_dynevent_info(all[i], NULL, &name, NULL, NULL, NULL);
		if (name && !strcmp(name, event)) {
			errno = 0;
			ret = tracefs_dynevent_destroy(all[i], false) ? neg_errno() : 0;
			free(name);
			break;
		}
		free(name);
	}
	tracefs_dynevent_list_free(all);
	return ret;
}

/* ---- feature detection: the probes named in TK_FEATURES ---- */

static int has_file(const char *file, const char *readme)
{
	return tracefs_file_exists(NULL, file);
}

static int has_dir(const char *dir, const char *readme)
{
	return tracefs_dir_exists(NULL, dir);
}

static int readme_says(const char *text, const char *readme)
{
	return readme && strstr(readme, text);
}

static int readme_read(const char *unused, const char *readme)
{
	return readme != NULL;
}

static int tracefs_mounted(const char *unused, const char *readme)
{
	return tk_tracefs_dir() != NULL;
}

static int stack_tracer_present(const char *unused, const char *readme)
{
	return tracefs_file_exists(NULL, "stack_trace") &&
		access("/proc/sys/kernel/stack_tracer_enabled", F_OK) == 0;
}

static int function_tracer_permitted(const char *unused, const char *readme)
{
	int fd;

	if (!tracefs_tracer_available(NULL, "function"))
		return 0;
	/*
	 * Some kernels list the function tracer yet refuse its files with
	 * EPERM (locked down hosts).  Opening for append changes nothing.
	 */
	fd = tracefs_instance_file_open(NULL, "set_ftrace_filter",
					O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int tk_features_probe(struct tk_features *f)
{
	struct strbuf readme = STRBUF_INIT;
	const char *r = NULL;

	memset(f, 0, sizeof(*f));
	if (!tk_tracefs_dir())
		return 0;
	if (tk_tracefs_read(NULL, "README", &readme) > 0)
		r = readme.buf;
#define TK_FEATURE_PROBE(member, cap, how, arg, meaning) \
	f->member = !!how(arg, r);
	TK_FEATURES(TK_FEATURE_PROBE)
#undef TK_FEATURE_PROBE
	strbuf_release(&readme);
	return 0;
}

#define TK_FEATURE_GET(member, cap, how, arg, meaning)			\
static int get_##member(const struct tk_features *f)			\
{									\
	return f->member;						\
}
TK_FEATURES(TK_FEATURE_GET)
#undef TK_FEATURE_GET

const struct tk_feature tk_feature_table[] = {
#define TK_FEATURE_ROW(member, cap, how, arg, meaning) \
	{ #member, cap, meaning, get_##member },
	TK_FEATURES(TK_FEATURE_ROW)
#undef TK_FEATURE_ROW
	{ NULL, NULL, NULL, NULL }
};

const struct tk_features *tk_features(void)
{
	static struct tk_features cached;
	static int done;

	if (!done) {
		tk_features_probe(&cached);
		done = 1;
	}
	return &cached;
}
