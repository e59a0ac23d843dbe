// SPDX-License-Identifier: GPL-2.0
/*
 * The restore-on-exit registry: undos replay newest first, survive a
 * fatal signal, and a real tracefs instance made by a process that is
 * killed with SIGTERM is gone afterwards.  Undos of an instance's own files
 * wait for its rmdir and run only if the rmdir fails; others run anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tests.h"
#include "util/strbuf.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"

static int file_is(const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	int ok = strbuf_read_file(&sb, path, 0) >= 0 && !strcmp(sb.buf, want);

	if (!ok)
		fprintf(stderr, "%s: \"%s\", expected \"%s\"\n", path, sb.buf, want);
	strbuf_release(&sb);
	return ok;
}

static int write_file(const char *path, const char *s)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	fputs(s, fp);
	return fclose(fp);
}

static int registry_on_plain_files(void)
{
	char dir[] = "/tmp/tk-restore.XXXXXX";
	struct strbuf a = STRBUF_INIT, sub = STRBUF_INIT, inst = STRBUF_INIT;
	struct strbuf own = STRBUF_INIT, opt = STRBUF_INIT;
	pid_t pid;
	int status;

	TEST_ASSERT_VAL("mkdtemp", mkdtemp(dir));
	strbuf_addf(&a, "%s/a", dir);
	strbuf_addf(&sub, "%s/sub", dir);
	/* Not empty, so its rmdir fails as a busy instance's does. */
	strbuf_addf(&inst, "%s/inst", dir);
	strbuf_addf(&own, "%s/buffer_size_kb", inst.buf);
	strbuf_addf(&opt, "%s/func_stack_trace", inst.buf);
	TEST_ASSERT_VAL("seed", write_file(a.buf, "orig") == 0);
	TEST_ASSERT_VAL("mkdir", mkdir(inst.buf, 0700) == 0);
	TEST_ASSERT_VAL("seed own", write_file(own.buf, "changed") == 0);
	TEST_ASSERT_VAL("seed option", write_file(opt.buf, "changed") == 0);

	pid = fork();
	TEST_ASSERT_VAL("fork", pid >= 0);
	if (!pid) {
		tk_restore_install();
		/* Newest first: "orig" must be the last write to land. */
		tk_restore_push_write(a.buf, "orig", 0);
		tk_restore_push_write(a.buf, "middle", 0);
		tk_restore_push_write(a.buf, "-forgotten", 1);
		tk_restore_forget(a.buf, "-forgotten");
		mkdir(sub.buf, 0700);
		tk_restore_push_rmdir(sub.buf);
		tk_restore_push_rmdir(inst.buf);
		tk_restore_push_write(own.buf, "1408", 0);
		tk_restore_push_write(own.buf, "20480", 0);
		tk_restore_push_write(opt.buf, "0", 0);
		write_file(a.buf, "changed");
		raise(SIGTERM);
		_exit(0);
	}
	TEST_ASSERT_VAL("waitpid", waitpid(pid, &status, 0) == pid);
	TEST_ASSERT_VAL("child died by SIGTERM, as the handler re-raises",
			WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	TEST_ASSERT_VAL("restored newest first, forgotten undo skipped",
			file_is(a.buf, "orig"));
	TEST_ASSERT_VAL("rmdir undo ran", access(sub.buf, F_OK) < 0 && errno == ENOENT);
	TEST_ASSERT_VAL("own file of a directory that stayed: deferred undos ran, newest first",
			file_is(own.buf, "1408"));
	TEST_ASSERT_VAL("not an instance's own file: undone", file_is(opt.buf, "0"));
	unlink(own.buf);
	unlink(opt.buf);
	rmdir(inst.buf);
	unlink(a.buf);
	rmdir(dir);
	strbuf_release(&a);
	strbuf_release(&sub);
	strbuf_release(&inst);
	strbuf_release(&own);
	strbuf_release(&opt);
	return TEST_OK;
}

/* In a child: an instance NAME at PATH, its tracing_on 0, both undone. */
static int child_instance(const char *path, const char *name)
{
	tk_restore_install();
	if (mkdir(path, 0755) < 0 || tk_restore_push_rmdir(path))
		return 3;
	return tk_tracefs_set(name, "tracing_on", "0", NULL) ? 4 : 0;
}

