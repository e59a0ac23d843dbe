// SPDX-License-Identifier: GPL-2.0
/*
 * util/print-fmt against libtraceevent itself: for every event format of
 * the running kernel (tracefs events/, read only) and for synthetic
 * formats that use each construct the compiler accepts, records are made
 * up with edge values (0, -1, single bits, kernel addresses, strings
 * with and without room for their NUL) and each one is printed both
 * ways: the compiled text must equal tep_print_event()'s, byte for byte.
 * Then every event of the trace.dat fixtures is printed as report lines
 * with and without compiled formats, which must also be identical.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/trace-seq.h>

#include "tests/lib.h"
#include "tests/tests.h"
#include "util/print.h"
#include "util/print-fmt.h"
#include "util/strbuf.h"
#include "util/tracedat-merge.h"
#include "util/tracedat-read.h"
#include "util/tracefs.h"

#define RECORDS_PER_EVENT	200
#define FUNC_BASE		0xffffffff81000000ULL

/* Deterministic, so that a failure can be replayed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned long long rnd(void)
{
	return test_rand(&rng_state);
}

static unsigned long long edge_value(unsigned int size)
{
	unsigned int bits = size * 8;

	switch (rnd() % 8) {
	case 0:
		return 0;
	case 1:
		return ~0ULL;
	case 2:
		return rnd() % 21;
	case 3:
		return 1ULL << (rnd() % bits);
	case 4:
		/*
		 * inside one of the registered functions, or just before them
		 */
		return FUNC_BASE + rnd() % 0x5000 - 0x100;
	case 5:
		return -(long long)(rnd() % 5);
	default:
		return rnd();
	}
}

static void put_number(unsigned char *p, unsigned int size,
		       unsigned long long v)
{
	/* Little endian, as the tep is told. */
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = v >> (8 * (i % 8));
}

static void put_text(unsigned char *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = ' ' + rnd() % 95;
}

/* A record of ev with every field filled; returns its size. */
static unsigned int make_record(struct tep_event *ev, unsigned char *buf,
				unsigned int room)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields,
					      ev->format.fields };
	struct tep_format_field *f;
	unsigned int end = 0, tail, len, off;
	int l;

	memset(buf, 0, room);
	for (l = 0; l < 2; l++)
		for (f = lists[l]; f; f = f->next)
			if ((unsigned int)(f->offset + f->size) > end)
				end = f->offset + f->size;
	tail = (end + 3) & ~3U;
	for (l = 0; l < 2; l++) {
		for (f = lists[l]; f; f = f->next) {
			unsigned char *p = buf + f->offset;

			if (!strcmp(f->name, "common_type")) {
				put_number(p, f->size, ev->id);
			} else if (f->flags & TEP_FIELD_IS_DYNAMIC) {
				len = rnd() % 4 ? rnd() % 24 : 0;
				if (tail + len + 1 > room || f->size != 4)
					continue;
				put_text(buf + tail, len);
				buf[tail + len] = '\0';
				/*
				 * A length without its NUL now and then: not a
				 * string.
				 */
				len += rnd() % 8 ? 1 : 0;
				off = tail;
				if (f->flags & TEP_FIELD_IS_RELATIVE)
					off -= f->offset + f->size;
				put_number(p, 4,
					   (unsigned long long)len << 16 | off);
				tail += (len + 4) & ~3U;
			} else if (f->flags & TEP_FIELD_IS_ARRAY) {
				put_text(p, f->size);
				if (f->size && rnd() % 4)
					p[rnd() % f->size] = '\0';
				if (!(f->flags & TEP_FIELD_IS_STRING) &&
				    rnd() % 2)
					put_number(p, f->size, edge_value(8));
			} else if (f->size > 0 && f->size <= 8) {
				put_number(p, f->size, edge_value(f->size));
			}
		}
	}
	return tail > end ? tail : end;
}

struct stats {
	int events, compiled, records, compared, mismatches;
};

