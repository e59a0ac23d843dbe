// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/tracefs.h"

int test_run(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "+ %s\n", cmd.buf);
	ret = system(cmd.buf);
	strbuf_release(&cmd);
	return ret;
}

int test_run_capture(const char *cmd, struct strbuf *out)
{
	char buf[4096];
	size_t n;
	FILE *fp = popen(cmd, "r");

	if (!fp)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(out, buf, n);
	return pclose(fp);
}

int test_have_cmd(const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	int found;

	strbuf_addf(&sb, "command -v %s >/dev/null 2>&1", cmd);
	found = system(sb.buf) == 0;
	strbuf_release(&sb);
	return found;
}

/*
 * Inside the VM the guest carries only the tools the harness ships, and
 * never a compiler: a test that needs CMD there skips for "!in_vm".  On
 * the host the project installs them (scripts/deps.sh), so one missing
 * is a failure.
 */
int test_need_host_cmd(const char *cmd)
{
	if (test_have_cmd(cmd))
		return TEST_OK;
	if (getenv("TRACEKIT_IN_VM"))
		return test_skip_cap("!in_vm", "%s is not in the VM guest", cmd);
	fprintf(stderr, "FAILED: %s is not installed (scripts/deps.sh installs it)\n", cmd);
	return TEST_FAIL;
}

int test_need_uprobe_target(void)
{
	if (geteuid() != 0)
		return test_skip_cap("root", "needs root");
	if (!tk_features()->uprobe_events)
		return test_skip_cap("uprobes", "no uprobe_events");
	return test_need_host_cmd("cc");
}

uint64_t test_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}