/*
 * An open file of an instance holds it: rmdir fails with EBUSY, and the
 * undo of its tracing_on, deferred for the rmdir, must run after all.
 */
static int busy_instance(const char *name)
{
	struct strbuf path = STRBUF_INIT, on = STRBUF_INIT;
	pid_t pid;
	int status, ok;

	tk_tracefs_path(&path, name, NULL);
	pid = fork();
	TEST_ASSERT_VAL("fork", pid >= 0);
	if (!pid) {
		int err = child_instance(path.buf, name);

		if (err)
			_exit(err);
		strbuf_addstr(&path, "/trace");
		if (open(path.buf, O_RDONLY) < 0)
			_exit(5);
		raise(SIGTERM);
		_exit(0);
	}
	TEST_ASSERT_VAL("waitpid", waitpid(pid, &status, 0) == pid);
	if (access(path.buf, F_OK) < 0) {
		fprintf(stderr, "%s: removed although a file of it was open\n", path.buf);
		ok = 0;
	} else {
		ok = tk_tracefs_read(name, "tracing_on", &on) > 0 && on.buf[0] == '1';
		if (!ok)
			fprintf(stderr, "%s/tracing_on: \"%s\", expected 1\n", path.buf, on.buf);
	}
	/*
	 * Before any verdict: a failing run leaves tracefs as it found it too.
	 */
	rmdir(path.buf);
	strbuf_release(&path);
	strbuf_release(&on);
	TEST_ASSERT_VAL("busy child died by SIGTERM", WIFSIGNALED(status));
	TEST_ASSERT_VAL("busy instance kept, its own undo run after the failed rmdir", ok);
	return TEST_OK;
}

static int registry_on_tracefs(void)
{
	struct strbuf inst = STRBUF_INIT, path = STRBUF_INIT, on = STRBUF_INIT;
	pid_t pid;
	int status, removed, restored;

	strbuf_addf(&inst, "tktest-restore-%d", (int)getpid());
	tk_tracefs_path(&path, inst.buf, NULL);
	tk_tracefs_read(NULL, "tracing_on", &on);
	pid = fork();
	TEST_ASSERT_VAL("fork", pid >= 0);
	if (!pid) {
		int err = child_instance(path.buf, inst.buf);

		if (err)
			_exit(err);
		if (tk_tracefs_set(NULL, "tracing_on", "0", NULL))
			_exit(5);
		raise(SIGTERM);
		_exit(0);
	}
	TEST_ASSERT_VAL("waitpid", waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status))
		fprintf(stderr, "child exited with %d before the signal\n",
			WEXITSTATUS(status));
	/* Verdicts taken, then undone by hand if the child did not. */
	removed = access(path.buf, F_OK) < 0;
	if (!removed)
		rmdir(path.buf);
	strbuf_reset(&path);
	tk_tracefs_path(&path, NULL, "tracing_on");
	restored = file_is(path.buf, on.buf);
	if (!restored)
		write_file(path.buf, on.buf);
	TEST_ASSERT_VAL("child died by SIGTERM", WIFSIGNALED(status));
	TEST_ASSERT_VAL("instance removed on SIGTERM", removed);
	TEST_ASSERT_VAL("top-level tracing_on restored", restored);
	if (busy_instance(inst.buf) != TEST_OK)
		return TEST_FAIL;
	strbuf_release(&inst);
	strbuf_release(&path);
	strbuf_release(&on);
	return TEST_OK;
}

int test__tracefs_restore(void)
{
	const struct tk_features *f = tk_features();

	if (registry_on_plain_files() != TEST_OK)
		return TEST_FAIL;
	if (!f->tracefs)
		return test_skip_cap("tracefs", "plain-file part passed; tracefs is not mounted");
	if (geteuid() != 0)
		return test_skip_cap("root", "plain-file part passed; not root");
	if (!f->instances)
		return test_skip_cap("instances", "plain-file part passed; no tracefs instances");
	return registry_on_tracefs();
}
