/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEFS_H
#define TK_TRACEFS_H

#include "util/strbuf.h"

/*
 * Everything that reads or changes tracefs goes through this module and
 * util/tracefs-restore.h, so that "restore on exit" is one mechanism:
 * every change registers its undo there before it is made, and
 * tk_restore_run() replays the undos in reverse order at exit, on error
 * and on fatal signals.  Here: the reads, the writes that need no undo
 * (probes, files whose state the caller restores), and the features of
 * the running kernel.
 *
 * The files are reached through libtracefs (paths, reads, writes,
 * instances, event files, error_log); the undo registry is ours, as
 * libtracefs has none.  Where we depart from libtracefs 1.6.4, measured
 * on this project's host (kernel 6.18):
 *
 * - Mount lookup.  tracefs_tracing_dir() mounts tracefs on
 *   /sys/kernel/tracing when /proc/mounts lists no tracefs, even when
 *   debugfs/tracing reaches it: in `unshare -m sh -c 'umount
 *   /sys/kernel/tracing; ./t'`, t calling it leaves a new tracefs line
 *   in /proc/self/mounts.  tk_tracefs_dir() asks
 *   tracefs_tracing_dir_is_mounted(false, ...) instead and pins the
 *   answer with tracefs_set_tracing_dir(), after which the calls used
 *   here mount nothing (same namespace: `tracekit test --caps`, `record`
 *   and `stack show` leave no tracefs line and say it is not mounted).
 * - Event enabling.  tracefs_event_enable() takes regexes and rescans
 *   events/ and the system's directory on every call: enabling the 720
 *   syscalls events one by one took 6.1 s, against 14 ms by writing
 *   each event's enable file.  Every event needs its own undo, so
 *   tk_event_set() writes the file with tracefs_event_file_write().
 * - Dynamic events.  tracefs_uprobe_alloc() takes a file, an offset and
 *   fetchargs and cannot express the "(ref_ctr_offset)" of an SDT
 *   semaphore; definitions are whole lines from the probe translator,
 *   appended with tracefs_instance_file_append().  Deletion is
 *   tracefs_dynevent_destroy() (tk_dynevent_delete(); EBUSY for an
 *   enabled event, as our write had, and no error_log entry either way).
 *   Listing stays ours, reading kprobe_events and uprobe_events: where
 *   dynamic_events exists, 1.6.4 reads it for every type and tells the
 *   types apart by the "p"/"r" prefix alone, so KPROBE|UPROBE lists each
 *   uprobe twice, once as a kprobe (5 uprobes gave 10 entries); and it
 *   lists all "p" lines before all "r" lines, not in the kernel's order
 *   (a, r:b, c gave a, c, b), which would reorder `probe -l` and `-d`.
 *   Uprobes with "(ref_ctr_offset)" and multi-probe events it parses
 *   right.
 * - error_log.  tracefs_error_clear() would also erase the entries of
 *   other tools, which no undo can put back; the entry of our write is
 *   a tracefs_error_last() that differs from the one before it (entries
 *   carry a timestamp, so a repeated error differs too).
 * - Per-CPU readers.  record's readers read up to 32 pages with one
 *   readv() of trace_pipe_raw, while tracing only as many as the
 *   ring buffer's stats show to be full (see full_pages() in
 *   util/record-readers.c).  tracefs_cpu_*() do not serve:
 *   tracefs_cpu_read() is one read() of one page, and
 *   tracefs_cpu_buffered_read() returns one page per call from a
 *   64 KiB pipe, so recording the same ~107k pages (record -e sched
 *   -e raw_syscalls of dd bs=1 under strace -f -c) took 10178 splices
 *   and ~108800 reads where our readers, splicing then, took 5871 and
 *   ~6300 (bench/record.sh: the same events, 0 lost, CPU within its
 *   10 ms resolution); tracefs_cpu_pipe() splices the pipe size it
 *   learns in buffered_read, 0 before, so it moved nothing on a fresh
 *   descriptor with full pages waiting.
 * - Undos: util/tracefs-restore.h.
 */

/*
 * Mount point of tracefs (or debugfs/tracing), NULL when not mounted.
 * Never mounts it.
 */
const char *tk_tracefs_dir(void);

/* DIR[/instances/INSTANCE]/FILE; instance may be NULL (top level). */
void tk_tracefs_path(struct strbuf *sb, const char *instance, const char *file);

/* Appends a whole tracefs file to out; returns bytes or -errno. */
long tk_tracefs_read(const char *instance, const char *file,
		     struct strbuf *out);

/*
 * Plain writes, no undo registered; 0 or -errno.  Used for files whose
 * previous state the caller already arranged to restore, or for probes.
 */
int tk_tracefs_write(const char *instance, const char *file, const char *val);
int tk_tracefs_append(const char *instance, const char *file, const char *val);

