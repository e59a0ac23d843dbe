// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "util/tracefs-int.h"
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

int tk_tracefs_neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/* The handle of instance NAME (NULL: the top level); 0 or -errno. */
int tk_tracefs_instance(const char *name, struct tracefs_instance **inst)
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
	int size = 0, ret = tk_tracefs_instance(instance, &inst);
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

static int write_file(const char *instance, const char *file, const char *val,
		      int append)
{
	struct tracefs_instance *inst;
	int n, ret = tk_tracefs_instance(instance, &inst);

	if (ret)
		return ret;
	errno = 0;
	n = append ? tracefs_instance_file_append(inst, file, val) :
		     tracefs_instance_file_write(inst, file, val);
	ret = n < 0 ? tk_tracefs_neg_errno() :
	      (size_t)n != strlen(val) ? -EIO : 0;
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
			w->err = tk_tracefs_neg_errno();
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
		w.err = tk_tracefs_neg_errno();
	return w.nr ? w.nr : w.err;
}

int tk_tracefs_append_err(const char *instance, const char *file,
			  const char *line, struct strbuf *err)
{
	struct tracefs_instance *inst = NULL;
	char *before = NULL, *after;
	int ret;

	tk_tracefs_dir();
	if (err && instance) {
		inst = tracefs_instance_alloc(NULL, instance);
		if (!inst)
			return tk_tracefs_neg_errno();
	}
	if (err)
		before = tracefs_error_last(inst);
	ret = tk_tracefs_append(instance, file, line);
	if (ret && err) {
		after = tracefs_error_last(inst);
		if (after && (!before || strcmp(before, after))) {
			strbuf_addstr(err, after);
			strbuf_rtrim(err);
		}
		free(after);
	}
	free(before);
	tracefs_instance_free(inst);
	return ret;
}

int tk_dynevent_write(const char *file, const char *line, struct strbuf *err)
{
	return tk_tracefs_append_err(NULL, file, line, err);
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
			ret = tracefs_dynevent_destroy(all[i], false) ?
			      tk_tracefs_neg_errno() : 0;
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

int tk_kconfig_has(const char *name, int *found_config)
{
	static struct strbuf cfg = STRBUF_INIT;
	static int read_once, found;
	struct strbuf want = STRBUF_INIT;
	int yes;

	if (!read_once) {
		struct strbuf path = STRBUF_INIT;
		struct utsname u;

		read_once = 1;
		if (!uname(&u)) {
			strbuf_addf(&path, "/boot/config-%s", u.release);
			found = strbuf_read_file(&cfg, path.buf, 0) > 0;
		}
		strbuf_release(&path);
	}
	if (found_config)
		*found_config = found;
	strbuf_addf(&want, "\n%s=y\n", name);
	yes = found && strstr(cfg.buf, want.buf);
	strbuf_release(&want);
	return yes;
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
