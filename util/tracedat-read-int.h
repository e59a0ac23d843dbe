/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_READ_INT_H
#define TK_TRACEDAT_READ_INT_H

/*
 * What the reader (tracedat-read.c) and the merge of its per-CPU streams
 * (tracedat-merge.c) share, and nobody else: the opened file and the
 * primitives that read it with bounds checks and offsets in every error.
 */
#include <endian.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>
#include <zstd.h>

#include "util/strbuf.h"
#include "util/tracedat.h"
#include "util/tracedat-read.h"

#define MAX_CHUNK_SIZE		(64u << 20)
/* Zeros after every data buffer: kbuffer peeks a few bytes past an event
 * header and libtraceevent's %s stops at the first NUL. */
#define BUF_PAD			64

struct td_cpu {
	int cpu;
	uint64_t offset, size;
};

struct td_buffer {
	char *name;
	char *clock;
	unsigned int page_size;
	uint64_t section;	/* v7 flyrecord section, v6 "flyrecord" mark */
	int nr_cpus;
	struct td_cpu *cpus;
};

/* Texts of the file that tracedat_info shows, owned by struct tracedat. */
enum td_text {
	TD_COMPRESSION,
	TD_COMPRESSION_VERSION,
	TD_CLOCK,
	TD_UNAME,
	TD_TRACER_VERSION,
	TD_NR_TEXTS,
};

/* The file header's compression name: trace-cmd writes zstd, or zlib
 * where it was built without libzstd (lib/trace-cmd/trace-compress-*.c). */
enum td_compression {
	TD_COMPRESS_NONE,
	TD_COMPRESS_ZSTD,
	TD_COMPRESS_ZLIB,
};

/*
 * TIME_SHIFT: a guest file's corrections to its host's clock, per guest
 * CPU a set of samples sorted by time (trace-cmd's trace-input.c,
 * tsync_cpu_offsets_load()).
 */
struct td_tsync_sample {
	int64_t time, offset, scaling, fraction;
};

struct td_tsync {
	uint32_t flags;			/* TRACEDAT_TSYNC_INTERPOLATE */
	int nr_cpus;
	int *nr_samples;		/* by CPU */
	struct td_tsync_sample **samples;
};

/* A format kept as text until a record of its id is read. */
struct td_format {
	const char *text;
	size_t len;
	const char *system;		/* one of tracedat's systems */
	int owned;			/* text malloc'ed, else in formats_mem */
};

struct td_syms;

/* A signed bitfield of TK_SIGNED_FIELDS, in the records of event id. */
struct td_signed_field {
	int id;
	unsigned int offset, size;	/* the field, as its format has it */
	unsigned int width;		/* its bits, the top one the sign */
};

struct tracedat {
	char *path;
	int fd;
	/* Where the public call in progress reports (its caller's err). */
	struct strbuf *err;
	struct tracedat_info info;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	int guarded;			/* formats parsed in the guard first */
	struct td_guard {		/* a child that parses them (or pid 0) */
		pid_t pid;
		int fd;
	} guard;
	ZSTD_DCtx *zctx;
	enum td_compression compression;
	int have_clock_option;
	long long ts_offset;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
	struct td_tsync tsync;		/* nr_cpus 0: none */
	uint64_t sec_off[TRACEDAT_OPT_CMDLINES + 1];
	struct td_buffer *buffers;
	int nr_buffers;
	struct strbuf cpustats;
	struct tracedat_bad_format *bad;
	int nr_bad;
	struct td_format **pending;	/* by id: formats not parsed yet */
	int nr_pending;
	char **systems;			/* the names pending formats point to */
	int nr_systems;
	char *kallsyms;			/* the text, until the first lookup */
	void *kallsyms_mem;		/* what holds it */
	void *formats_mem;		/* the event formats section, pending texts in it */
	uint64_t kallsyms_sec;		/* a v7 section not read yet, or 0 */
	struct strbuf late_err;		/* why it did not read, at a lookup */
	int resolver_set;		/* resolve_function() is the handle's */
	struct td_syms *syms;		/* what the lookups search, once built */
	struct tep_handle *ksyms;	/* or, for text of another shape, this */
	int want_symbols;		/* a format names a function */
	char **sym_names;		/* names formats used before the kallsyms came */
	int nr_sym_names;
	struct strbuf procmaps;		/* the PROCMAPS texts, one after another */
	struct strbuf build_ids;	/* TK_BUILDIDS texts */
	struct strbuf signed_text;	/* TK_SIGNED_FIELDS texts */
	struct td_signed_field *signed_fields;	/* those found in their formats */
	int nr_signed_fields;
	char *text[TD_NR_TEXTS];
};

/* Appends "FILE: offset N: what" to td->err; returns -1. */
int tracedat_bad(struct tracedat *td, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* All n bytes at off, or -1 (reported). */
int tracedat_pread(struct tracedat *td, void *dst, size_t n, uint64_t off,
		   const char *what);

/*
 * Decompresses src (csize bytes at file offset off) into exactly usize
 * bytes at dst, with the file's compression; 0, or -1 with "corrupt
 * zstd WHAT: why" reported.
 */
int tracedat_decompress(struct tracedat *td, void *dst, uint64_t usize, const void *src,
			uint64_t csize, uint64_t off, const char *what);

/* Parses the format of rec's event if it is still pending. */
void tracedat_parse_pending(struct tracedat *td, int id);

/*
 * Sign-extends in rec, an event id's record, the fields TK_SIGNED_FIELDS
 * names, which the kernel stored unsigned: the format they were parsed
 * with declares them signed.  Doing it again changes nothing.
 */
void tracedat_sign_extend(const struct tracedat *td, int id, struct tep_record *rec);

/* The host's time of a guest's raw timestamp ts on cpu: 0 samples, none. */
uint64_t tracedat_tsync(const struct td_tsync *t, int cpu, uint64_t ts);

/* A 2, 4 or 8-byte number in the file's byte order. */
static inline uint64_t tracedat_num(const struct tracedat *td, const void *p,
				    int size)
{
	uint64_t v = 0;
	uint32_t v32;
	uint16_t v16;

	switch (size) {
	case 2:
		memcpy(&v16, p, 2);
		return td->info.big_endian ? be16toh(v16) : le16toh(v16);
	case 4:
		memcpy(&v32, p, 4);
		return td->info.big_endian ? be32toh(v32) : le32toh(v32);
	default:
		memcpy(&v, p, 8);
		return td->info.big_endian ? be64toh(v) : le64toh(v);
	}
}

#endif
