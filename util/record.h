/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_RECORD_H
#define TK_RECORD_H

#include <stdint.h>

struct strbuf;

/*
 * `tracekit record`: enables events in a private tracefs instance (or the
 * top level), reads every CPU's ring buffer from trace_pipe_raw in its own
 * thread, compresses in another, and writes a trace.dat v7 file.  All
 * tracefs changes go through util/tracefs-restore.h and are undone at the end,
 * on error and on fatal signals.
 */

struct record_event {
	const char *spec;	/* SYSTEM:EVENT, SYSTEM or GLOB */
	const char *filter;	/* -f for this spec, or NULL */
};

/* A list of arguments, in the order given (-l FUNC, -O OPTION, ...). */
struct record_strings {
	int nr;
	const char **v;
};

/*
 * tracekit trace's live view.  The main loop, not a reader thread per
 * CPU waiting for full pages, reads every CPU's ring buffer each
 * period_ms, the page being written included (a read() of
 * trace_pipe_raw copies the events committed so far out of it), and
 * hands the pages over.  Without an output file none is written.  Each
 * callback returns 0, or a negative errno with the reason in err, which
 * ends the recording.
 */
struct record_live_event {
	const char *system, *name;
	const char *filter;		/* its -f, or NULL */
};

/* What the live view starts with. */
struct record_live_start {
	/*
	 * A trace.dat of no events with the formats, symbols, tasks and
	 * CPUs the pages are read with.
	 */
	int fd;
	const char *instance;		/* NULL: the top level */
	const struct record_live_event *events;	/* those enabled */
	int nr_events;
};

struct record_live {
	unsigned int period_ms;
	/*
	 * The events are not enabled, their filters not set: start() puts
	 * triggers on them (hist triggers enable an event for themselves,
	 * nothing of it written to the ring buffer).
	 */
	int events_off;
	/* Before tracing starts. */
	int (*start)(void *data, const struct record_live_start *st,
		     struct strbuf *err);
	/* Whole pages of the idx-th CPU of the file start() was given. */
	int (*pages)(void *data, int idx, const void *buf, size_t len,
		     struct strbuf *err);
	/* After each round of reads; last after the one once tracing is off. */
	int (*round)(void *data, int last, struct strbuf *err);
	void *data;
};

struct record_opts {
	const struct record_event *events;
	int nr_events;
	const char *output;		/* NULL: trace.dat, or none when live */
	const struct record_live *live;	/* NULL: record to the output */
	unsigned long buffer_kb;	/* 0: keep the instance's size */
	const char *clock;		/* NULL: keep */
	int pid;			/* -P, 0: none */
	/* -c: -P follows the children it forks */
	int children;
	/* store the maps of -P PID or COMMAND */
	int proc_map;
	const char *tracer;		/* -p: current_tracer, NULL: none */
	struct record_strings ftrace_filter;	/* -l: set_ftrace_filter */
	struct record_strings ftrace_notrace;	/* -n: set_ftrace_notrace */
	struct record_strings graph_funcs;	/* -g: set_graph_function */
	int max_graph_depth;		/* max_graph_depth, 0: keep */
	int func_stack;			/* options/func_stack_trace */
	struct record_strings trace_options;	/* -O: options/NAME, noNAME */
	const char *cpus;		/* CPU list, NULL: all */
	int zlevel;			/* zstd level, < 0: uncompressed */
	int stacktrace;
	double duration;		/* seconds, 0: until stopped */
	int top;			/* top-level buffer, no instance */
	/* -B: this instance, NULL: a private one */
	const char *instance;
	/* -s: readers' sleep when idle, < 0: poll */
	int sleep_us;
	/* -m: ring-buffer kB kept per CPU, 0: all */
	unsigned long max_kb;
	char *const *argv;		/* COMMAND or NULL */
	const char *version;		/* stored in the VERSION option */
};

struct record_status {
	double elapsed;
	uint64_t events;
	uint64_t bytes_in;	/* ring-buffer bytes read */
	uint64_t bytes_out;	/* after compression */
	int nr_cpus;
	const int *cpu;
	const uint64_t *lost;	/* per recorded CPU */
};

typedef void record_status_fn(const struct record_status *st, void *data);

/* What the caller is told while recording runs; any member may be NULL. */
struct record_hooks {
	record_status_fn *status;	/* about once a second */
	/* degraded, not failed */
	void (*warn)(const char *msg, void *data);
	void *data;
};

struct record_result {
	uint64_t events;
	uint64_t lost;
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint64_t file_size;
	int signal;		/* the signal that stopped recording, or 0 */
	int child_status;	/* wait status of COMMAND, -1 if none */
};

/*
 * Records until the COMMAND exits, the -p process exits, the duration
 * passes, or SIGINT/SIGTERM/SIGHUP arrive.  Returns 0, or -errno with one
 * line per problem in err (the first is the cause; later ones, from the
 * wrap-up, follow it).  On failure no output file is left behind.
 */
int record_run(const struct record_opts *o, const struct record_hooks *hooks,
	       struct record_result *res, struct strbuf *err);

/*
 * The options of the commands that record (record, trace), as
 * util/parse-options.h callbacks: -e EVENT appends to a struct
 * record_event_list, -f FILTER filters the -e before it, --duration S
 * (or another option of seconds) sets a double.
 */
struct option;

struct record_event_list {
	struct record_event *v;
	int nr, alloc;
};

int record_opt_event(const struct option *opt, const char *arg, int unset);
int record_opt_filter(const struct option *opt, const char *arg, int unset);
int record_opt_duration(const struct option *opt, const char *arg, int unset);

/* Parses a CPU list ("0-2,5") into a bitmask of nr bits; 0 or -EINVAL. */
int record_parse_cpus(const char *list, unsigned char *mask, int nr);

#endif
