// SPDX-License-Identifier: GPL-2.0
/*
 * The options of a trace.dat (util/tracedat.h, TRACEDAT_OPT_*): what
 * each one read sets in the file's struct tracedat.
 */
#include <stdlib.h>

#include "util/tracedat-read-int.h"
#include "util/usage.h"

/*
 * Appends the text of an option that several options of the file add up
 * to, ending it with a newline where it has none, so the next starts on
 * a line of its own.
 */
static void add_lines(struct strbuf *sb, const char *data)
{
	strbuf_addstr(sb, data);
	if (sb->len && sb->buf[sb->len - 1] != '\n')
		strbuf_addch(sb, '\n');
}

/* Replaces a text of the file by s (malloc'ed); returns s. */
static const char *set_text(struct tracedat *td, enum td_text which, char *s)
{
	free(td->text[which]);
	td->text[which] = s;
	return s;
}

/* "[local] global counter ..." : the bracketed word is the clock in use. */
void tracedat_parse_clock(struct tracedat *td, const char *text)
{
	const char *p = strchr(text, '['), *e, *clock;
	static const char *const usec_clocks[] = {
		"local", "global", "uptime", "perf", "tai", "x86-tsc-nsec",
	};
	size_t i;

	if (!p || !(e = strchr(p, ']')))
		return;
	clock = set_text(td, TD_CLOCK, xstrndup(p + 1, e - p - 1));
	if (td->tsc_mult)
		return;
	/* trace-cmd prints sec.usec only for clocks that count nanoseconds. */
	td->info.in_usecs = !strncmp(clock, "mono", 4);
	for (i = 0; i < sizeof(usec_clocks) / sizeof(usec_clocks[0]); i++)
		if (!strcmp(clock, usec_clocks[i]))
			td->info.in_usecs = 1;
}

int tracedat_handle_option(struct tracedat *td, unsigned int id, char *data,
			   uint64_t len, uint64_t off)
{
	switch (id) {
	case TRACEDAT_OPT_DATE:
		td->ts_offset += strtoll(data, NULL, 0) * 1000;
		break;
	case TRACEDAT_OPT_OFFSET:
		td->ts_offset += strtoll(data, NULL, 0);
		break;
	case TRACEDAT_OPT_CPUSTAT:
		add_lines(&td->cpustats, data);
		break;
	case TRACEDAT_OPT_PROCMAPS:
		add_lines(&td->procmaps, data);
		break;
	case TRACEDAT_OPT_TK_BUILDIDS:
		strbuf_addstr(&td->build_ids, data);
		break;
	case TRACEDAT_OPT_TK_SIGNED_FIELDS:
		add_lines(&td->signed_text, data);
		break;
	case TRACEDAT_OPT_BUFFER:
		return tracedat_parse_buffer_option(td, data, len, off);
	case TRACEDAT_OPT_TRACECLOCK:
		td->have_clock_option = 1;
		tracedat_parse_clock(td, data);
		break;
	case TRACEDAT_OPT_UNAME:
		set_text(td, TD_UNAME, xstrdup(data));
		break;
	case TRACEDAT_OPT_VERSION:
		set_text(td, TD_TRACER_VERSION, xstrdup(data));
		break;
	case TRACEDAT_OPT_CPUCOUNT:
		if (len < 4)
			return tracedat_bad(td, off,
					    "CPUCOUNT option of %llu bytes",
					    (unsigned long long)len);
		td->info.cpus = tracedat_num(td, data, 4);
		if (td->info.cpus < 0 || td->info.cpus > MAX_CPUS)
			return tracedat_bad(td, off, "absurd CPUCOUNT %d",
					    td->info.cpus);
		tep_set_cpus(td->tep, td->info.cpus);
		break;
	case TRACEDAT_OPT_TIME_SHIFT:
		return tracedat_parse_time_shift(td, data, len, off);
	case TRACEDAT_OPT_TSC2NSEC:
		if (len < 16)
			return tracedat_bad(td, off,
					    "TSC2NSEC option of %llu bytes",
					    (unsigned long long)len);
		td->tsc_mult = tracedat_num(td, data, 4);
		td->tsc_shift = tracedat_num(td, data + 4, 4);
		td->tsc_offset = tracedat_num(td, data + 8, 8);
		if (td->tsc_shift > 63)
			return tracedat_bad(td, off, "TSC2NSEC shift %u",
					    td->tsc_shift);
		td->info.in_usecs = 1;
		break;
	case TRACEDAT_OPT_HEADER_INFO:
	case TRACEDAT_OPT_FTRACE_EVENTS:
	case TRACEDAT_OPT_EVENT_FORMATS:
	case TRACEDAT_OPT_KALLSYMS:
	case TRACEDAT_OPT_PRINTK:
	case TRACEDAT_OPT_CMDLINES:
		if (len < 8)
			return tracedat_bad(td, off,
					    "section option %u of %llu bytes",
					    id, (unsigned long long)len);
		td->sec_off[id] = tracedat_num(td, data, 8);
		break;
	default:
		break;
	}
	return 0;
}
