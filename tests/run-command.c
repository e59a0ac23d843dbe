// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tests.h"
#include "util/run-command.h"
#include "util/strbuf.h"

/*
 * Starts argv, releases it, waits: the wait status, exec's -errno in *exec_err.
 */
static int run(char *const *argv, int *exec_err)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT;
	int status = -1;

	cmd.argv = argv;
	if (start_command(&cmd, &err))
		return -1;
	*exec_err = release_command(&cmd);
	if (finish_command(&cmd, &status))
		status = -1;
	child_process_clear(&cmd);
	strbuf_release(&err);
	return status;
}

static void on_signal(int sig)
{
}

/*
 * The gate holds the exec back, and the caller's handlers do not reach the
 * child.
 */
static int gated(void)
{
	char dir[] = "/tmp/tk-runcmd.XXXXXX";
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT, script = STRBUF_INIT;
	char *argv[] = { "sh", "-c", NULL, NULL };
	struct sigaction sa;
	sigset_t none, intr;
	siginfo_t info;
	int status, ret;

	TEST_ASSERT_VAL("mkdtemp", mkdtemp(dir));
	strbuf_addf(&script, "echo ran > %s/ran", dir);
	argv[2] = script.buf;
	cmd.argv = argv;
	cmd.gated = 1;
	TEST_ASSERT_EQUAL("start gated", start_command(&cmd, &err), 0);
	usleep(200 * 1000);
	TEST_ASSERT_EQUAL("no exit before the gate opens", command_exited(&cmd, &status), 0);
	strbuf_reset(&script);
	strbuf_addf(&script, "%s/ran", dir);
	TEST_ASSERT_VAL("no exec before the gate opens", access(script.buf, F_OK) < 0);
	TEST_ASSERT_EQUAL("release", release_command(&cmd), 0);
	TEST_ASSERT_EQUAL("finish", finish_command(&cmd, &status), 0);
	TEST_ASSERT_VAL("exit 0", WIFEXITED(status) && !WEXITSTATUS(status));
	TEST_ASSERT_VAL("ran after the gate opened", access(script.buf, F_OK) == 0);
	unlink(script.buf);
	rmdir(dir);
	child_process_clear(&cmd);

	/*
	 * SIGINT at the gate: the default action, not our handler.  Blocked
	 * over the fork as record blocks it, the signal cannot come before
	 * the child has put the default back.  Without SA_RESTART, our
	 * handler would end the child's wait at the gate with exit 127.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&none);
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	sigprocmask(SIG_BLOCK, &intr, NULL);
	cmd.sigmask = &none;
	ret = start_command(&cmd, &err);
	if (!ret)
		kill(cmd.pid, SIGINT);
	sigprocmask(SIG_UNBLOCK, &intr, NULL);
	TEST_ASSERT_EQUAL("start gated again", ret, 0);
	/*
	 * Dead (not reaped) before its release, as a Ctrl-C to record's
	 * process group can leave it: the gate is a pipe without a reader,
	 * and a SIGPIPE here would end this test (and record) at once.
	 */
	TEST_ASSERT_EQUAL("child dead", waitid(P_PID, cmd.pid, &info, WEXITED | WNOWAIT), 0);
	TEST_ASSERT_EQUAL("release a dead child", release_command(&cmd), 0);
	ret = finish_command(&cmd, &status);
	signal(SIGINT, SIG_DFL);
	child_process_clear(&cmd);
	TEST_ASSERT_EQUAL("finish", ret, 0);
	TEST_ASSERT_VAL("SIGINT kills the waiting child",
			WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	strbuf_release(&script);
	strbuf_release(&err);
	return TEST_OK;
}

static int child_sigmask(void)
{
	char *argv[] = { "sh", "-c", "kill -USR1 $$; exit 0", NULL };
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT;
	sigset_t usr1;
	int status;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	cmd.argv = argv;
	cmd.sigmask = &usr1;
	TEST_ASSERT_EQUAL("start", start_command(&cmd, &err), 0);
	TEST_ASSERT_EQUAL("release", release_command(&cmd), 0);
	TEST_ASSERT_EQUAL("finish", finish_command(&cmd, &status), 0);
	TEST_ASSERT_VAL("SIGUSR1 blocked by the given mask",
			WIFEXITED(status) && !WEXITSTATUS(status));
	strbuf_release(&err);
	return TEST_OK;
}

int test__run_command(void)
{
	char *missing[] = { "/nonexistent/cmd", NULL };
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	char *exit127[] = { "sh", "-c", "exit 127", NULL };
	int status, e;

	TEST_ASSERT_VAL("sh on PATH", command_in_path("sh"));
	TEST_ASSERT_VAL("/bin/sh exists", command_in_path("/bin/sh"));
	TEST_ASSERT_VAL("no such command", !command_in_path("no-such-command-tk"));
	TEST_ASSERT_VAL("no such file", !command_in_path("/nonexistent/cmd"));

	status = run(exit3, &e);
	TEST_ASSERT_EQUAL("exec'd", e, 0);
	TEST_ASSERT_VAL("exit 3", WIFEXITED(status) && WEXITSTATUS(status) == 3);
	status = run(missing, &e);
	TEST_ASSERT_EQUAL("exec's errno comes back", e, -ENOENT);
	TEST_ASSERT_VAL("failed exec exits 127", WIFEXITED(status) && WEXITSTATUS(status) == 127);
	status = run(exit127, &e);
	TEST_ASSERT_EQUAL("a command's own 127 is not an exec failure", e, 0);
	TEST_ASSERT_VAL("exit 127", WIFEXITED(status) && WEXITSTATUS(status) == 127);

	if (gated() || child_sigmask())
		return TEST_FAIL;
	return TEST_OK;
}
