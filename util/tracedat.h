/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_H
#define TK_TRACEDAT_H

/*
 * trace.dat constants shared by the reader and the writer.
 * Source: trace-cmd Documentation/trace-cmd/trace-cmd.dat.v7.5.txt and
 * .v6.5.txt, checked against files written by trace-cmd 3.1.6 on this
 * host (`trace-cmd dump --summary --options --flyrecord`, xxd).  Where the
 * files and the v7 text disagree, the files win (noted below).
 */

/* "\027\010\104tracing": 3 magic bytes + "tracing", then "6\0" or "7\0". */
#define TRACEDAT_MAGIC		"\027\010\104tracing"
#define TRACEDAT_MAGIC_LEN	10
/* The version tracekit record writes. */
#define TRACEDAT_VERSION	7

/*
 * v7 section header: u16 id, u16 flags, u32 string id (description, an
 * offset into the STRINGS sections), u64 size.  The v7 text says the size
 * is 4 bytes; trace-cmd 3.1.6 writes 8 (16-byte header in its files).
 */
#define TRACEDAT_SECTION_HDR_SIZE	16
#define TRACEDAT_SEC_FL_COMPRESS	0x1

/*
 * Option ids (u16 id, u32 size, data).  In v7 the metadata sections use
 * the id of the option that points at them as their section id, and an
 * options section has id 0 (DONE).
 */
enum tracedat_option {
	/* v7: u64 offset of next options section */
	TRACEDAT_OPT_DONE = 0,
	TRACEDAT_OPT_DATE = 1,		/* ASCII, "0x" prefixed usecs offset */
	TRACEDAT_OPT_CPUSTAT = 2,	/* per_cpu/cpuN/stats text */
	TRACEDAT_OPT_BUFFER = 3,	/* flyrecord buffer (instance) */
	TRACEDAT_OPT_TRACECLOCK = 4,	/* trace_clock file text */
	TRACEDAT_OPT_UNAME = 5,
	TRACEDAT_OPT_HOOK = 6,
	TRACEDAT_OPT_OFFSET = 7,	/* ASCII ns added to every timestamp */
	TRACEDAT_OPT_CPUCOUNT = 8,	/* u32 */
	TRACEDAT_OPT_VERSION = 9,
	TRACEDAT_OPT_PROCMAPS = 10,
	TRACEDAT_OPT_TRACEID = 11,	/* u64 */
	/*
	 * u64 peer trace id, u32 flags, u32 CPU count, per CPU: u32 count,
	 * s64 times[count], offsets[count], scalings[count]; then per CPU
	 * s64 fraction bits[count] (trace-cmd 3.x,
	 * lib/trace-cmd/trace-input.c)
	 */
	TRACEDAT_OPT_TIME_SHIFT = 12,
	/* host side: name, trace id, vCPU to pid */
	TRACEDAT_OPT_GUEST = 13,
	TRACEDAT_OPT_TSC2NSEC = 14,	/* u32 mult, u32 shift, u64 offset */
	/* v7 section id of the strings section */
	TRACEDAT_OPT_STRINGS = 15,
	TRACEDAT_OPT_HEADER_INFO = 16,	/* u64 section offsets from here on */
	TRACEDAT_OPT_FTRACE_EVENTS = 17,
	TRACEDAT_OPT_EVENT_FORMATS = 18,
	TRACEDAT_OPT_KALLSYMS = 19,
	TRACEDAT_OPT_PRINTK = 20,
	TRACEDAT_OPT_CMDLINES = 21,
	TRACEDAT_OPT_BUFFER_TEXT = 22,	/* latency (text) buffer */
	/*
	 * tracekit's own, far from trace-cmd's numbers, which trace-cmd
	 * 3.1 skips: "BUILDID PATH\n" (hex) for each file PROCMAPS names,
	 * so that report can tell a binary changed since the recording.
	 */
	TRACEDAT_OPT_TK_BUILDIDS = 0x7401,
	/*
	 * tracekit's own: "SYSTEM EVENT FIELD WIDTH\n" for each signed
	 * bitfield a probe fetches with the kernel's b type, which has no
	 * sign (util/probe-note.h), for report to sign-extend from WIDTH.
	 */
	TRACEDAT_OPT_TK_SIGNED_FIELDS = 0x7402,
};

/*
 * TIME_SHIFT flags: interpolate between samples
 * (TRACECMD_TSYNC_FLAG_INTERPOLATE)
 */
#define TRACEDAT_TSYNC_INTERPOLATE	0x1

/* Section ids equal the option that points at them. */
#define TRACEDAT_SEC_OPTIONS	TRACEDAT_OPT_DONE
#define TRACEDAT_SEC_FLYRECORD	TRACEDAT_OPT_BUFFER

/*
 * v7 BUFFER option data as trace-cmd 3.1.6 writes it: u64 flyrecord
 * section offset, name "\0" ("" = top level), clock "\0", u32 page size
 * (missing from the v7 text), u32 cpu count, then per cpu u32 id, u64 data
 * offset, u64 data size.  v6 BUFFER is only u64 offset + name.
 */

/*
 * Compressed flyrecord data (v7): u32 chunk count, then per chunk u32
 * compressed size, u32 uncompressed size (a multiple of the page size),
 * compressed bytes.  The BUFFER option's per-CPU size counts the chunks
 * but not the leading u32 count (trace-cmd 3.1.6 files).  Compressed
 * metadata sections: u32 compressed size, u32 uncompressed size, data.
 */
#define TRACEDAT_CHUNK_HDR_SIZE		8

/*
 * Ring-buffer sub-buffer header (events/header_page): u64 timestamp, then
 * a long "commit" whose low 27 bits are the data size and whose top bits
 * flag missed events (bit 31) and a stored missed count after the data
 * (bit 30).  Source: kernel/trace/ring_buffer.c, libtraceevent kbuffer.
 */
#define TRACEDAT_COMMIT_MASK		((1u << 27) - 1)
#define TRACEDAT_MISSING_EVENTS		(1u << 31)
#define TRACEDAT_MISSING_STORED		(1u << 30)

#endif
