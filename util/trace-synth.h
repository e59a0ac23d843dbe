/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACE_SYNTH_H
#define TK_TRACE_SYNTH_H

#include "util/report-aggregate.h"
#include "util/strbuf.h"

struct tep_handle;

/*
 * --latency in the kernel: a synthetic event (4.17), made with
 * libtracefs's tracefs_synth_*, from each --latency START to the END
 * after it with the same match value (the thread, or --match's fields),
 * whose field `latency` is END's common_timestamp less START's, in ns,
 * and whose other fields are the END fields the keys name.  The table is
 * then a hist trigger on it (util/trace-hist.h), which counts what
 * report's user-space pairing counts: a second START replaces the
 * first, an END without a START makes no event.  libtracefs 1.6 writes
 * the START and END triggers at the top level (an instance is 1.7's),
 * where no pid filter reaches them: every task's events pair.
 */

struct trace_synth;

/*
 * The synthetic event `name` for o's --latency, whose START and END
 * formats tep holds; its removal registered in the restore registry
 * before each write (the END trigger, the START trigger, the event, in
 * that order at exit).  0, or -errno with the reason (the kernel's
 * error_log text where it refuses) in err.
 */
int trace_synth_start(struct tep_handle *tep, const char *name,
		      const struct report_agg_opts *o,
		      struct trace_synth **out, struct strbuf *err);

/*
 * An undo of the caller's (path absolute) that the next run replays
 * too, before s's own, if this one is killed: the hist trigger on the
 * synthetic event, which holds it busy even once its instance is gone.
 */
void trace_synth_keep(struct trace_synth *s, const char *path,
		      const char *undo);

/* Removes the triggers and the event, and their undos; frees s. */
void trace_synth_free(struct trace_synth *s);

/*
 * The synthetic events of runs whose process is gone (killed by SIGKILL),
 * their triggers and event removed by replaying the undos each run keeps
 * beside tracefs; "TRACE_SYNTH_STALE PID\n" appended to removed for
 * each.  How many.
 */
#define TRACE_SYNTH_STALE	"the synthetic event of tracekit trace "
int trace_synth_remove_stale(struct strbuf *removed);

#endif
