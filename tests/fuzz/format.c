// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the checks in front of libtraceevent's format
 * parser: every input is one event format's text, given to
 * tracedat_format_parse() as the reader gives a format from a file, in
 * this process (the reader's guard against a crash is not on this path,
 * so a crash here is one the checks let through).  An event that parses
 * is printed once from a record of zeros, as report would print it.
 * Built and run by tests/fuzz/run-format.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "util/tracedat-read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Past the end of any record the formats describe: offsets are u16. */
#define RECORD_SIZE 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char zeros[RECORD_SIZE];
	struct tep_handle *tep = tep_alloc();
	struct tep_record record;
	struct tep_event *event;
	struct trace_seq s;

	if (!tep)
		abort();
	/* Both word sizes: sizeof(long) and %ld depend on it. */
	tep_set_long_size(tep, size % 2 ? 4 : 8);
	tracedat_format_parse(tep, (const char *)data, size, "fuzz", &event);
	if (event && !(event->flags & TEP_EVENT_FL_FAILED)) {
		memset(&record, 0, sizeof(record));
		record.data = zeros;
		record.size = sizeof(zeros);
		trace_seq_init(&s);
		tep_print_event(tep, &s, &record, "%s", TEP_PRINT_INFO);
		trace_seq_destroy(&s);
	}
	tep_free(tep);
	return 0;
}
