/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_H
#define TK_TRACEDAT_H

/*
 * trace.dat constants shared by the writer and the reader.  Source:
 * trace-cmd's Documentation/trace-cmd/trace-cmd.dat.v7.5.txt and
 * lib/trace-cmd/include/private/trace-cmd-private.h (enum with
 * TRACECMD_OPTION_DONE...), confirmed against `trace-cmd extract` files
 * written by trace-cmd 3.1.6 on the development host.
 */

/* "\027\010\104tracing": 3 magic bytes, then the word. */
#define TRACEDAT_MAGIC		"\027\010\104tracing"
#define TRACEDAT_MAGIC_LEN	10
#define TRACEDAT_VERSION	7

/*
 * v7 section header: u16 id, u16 flags, u32 description (offset into the
 * strings section), u64 size of what follows.  Measured: 16 bytes (the
 * v7.5 text says the size is 4 bytes; trace-cmd writes 8).
 */
#define TRACEDAT_SECTION_HDR_SIZE	16
#define TRACEDAT_SEC_FL_COMPRESS	0x1

/* Option ids; section ids reuse them (options section = 0). */
enum tracedat_option {
	TRACEDAT_OPT_DONE = 0,
	TRACEDAT_OPT_DATE = 1,
	TRACEDAT_OPT_CPUSTAT = 2,
	TRACEDAT_OPT_BUFFER = 3,
	TRACEDAT_OPT_TRACECLOCK = 4,
	TRACEDAT_OPT_UNAME = 5,
	TRACEDAT_OPT_HOOK = 6,
	TRACEDAT_OPT_OFFSET = 7,
	TRACEDAT_OPT_CPUCOUNT = 8,
	TRACEDAT_OPT_VERSION = 9,
	TRACEDAT_OPT_PROCMAPS = 10,
	TRACEDAT_OPT_TRACEID = 11,
	TRACEDAT_OPT_TIME_SHIFT = 12,
	TRACEDAT_OPT_GUEST = 13,
	TRACEDAT_OPT_TSC2NSEC = 14,
	TRACEDAT_OPT_STRINGS = 15,
	TRACEDAT_OPT_HEADER_INFO = 16,
	TRACEDAT_OPT_FTRACE_EVENTS = 17,
	TRACEDAT_OPT_EVENT_FORMATS = 18,
	TRACEDAT_OPT_KALLSYMS = 19,
	TRACEDAT_OPT_PRINTK = 20,
	TRACEDAT_OPT_CMDLINES = 21,
	TRACEDAT_OPT_BUFFER_TEXT = 22,
};

/* Section ids equal the option that points at them. */
#define TRACEDAT_SEC_OPTIONS	TRACEDAT_OPT_DONE
#define TRACEDAT_SEC_FLYRECORD	TRACEDAT_OPT_BUFFER

/*
 * Compressed sections: u32 compressed size, u32 uncompressed size, data.
 * Flyrecord CPU data: u32 chunk count, then per chunk the same two u32
 * and the data; a chunk holds whole ring-buffer pages.
 */
#define TRACEDAT_COMPRESS_HDR_SIZE	8

#endif
