// SPDX-License-Identifier: GPL-2.0
/*
 * Host capability report.  Each capability the tracefs layer detects is
 * checked against independent evidence from the kernel (the perf PMU
 * directories, procfs, the filesystem magic), so a wrong detection fails
 * here instead of silently skipping the suites that depend on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "tests/tests.h"
#include "util/strbuf.h"
#include "util/tracefs.h"

#define TRACEFS_MAGIC	0x74726163
#define DEBUGFS_MAGIC	0x64626720

static int present(const char *path)
{
	return access(path, F_OK) == 0;
}

int test__hostcap(void)
{
	struct tk_features f;
	const struct tk_feature *ft;
	const char *dir = tk_tracefs_dir();
	struct statfs st;
	struct strbuf sb = STRBUF_INIT;
	int in_vm = getenv("TRACEKIT_IN_VM") != NULL;

	tk_features_probe(&f);
	printf("root:            %s\n", geteuid() == 0 ? "yes" : "no");
	printf("tracefs:         %s\n", dir ? dir : "not mounted");
	for (ft = tk_feature_table; ft->name; ft++)
		printf("%-16s %-3s  %s\n", ft->name, ft->get(&f) ? "yes" : "no",
		       ft->meaning);
	printf("in VM:           %s\n", in_vm ? "yes" : "no");

	if (!dir)
		return test_skip_cap("tracefs", "tracefs is not mounted");
	TEST_ASSERT_VAL("statfs tracefs dir", statfs(dir, &st) == 0);
	TEST_ASSERT_VAL("tracefs dir is tracefs or debugfs/tracing",
			st.f_type == TRACEFS_MAGIC ||
				st.f_type == DEBUGFS_MAGIC);
	if (geteuid() != 0)
		return test_skip_cap("root", "not root: tracefs files are not readable");
	TEST_ASSERT_VAL("README read", f.readme);
	TEST_ASSERT_EQUAL("uprobe_events iff uprobe PMU",
			  f.uprobe_events, present("/sys/bus/event_source/devices/uprobe"));
	TEST_ASSERT_EQUAL("kprobe_events iff kprobe PMU",
			  f.kprobe_events, present("/sys/bus/event_source/devices/kprobe"));
	TEST_ASSERT_EQUAL("stack tracer iff its sysctl",
			  f.stack_tracer, present("/proc/sys/kernel/stack_tracer_enabled"));
	if (f.uprobe_events)
		TEST_ASSERT_EQUAL("ref_ctr iff uprobe PMU format has it", f.ref_ctr,
				  present("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset"));
	strbuf_addf(&sb, "%s/events/sched/sched_switch/hist", dir);
	TEST_ASSERT_EQUAL("hist triggers iff an event has a hist file",
			  f.hist_triggers, present(sb.buf));
	strbuf_reset(&sb);
	TEST_ASSERT_VAL("README", tk_tracefs_read(NULL, "README", &sb) > 0);
	TEST_ASSERT_EQUAL("synthetic_events iff README tells of it",
			  f.synth_events,
			  strstr(sb.buf, "synthetic_events\t") != NULL);
	strbuf_reset(&sb);
	if (f.function_tracer) {
		TEST_ASSERT_VAL("available_tracers",
				tk_tracefs_read(NULL, "available_tracers", &sb) > 0);
		TEST_ASSERT_VAL("function tracer listed", strstr(sb.buf, "function"));
	}
	strbuf_release(&sb);
	if (in_vm) {
		/* Debian's kernel config has both. */
		TEST_ASSERT_VAL("VM kernel has kprobe events", f.kprobe_events);
		TEST_ASSERT_VAL("VM kernel has the stack tracer", f.stack_tracer);
		TEST_ASSERT_VAL("VM kernel advertises $argN", f.arg_n);
		TEST_ASSERT_VAL("VM kernel has hist triggers", f.hist_triggers);
		TEST_ASSERT_VAL("VM kernel has synthetic events",
				f.synth_events);
	}
	return TEST_OK;
}
