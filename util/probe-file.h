/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_FILE_H
#define TK_PROBE_FILE_H

#include "util/strbuf.h"

/*
 * Probe definitions in tracefs: kprobe_events and uprobe_events.  Shared by
 * the DWARF and the SDT side of `tracekit probe`.
 */

enum probe_kind {
	PROBE_KPROBE,
	PROBE_UPROBE,
};

/* "kprobe_events" or "uprobe_events". */
const char *probe_kind_file(enum probe_kind kind);

/* One definition as listed by tracefs. */
struct probe_def {
	enum probe_kind kind;
	char type;		/* 'p' or 'r' */
	char *group;
	char *event;
	char *line;		/* the whole line as tracefs lists it */
};

struct probe_defs {
	struct probe_def *v;
	int nr, alloc;
};

/* Parses "p:GRP/EVENT PLACE ARGS..." (also "GRP.EVENT"); 0 or -EINVAL. */
int probe_def_parse(const char *line, enum probe_kind kind,
		    struct probe_def *def);
void probe_def_release(struct probe_def *def);

/* Reads both files (those that exist); 0 or -errno. */
int probe_defs_read(struct probe_defs *defs);
void probe_defs_release(struct probe_defs *defs);

/*
 * Appends definition lines to the file of `kind`.  All or nothing: when
 * line i is refused, lines 0..i-1 are deleted again and err gets the
 * kernel's reason (error_log) naming the refused line.  With `undo`, each
 * added event is also registered for deletion at exit (tk_restore_*).
 */
int probe_defs_add(enum probe_kind kind, const char *const *lines, int nr,
		   int undo, struct strbuf *err);

/*
 * Deletes every definition whose GROUP:EVENT matches glob (fnmatch; a
 * glob without ':' matches EVENT in any group, "GRP:*" a whole group).
 * Returns the number deleted, or -errno with err set (for example an
 * event still enabled: -EBUSY).
 */
int probe_defs_del(const char *glob, struct strbuf *deleted,
		   struct strbuf *err);

/*
 * 1 when tracefs has an event GROUP:EVENT (its events/GROUP/EVENT, of
 * any kind: a tracepoint, another tool's probe, one of ours), so that a
 * new probe may not take the name; else 0.
 */
int probe_name_taken(const char *group, const char *event);

/* Kernel rules for group and event names: a C identifier below 64 chars. */
int probe_name_valid(const char *name);

/* Appends s with every character outside [A-Za-z0-9] turned into '_'. */
void probe_name_sanitize(struct strbuf *sb, const char *s);

#endif
