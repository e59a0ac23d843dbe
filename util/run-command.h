/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_RUN_COMMAND_H
#define TK_RUN_COMMAND_H

#include <signal.h>
#include <sys/types.h>

struct strbuf;

/*
 * The COMMAND of `record -- COMMAND` and `stack -- COMMAND`, run in the
 * manner of git's run-command: start_command() forks, the child execs
 * argv[0] from PATH, and a failed exec comes back as its errno through a
 * close-on-exec pipe, so that "cannot run" is told apart from a command
 * that itself exits 127.
 */
struct child_process {
	char *const *argv;
	/* The child's signal mask from exec on; NULL: the caller's. */
	const sigset_t *sigmask;
	/*
	 * The child waits before exec until release_command(): record puts
	 * it in the pid filter and turns tracing on first, so that the exec
	 * is the first thing the trace holds.
	 */
	int gated;
	/* The child's stdout and stderr go to /dev/null: a probe's answer
	 * is its exit status (man -w). */
	int quiet;

	pid_t pid;		/* > 0 from start_command() until reaped */
	int gate_fd;		/* write end of the gate, while gated */
	int err_fd;		/* read end of the errno pipe, until released */
};

#define CHILD_PROCESS_INIT { .gate_fd = -1, .err_fd = -1 }

/*
 * 1 when cmd names a file (with a '/') that exists, or an executable
 * file in a PATH directory: lets a caller refuse a command that is not
 * there before it changes anything.
 */
int command_in_path(const char *cmd);

/*
 * Forks the child (stdio flushed first, so that nothing buffered is
 * written twice or after the command's output).  In the child, the
 * signals tracekit catches go back to their defaults before anything
 * else: its handlers restore tracefs, which is not the child's to do.
 * 0, or -errno with the reason ("pipe: ...", "fork: ...") in err.
 */
int start_command(struct child_process *cmd, struct strbuf *err);

/*
 * Opens the gate of a gated command, then waits until the command has
 * been exec'd.  0, or -errno of the failed exec (the child then exits
 * 127); callers word the message, e.g. "cannot run 'X': strerror".  A
 * child that died at the gate is 0 too: finish_command() tells how.
 */
int release_command(struct child_process *cmd);

/* Waits for the child; its wait status in *status.  0 or -errno. */
int finish_command(struct child_process *cmd, int *status);

/*
 * release_command() then finish_command(), with SIGINT and SIGQUIT
 * ignored meanwhile, as system(3) does: ^C and ^\ from the terminal stop
 * the command (or a pager ignores them), and tracekit, still running,
 * sees the end.  The release's result (0, or -errno of the exec) in
 * *exec_err; returns finish_command()'s.
 */
int wait_command_foreground(struct child_process *cmd, int *exec_err,
			    int *status);

/* finish_command() without waiting: 1 when reaped, 0 when still running. */
int command_exited(struct child_process *cmd, int *status);

/* Closes what is left open of cmd's pipes; the child is not touched. */
void child_process_clear(struct child_process *cmd);

#endif
