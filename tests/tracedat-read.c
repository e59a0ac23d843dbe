// SPDX-License-Identifier: GPL-2.0
/*
 * The checks in front of libtraceevent's format parser
 * (tracedat_format_parse()): print fmts of the shapes of issue #40 are
 * cut before their print fmt, shapes the kernel writes are passed whole,
 * and the inputs tests/fuzz/format.c found (tests/data/
 * format-fuzz-*.txt) parse without a read past their end.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/strbuf.h"
#include "util/tracedat-read.h"

/* Fields of sched_wakeup on 6.1, as in tests/data/report-sched-v6.dat. */
#define FIELDS								\
	"name: sched_wakeup\nID: 374\nformat:\n"			\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n" \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"	\
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"		\
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n\n"		\
	"print fmt: \"comm=%s pid=%d prio=%d\", REC->comm, "

/*
 * Given to libtraceevent 1.7.1's tep_parse_format() alone, each cut one
 * but the last two kills it with SIGSEGV (measured); it fails cleanly on
 * "[1 ? 1 : 0]" and parses the newline, both outside the grammar.
 */
static const struct {
	const char *args;	/* after FIELDS */
	/* passed whole, else cut before the print fmt */
	int whole;
} shapes[] = {
	{ "REC->pid, REC->prio\n", 1 },
	{ "REC->pid ? 1 : 0, REC->prio[0] ? 2 : 3\n", 1 },
	{ "(REC->pid ? \"+\" : \"\") , (REC)->prio\n", 1 },
	{ "__print_flags(REC->pid, \"|\", { 1, \"A\" }, { 2, \"B\" }), REC->prio\n", 1 },
	{ "({ int x; x; }), REC->prio\n", 1 },
	{ "REC->pid ? \"+\" : \"\"= REC->prio\n", 0 },
	{ "REC->pid ? 1 : 0[0], REC->prio\n", 0 },
	{ "REC->pid[-0[0]], REC->prio\n", 0 },
	{ "REC->pid ? 1 : 8.5, REC->prio\n", 0 },
	{ "REC->pid[0][1], REC->prio\n", 0 },
	{ "REC->pid ? 1 : (int)REC->prio->x\n", 0 },
	{ "REC->pid[1 ? 1 : 0], REC->prio\n", 0 },
	{ "REC->pid ? 1\n: 0, REC->prio\n", 0 },
};

static int parse(const char *text, size_t len, size_t *sane)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *event;

	if (!tep)
		return -1;
	tep_set_long_size(tep, 8);
	*sane = tracedat_format_parse(tep, text, len, "sched", &event);
	tep_free(tep);
	return 0;
}

static int check_shapes(void)
{
	struct strbuf text = STRBUF_INIT;
	size_t i, sane, fmt = strstr(FIELDS, "print fmt:") - FIELDS;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		strbuf_reset(&text);
		strbuf_addstr(&text, FIELDS);
		strbuf_addstr(&text, shapes[i].args);
		if (parse(text.buf, text.len, &sane))
			return -1;
		if (sane != (shapes[i].whole ? text.len : fmt)) {
			fprintf(stderr, "print fmt args %s: %zu of %zu bytes passed, want %s\n",
				shapes[i].args, sane, text.len,
				shapes[i].whole ? "all" : "up to the print fmt");
			strbuf_release(&text);
			return -1;
		}
	}
	strbuf_release(&text);
	return 0;
}

/*
 * Each at the end of a page before one that cannot be read: a read past
 * it faults.  The folder is found first, then globbed: test_source_path()
 * looks a path up as it is, and the VM guest has the tests beside the
 * binary, not at the source path.
 */
static int check_fuzz_inputs(void)
{
	char *dir = test_source_path("tests/data");
	struct strbuf file = STRBUF_INIT, pattern = STRBUF_INIT;
	glob_t g;
	size_t i, sane = 0, span, page = sysconf(_SC_PAGESIZE);
	char *map, *text;
	int bad = 0;

	strbuf_addf(&pattern, "%s/format-fuzz-*.txt", dir);
	free(dir);
	if (glob(pattern.buf, 0, NULL, &g)) {
		fprintf(stderr, "no %s\n", pattern.buf);
		strbuf_release(&pattern);
		return -1;
	}
	strbuf_release(&pattern);
	for (i = 0; i < g.gl_pathc && !bad; i++) {
		strbuf_reset(&file);
		if (strbuf_read_file(&file, g.gl_pathv[i], 0) < 0) {
			fprintf(stderr, "%s: unreadable\n", g.gl_pathv[i]);
			bad = -1;
			break;
		}
		span = (file.len + page - 1) / page * page + page;
		map = mmap(NULL, span, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED ||
		    mprotect(map + span - page, page, PROT_NONE)) {
			perror("mmap");
			bad = -1;
			break;
		}
		text = map + span - page - file.len;
		memcpy(text, file.buf, file.len);
		if (parse(text, file.len, &sane) || sane > file.len) {
			fprintf(stderr, "%s: %zu bytes passed of %zu\n",
				g.gl_pathv[i], sane, file.len);
			bad = -1;
		}
		munmap(map, span);
	}
	strbuf_release(&file);
	globfree(&g);
	return bad;
}

int test__tracedat_read(void)
{
	TEST_ASSERT_VAL("print fmt shapes", !check_shapes());
	TEST_ASSERT_VAL("format fuzz inputs", !check_fuzz_inputs());
	return TEST_OK;
}
