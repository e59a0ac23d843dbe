// SPDX-License-Identifier: GPL-2.0
/*
 * `tracekit report` against `trace-cmd report` on files trace-cmd itself
 * wrote on this host: sched, syscalls and a uprobe with a string, an
 * s32 array and negative numbers, in an instance, extracted as v7 zstd,
 * converted to v6 and to uncompressed v7.  The text must be identical
 * byte for byte, and the JSON must carry the values typed, but for one
 * difference: this kernel declares probe arrays "s32 a[]", which
 * libtraceevent 1.7 prints as zeros, and tracekit with the values the
 * program passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/elf-addr.h"
#include "util/probe-file.h"
#include "util/strbuf.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"

#define INSTANCE	"tktest_report"
#define GROUP		"tktest_report"

static const char prog_src[] =
	"#include <stdlib.h>\n"
	"__attribute__((noinline)) long tk_probe_target(const char *s, const int *a, long n)\n"
	"{\n"
	"	asm volatile(\"\" ::: \"memory\");\n"
	"	return s[0] + a[0] + n;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	int a[4] = { 1, -2, 3, -2147483647 - 1 };\n"
	"	long i, sum = 0, n = argc > 1 ? atol(argv[1]) : 3;\n"
	"	for (i = 0; i < n; i++)\n"
	"		sum += tk_probe_target(\"hello \\\"tk\\\"\", a, -12345 - i);\n"
	"	return sum == 0;\n"
	"}\n";

static int enable(const char *event)
{
	struct strbuf f = STRBUF_INIT;
	int ret;

	strbuf_addf(&f, "events/%s/enable", event);
	ret = tk_tracefs_set(INSTANCE, f.buf, "1", "0");
	strbuf_release(&f);
	return ret;
}

static int file_has_quiet(const char *path, const char *needle)
{
	struct strbuf sb = STRBUF_INIT;
	int found;

	if (strbuf_read_file(&sb, path, 1 << 20) < 0)
		return 0;
	found = strstr(sb.buf, needle) != NULL;
	strbuf_release(&sb);
	return found;
}

static int file_has(const char *path, const char *needle)
{
	int found = file_has_quiet(path, needle);

	if (!found)
		fprintf(stderr, "'%s' not in %s\n", needle, path);
	return found;
}

/* The program's array, as tracekit prints it, and as trace-cmd may. */
#define PROG_A " a={1,-2,3,-2147483648} "
#define ZERO_A " a={0,0,0,0} "

/*
 * NAME.want (trace-cmd report) and NAME.got (ours) in dir, alike byte for
 * byte but for the array a (zeros from trace-cmd on kernels that declare
 * it "s32 a[]"), which tracekit must print as the program passed it.
 */
static int agree(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	ret = test_run("sed 's/" PROG_A "/" ZERO_A "/' %s/%s.want > %s/%s.want0 && "
		       "sed 's/" PROG_A "/" ZERO_A "/' %s/%s.got > %s/%s.got0 && "
		       "cmp %s/%s.want0 %s/%s.got0", dir, name, dir, name, dir, name,
		       dir, name, dir, name, dir, name);
	if (ret)
		test_run("diff %s/%s.want %s/%s.got | head -n 20 >&2", dir, name, dir, name);
	strbuf_addf(&path, "%s/%s.want", dir, name);
	if (!ret && file_has_quiet(path.buf, " a={")) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s.got", dir, name);
		ret = !file_has(path.buf, PROG_A);
	}
	strbuf_release(&path);
	return ret ? -1 : 0;
}

/* Both reports of one file. */
static int same_report(const char *self, const char *dir, const char *file)
{
	if (test_run("trace-cmd report -i %s/%s > %s/%s.want 2>/dev/null", dir, file, dir, file))
		return -1;
	if (test_run("%s report %s/%s > %s/%s.got", self, dir, file, dir, file))
		return -1;
	return agree(dir, file);
}

static int make_trace(const char *dir, const char *prog)
{
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	const char *lines[1];
	uint64_t off;
	int ret = -1, fd, e;

	if (elf_addr_symbol_file_offset(prog, "tk_probe_target", &off)) {
		fprintf(stderr, "no tk_probe_target in %s\n", prog);
		goto out;
	}
	strbuf_addf(&line, "p:%s/target %s:0x%llx s=+0(%%di):string a=+0(%%si):s32[4] n=%%dx:s64 h=%%dx:x16 "
		    "b=+0(%%si):u8[8] x=+4(%%si):x8[4] c=+8(%%si):s8[2]",
		    GROUP, prog, (unsigned long long)off);
	lines[0] = line.buf;
	if (probe_defs_add(PROBE_UPROBE, lines, 1, 1, &err)) {
		fprintf(stderr, "uprobe refused: %s\n", err.buf);
		goto out;
	}
	/*
	 * trace-cmd extract -B removes the instance itself; the undo is
	 * harmless then.
	 */
	e = tk_instance_create(INSTANCE);
	if (e) {
		fprintf(stderr, "instance %s: %s\n", INSTANCE, strerror(-e));
		goto out;
	}
	if (enable("sched/sched_switch") || enable("sched/sched_wakeup") ||
	    enable("syscalls/sys_enter_openat") || enable("syscalls/sys_exit_openat") ||
	    enable(GROUP "/target"))
		goto out;
	if (test_run("%s 4", prog) < 0)
		goto out;
	/* A failing openat: a negative return value in sys_exit_openat. */
	fd = open("/nonexistent/tracekit-report-test", O_RDONLY);
	if (fd >= 0)
		close(fd);
	if (test_run("sleep 0.05") || tk_tracefs_write(INSTANCE, "tracing_on", "0"))
		goto out;
	if (test_run("trace-cmd extract -B %s -o %s/v7.dat > /dev/null 2>&1", INSTANCE, dir))
		goto out;
	ret = 0;
out:
	strbuf_release(&err);
	strbuf_release(&line);
	return ret;
}

