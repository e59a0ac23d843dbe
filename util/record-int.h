/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_RECORD_INT_H
#define TK_RECORD_INT_H

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/record.h"
#include "util/run-command.h"
#include "util/strbuf.h"

/*
 * The parts of util/record.c, which only they include: record.c runs the
 * session and its wait loop, record-setup.c the tracefs instance, events,
 * CPUs, pid filter and per-CPU stats, record-readers.c the reader and
 * compressor threads, record-output.c the output file, its metadata and
 * its trailer, record-ksyms.c whether that needs /proc/kallsyms.
 */

/*
 * Pages per compressed chunk (1 MB of 4 KB pages).  Each chunk is a
 * handoff from its reader to the compressor (futex wake-ups, context
 * switches, a readv() and a write()): in the guest (bench/record-vm.sh's
 * workload, one CPU, 7 rounds alternating) 32 pages took a median 1.40
 * s of CPU, 128 pages 1.16 s, 256 pages 1.08 s, trace-cmd record 2.55 s;
 * files 2-6% smaller too (two such runs).
 */
#define CHUNK_PAGES	256

struct cpu_stats {
	uint64_t entries, overrun, commit_overrun, dropped, read;
	/* not read yet; -1: the stats have no such line */
	int64_t bytes;
};

struct chunk {
	struct chunk *next;
	struct cpu_reader *r;
	size_t len;
	unsigned char data[];
};

/*
 * One CPU's reader.  The main thread sets up rec to base before the
 * threads start; bytes_in is the reader thread's, held the reader's and
 * the compressor's under the lock; comp is the compressor's (the scratch
 * files, which the main thread opens before and joins after).
 */
struct cpu_reader {
	struct record *rec;
	int cpu;
	int fd;			/* trace_pipe_raw */
	/* record_live: the chunk the main loop reads into */
	struct chunk *live;
	int stats_fd;		/* per_cpu/cpuN/stats: record_read_stats() */
	pthread_t thread;
	int started;
	uint64_t ring_bytes;	/* this CPU's ring buffer */
	struct cpu_stats base;
	uint64_t bytes_in;	/* atomic */
	/* under the lock: chunks out of the free list */
	int held;

	struct {
		int scratch;		/* this CPU's chunks */
		/*
		 * -m: the half before (see rotate_scratch()), -1 until there
		 * is one
		 */
		int scratch_old;
		uint64_t old_size;
		uint32_t old_chunks;
		uint64_t cur_in;	/* ring-buffer bytes in scratch */
		uint64_t scratch_size;
		uint32_t nr_chunks;
		uint64_t bytes_out;	/* atomic */
	} comp;
};

struct event_name {
	char *system;
	char *name;
	const char *filter;	/* the -f that goes with it, or NULL */
	struct strbuf format;	/* events/SYS/NAME/format, read once */
};

/*
 * A recording, its fields grouped by the thread that writes them: setup,
 * out and wait are the main thread's, setup written only before the
 * reader and compressor threads start (record_start_threads()); threads
 * is those threads'; msgs any thread's.  The threads read setup, and the
 * output file's path and directory for their scratch files.
 */
struct record {
	const struct record_opts *o;
	const struct record_hooks *hooks;

	/*
	 * The main thread's, before the threads start (record.c,
	 * record-setup.c, record-ksyms.c): the instance, the sizes, the
	 * CPUs (whose readers write their own struct cpu_reader) and the
	 * events.
	 */
	struct {
		const char *inst;	/* NULL: top level */
		char inst_name[64];
		int inst_reused;	/* -B named one that was there: kept */
		unsigned int psize;	/* ring-buffer sub-buffer size */
		size_t chunk_size;
		int nr_sys_cpus;
		struct cpu_reader *cpus;
		int nr_cpus;
		struct event_name *events;
		int nr_events, alloc_events;
		/* --proc-map, or implied by an event of probe --call-graph */
		int proc_map;
		/* "SYSTEM EVENT FIELD WIDTH\n" from the probes' notes */
		struct strbuf signed_fields;
		/* bitmap: the events that name code (record-ksyms.c) */
		unsigned char *ksym_ids;
		/* header_page: the size of a sub-buffer's commit field */
		unsigned int commit_size;
	} setup;

