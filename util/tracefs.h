/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEFS_H
#define TK_TRACEFS_H

#include "util/strbuf.h"

/*
 * Everything that changes tracefs goes through this module, so that
 * "restore on exit" is one mechanism: every change registers its undo
 * before it is made, and tk_restore_run() replays the undos in reverse
 * order at exit, on error and on fatal signals.
 */

/* Mount point of tracefs (or debugfs/tracing), NULL when not mounted. */
const char *tk_tracefs_dir(void);

/* DIR[/instances/INSTANCE]/FILE; instance may be NULL (top level). */
void tk_tracefs_path(struct strbuf *sb, const char *instance, const char *file);

/* Reads a whole tracefs file; returns bytes or -errno. */
long tk_tracefs_read(const char *instance, const char *file, struct strbuf *out);

/*
 * Plain writes, no undo registered; 0 or -errno.  Used for files whose
 * previous state the caller already arranged to restore, or for probes.
 */
int tk_tracefs_write(const char *instance, const char *file, const char *val);
int tk_tracefs_append(const char *instance, const char *file, const char *val);

/*
 * Sets FILE to VAL after registering a write of `restore` (or, when
 * restore is NULL, of the file's current first line) to undo it.
 * Returns 0 or -errno; on failure nothing is registered.
 */
int tk_tracefs_set(const char *instance, const char *file, const char *val,
		   const char *restore);

/* Undo registry.  Paths are absolute. */
int tk_restore_push_write(const char *path, const char *value, int append);
int tk_restore_push_rmdir(const char *path);
/* Drops the most recent undo that matches path and value (for "keep"). */
void tk_restore_forget(const char *path, const char *value);
/* Replays all undos, newest first; safe to call twice and from a handler. */
void tk_restore_run(void);
/*
 * atexit() and SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers that restore, then
 * die by the same signal.  A command that handles SIGINT itself installs
 * its own handler afterwards.
 */
void tk_restore_install(void);

/*
 * Dynamic events: appends LINE to FILE ("kprobe_events", "uprobe_events").
 * On failure returns -errno and, when err is given, puts the kernel's
 * explanation from error_log (message, command and caret) into err.
 */
int tk_dynevent_write(const char *file, const char *line, struct strbuf *err);

/* What this kernel and tracefs offer, from files and the README. */
struct tk_features {
	unsigned tracefs:1;
	unsigned readme:1;
	unsigned error_log:1;
	unsigned kprobe_events:1;
	unsigned uprobe_events:1;
	unsigned dynamic_events:1;
	unsigned instances:1;
	unsigned arg_n:1;		/* "$arg<N>" fetcharg (kprobes) */
	unsigned kretprobe_arg_n:1;	/* "kernel return probes support: ... $arg<N>" */
	unsigned array:1;		/* "<type>\[<array-size>\]" */
	unsigned symbol:1;
	unsigned symstr:1;
	unsigned ustring:1;
	unsigned bitfield:1;
	unsigned imm:1;			/* "\imm-value" */
	unsigned ref_ctr:1;		/* uprobe "(ref_ctr_offset)" */
	unsigned multiprobe:1;		/* "Create/append/" */
	unsigned stack_tracer:1;	/* stack_trace + stack_tracer_enabled */
	unsigned function_tracer:1;	/* listed AND set_ftrace_filter writable */
	unsigned subbuf_size:1;		/* buffer_subbuf_size_kb */
};

/* Fills f from the running system; returns 0 (f->tracefs = 0 if absent). */
int tk_features_probe(struct tk_features *f);
/* Same, cached for the life of the process. */
const struct tk_features *tk_features(void);

#endif