static void compare_event(struct tep_handle *tep, struct tep_event *ev,
			  struct stats *st)
{
	static unsigned char buf[8192];
	struct strbuf fast = STRBUF_INIT;
	struct print_fmt *f;
	struct trace_seq s;
	int i;

	st->events++;
	f = print_fmt_compile(ev);
	if (!f)
		return;
	st->compiled++;
	trace_seq_init(&s);
	for (i = 0; i < RECORDS_PER_EVENT; i++) {
		struct tep_record rec = { .ts = 1000, .cpu = 0, .data = buf };

		rec.size = make_record(ev, buf, sizeof(buf));
		st->records++;
		strbuf_reset(&fast);
		if (print_fmt_info(f, &fast, &rec))
			continue;
		trace_seq_reset(&s);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		st->compared++;
		if (fast.len == s.len && !memcmp(fast.buf, s.buffer, s.len))
			continue;
		if (st->mismatches++ < 10)
			fprintf(stderr,
				"%s:%s record %d\n  format: %s\n  tep:  \"%.*s\"\n  fast: \"%s\"\n",
				ev->system, ev->name, i, ev->print_fmt.format,
				(int)s.len, s.buffer, fast.buf);
	}
	trace_seq_destroy(&s);
	strbuf_release(&fast);
	print_fmt_free(f);
}

static struct tep_handle *new_tep(void)
{
	struct tep_handle *tep = tep_alloc();
	int i;

	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "tk_func%d", i);
		tep_register_function(tep, name, FUNC_BASE + i * 0x1000, i == 3 ? "tkmod" : NULL);
	}
	return tep;
}

static void compare_all(struct tep_handle *tep, struct stats *st)
{
	int i, n = tep_get_events_count(tep);

	for (i = 0; i < n; i++)
		compare_event(tep, tep_get_event(tep, i), st);
}

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define FIELDS \
	"\tfield:char c;\toffset:8;\tsize:1;\tsigned:1;\n" \
	"\tfield:short s;\toffset:10;\tsize:2;\tsigned:1;\n" \
	"\tfield:int i;\toffset:12;\tsize:4;\tsigned:1;\n" \
	"\tfield:long l;\toffset:16;\tsize:8;\tsigned:1;\n" \
	"\tfield:unsigned long u;\toffset:24;\tsize:8;\tsigned:0;\n" \
	"\tfield:char name[16];\toffset:32;\tsize:16;\tsigned:1;\n" \
	"\tfield:__data_loc char[] str;\toffset:48;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned int flags;\toffset:52;\tsize:4;\tsigned:0;\n" \
	"\tfield:u64 arr[4];\toffset:56;\tsize:32;\tsigned:0;\n" \
	"\tfield:__rel_loc char[] rel;\toffset:88;\tsize:4;\tsigned:1;\n\n"

