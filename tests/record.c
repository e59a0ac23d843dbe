// SPDX-License-Identifier: GPL-2.0
/*
 * util/tracedat-write and util/record against the oracle, trace-cmd 3.1.6:
 * files it must accept section by section, and a uprobe with string and
 * array arguments recorded from a program compiled here.
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
#include "util/record.h"
#include "util/tracedat-write.h"
#include "util/tracefs.h"

static int write_file(const char *path, int zlevel)
{
	static const char hdr[] = "header_page\0\0\0\0\0\0\0\0\0header_event\0\0\0\0\0\0\0\0\0";
	struct tracedat_writer *w;
	struct tracedat_write_cpu_data cpu = { .cpu = 1, .fd = -1 };
	int fd, ret;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	ret = tracedat_write_new(fd, 4096, zlevel, &w);
	if (!ret)
		ret = tracedat_write_section(w, TRACEDAT_OPT_HEADER_INFO, hdr,
					     sizeof(hdr) - 1);
	if (!ret)
		ret = tracedat_write_option_str(w, TRACEDAT_OPT_UNAME, "Linux test");
	if (!ret)
		ret = tracedat_write_finish(w, "", "local", 4096, &cpu, 1);
	tracedat_write_free(w);
	close(fd);
	return ret;
}

static int check_layout(const char *path, int zlevel)
{
	/* What trace-cmd dump prints for each part of the file. */
	static const char *const dump_has[] = {
		"\"headers\"", "\"options\"", "\"buffer flyrecord \"",
		"\"strings\"", "Linux test", "[5 sections]",
	};
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, raw = STRBUF_INIT;
	const char *comp = zlevel < 0 ? "none" : "zstd";
	size_t i;

	TEST_ASSERT_EQUAL("write", write_file(path, zlevel), 0);
	TEST_ASSERT_VAL("read back", strbuf_read_file(&raw, path, 0) > 40);
	TEST_ASSERT_VAL("magic", !memcmp(raw.buf, "\027\010\104tracing7", 12));
	TEST_ASSERT_EQUAL("little endian", raw.buf[12], 0);
	TEST_ASSERT_EQUAL("long size", raw.buf[13], (int)sizeof(long));
	TEST_ASSERT_VAL("compression name", !strcmp(raw.buf + 18, comp));
	/* The oracle: scripts/deps.sh installs it, the VM harness ships it. */
	TEST_ASSERT_VAL("trace-cmd is installed", test_have_cmd("trace-cmd"));
	strbuf_addf(&cmd, "trace-cmd dump --sections --options -i %s 2>&1", path);
	TEST_ASSERT_EQUAL("trace-cmd dump", test_run_capture(cmd.buf, &out), 0);
	fprintf(stderr, "%s", out.buf);
	for (i = 0; i < sizeof(dump_has) / sizeof(dump_has[0]); i++)
		TEST_ASSERT_VAL(dump_has[i], strstr(out.buf, dump_has[i]));
	TEST_ASSERT_VAL("no unknown sections", !strstr(out.buf, "Unknown"));
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&raw);
	return TEST_OK;
}

int test__record_tracedat_write(void)
{
	char path[] = "/tmp/tk-tdw-XXXXXX";
	int fd = mkstemp(path), ret;

	TEST_ASSERT_VAL("mkstemp", fd >= 0);
	close(fd);
	ret = check_layout(path, 3);
	if (ret == TEST_OK)
		ret = check_layout(path, -1);
	unlink(path);
	return ret;
}

static const char target_src[] =
	"__attribute__((noinline)) void tk_target(int n, const char *s, const int *a)\n"
	"{ __asm__ volatile(\"\" ::: \"memory\"); }\n"
	"int main(void) { int a[3] = { 7, 8, 9 }; int i;\n"
	"  for (i = 0; i < 3; i++) tk_target(40 + i, \"hello\", a); return 0; }\n";