/*
 * A 16 KB buffer overrun by a syscall storm: the pages trace-cmd extracts
 * carry the kernel's missed-events counts, printed as
 * "CPU:N [N EVENTS DROPPED]" lines.
 */
static int lost_events(const char *self, const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	int ret = -1;

	tk_tracefs_path(&path, INSTANCE "_lost", NULL);
	if (tk_instance_create(INSTANCE "_lost") ||
	    tk_tracefs_write(INSTANCE "_lost", "buffer_size_kb", "16") ||
	    tk_tracefs_write(INSTANCE "_lost", "events/raw_syscalls/enable", "1") ||
	    test_run("for i in $(seq 300); do : < /proc/self/stat; done") ||
	    tk_tracefs_write(INSTANCE "_lost", "tracing_on", "0") ||
	    tk_tracefs_write(INSTANCE "_lost", "events/raw_syscalls/enable", "0") ||
	    test_run("trace-cmd extract -B %s_lost -o %s/lost.dat > /dev/null 2>&1", INSTANCE, dir))
		goto out;
	rmdir(path.buf);
	if (same_report(self, dir, "lost.dat"))
		goto out;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/lost.dat.got", dir);
	if (file_has(path.buf, " EVENTS DROPPED]\n"))
		ret = 0;
out:
	strbuf_release(&path);
	return ret;
}

int test__report_tracecmd(void)
{
	char dir[] = "/tmp/tktest-report.XXXXXX";
	char self[4096];
	struct strbuf p = STRBUF_INIT;
	ssize_t n;
	int ret = TEST_FAIL;

	if (!tk_features()->tracefs)
		return test_skip_cap("tracefs", "tracefs is not mounted");
	if (!tk_features()->instances)
		return test_skip_cap("instances", "no tracefs instances");
	ret = test_need_uprobe_target();
	if (ret != TEST_OK)
		return ret;
	if (!tk_features()->array)
		return test_skip_cap("array", "uprobes without array types");
	ret = TEST_FAIL;
	/* The oracles, which scripts/deps.sh installs. */
	TEST_ASSERT_VAL("trace-cmd is installed", test_have_cmd("trace-cmd"));
	TEST_ASSERT_VAL("jq is installed", test_have_cmd("jq"));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	TEST_ASSERT_VAL("readlink", n > 0);
	self[n] = '\0';
	TEST_ASSERT_VAL("mkdtemp", mkdtemp(dir));
	tk_restore_install();

	strbuf_addf(&p, "%s/prog.c", dir);
	{
		FILE *fp = fopen(p.buf, "w");

		TEST_ASSERT_VAL("write prog.c", fp && fputs(prog_src, fp) >= 0 && !fclose(fp));
	}
	if (test_run("cc -O0 -g -o %s/prog %s/prog.c", dir, dir))
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/prog", dir);
	if (make_trace(dir, p.buf))
		goto out;
	tk_restore_run();

	if (same_report(self, dir, "v7.dat"))
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/v7.dat.got", dir);
	/* The test means something only if each kind of value is there. */
	if (!file_has(p.buf, "sched_switch:") || !file_has(p.buf, "sys_exit_openat:") ||
	    !file_has(p.buf, "0xfffffffffffffffe") ||
	    !file_has(p.buf, "s=\"hello \"tk\"\"") || !file_has(p.buf, " a={") ||
	    !file_has(p.buf, "n=-12345") || !file_has(p.buf, "h=0xcfc7"))
		goto out;

	if (test_run("trace-cmd convert --file-version 6 -i %s/v7.dat -o %s/v6.dat >/dev/null 2>&1",
		dir, dir) || same_report(self, dir, "v6.dat"))
		goto out;
	if (test_run("trace-cmd convert --compression none -i %s/v7.dat -o %s/none.dat >/dev/null 2>&1",
		dir, dir) || same_report(self, dir, "none.dat"))
		goto out;
	if (lost_events(self, dir))
		goto out;
	/* Several files: merged by timestamp, labelled by file name. */
	if (test_run("trace-cmd report -i %s/v7.dat -i %s/v6.dat > %s/two.want 2>/dev/null", dir, dir, dir) ||
	    test_run("%s report %s/v7.dat %s/v6.dat > %s/two.got", self, dir, dir, dir) ||
	    agree(dir, "two"))
		goto out;

	if (test_run("%s report --format json %s/v7.dat > %s/v7.json", self, dir, dir))
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/v7.json", dir);
	if (!file_has(p.buf, "\"a\":[1,-2,3,-2147483648]") || !file_has(p.buf, "\"n\":-12345") ||
	    !file_has(p.buf, "\"event\":\"target\",\"fields\":{\"__probe_ip\":") ||
	    !file_has(p.buf, "\"ret\":-2") ||
	    /* Byte arrays with zeros in them are numbers, not C strings. */
	    !file_has(p.buf, "\"b\":[1,0,0,0,254,255,255,255]") ||
	    !file_has(p.buf, "\"x\":[254,255,255,255]") ||
	    !file_has(p.buf, "\"c\":[3,0]") ||
	    !file_has(p.buf, "\"prev_comm\":\""))
		goto out;
	if (test_run("jq -e . %s/v7.json > /dev/null", dir))
		goto out;
	ret = TEST_OK;
out:
	if (ret == TEST_OK)
		test_run("rm -rf %s", dir);
	else
		fprintf(stderr, "kept %s\n", dir);
	strbuf_release(&p);
	return ret;
}
