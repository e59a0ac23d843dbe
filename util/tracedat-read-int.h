/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_READ_INT_H
#define TK_TRACEDAT_READ_INT_H

/*
 * What the reader's files (tracedat-read.c, the sections; -format, the
 * checks on event formats; -events, their parsing; -kallsyms; -options;
 * -tsync, the time sync; -compress; -info, the accessors) and the merge
 * of its per-CPU streams
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
/* Sanity limit: far above real files, low enough to refuse absurd ones. */
#define MAX_CPUS		4096
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
	int owned;			/* text malloc'ed, else in
					 * formats_mem */
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
	/* A child that parses them (or pid 0). */
	struct td_guard {
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
	/* The event formats section, pending texts in it. */
	void *formats_mem;
	uint64_t kallsyms_sec;		/* a v7 section not read yet, or 0 */
	struct strbuf late_err;		/* why it did not read, at a lookup */
	int late_ret;			/* and its -errno */
	int resolver_set;		/* resolve_function() is the handle's */
	/* What the lookups search, once built; or, for text of another
	 * shape, ksyms. */
	struct td_syms *syms;
	struct tep_handle *ksyms;
	int want_symbols;		/* a format names a function */
	/* Names formats used before the kallsyms came. */
	char **sym_names;
	int nr_sym_names;
	/* The PROCMAPS texts, one after another. */
	struct strbuf procmaps;
	struct strbuf build_ids;	/* TK_BUILDIDS texts */
	struct strbuf signed_text;	/* TK_SIGNED_FIELDS texts */
	/* The TK_SIGNED_FIELDS found in their formats. */
	struct td_signed_field *signed_fields;
	int nr_signed_fields;
	char *text[TD_NR_TEXTS];
};

/* Appends "FILE: offset N: what" to td->err; returns -EINVAL. */
int tracedat_bad(struct tracedat *td, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * All n bytes at off; or, reported, -EINVAL where the file is too short,
 * -errno where the read fails (-EIO at an end of file stat did not say).
 */
int tracedat_pread(struct tracedat *td, void *dst, size_t n, uint64_t off,
		   const char *what);

/*
 * Decompresses src (csize bytes at file offset off) into exactly usize
 * bytes at dst, with the file's compression; 0, or -EINVAL with "corrupt
 * zstd WHAT: why" reported.
 */
int tracedat_decompress(struct tracedat *td, void *dst, uint64_t usize,
			const void *src, uint64_t csize, uint64_t off,
			const char *what);

/* Parses the format of rec's event if it is still pending. */
void tracedat_parse_pending(struct tracedat *td, int id);

/*
 * Sign-extends in rec, an event id's record, the fields TK_SIGNED_FIELDS
 * names, which the kernel stored unsigned: the format they were parsed
 * with declares them signed.  Doing it again changes nothing.
 */
void tracedat_sign_extend(const struct tracedat *td, int id,
			  struct tep_record *rec);

/* The host's time of a guest's raw timestamp ts on cpu: 0 samples, none. */
uint64_t tracedat_tsync(const struct td_tsync *t, int cpu, uint64_t ts);

/*
 * Whether usize bytes, claimed for csize compressed bytes at off, are
 * believable before they are allocated: 0, or -EINVAL reported.
 */
int tracedat_claimed_size_sane(struct tracedat *td, const void *cdata,
			       uint64_t csize, uint64_t usize, uint64_t off);

/* Makes the pages of a fresh buffer of n bytes present in one call. */
void tracedat_prefault(void *p, size_t n);

/*
 * The safety checks (tracedat-format.c).  tracedat_parse_upto() parses
 * the first sane bytes of a format of len into tep (*event, or NULL);
 * tracedat_guarded_sane_part() says how many bytes of it this process
 * may hand libtraceevent, *died whether the guard died on it.
 */
void tracedat_parse_upto(struct tep_handle *tep, const char *data, size_t len,
			 size_t sane, const char *system,
			 struct tep_event **event);
size_t tracedat_guarded_sane_part(struct tracedat *td, const char *data,
				  size_t len, const char *system, int *died);
/* Ends the guard, if there is one. */
void tracedat_guard_stop(struct tracedat *td);
/* The "name: " of a format, printable or "?", into name. */
void tracedat_format_name(const char *text, size_t len, char *name,
			  size_t size);
/* The id of a format's "ID: N" line, or -1. */
int tracedat_format_id(const char *text, size_t len);

/*
 * Adds a format of the event system (which lives as long as td): parsed
 * at once, or when lazy kept until a record of its id (owned: data is
 * malloc'ed and td takes it, else it lies in td->formats_mem).
 */
void tracedat_add_format(struct tracedat *td, const char *data, size_t len,
			 const char *system, int lazy, int owned);

/*
 * The kallsyms (tracedat-kallsyms.c).  tracedat_set_kallsyms() gives td
 * the text, NUL-terminated in mem (malloc'ed), which td takes;
 * tracedat_set_resolver() makes the handle resolve through the table;
 * tracedat_names_symbol() says whether an event's print fmt names a
 * function of the kallsyms, which tracedat_register_symbols() then
 * registers into the handle.
 */
void tracedat_set_kallsyms(struct tracedat *td, char *text, void *mem);
void tracedat_set_resolver(struct tracedat *td);
int tracedat_names_symbol(struct tracedat *td, const struct tep_event *ev);
void tracedat_register_symbols(struct tracedat *td);
void tracedat_syms_free(struct td_syms *st);
/* Reads the kallsyms section now if it waits (tracedat-read.c). */
void tracedat_kallsyms_now(struct tracedat *td);

/*
 * Sets in td what the option id (len bytes at file offset off) says; 0,
 * or -errno reported.
 */
int tracedat_handle_option(struct tracedat *td, unsigned int id, char *data,
			   uint64_t len, uint64_t off);
/* The clock of a TRACECLOCK text, "[local] global ...". */
void tracedat_parse_clock(struct tracedat *td, const char *text);
/* A BUFFER option: a new buffer of td; 0, or -errno reported. */
int tracedat_parse_buffer_option(struct tracedat *td, const char *data,
				 uint64_t len, uint64_t off);

/* The TIME_SHIFT option into td->tsync; 0, or -EINVAL reported. */
int tracedat_parse_time_shift(struct tracedat *td, const char *data,
			      uint64_t len, uint64_t off);
void tracedat_tsync_release(struct td_tsync *t);

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
