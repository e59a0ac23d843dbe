/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UNWIND_H
#define TK_UNWIND_H

#include <stdint.h>
#include <traceevent/event-parse.h>

#include "util/strbuf.h"

/*
 * Offline unwinding of the user stacks that `probe --call-graph` events
 * carry (util/callgraph.h: the registers and a dump of the stack from
 * %sp): the memory is the dump, else the loaded segments of the ELF
 * files the process had mapped (from the PROCMAPS options of trace.dat,
 * record --proc-map).  A frame is stepped by the CFI libdw reads at its
 * address (.eh_frame, else .debug_frame), remembered with its name, or
 * by libunwind's remote API (.eh_frame_hdr, its frame-pointer guess)
 * where the CFI is an expression or missing; for a recording of another
 * machine than this build's (told by the registers its events carry),
 * by libdw's unwinder instead.  Frames are named with libdw.
 * Each ELF file is opened (mapped) once per struct unwind, whatever the
 * number of processes and events, and each address named once: measured
 * on this 2-core host, 5,000 events of 11 to 26 frames unwind and fold
 * in 0.14 s (with the file's reading), 1.2 s when libdw named every frame.
 */

struct unwind;

/* One frame.  The strings belong to the struct unwind; NULL when unknown. */
struct unwind_frame {
	/* the pc of frame 0, the return address of the others */
	uint64_t ip;
	const char *sym;
	uint64_t sym_off;	/* ip - the symbol's address */
	const char *dso;	/* the file's base name */
	/* source file of the call (ip - 1 beyond frame 0) */
	const char *src;
	int line;
	/* a function inlined into the next frame (same ip) */
	int inlined;
	/* the unwinder stopped here on bad or missing data */
	int unknown;
};

struct unwind_stack {
	struct unwind_frame *v;
	int nr, alloc;
};

/* Frames past this are dropped: a loop in corrupt data ends here. */
#define UNWIND_MAX_FRAMES	127

struct unwind *unwind_new(void);
void unwind_free(struct unwind *u);

/*
 * Where the recording's files are on this host: dir holds a copy of the
 * recording machine's file tree, each path a recording names is read as
 * dir/path (a symbolic link that leads out of dir is not followed: the
 * file is missing).  NULL, the default: the paths as they are.  Before
 * unwind_add_procmaps().
 */
void unwind_set_sysroot(struct unwind *u, const char *dir);

/*
 * The build-ids the recording saw ("BUILDID PATH\n" lines,
 * tracedat_build_ids()), before the maps that name the files: a file
 * whose build-id now differs is not used (its frames are unknown), and
 * unwind_mismatches() names it.
 */
void unwind_add_build_ids(struct unwind *u, const char *text);

/* "PATH: build-id X, recorded Y: ..." lines for the files refused so far; their number. */
int unwind_mismatches(const struct unwind *u, struct strbuf *out);

/*
 * Takes the maps of the PROCMAPS text (tracedat_procmaps()) of trace
 * file number space.  0, or -EINVAL with err naming the bad line.
 */
int unwind_add_procmaps(struct unwind *u, int space, const char *text,
			struct strbuf *err);

/* 1 when the records of event carry --call-graph's registers and stack. */
int unwind_event_has_stack(struct unwind *u, struct tep_event *event);

/*
 * Unwinds rec (of event, task pid, in trace file space) into st, outer
 * frames last, the functions inlined at an address expanded before the
 * one they are inlined into.  The number of frames; 0 when nothing is
 * known of pid or event has no stack fields.  A stack the unwinder could
 * not finish (a short or corrupt dump, a file missing) ends with a frame
 * marked unknown.
 */
int unwind_record(struct unwind *u, int space, struct tep_event *event,
		  struct tep_record *rec, int pid, struct unwind_stack *st);

void unwind_stack_release(struct unwind_stack *st);

#endif
