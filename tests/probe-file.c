// SPDX-License-Identifier: GPL-2.0
/*
 * util/probe-file and util/elf-addr against the real uprobe_events: an
 * all-or-nothing add rolls back when the kernel refuses a line, and a
 * glob delete removes exactly what it names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tests.h"
#include "util/elf-addr.h"
#include "util/probe-file.h"
#include "util/tracefs.h"

static int parse_cases(void)
{
	struct probe_def d;

	TEST_ASSERT_EQUAL("parse p:", probe_def_parse("p:grp/ev /bin/x:0x10 a=%di", PROBE_UPROBE, &d), 0);
	TEST_ASSERT_STR("group", d.group, "grp");
	TEST_ASSERT_STR("event", d.event, "ev");
	TEST_ASSERT_EQUAL("type", d.type, 'p');
	free(d.group), free(d.event), free(d.line);
	TEST_ASSERT_EQUAL("parse r10:G.E", probe_def_parse("r10:G.E vfs_read", PROBE_KPROBE, &d), 0);
	TEST_ASSERT_STR("dotted group", d.group, "G");
	free(d.group), free(d.event), free(d.line);
	TEST_ASSERT_EQUAL("no group", probe_def_parse("p:ev x", PROBE_KPROBE, &d), -EINVAL);
	TEST_ASSERT_EQUAL("not a probe", probe_def_parse("-:g/e", PROBE_KPROBE, &d), -EINVAL);
	TEST_ASSERT_VAL("valid name", probe_name_valid("probe_foo_1"));
	TEST_ASSERT_VAL("leading digit", !probe_name_valid("9bad"));
	TEST_ASSERT_VAL("space", !probe_name_valid("a b"));
	TEST_ASSERT_VAL("newline", !probe_name_valid("a\n"));
	TEST_ASSERT_VAL("64 chars", !probe_name_valid("a234567890123456789012345678901234567890123456789012345678901234"));
	return TEST_OK;
}

static int present(const char *group, const char *event)
{
	struct probe_defs defs;
	int i, found = 0;

	if (probe_defs_read(&defs))
		return -1;
	for (i = 0; i < defs.nr; i++)
		if (!strcmp(defs.v[i].group, group) &&
		    !strcmp(defs.v[i].event, event))
			found = 1;
	probe_defs_release(&defs);
	return found;
}

int test__probe_file(void)
{
	char self[4096], good[4200], bad[4200];
	const char *lines[2];
	struct strbuf err = STRBUF_INIT, deleted = STRBUF_INIT;
	GElf_Ehdr eh;
	uint64_t off;
	Elf *elf;
	int fd, e;
	ssize_t n;

	if (parse_cases() != TEST_OK)
		return TEST_FAIL;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	TEST_ASSERT_VAL("readlink", n > 0);
	self[n] = '\0';
	elf = elf_addr_open_file(self, &fd, &e);
	TEST_ASSERT_VAL("open own ELF", elf);
	TEST_ASSERT_VAL("ehdr", gelf_getehdr(elf, &eh));
	TEST_ASSERT_EQUAL("entry has a file offset", elf_addr_vaddr_to_offset(elf, eh.e_entry, &off), 0);
	TEST_ASSERT_EQUAL("far address is in no segment",
			  elf_addr_vaddr_to_offset(elf, 0x7fff00000000ull,
						   &off),
			  -ENOENT);
	elf_addr_vaddr_to_offset(elf, eh.e_entry, &off);
	elf_addr_close_file(elf, fd);
	TEST_ASSERT_VAL("non-ELF rejected", !elf_addr_open_file("/proc/self/cmdline", &fd, &e) && e == -EINVAL);

	if (geteuid() != 0)
		return test_skip_cap("root", "parsing passed; not root");
	if (!tk_features()->uprobe_events)
		return test_skip_cap("uprobes", "parsing passed; no uprobe_events");
	snprintf(good, sizeof(good), "p:tktest_pf/entry %s:0x%llx", self, (unsigned long long)off);
	/* The kernel refuses %rdi (pt_regs names only): the add must undo "good". */
	snprintf(bad, sizeof(bad), "p:tktest_pf/bad %s:0x%llx x=%%rdi", self, (unsigned long long)off);
	lines[0] = good;
	lines[1] = bad;
	TEST_ASSERT_VAL("refused line fails the add", probe_defs_add(PROBE_UPROBE, lines, 2, 1, &err) < 0);
	fprintf(stderr, "kernel said: %s\n", err.buf);
	TEST_ASSERT_VAL("error_log reason carried", strstr(err.buf, "Invalid") || strstr(err.buf, "register"));
	TEST_ASSERT_EQUAL("rolled back", present("tktest_pf", "entry"), 0);

	strbuf_reset(&err);
	TEST_ASSERT_EQUAL("add one", probe_defs_add(PROBE_UPROBE, lines, 1, 1, &err), 0);
	TEST_ASSERT_EQUAL("listed", present("tktest_pf", "entry"), 1);
	TEST_ASSERT_VAL("event dir", probe_name_taken("tktest_pf", "entry"));
	TEST_ASSERT_EQUAL("glob in another group deletes nothing",
			  probe_defs_del("tktest_none:*", &deleted, &err), 0);
	TEST_ASSERT_EQUAL("group glob deletes it", probe_defs_del("tktest_pf:*", &deleted, &err), 1);
	TEST_ASSERT_STR("deleted list", deleted.buf, "tktest_pf:entry\n");
	TEST_ASSERT_EQUAL("gone", present("tktest_pf", "entry"), 0);
	strbuf_release(&err);
	strbuf_release(&deleted);
	return TEST_OK;
}
