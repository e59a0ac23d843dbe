/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_EVENT_H
#define TK_PROBE_EVENT_H

#include "util/probe-point.h"
#include "util/probe-file.h"
#include "util/probe-sdt.h"
#include "util/probe-target.h"
#include "util/strbuf.h"

/*
 * The events of `tracekit probe`: specs translated (DWARF or SDT) into
 * named tracefs definition lines, all of them before anything is
 * written, then added all-or-nothing; and the listing and deleting of
 * the events in its groups.
 */

/* One translated spec (or SDT site), ready to be written. */
struct probe_event {
	struct probe_def def;	/* as tracefs will list it */
	char *where;		/* for the summary: "FUNC in PATH", "PATH:0xOFF" */
	/* "FIELD WIDTH\n" for each signed bitfield fetched unsigned */
	char *signed_fields;
	char *note;		/* for -v: probe_point's note, or NULL */
};

struct probe_events {
	struct probe_event *v;
	int nr, alloc;
	const struct arch *arch;	/* of the binary probed */
};

void probe_events_release(struct probe_events *evs);

/*
 * The definitions of the DWARF specs on t, named as perf names them:
 * FUNC, FUNC__return, FUNC_L<line>, FUNC_<offset>, then _1, _2... where
 * the name is taken (in tracefs or by an earlier spec).  A function
 * inlined several times gives one line per copy under one event.  0, or
 * -EINVAL with err saying why; warn gets a line per warning.
 */
int probe_events_translate(const struct probe_target *t,
			   const char *const *specs, int nr,
			   const struct probe_opts *dopts,
			   struct probe_events *evs, struct strbuf *warn,
			   struct strbuf *err);

/*
 * Writes the lines of evs to the file of kind, all or nothing, with undo
 * each registered for deletion at exit (probe_defs_add).
 */
int probe_events_add(enum probe_kind kind, const struct probe_events *evs,
		     int undo, struct strbuf *err);

/*
 * Adds evs, translated from specs with dopts, and writes their notes
 * (util/probe-note.h), replacing any note an event of the same name left;
 * a note that cannot be written is a line in warn.  The kernel is the judge of
 * $argN: when it refuses one, warn says so, and specs are translated again
 * with registers (dopts->argn cleared, evs replaced).  undo as for
 * probe_events_add().  0, or -errno with
 * err = "cannot add probes: why", or a translation's error; -ENODEV
 * when the kernel has no tracefs, or no kprobe_events (uprobe_events)
 * for t.
 */
int probe_events_write(const struct probe_target *t, const char *const *specs,
		       int nr, struct probe_opts *dopts, int undo,
		       struct probe_events *evs, struct strbuf *warn,
		       struct strbuf *err);

/*
 * One event per marker site of ms (in path) that rq selects, the user's
 * argument requests applied to each; ref_ctr: the kernel takes semaphore
 * offsets.  With defs (what tracefs holds; NULL when nothing is going to
 * be written), an event that exists already or a place probed with
 * another semaphore is an error.  0 (evs->nr may be 0), or -errno with
 * err set.
 */
int probe_events_from_sdt(const struct sdt_markers *ms, const char *path,
			  const struct sdt_request *rq, int ref_ctr,
			  const struct probe_defs *defs,
			  struct probe_events *evs, struct strbuf *warn,
			  struct strbuf *err);

/*
 * The events of an SDT spec on exec, in the file tree sysroot unless NULL
 * (probe_target_file()), from probe_events_from_sdt() of its markers, rq
 * the spec parsed: with define_only, to be printed; else to
 * be added, each checked against the definitions in tracefs.  0, or
 * -errno with err set: -ENODEV without uprobe_events, -ENOENT when no
 * marker matches spec, -EINVAL when a marker site cannot be probed.
 */
int probe_events_sdt(const char *exec, const char *sysroot, const char *spec,
		     const struct sdt_request *rq, int define_only,
		     struct probe_events *evs, struct strbuf *warn,
		     struct strbuf *err);

/*
 * The summary of the events added, for `tracekit probe` to print: each
 * event once (the copies of an inlined function share theirs), its name
 * padded to width, then how to record the first.
 */
/*
 * Definitions given as tracefs takes them (probe_spec_is_raw()), checked
 * before anything is written: the line's form, GROUP and EVENT names,
 * argument names and count, no control characters or quotes; for a
 * uprobe, that PATH is an ELF file and OFFSET lies in an executable
 * segment of it, no $argN; no register of another architecture than the
 * running kernel's.  All of one kind.  0, or -EINVAL with err naming the
 * line and what is wrong.
 */
int probe_events_raw(const char *const *lines, int nr, struct probe_events *evs,
		     struct strbuf *err);

void probe_events_summary(const struct probe_events *evs, int width,
			  struct strbuf *out);

/*
 * --call-graph: appends to every event of evs the fetchargs that capture
 * its user stack (callgraph_fetch_args(), stack_size bytes).  0; -EINVAL
 * for a kprobe or an event that names a capture argument already,
 * -E2BIG past the kernel's argument count, -EOPNOTSUPP for a machine
 * whose stacks tracekit does not unwind; err says which.
 */
int probe_events_call_graph(struct probe_events *evs, unsigned int stack_size,
			    struct strbuf *err);

/*
 * "  GROUP:EVENT  (on PLACE ARGS)" lines for the definitions in the groups
 * `tracekit probe` creates (probe, probe_BIN, sdt_PROV) whose GROUP:EVENT
 * (or EVENT, for a glob without ':') matches filter (NULL: all).  0, or
 * the -errno of reading them.
 */
int probe_events_list(const char *filter, struct strbuf *out);

/*
 * Deletes the events matching each glob (probe_defs_del) until one fails,
 * and their notes; deleted gets "GROUP:EVENT\n" for each of the globs that
 * did not fail.
 * The number deleted, or -errno with err set.
 */
int probe_events_del(const char *const *globs, int nr, struct strbuf *deleted,
		     struct strbuf *err);

#endif
