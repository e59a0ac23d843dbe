/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_WRITE_H
#define TK_TRACEDAT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/tracedat.h"

/*
 * trace.dat version 7 writer (layout: util/tracedat.h).  The file is a
 * header followed by back-to-back sections; metadata sections are written
 * as they are added, the options, the flyrecord data and the strings when
 * the file is finished.  All functions return 0 or -errno.
 */
struct tracedat_writer;

/*
 * Starts a file on fd (empty, positioned at 0).  zlevel < 0 writes an
 * uncompressed file ("none"), otherwise zstd at that level.
 */
int tracedat_write_new(int fd, unsigned int page_size, int zlevel,
		       struct tracedat_writer **out);
void tracedat_write_free(struct tracedat_writer *w);

/* Writes a metadata section (HEADER_INFO..CMDLINES) and its option. */
int tracedat_write_section(struct tracedat_writer *w, enum tracedat_option id,
		const void *data, size_t len);
/* Queues an option for the first options section. */
int tracedat_write_option(struct tracedat_writer *w, enum tracedat_option id,
	       const void *data, size_t len);
/* Same, for a string: the NUL is part of the option. */
int tracedat_write_option_str(struct tracedat_writer *w,
			      enum tracedat_option id, const char *s);

/*
 * Ring-buffer pages of one CPU are stored as a sequence of chunks.  A
 * chunk encoder turns len bytes of whole pages into one chunk (u32
 * compressed size, u32 size, zstd frame), or copies them when the file
 * is uncompressed.  One encoder per thread.
 */
struct tracedat_chunker;
int tracedat_chunker_new(int zlevel, struct tracedat_chunker **out);
void tracedat_chunker_free(struct tracedat_chunker *c);
int tracedat_chunk_encode(struct tracedat_chunker *c, const void *pages,
			  size_t len, struct strbuf *out);

/* One CPU's chunks, in a scratch file read from offset 0. */
struct tracedat_write_cpu_data {
	int cpu;
	int fd;
	uint64_t size;		/* bytes in fd */
	uint32_t nr_chunks;
};

/*
 * Writes the options, the flyrecord section of one buffer (name "" is
 * the top level) holding the CPUs' data, and the strings; then points
 * the header at the options.  The file is complete when this returns 0.
 */
int tracedat_write_finish(struct tracedat_writer *w, const char *name,
			  const char *clock, unsigned int buf_page_size,
			  const struct tracedat_write_cpu_data *cpus,
			  int nr_cpus);

/* Bytes written so far. */
uint64_t tracedat_write_offset(const struct tracedat_writer *w);

/* Little-endian serialisation helpers for section payloads. */
void tracedat_write_put_u32(struct strbuf *sb, uint32_t v);
void tracedat_write_put_u64(struct strbuf *sb, uint64_t v);
/* v, 4 or 8 bytes little-endian, at p: a count or length known late. */
void tracedat_write_set_le(char *p, uint64_t v, int bytes);

#endif
