/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_READ_H
#define TK_TRACEDAT_READ_H

#include <stdint.h>
#include <traceevent/event-parse.h>

#include "util/strbuf.h"

/*
 * trace.dat reader (versions 6 and 7, zstd, zlib or uncompressed).  Opening a
 * file loads its metadata (event formats, kallsyms, printk formats,
 * cmdlines, options) into a libtraceevent handle; the per-CPU ring-buffer
 * pages are then streamed, one compressed chunk per CPU in memory at a
 * time, and decoded with kbuffer (util/tracedat-merge.h).  Every problem
 * in the file is returned as -EINVAL with one line "FILE: offset N:
 * what" appended to err; a failed read of the file as its -errno (-EIO
 * where it ends early), and a file that does not open as -errno with
 * "FILE: why".
 *
 * Why not libtracecmd (Debian's libtracecmd-dev 3.1.6, trace-cmd's own
 * reader)?  Measured with `trace-cmd report -i FILE` and a program doing
 * only tracecmd_open() + tracecmd_iterate_events() over every buffer, on
 * the 8 tests/data/report-fuzz-*.dat and the 32 corrupt files that
 * tests/shell/report-badinput.sh makes:
 *  - Errors carry no offset: "error reading header for F", "mmap:
 *    Unknown error -22", "libtracecmd: Invalid argument", or nothing at
 *    all; trace-cmd report exits 0 on 23 of the 40 (a 16-byte v6 file
 *    prints nothing and exits 0).
 *  - 11 of the 40 kill trace-cmd report and the program alike: SIGSEGV
 *    (tracecmd_close() on a NULL from tracecmd_buffer_instance_handle()
 *    after a zeroed zstd chunk header or a cut v6 file; a calloc of
 *    0xbffffffe8 bytes in tracecmd_load_chunks_info() for an absurd chunk
 *    count), abort on a double free in tracecmd_alloc_fd() for a v7 file
 *    cut at 30 bytes, and SIGSEGV or SIGFPE in libtraceevent for 6 of the
 *    fuzz files, whose formats libtracecmd hands it unchecked.  Under ASan
 *    3 more fail (heap overflow in tep_parse_printk_formats(), a use after
 *    free, a 0x2030000000000000-byte malloc); a bad chunk size yields 43
 *    events from a 38-event file.  Here each gets one line and exit 1.
 *  - Speed, on 1.26M events (bench/report.sh, CPU time): trace-cmd report
 *    3.69 s, tracekit report 0.81 s (4.6x); iterating alone,
 *    libtracecmd 0.54 s against 0.45 s for `tracekit report --stat`,
 *    with 82 MB peak RSS against 34 MB.
 * Re-measure: apt-get install libtracecmd-dev; build the program with
 * `pkg-config --cflags --libs libtracecmd`; run it, `trace-cmd report -i`
 * and `tracekit report` on each file; `bash bench/report.sh ./tracekit`.
 */

struct tracedat;

/* Event ids are below 64K: the kernel keeps them in a u16 common_type. */
#define TRACEDAT_MAX_EVENT_ID	65536

struct tracedat_info {
	int version;			/* 6 or 7 */
	int big_endian;
	int long_size;
	unsigned int page_size;
	const char *compression;	/* "zstd", "zlib", "none" */
	const char *compression_version;
	int cpus;			/* CPUCOUNT (or the top buffer's) */
	const char *clock;		/* from TRACECLOCK, "" if absent */
	int in_usecs;			/* timestamps are ns of a usec-able
					 * clock */
	const char *uname;
	const char *tracer_version;
	const char *cpustats;		/* CPUSTAT texts, one per CPU and
					 * buffer */
	uint64_t file_size;
};

enum tracedat_open_flags {
	/* Leave out libtraceevent's plugins (the fuzzer, mostly: loading
	 * them is a dozen dlopen()s per file). */
	TRACEDAT_NO_PLUGINS = 1 << 0,
	/* Parse each format in this process alone, without trying it in a
	 * child first (the fuzzer: a crash in libtraceevent must show). */
	TRACEDAT_UNGUARDED = 1 << 1,
};

int tracedat_open(const char *path, unsigned int flags, struct tracedat **out,
		  struct strbuf *err);
void tracedat_close(struct tracedat *td);

const char *tracedat_path(const struct tracedat *td);
/*
 * The PROCMAPS options (record --proc-map, trace-cmd's format: "PID NR
 * EXE\n" in hex, then NR lines "START END NAME\n"), concatenated; "" if none.
 */
const char *tracedat_procmaps(const struct tracedat *td);
/* tracekit's TK_BUILDIDS option: "BUILDID PATH\n" lines; "" if none. */
const char *tracedat_build_ids(const struct tracedat *td);
const struct tracedat_info *tracedat_info(const struct tracedat *td);
/*
 * The handle: it holds the formats of the events read so far (each is
 * parsed on its event's first record) and of ftrace's own.
 */
struct tep_handle *tracedat_tep(const struct tracedat *td);
/* Parses every format of the file, for what looks events up by name. */
void tracedat_parse_formats(struct tracedat *td);

/*
 * A v7 file's kallsyms are read at the first lookup, after the open,
 * often inside libtraceevent's printing, which cannot fail: a corrupt
 * section then resolves nothing.  The -errno and the line the open would
 * have given (appended to err) once that happened, else 0; asked by
 * whoever prints, before it takes the next record and when it is done.
 */
int tracedat_late_error(const struct tracedat *td, struct strbuf *err);

/*
 * The formats that did not parse: the file is read on, their events
 * printed as trace-cmd prints them.  id is the event's (-1 where even
 * that is unreadable), what "event SYS:NAME: what is wrong".
 */
struct tracedat_bad_format {
	int id;
	char *what;
};

int tracedat_bad_formats(const struct tracedat *td,
			 const struct tracedat_bad_format **bad);

/*
 * Parses one event format into tep as the reader does, in this process:
 * libtraceevent 1.7.1 is given the format only as far as its lines look
 * as the kernel writes them (the print fmt in the grammar the reader
 * states), then a line that fails, so that it keeps the fields before
 * and marks the event failed; nothing without a sane "format:" line.
 * Returns that length (len for all of it); *event is the event made, or
 * NULL.
 */
size_t tracedat_format_parse(struct tep_handle *tep, const char *text,
			     size_t len, const char *system,
			     struct tep_event **event);

/*
 * The size of one element of a field of type (the kernel's probe types,
 * s32 or x8, and C's, unsigned char or long; "__data_loc " skipped), 0
 * for a type it does not know.
 */
unsigned int tracedat_type_size(const char *type, int long_size);

/* Buffer 0 is the top-level buffer (name ""); the rest are instances. */
int tracedat_nr_buffers(const struct tracedat *td);
const char *tracedat_buffer_name(const struct tracedat *td, int buffer);
int tracedat_buffer_nr_cpus(const struct tracedat *td, int buffer);
/* The CPU number of the idx-th per-CPU stream of a buffer. */
int tracedat_buffer_cpu(const struct tracedat *td, int buffer, int idx);
uint64_t tracedat_buffer_data_size(const struct tracedat *td, int buffer);

#endif
