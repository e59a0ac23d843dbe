/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_READ_H
#define TK_TRACEDAT_READ_H

#include <stdint.h>
#include <traceevent/event-parse.h>

/*
 * trace.dat reader (versions 6 and 7, zstd or uncompressed).  Opening a
 * file loads its metadata (event formats, kallsyms, printk formats,
 * cmdlines, options) into a libtraceevent handle; the per-CPU ring-buffer
 * pages are then streamed, one compressed chunk per CPU in memory at a
 * time, and decoded with kbuffer.  Every problem in the file is reported
 * once with error() as "FILE: offset N: what" and returned as -1.
 */

struct tracedat;

/* Event ids are below 64K: the kernel keeps them in a u16 common_type. */
#define TRACEDAT_MAX_EVENT_ID	65536

struct tracedat_info {
	int version;			/* 6 or 7 */
	int big_endian;
	int long_size;
	unsigned int page_size;
	const char *compression;	/* "zstd", "none" */
	const char *compression_version;
	int cpus;			/* CPUCOUNT (or the top buffer's) */
	const char *clock;		/* from TRACECLOCK, "" if absent */
	int in_usecs;			/* timestamps are ns of a usec-able clock */
	const char *uname;
	const char *tracer_version;
	const char *cpustats;		/* CPUSTAT texts, one per CPU and buffer */
	uint64_t file_size;
};

enum tracedat_open_flags {
	/* Leave out libtraceevent's plugins (the fuzzer, mostly: loading
	 * them is a dozen dlopen()s per file). */
	TRACEDAT_NO_PLUGINS = 1 << 0,
};

int tracedat_open(const char *path, unsigned int flags, struct tracedat **out);
void tracedat_close(struct tracedat *td);

const char *tracedat_path(const struct tracedat *td);
const struct tracedat_info *tracedat_info(const struct tracedat *td);
struct tep_handle *tracedat_tep(const struct tracedat *td);

/* Buffer 0 is the top-level buffer (name ""); the rest are instances. */
int tracedat_nr_buffers(const struct tracedat *td);
const char *tracedat_buffer_name(const struct tracedat *td, int buffer);
int tracedat_buffer_nr_cpus(const struct tracedat *td, int buffer);
/* The CPU number of the idx-th per-CPU stream of a buffer. */
int tracedat_buffer_cpu(const struct tracedat *td, int buffer, int idx);
uint64_t tracedat_buffer_data_size(const struct tracedat *td, int buffer);

/*
 * A timestamp-ordered merge of per-CPU streams from any number of files
 * and buffers: a binary heap, O(log streams) per event.  Ties go to the
 * stream added first, which is trace-cmd's order (buffer, then CPU).
 */
struct tracedat_merge;

struct tracedat_event {
	struct tep_record *rec;		/* valid until the next call; offset is
					 * the file offset of its page or chunk */
	struct tracedat *td;
	int buffer;
	int source;			/* index of the stream, in add order */
};

struct tracedat_merge *tracedat_merge_new(void);
/* Adds the idx-th CPU stream of a buffer; 0 or -1 (reported). */
int tracedat_merge_add(struct tracedat_merge *m, struct tracedat *td,
		       int buffer, int idx);
/* 1 with ev filled, 0 at the end, -1 on a corrupt file (reported). */
int tracedat_merge_next(struct tracedat_merge *m, struct tracedat_event *ev);
void tracedat_merge_free(struct tracedat_merge *m);

#endif
