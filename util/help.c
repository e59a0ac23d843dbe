// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#include "util/help.h"
#include "util/run-command.h"
#include "util/strbuf.h"

static int run_man(const char *const *argv, int quiet, int *status,
		   struct strbuf *err)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	int exec_err, ret;

	cmd.argv = (char *const *)argv;
	cmd.quiet = quiet;
	ret = start_command(&cmd, err);
	if (ret)
		return ret;
	ret = wait_command_foreground(&cmd, &exec_err, status);
	child_process_clear(&cmd);
	if (ret) {
		strbuf_addf(err, "waitpid: %s", strerror(-ret));
		return ret;
	}
	if (exec_err)
		strbuf_addf(err, "cannot run 'man': %s", strerror(-exec_err));
	return exec_err;
}

int help_show_man_page(const char *page, struct strbuf *err)
{
	const char *const where[] = { "man", "-w", page, NULL };
	const char *const show[] = { "man", page, NULL };
	int status, ret;

	ret = run_man(where, 1, &status, err);
	if (ret == -ENOENT ||
	    (!ret && (!WIFEXITED(status) || WEXITSTATUS(status))))
		return -ENOENT;
	if (!ret)
		ret = run_man(show, 0, &status, err);
	if (ret)
		return ret;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
