/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEFS_RESTORE_H
#define TK_TRACEFS_RESTORE_H

/*
 * The restore-on-exit registry, and the changes to tracefs that register
 * their undo in it before they are made (util/tracefs.h reads and writes
 * without one).  tk_restore_run() replays the undos in reverse order at
 * exit, on error and on fatal signals.
 *
 * Not libtracefs: tk_restore_run() runs in signal handlers, and
 * libtracefs builds every path with asprintf() (malloc is not
 * async-signal-safe; tracefs_instance_destroy() too).  An undo holds the
 * absolute path made when it was registered and is replayed with open,
 * write, close and rmdir only.  Undos of an instance's own files (its
 * events, pid filters, buffer sizes) wait for the instance's rmdir,
 * which takes them with it, and run only if it fails.
 */

/*
 * Sets FILE to VAL after registering a write of `restore` (or, when
 * restore is NULL, of the file's current first line) to undo it.
 * Returns 0 or -errno; on failure nothing is registered.
 */
int tk_tracefs_set(const char *instance, const char *file, const char *val,
		   const char *restore);

/*
 * Replaces the lines of a list file (set_ftrace_filter, set_graph_function
 * ...) with the n given, after registering undos that put back the lines
 * it held (its "#" comment lines aside: they are the kernel's notes, as
 * "#### all functions enabled ####").  0 or -errno; on failure the file
 * is restored at once, and *failed (when given) is the index of the
 * line the kernel refused.
 */
int tk_tracefs_set_lines(const char *instance, const char *file,
			 const char *const *lines, int n, int *failed);

/* Same for events/SYS/EVENT/FILE ("enable", "filter"); restore is given. */
int tk_event_set(const char *instance, const char *sys, const char *event,
		 const char *file, const char *val, const char *restore);

/*
 * Creates instance NAME and registers its removal; 0 or -errno (-EEXIST
 * when it exists already: it is someone else's then).
 */
int tk_instance_create(const char *name);

/* Removes instance NAME that tk_instance_create() made, and its undo. */
int tk_instance_remove(const char *name);

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

#endif