/* Each construct print-fmt.c compiles, in formats that must compile. */
static const char *const synthetic[] = {
	"c=%hhd/%hhu/%hhx s=%hd/%hx/%hu i=%d/%u/%x/%X/%05d/%-6d|/%o/%#x/%3d/%-03d|/%.3d "
	"l=%ld/%lu/%lx/%lld/%llx/%zu/%20ld/%-20lx|/%020lu u=%lu/%016lx/%Lx/%#llo\", "
	"REC->c, REC->c, REC->c, REC->s, REC->s, REC->s, REC->i, REC->i, REC->i, REC->i, "
	"REC->i, REC->i, REC->i, REC->i, REC->i, REC->i, REC->i, REC->l, REC->l, REC->l, "
	"REC->l, REC->l, REC->l, REC->l, REC->l, REC->l, REC->u, REC->u, REC->u, REC->u",

	"name=%s/%-20s|/%.3s|/%10.2s|/%.s|/%20s str=%s/%-8s|/%.4s rel=%s\\n\", "
	"REC->name, REC->name, REC->name, REC->name, REC->name, REC->name, "
	"__get_str(str), __get_str(str), __get_str(str), __get_rel_str(rel)",

	"flags=%s/%-4s| none=%s sym=%s/%s cond=%s/%s\", "
	"__print_flags(REC->flags, \"|\", { 1, \"A\" }, { 2, \"B\" }, { 4, \"C\" }, "
	"{ 0x10, \"HI\" }, { 0x30, \"BOTH\" }), "
	"__print_flags(REC->c, \"\", { 1, \"x\" }, { 2, \"y\" }), "
	"__print_flags(REC->s, \",\", { 0, \"NONE\" }, { 1, \"ONE\" }), "
	"__print_symbolic(REC->i, { 0, \"ZERO\" }, { 1, \"ONE\" }, { -1, \"MINUS\" }, "
	"{ HRTIMER_RESTART, \"restart\" }, { TIMER_SOFTIRQ, \"timer\" }), "
	"__print_symbolic(REC->c, { 5, \"five\" }), "
	"REC->i > 0 ? \"pos\" : \"nonpos\", REC->flags & 1 ? __get_str(str) : \"none\"",

	"arr=%llx,%llx ops=%d %d %d %lu %ld %u %u %d %d %lu %d %d %d 100%% ptr=%p/%-20p|"
	" fn=%pS/%ps/%pF/%pf/%pB\", REC->arr[0], REC->arr[3], REC->i + 1, "
	"REC->s * 2 - REC->c, (REC->flags & 4) != 0, REC->u >> 3, (long)REC->i, (u8)REC->flags, "
	"(unsigned short)REC->i, REC->i == 3 || REC->c < 0, !REC->flags, REC->u / 7, "
	"REC->i % 5, ~REC->c, REC->i ? REC->s : REC->c, REC->u, REC->u, REC->u, REC->u, "
	"REC->u, REC->u, REC->u",

	"tab\\there \\\"quoted\\\" back\\\\slash [%d]\\n\", REC->i",
};

/* Left to libtraceevent: what it prints in its own way, or not at all here. */
static const char *const refused[] = {
	"%c\", REC->c",		/* 1.7 prints ">c<" and keeps the argument */
	"%+d\", REC->i",		/* likewise ">+<d" */
	"%*d\", REC->c, REC->i",	/* width from an argument */
	"%pM\", REC->name",	/* MAC address */
	"%s\", REC->u",		/* a long-sized scalar: printk_formats lookup */
	"%ls\", REC->name",
	"%d\", REC->i, tkfunc(REC->i)",
	"%d\", REC->bogus",
	"%d %d\", REC->i",	/* an argument short */
	"%d\", REC->arr",	/* an array as a number */
	"%d\", tk_func0",	/* a symbol as a constant */
	"trailing\\",
};

static int refused_formats(void)
{
	struct tep_handle *tep = new_tep();
	struct strbuf text = STRBUF_INIT;
	struct print_fmt *f;
	size_t i;
	int ret = TEST_OK;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		strbuf_reset(&text);
		strbuf_addf(&text, "name: tk_refused%zu\nID: %zu\nformat:\n" COMMON_FIELDS FIELDS
			    "print fmt: \"%s\n", i, 200 + i, refused[i]);
		/* libtraceevent may refuse it first: also not compiled. */
		tep_parse_event(tep, text.buf, text.len, "tktest");
		if (!tep_find_event(tep, 200 + i))
			continue;
		f = print_fmt_compile(tep_find_event(tep, 200 + i));
		if (f) {
			fprintf(stderr, "compiled, but should be left to libtraceevent: %s\n",
				refused[i]);
			print_fmt_free(f);
			ret = TEST_FAIL;
		}
	}
	strbuf_release(&text);
	tep_free(tep);
	return ret;
}