/*
 * tk_tracefs_append() of LINE that, on failure, puts the kernel's
 * explanation from the instance's error_log (message, command and
 * caret) into err when err is given: 0 or -errno.
 */
int tk_tracefs_append_err(const char *instance, const char *file,
			  const char *line, struct strbuf *err);

/*
 * Removes the instances named PREFIX<pid> whose process is gone (what a
 * SIGKILLed owner leaves: no undo ran), appending each name removed and a
 * newline to removed.  Returns how many, or -errno.
 */
int tk_instance_remove_stale(const char *prefix, struct strbuf *removed);

/*
 * Dynamic events: appends LINE to FILE ("kprobe_events", "uprobe_events"),
 * as tk_tracefs_append_err() at the top level.
 */
int tk_dynevent_write(const char *file, const char *line, struct strbuf *err);

/*
 * Deletes dynamic event GROUP/EVENT, of FILE's kind, with
 * tracefs_dynevent_destroy(): all its probes at once.  0, -ENOENT when
 * there is no such event, or -errno (-EBUSY: enabled or in use).
 */
int tk_dynevent_delete(const char *file, const char *group, const char *event);

/*
 * What this kernel and tracefs offer: one line per feature.
 *   X(member, --caps key or NULL, how it is probed, its argument, meaning)
 * has_file / has_dir: tracefs has that file or directory; readme_says:
 * the README contains the text; the others are probes of their own.
 * Features with a --caps key come first, in the order --caps prints.
 */
#define TK_FEATURES(X)							\
	X(uprobe_events, "uprobes", has_file, "uprobe_events",		\
	  "uprobe events")						\
	X(kprobe_events, "kprobes", has_file, "kprobe_events",		\
	  "kprobe events")						\
	X(stack_tracer, "stack_tracer", stack_tracer_present, NULL,	\
	  "stack_trace and the stack_tracer_enabled sysctl")		\
	X(function_tracer, "function_tracer",				\
	  function_tracer_permitted, NULL,				\
	  "function tracer listed and set_ftrace_filter writable")	\
	X(instances, "instances", has_dir, "instances", "instances")	\
	X(error_log, "error_log", has_file, "error_log", "error_log")	\
	X(hist_triggers, "hist_triggers", readme_says, "hist:keys=",	\
	  "hist triggers (events/SYSTEM/EVENT/hist)")			\
	X(synth_events, "synth_events", has_file, "synthetic_events",	\
	  "synthetic events")						\
	X(arg_n, "arg_n", readme_says, "$arg<N>",			\
	  "$arg<N> fetcharg (kprobes)")					\
	X(array, "array", readme_says, "<array-size>",			\
	  "<type>[<array-size>] fetcharg")				\
	X(symbol, "symbol", readme_says, "symbol", "symbol type")	\
	X(ustring, "ustring", readme_says, "ustring", "ustring type")	\
	X(ref_ctr, "ref_ctr", readme_says, "(ref_ctr_offset)",		\
	  "uprobe (ref_ctr_offset) for SDT semaphores")			\
	X(tracefs, NULL, tracefs_mounted, NULL, "tracefs mounted")	\
	X(readme, NULL, readme_read, NULL, "README readable")		\
	X(dynamic_events, NULL, has_file, "dynamic_events",		\
	  "dynamic_events")						\
	X(kretprobe_arg_n, NULL, readme_says,				\
	  "return probes support: $retval, $arg<N>",			\
	  "$arg<N> in kernel return probes")				\
	X(symstr, NULL, readme_says, "symstr", "symstr type")		\
	X(bitfield, NULL, readme_says,					\
	  "b<bit-width>@<bit-offset>/<container-size>", "bitfield type") \
	X(imm, NULL, readme_says, "\\imm-value", "immediate fetcharg")	\
	X(multiprobe, NULL, readme_says, "Create/append/",		\
	  "several probes in one event")				\
	X(subbuf_size, NULL, has_file, "buffer_subbuf_size_kb",		\
	  "buffer_subbuf_size_kb")

struct tk_features {
#define TK_FEATURE_BIT(member, cap, how, arg, meaning) unsigned member:1;
	TK_FEATURES(TK_FEATURE_BIT)
#undef TK_FEATURE_BIT
};

/* The table behind TK_FEATURES, ended by a NULL name, for reports. */
struct tk_feature {
	const char *name;
	const char *cap;
	const char *meaning;
	int (*get)(const struct tk_features *f);
};
extern const struct tk_feature tk_feature_table[];

/* Fills f from the running system; returns 0 (f->tracefs = 0 if absent). */
int tk_features_probe(struct tk_features *f);
/* Same, cached for the life of the process. */
const struct tk_features *tk_features(void);

/*
 * Whether the running kernel's config (/boot/config-RELEASE, read once
 * for the process) has "NAME=y"; *found_config (NULL: not asked) says
 * whether the config was there to read.
 */
int tk_kconfig_has(const char *name, int *found_config);

#endif
