// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the trace.dat reader and the printers: every input
 * is opened as a file (through a memfd), all its per-CPU streams merged,
 * and each event checked and formatted as text and JSON, as
 * `tracekit report` does, once with compiled print formats and once
 * through libtraceevent alone: the two must be the same bytes.  A file
 * the reader rejects must come with one line "FILE: offset N: what".
 * Built and run by tests/fuzz/run-report.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/print.h"
#include "util/strbuf.h"
#include "util/tracedat-merge.h"
#include "util/tracedat-read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounded work per input: a fuzzed header may describe a huge trace. */
#define MAX_EVENTS 4096

/* A reader's -1 comes with its one-line report, and only then. */
static void check_error(const char *path, int failed, struct strbuf *err)
{
	size_t n = strlen(path);

	if (!failed != !err->len)
		abort();
	if (failed && (strncmp(err->buf, path, n) || strncmp(err->buf + n, ": offset ", 9) ||
		       strchr(err->buf, '\n')))
		abort();
	strbuf_reset(err);
}

/*
 * All the report text and JSON of one opening of the file.  Each way
 * has its own opening: plugins register comms as they print, so two
 * printers must not share a tep.
 */
static void decode(struct tracedat *td, int no_compile, struct strbuf *out,
		   int *dropped)
{
	struct tracedat_merge *m = tracedat_merge_new();
	struct strbuf err = STRBUF_INIT;
	struct tracedat_event ev;
	struct print_ctx pc;
	int b, c, n = 0, r = 0;

	print_init(&pc, 0, 0);
	pc.no_compile = no_compile;
	for (b = 0; !r && b < tracedat_nr_buffers(td); b++)
		for (c = 0; !r && c < tracedat_buffer_nr_cpus(td, b); c++)
			r = tracedat_merge_add(m, td, b, c, &err);
	while (!r && n++ < MAX_EVENTS &&
	       (r = tracedat_merge_next(m, &ev, &err)) > 0) {
		r = 0;
		if (print_record_check(&pc, &ev))
			break;
		print_text(&pc, out, &ev, tracedat_buffer_name(td, ev.buffer),
			   8);
		print_json(&pc, out, &ev, tracedat_buffer_name(td, ev.buffer),
			   NULL, NULL);
		strbuf_addstr(out, "}\n");
	}
	check_error(tracedat_path(td), r < 0, &err);
	strbuf_release(&err);
	*dropped = pc.formats_dropped;
	print_release(&pc);
	tracedat_merge_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct strbuf out = STRBUF_INIT, ref = STRBUF_INIT, err = STRBUF_INIT;
	struct tracedat *td;
	/* Unguarded: a crash in libtraceevent is a finding, not a warning. */
	int flags = (size % 8 ? TRACEDAT_NO_PLUGINS : 0) | TRACEDAT_UNGUARDED;
	int dropped, unused, r;

	if (fd < 0) {
		fd = memfd_create("tracedat", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	/* Plugins (sched_switch's printer...) for one input in eight. */
	r = tracedat_open(path, flags, &td, &err);
	check_error(path, r, &err);
	if (r == 0) {
		decode(td, 0, &out, &dropped);
		tracedat_close(td);
		if (tracedat_open(path, flags, &td, &err))
			abort();
		decode(td, 1, &ref, &unused);
		tracedat_close(td);
		/* Compiled formats print libtraceevent's bytes, unaided. */
		if (dropped || out.len != ref.len ||
		    memcmp(out.buf, ref.buf, out.len))
			abort();
	}
	strbuf_release(&out);
	strbuf_release(&ref);
	strbuf_release(&err);
	return 0;
}