int test__record_uprobe(void)
{
	char dir[] = "/tmp/tk-rec-XXXXXX";
	struct strbuf src = STRBUF_INIT, bin = STRBUF_INIT, cmd = STRBUF_INIT;
	struct strbuf def = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;
	struct strbuf dat = STRBUF_INIT;
	struct record_event ev = { .spec = "tktest_rec:*" };
	struct record_opts o = { .events = &ev, .nr_events = 1, .zlevel = 3 };
	struct record_result res;
	const char *line;
	char *argv[2];
	uint64_t off;
	FILE *fp;
	int ret;

	ret = test_need_uprobe_target();
	if (ret != TEST_OK)
		return ret;
	TEST_ASSERT_VAL("trace-cmd is installed", test_have_cmd("trace-cmd"));
	TEST_ASSERT_VAL("mkdtemp", mkdtemp(dir));
	strbuf_addf(&src, "%s/target.c", dir);
	strbuf_addf(&bin, "%s/target", dir);
	strbuf_addf(&dat, "%s/t.dat", dir);
	fp = fopen(src.buf, "w");
	TEST_ASSERT_VAL("write source", fp && fputs(target_src, fp) >= 0);
	fclose(fp);
	strbuf_addf(&cmd, "cc -O0 -o %s %s", bin.buf, src.buf);
	TEST_ASSERT_EQUAL("compile", system(cmd.buf), 0);
	TEST_ASSERT_EQUAL("symbol offset", elf_addr_symbol_file_offset(bin.buf, "tk_target", &off), 0);

	/* x86-64: n, s, a arrive in rdi, rsi, rdx. */
	strbuf_addf(&def, "p:tktest_rec/target %s:0x%llx n=%%di:s32 s=+0(%%si):string "
		    "a=+0(%%dx):s32[3]", bin.buf, (unsigned long long)off);
	line = def.buf;
	ret = probe_defs_add(PROBE_UPROBE, &line, 1, 1, &err);
	if (ret)
		fprintf(stderr, "%s\n%s\n", def.buf, err.buf);
	TEST_ASSERT_EQUAL("add uprobe", ret, 0);

	argv[0] = bin.buf;
	argv[1] = NULL;
	o.argv = argv;
	o.output = dat.buf;
	strbuf_reset(&err);
	ret = record_run(&o, NULL, &res, &err);
	if (ret)
		fprintf(stderr, "%s", err.buf);
	TEST_ASSERT_EQUAL("record", ret, 0);
	TEST_ASSERT_EQUAL("events", res.events, 3);
	TEST_ASSERT_EQUAL("child exit", res.child_status, 0);

	strbuf_reset(&cmd);
	/*
	 * Raw fields (-R): libtraceevent 1.7 prints "REC->a[0]" of the print
	 * format as 0 for any file, a trace-cmd extract one included.
	 */
	strbuf_addf(&cmd, "trace-cmd report -R -i %s 2>&1", dat.buf);
	TEST_ASSERT_EQUAL("trace-cmd report", test_run_capture(cmd.buf, &out), 0);
	fprintf(stderr, "%s", out.buf);
#define ARR " a=ARRAY[07, 00, 00, 00, 08, 00, 00, 00, 09, 00, 00, 00]"
	TEST_ASSERT_VAL("first call", strstr(out.buf, "n=40 s=hello" ARR));
	TEST_ASSERT_VAL("second call", strstr(out.buf, "n=41 s=hello" ARR));
	TEST_ASSERT_VAL("third call", strstr(out.buf, "n=42 s=hello" ARR));
#undef ARR
	TEST_ASSERT_VAL("probe removed at the end",
			!probe_name_taken("tktest_rec", "target"));

	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "rm -rf %s", dir);
	system(cmd.buf);
	strbuf_release(&src);
	strbuf_release(&bin);
	strbuf_release(&cmd);
	strbuf_release(&def);
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&dat);
	return TEST_OK;
}

int test__record_parse_cpus(void)
{
	unsigned char m[8];

	TEST_ASSERT_EQUAL("0-2,5", record_parse_cpus("0-2,5", m, 8), 0);
	TEST_ASSERT_VAL("0-2,5 bits", m[0] && m[1] && m[2] && !m[3] && !m[4] && m[5] && !m[6]);
	TEST_ASSERT_EQUAL("single", record_parse_cpus("7", m, 8), 0);
	TEST_ASSERT_VAL("single bit", m[7] && !m[0]);
	TEST_ASSERT_EQUAL("beyond the CPUs", record_parse_cpus("0-8", m, 8), -EINVAL);
	TEST_ASSERT_EQUAL("reversed range", record_parse_cpus("3-1", m, 8), -EINVAL);
	TEST_ASSERT_EQUAL("garbage", record_parse_cpus("1;2", m, 8), -EINVAL);
	TEST_ASSERT_EQUAL("negative", record_parse_cpus("-1", m, 8), -EINVAL);
	TEST_ASSERT_EQUAL("trailing comma", record_parse_cpus("1,", m, 8), -EINVAL);
	TEST_ASSERT_EQUAL("empty item", record_parse_cpus("1,,2", m, 8), -EINVAL);
	return TEST_OK;
}