static int synthetic_formats(struct stats *st)
{
	struct tep_handle *tep = new_tep();
	struct strbuf text = STRBUF_INIT;
	size_t i;
	int ret = TEST_OK;

	for (i = 0; i < sizeof(synthetic) / sizeof(synthetic[0]); i++) {
		struct stats one = { 0 };
		struct tep_event *ev;

		strbuf_reset(&text);
		strbuf_addf(&text, "name: tk_synth%zu\nID: %zu\nformat:\n" COMMON_FIELDS FIELDS
			    "print fmt: \"%s\n", i, 100 + i, synthetic[i]);
		if (tep_parse_event(tep, text.buf, text.len, "tktest")) {
			fprintf(stderr, "libtraceevent refuses synthetic format %zu\n", i);
			ret = TEST_FAIL;
			continue;
		}
		ev = tep_find_event(tep, 100 + i);
		compare_event(tep, ev, &one);
		fprintf(stderr,
			"synthetic %zu: compiled %d, %d of %d records compared, %d differ\n",
			i, one.compiled, one.compared, one.records,
			one.mismatches);
		if (!one.compiled || one.compared < RECORDS_PER_EVENT / 4 ||
		    one.mismatches)
			ret = TEST_FAIL;
		st->events += one.events;
		st->compiled += one.compiled;
		st->records += one.records;
		st->compared += one.compared;
		st->mismatches += one.mismatches;
	}
	strbuf_release(&text);
	tep_free(tep);
	return ret;
}

/*
 * Every events/SYSTEM/EVENT/format of the running kernel; -1 without tracefs.
 */
static int kernel_formats(struct tep_handle *tep)
{
	const char *root = "/sys/kernel/tracing/events";
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct dirent *sd, *ed;
	DIR *sys, *evs;
	int n = 0;

	sys = opendir(root);
	if (!sys)
		return -1;
	while ((sd = readdir(sys))) {
		if (sd->d_name[0] == '.')
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", root, sd->d_name);
		evs = opendir(path.buf);
		if (!evs)
			continue;
		while ((ed = readdir(evs))) {
			if (ed->d_name[0] == '.')
				continue;
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s/%s/format", root, sd->d_name, ed->d_name);
			strbuf_reset(&text);
			if (strbuf_read_file(&text, path.buf, 4096) <= 0)
				continue;
			if (!tep_parse_event(tep, text.buf, text.len,
					     sd->d_name))
				n++;
		}
		closedir(evs);
	}
	closedir(sys);
	strbuf_release(&path);
	strbuf_release(&text);
	return n;
}

/*
 * Gives every event a print format that is not the one libtraceevent
 * parsed (its print cache stays), or puts the originals back.
 */
static void tamper(struct tep_handle *tep, char **saved, int restore)
{
	int i, n = tep_get_events_count(tep);

	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		struct strbuf text = STRBUF_INIT;

		if (restore) {
			free(ev->print_fmt.format);
			ev->print_fmt.format = saved[i];
			continue;
		}
		saved[i] = ev->print_fmt.format;
		if (!saved[i])
			continue;
		strbuf_addf(&text, "tampered %s", saved[i]);
		ev->print_fmt.format = strbuf_detach(&text, NULL);
	}
}

/*
 * Report lines of a whole file, compiled formats on or off, or on with
 * formats that disagree with the library's (which must then be noticed
 * and dropped).
 */
static int file_lines(const char *path, int no_compile, int disagree,
		      struct strbuf *out)
{
	struct tracedat_merge *m = tracedat_merge_new();
	struct strbuf err = STRBUF_INIT;
	struct tracedat_event ev;
	struct print_ctx pc;
	struct tracedat *td;
	char **saved = NULL;
	int b, c, n = 0;

