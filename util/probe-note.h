/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_NOTE_H
#define TK_PROBE_NOTE_H

#include "util/probe-file.h"
#include "util/strbuf.h"

/*
 * What `tracekit probe` knows of an event and the kernel's definition
 * cannot say, kept for `tracekit record`, a later process: the signed
 * bitfields the kernel fetches with its b type, which has no sign.  One
 * file per event, PROBE_NOTE_DIR/GROUP.EVENT, on tmpfs, so gone at
 * reboot with the probes themselves:
 *
 *	def LINE		each definition line of the event, as tracefs
 *				lists it
 *	signed FIELD WIDTH	each signed bitfield and its width in bits
 *
 * A note counts only while the definitions tracefs lists for the event
 * are its def lines, so that one left by an event deleted and defined
 * again behind tracekit's back is ignored.
 */
#define PROBE_NOTE_DIR	"/run/tracekit/probes"

/*
 * Writes the note of group:event: the lines defs (read after the event
 * was added) lists for it, and fields, "FIELD WIDTH\n" lines; with no
 * fields, removes any note instead.  0, or a negative errno with err
 * naming the file.
 */
int probe_note_write(const struct probe_defs *defs, const char *group,
		     const char *event, const char *fields, struct strbuf *err);

/* Removes the note of group:event, if there is one. */
void probe_note_remove(const char *group, const char *event);

/*
 * Appends to fields the "FIELD WIDTH\n" lines of the note of group:event
 * when its def lines are what defs lists for the event, else nothing (no
 * note, or a stale one).  0, or a negative errno with err naming the file
 * (and line) of a note that cannot be read or parsed.
 */
int probe_note_fields(const struct probe_defs *defs, const char *group,
		      const char *event, struct strbuf *fields,
		      struct strbuf *err);

#endif
