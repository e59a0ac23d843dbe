// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/run-command.h"
#include "util/strbuf.h"

int command_in_path(const char *cmd)
{
	const char *path = getenv("PATH"), *p;
	struct strbuf sb = STRBUF_INIT;
	int found = 0;

	if (strchr(cmd, '/'))
		return access(cmd, F_OK) == 0;
	for (p = path ? path : "/usr/bin:/bin"; !found; p++) {
		size_t n = strcspn(p, ":");

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%.*s/%s", (int)n, n ? p : ".", cmd);
		found = access(sb.buf, X_OK) == 0;
		p += n;
		if (!*p)
			break;
	}
	strbuf_release(&sb);
	return found;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Runs in the child: never returns. */
static void child_exec(const struct child_process *cmd, int gate, int err)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD };
	size_t i;
	char b;
	int e;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	if (cmd->sigmask)
		sigprocmask(SIG_SETMASK, cmd->sigmask, NULL);
	if (gate >= 0 && read(gate, &b, 1) != 1)
		_exit(127);
	if (cmd->quiet) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0 ||
		    dup2(null, STDERR_FILENO) < 0)
			_exit(127);
		close(null);
	}
	execvp(cmd->argv[0], cmd->argv);
	e = errno;
	while (write(err, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

int start_command(struct child_process *cmd, struct strbuf *err)
{
	int gate[2] = { -1, -1 }, ex[2] = { -1, -1 }, ret;

	if ((cmd->gated && pipe2(gate, O_CLOEXEC) < 0) ||
	    pipe2(ex, O_CLOEXEC) < 0) {
		ret = -errno;
		strbuf_addf(err, "pipe: %s", strerror(errno));
		goto fail;
	}
	fflush(NULL);
	cmd->pid = fork();
	if (cmd->pid < 0) {
		ret = -errno;
		strbuf_addf(err, "fork: %s", strerror(errno));
		cmd->pid = 0;
		goto fail;
	}
	if (!cmd->pid) {
		/* Our ends: a gate left open here would never see its EOF. */
		close_fd(&gate[1]);
		close_fd(&ex[0]);
		child_exec(cmd, gate[0], ex[1]);
	}
	close_fd(&gate[0]);
	close_fd(&ex[1]);
	cmd->gate_fd = gate[1];
	cmd->err_fd = ex[0];
	return 0;
fail:
	close_fd(&gate[0]);
	close_fd(&gate[1]);
	close_fd(&ex[0]);
	close_fd(&ex[1]);
	return ret;
}

int release_command(struct child_process *cmd)
{
	struct sigaction ign, old;
	int e = 0;
	ssize_t n;

	if (cmd->gate_fd >= 0) {
		/*
		 * A child killed at the gate (Ctrl-C reaches the whole process
		 * group) has closed it: EPIPE, not a SIGPIPE that would kill
		 * record before it restores tracefs.  Its end shows in its
		 * wait status, as any other.
		 */
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &ign, &old);
		n = write(cmd->gate_fd, "g", 1);
		e = errno;
		sigaction(SIGPIPE, &old, NULL);
		if (n != 1 && e != EPIPE)
			return -e;
		e = 0;
		close_fd(&cmd->gate_fd);
	}
	do
		n = read(cmd->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close_fd(&cmd->err_fd);
	return n == sizeof(e) ? -e : 0;
}

int finish_command(struct child_process *cmd, int *status)
{
	while (waitpid(cmd->pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	cmd->pid = 0;
	return 0;
}

int wait_command_foreground(struct child_process *cmd, int *exec_err,
			    int *status)
{
	struct sigaction ign, old_int, old_quit;
	int ret;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	*exec_err = release_command(cmd);
	ret = finish_command(cmd, status);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return ret;
}

int command_exited(struct child_process *cmd, int *status)
{
	if (cmd->pid <= 0 || waitpid(cmd->pid, status, WNOHANG) != cmd->pid)
		return 0;
	cmd->pid = 0;
	return 1;
}

void child_process_clear(struct child_process *cmd)
{
	close_fd(&cmd->gate_fd);
	close_fd(&cmd->err_fd);
}