	/*
	 * The reader and compressor threads' (record-readers.c): the chunks
	 * between them, under lock; stop_fd is the main loop's word to
	 * them, fail_fd theirs to it; the main thread starts and joins
	 * them.
	 */
	struct {
		int stop_fd;		/* readers: drain and stop */
		int fail_fd;		/* main loop: a worker failed */
		pthread_mutex_t lock;
		pthread_cond_t queued, freed;
		struct chunk *head, **tail, *free;
		size_t allocated;	/* chunks made */
		/* a ring buffer filled while its reader waited */
		int behind;
		int closed;
		int err;
		pthread_t compressor;
		int compressor_started;
		/*
		 * Atomic: whether the file needs /proc/kallsyms, set by setup
		 * or by a reader (record-ksyms.c).
		 */
		int ksyms_needed;
	} threads;

	/*
	 * The main thread's output file (record-output.c); with record_live
	 * and no output, none (fd -1, no path).
	 */
	struct {
		char *path;
		char *dir;
		int fd;
		/* a named temporary, when O_TMPFILE is not there */
		char *tmp;
		struct tracedat_writer *w;
	} out;

	/*
	 * The main thread's wait loop (record.c, record-procmap.c): COMMAND
	 * and the processes --proc-map traces.
	 */
	struct {
		struct child_process cmd;
		/* COMMAND's, when --proc-map reaped it */
		int cmd_status;
		struct procmap *procmaps;
		int nr_procmaps, alloc_procmaps;
	} wait;

	/* Any thread's: the errors for the caller's err (record_error()). */
	struct {
		pthread_mutex_t lock;
		struct strbuf *sb;
	} msgs;
};


static inline int is_dir_entry(const struct dirent *de)
{
	return de->d_type == DT_DIR && de->d_name[0] != '.';
}

/* record.c: the caller's err and warn hook, callable from any thread */
void record_error(struct record *rec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void record_warn(struct record *rec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* record-setup.c */
int record_setup_tracefs(struct record *rec);
int record_set_pid_filter(struct record *rec, pid_t pid, int children);
unsigned int record_subbuf_size(struct record *rec);
/* per_cpu/cpuN/stats of an open reader; text, if given, gets them whole */
int record_read_stats(struct cpu_reader *r, struct cpu_stats *st,
		      struct strbuf *text);
/* per_cpu/cpuN/buffer_size_kb, 0 when unreadable */
uint64_t record_ring_kb(struct record *rec, int cpu);
uint64_t record_stats_lost(const struct cpu_stats *now,
			   const struct cpu_stats *base);

/* record-output.c */
int record_open_output(struct record *rec);
int record_open_scratch(struct record *rec, const char *base);
int record_write_metadata(struct record *rec);
int record_write_snapshot(struct record *rec, int fd);
int record_write_trailer(struct record *rec, struct record_result *res);
int record_publish_output(struct record *rec);

/*
 * record-ksyms.c: setup notes what needs kallsyms whatever the events,
 * then each format (and header_page) the file gets; the readers scan
 * what they read for the events noted; ksyms_needed tells the trailer.
 */
void record_ksyms_setup(struct record *rec);
void record_ksyms_note_format(struct record *rec, const char *format);
void record_ksyms_note_header_page(struct record *rec, const char *text);
void record_ksyms_scan(struct record *rec, const unsigned char *pages,
		       size_t len);
int record_ksyms_any(const struct record *rec);

/*
 * record-procmap.c: --proc-map.  attach traces pid (and with follow the
 * children it forks) until its exit, reading its maps then (and at once
 * with read_now); reap handles the stops SIGCHLD announced, returning 1
 * when COMMAND has exited (its status in *cmd_status); finish reads and
 * detaches the processes still running; write adds the PROCMAPS options.
 */
int record_procmap_attach(struct record *rec, pid_t pid, int follow,
			  int read_now);
int record_procmap_reap(struct record *rec, int *cmd_status);
void record_procmap_finish(struct record *rec);
void record_procmap_write(struct record *rec);
void record_procmap_release(struct record *rec);

/* record-readers.c */
int record_open_readers(struct record *rec);
int record_start_threads(struct record *rec);
void record_stop_threads(struct record *rec);
/* After the threads: -m's two halves of each CPU made one, in order. */
int record_join_scratch(struct record *rec);
/*
 * record_live: every CPU read, its pages handed over, then the round
 * told; last once tracing is off, which also queues what the file is
 * still to get.
 */
int record_live_read(struct record *rec, int last);
void record_close_readers(struct record *rec);

#endif
