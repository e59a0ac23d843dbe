// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/tracefs.h"
#include "util/usage.h"

static char *tracefs_dir_cache;
static int tracefs_dir_probed;

const char *tk_tracefs_dir(void)
{
	FILE *fp;
	char dev[256], dir[4096], type[64];
	char *debugfs = NULL;

	if (tracefs_dir_probed)
		return tracefs_dir_cache;
	tracefs_dir_probed = 1;
	fp = fopen("/proc/mounts", "re");
	if (!fp)
		return NULL;
	while (fscanf(fp, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "tracefs") && !tracefs_dir_cache)
			tracefs_dir_cache = xstrdup(dir);
		else if (!strcmp(type, "debugfs") && !debugfs)
			debugfs = xstrdup(dir);
	}
	fclose(fp);
	if (!tracefs_dir_cache && debugfs) {
		struct strbuf sb = STRBUF_INIT;

		/* Kernels before 4.1, or tracefs reached only via debugfs. */
		strbuf_addf(&sb, "%s/tracing", debugfs);
		if (access(sb.buf, F_OK) == 0)
			tracefs_dir_cache = strbuf_detach(&sb, NULL);
		strbuf_release(&sb);
	}
	free(debugfs);
	return tracefs_dir_cache;
}

void tk_tracefs_path(struct strbuf *sb, const char *instance, const char *file)
{
	const char *dir = tk_tracefs_dir();

	strbuf_addstr(sb, dir ? dir : "/sys/kernel/tracing");
	if (instance && *instance)
		strbuf_addf(sb, "/instances/%s", instance);
	if (file && *file)
		strbuf_addf(sb, "/%s", file);
}

long tk_tracefs_read(const char *instance, const char *file, struct strbuf *out)
{
	struct strbuf path = STRBUF_INIT;
	long ret;

	tk_tracefs_path(&path, instance, file);
	ret = strbuf_read_file(out, path.buf, 0);
	strbuf_release(&path);
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
	struct strbuf path = STRBUF_INIT;
	int ret;

	tk_tracefs_path(&path, instance, file);
	ret = write_path(path.buf, val, append);
	strbuf_release(&path);
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

/* Only open/write/close/rmdir here: this also runs in signal handlers. */
void tk_restore_run(void)
{
	int i;

	if (restoring)
		return;
	restoring = 1;
	for (i = nr_undos - 1; i >= 0; i--) {
		struct undo *u = &undos[i];

		if (u->done)
			continue;
		u->done = 1;
		if (u->kind == UNDO_RMDIR)
			rmdir(u->path);
		else
			write_path(u->path, u->value, u->kind == UNDO_APPEND);
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

int tk_tracefs_set(const char *instance, const char *file, const char *val,
		   const char *restore)
{
	struct strbuf path = STRBUF_INIT, old = STRBUF_INIT;
	int ret;

	tk_tracefs_path(&path, instance, file);
	if (!restore) {
		long n = strbuf_read_file(&old, path.buf, 0);
		char *nl;

		if (n < 0) {
			ret = (int)n;
			goto out;
		}
		nl = strchr(old.buf, '\n');
		if (nl)
			strbuf_setlen(&old, nl - old.buf);
		restore = old.buf;
	}
	ret = push_undo(UNDO_WRITE, path.buf, restore);
	if (ret)
		goto out;
	ret = write_path(path.buf, val, 0);
	if (ret)
		tk_restore_forget(path.buf, restore);
out:
	strbuf_release(&old);
	strbuf_release(&path);
	return ret;
}

/*
 * error_log keeps a bounded ring of entries, each a "[ts] ... error: ..."
 * line followed by "  Command: ..." and a caret line.  The entry for our
 * write is the last one, if the log changed.
 */
static void last_error_entry(const struct strbuf *before,
			     const struct strbuf *after, struct strbuf *err)
{
	const char *p, *start = NULL;

	if (after->len == before->len && !memcmp(after->buf, before->buf, after->len))
		return;
	for (p = after->buf; (p = strchr(p, '[')); p++)
		if (p == after->buf || p[-1] == '\n')
			start = p;
	if (!start)
		return;
	strbuf_addstr(err, start);
	strbuf_rtrim(err);
}

int tk_dynevent_write(const char *file, const char *line, struct strbuf *err)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	int ret;

	if (err)
		tk_tracefs_read(NULL, "error_log", &before);
	ret = tk_tracefs_append(NULL, file, line);
	if (ret && err) {
		tk_tracefs_read(NULL, "error_log", &after);
		last_error_entry(&before, &after, err);
	}
	strbuf_release(&before);
	strbuf_release(&after);
	return ret;
}

/* ---- feature detection ---- */

static int exists(const char *file)
{
	struct strbuf path = STRBUF_INIT;
	int ok;

	tk_tracefs_path(&path, NULL, file);
	ok = access(path.buf, F_OK) == 0;
	strbuf_release(&path);
	return ok;
}

static int function_tracer_permitted(void)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	int ok = 0, fd;

	if (tk_tracefs_read(NULL, "available_tracers", &sb) < 0)
		goto out;
	if (!strstr(sb.buf, "function"))
		goto out;
	/*
	 * Some kernels list the function tracer yet refuse its files with
	 * EPERM (locked down hosts).  Opening for append changes nothing.
	 */
	tk_tracefs_path(&path, NULL, "set_ftrace_filter");
	fd = open(path.buf, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		ok = 1;
		close(fd);
	}
out:
	strbuf_release(&sb);
	strbuf_release(&path);
	return ok;
}

int tk_features_probe(struct tk_features *f)
{
	struct strbuf readme = STRBUF_INIT;
	const char *r;

	memset(f, 0, sizeof(*f));
	if (!tk_tracefs_dir())
		return 0;
	f->tracefs = 1;
	f->error_log = exists("error_log");
	f->kprobe_events = exists("kprobe_events");
	f->uprobe_events = exists("uprobe_events");
	f->dynamic_events = exists("dynamic_events");
	f->instances = exists("instances");
	f->subbuf_size = exists("buffer_subbuf_size_kb");
	f->stack_tracer = exists("stack_trace") &&
		access("/proc/sys/kernel/stack_tracer_enabled", F_OK) == 0;
	f->function_tracer = function_tracer_permitted();
	if (tk_tracefs_read(NULL, "README", &readme) > 0) {
		r = readme.buf;
		f->readme = 1;
		f->arg_n = !!strstr(r, "$arg<N>");
		f->kretprobe_arg_n = !!strstr(r, "return probes support: $retval, $arg<N>");
		f->array = !!strstr(r, "<array-size>");
		f->symbol = !!strstr(r, "symbol");
		f->symstr = !!strstr(r, "symstr");
		f->ustring = !!strstr(r, "ustring");
		f->bitfield = !!strstr(r, "b<bit-width>@<bit-offset>/<container-size>");
		f->imm = !!strstr(r, "\\imm-value");
		f->ref_ctr = !!strstr(r, "(ref_ctr_offset)");
		f->multiprobe = !!strstr(r, "Create/append/");
	}
	strbuf_release(&readme);
	return 0;
}

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