	/* Without plugins, sched_switch and sched_wakeup are compiled too. */
	if (tracedat_open(path, TRACEDAT_NO_PLUGINS, &td, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		strbuf_release(&err);
		tracedat_merge_free(m);
		return -1;
	}
	if (disagree) {
		tracedat_parse_formats(td);
		saved = calloc(tep_get_events_count(tracedat_tep(td)),
			       sizeof(*saved));
		tamper(tracedat_tep(td), saved, 0);
	}
	print_init(&pc, 0, 0);
	pc.no_compile = no_compile;
	for (b = 0; b < tracedat_nr_buffers(td); b++)
		for (c = 0; c < tracedat_buffer_nr_cpus(td, b); c++)
			tracedat_merge_add(m, td, b, c, &err);
	while (!err.len && tracedat_merge_next(m, &ev, &err) > 0 &&
	       !print_record_check(&pc, &ev)) {
		print_text(&pc, out, &ev, tracedat_buffer_name(td, ev.buffer),
			   8);
		print_json(&pc, out, &ev, tracedat_buffer_name(td, ev.buffer),
			   NULL, NULL);
		strbuf_addstr(out, "}\n");
		n++;
	}
	/* Dropped exactly when they were made to disagree. */
	if (!disagree != !pc.formats_dropped)
		n = -1;
	if (err.len) {
		fprintf(stderr, "%s\n", err.buf);
		n = -1;
	}
	strbuf_release(&err);
	print_release(&pc);
	tracedat_merge_free(m);
	if (disagree) {
		tamper(tracedat_tep(td), saved, 1);
		free(saved);
	}
	tracedat_close(td);
	return n;
}

static int fixture_files(void)
{
	static const char *const files[] = {
		"report-sched-v7.dat", "report-sched-v6.dat",
	};
	struct strbuf rel = STRBUF_INIT, fast = STRBUF_INIT, slow = STRBUF_INIT;
	struct strbuf wrong = STRBUF_INIT;
	char *path;
	size_t i;
	int n, ret = TEST_OK;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		strbuf_reset(&rel);
		strbuf_addf(&rel, "tests/data/%s", files[i]);
		path = test_source_path(rel.buf);
		strbuf_reset(&fast);
		strbuf_reset(&slow);
		strbuf_reset(&wrong);
		n = file_lines(path, 0, 0, &fast);
		if (n <= 0 || file_lines(path, 1, 0, &slow) != n ||
		    fast.len != slow.len ||
		    memcmp(fast.buf, slow.buf, fast.len)) {
			fprintf(stderr, "%s: unreadable, or compiled and libtraceevent lines differ "
				"(%d events)\n", path, n);
			ret = TEST_FAIL;
		} else if (file_lines(path, 0, 1, &wrong) != n ||
			   wrong.len != slow.len ||
			   memcmp(wrong.buf, slow.buf, slow.len)) {
			fprintf(stderr, "%s: formats that disagree with libtraceevent were kept\n",
				path);
			ret = TEST_FAIL;
		} else {
			fprintf(stderr, "%s: %d events, the same text and JSON both ways, "
				"disagreeing formats dropped\n", files[i], n);
		}
		free(path);
	}
	strbuf_release(&rel);
	strbuf_release(&fast);
	strbuf_release(&slow);
	strbuf_release(&wrong);
	return ret;
}

int test__print_fmt(void)
{
	struct stats st = { 0 };
	struct tep_handle *tep;
	int ret, n;

	ret = synthetic_formats(&st);
	if (refused_formats())
		ret = TEST_FAIL;
	tep = new_tep();
	n = kernel_formats(tep);
	if (n < 0) {
		fprintf(stderr, "no tracefs events/: kernel formats not compared\n");
		if (!tk_features()->tracefs)
			ret = ret ? ret : test_skip_cap("tracefs", "tracefs is not mounted");
		else if (geteuid() != 0)
			ret = ret ? ret : test_skip_cap("root", "events/ is root's");
		else
			ret = TEST_FAIL;
	} else {
		struct stats k = { 0 };

		compare_all(tep, &k);
		fprintf(stderr,
			"kernel: %d formats, %d compiled, %d of %d records compared, %d differ\n",
			k.events, k.compiled, k.compared, k.records,
			k.mismatches);
		if (k.mismatches || (k.events && k.compiled < k.events / 2))
			ret = TEST_FAIL;
	}
	tep_free(tep);
	if (fixture_files())
		ret = TEST_FAIL;
	return ret;
}
