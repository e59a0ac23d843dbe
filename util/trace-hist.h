/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACE_HIST_H
#define TK_TRACE_HIST_H

#include "util/aggregate.h"
#include "util/report-aggregate.h"
#include "util/strbuf.h"

struct tep_handle;

/*
 * The kernel's hist triggers (CONFIG_HIST_TRIGGERS) as a backend of the
 * aggregation options: one trigger per event counts in the kernel what
 * report_agg_event() counts in user space, so that nothing per event
 * crosses to user space; its `hist` file is read back and folded into
 * an aggregate table, which then prints as bpftrace prints its map.
 *
 * The trigger's keys are the table's keys (comm and pid both from
 * common_pid, comm through .execname; cpu from common_cpu; the event
 * name is the trigger's own event), plus the value itself where the
 * table needs each value (hist, lhist, min, max: the kernel's .log2 is
 * ilog2(roundup_pow_of_two(v)), not bpftrace's buckets); sum and avg
 * are the trigger's sum of the value and its hitcount.
 */

struct trace_hist;

/*
 * 0 when a trigger gives o's exact table, else -EOPNOTSUPP with why:
 * more than 3 keys once the value is one (TRACING_MAP_KEYS_MAX in
 * kernel/trace/tracing_map.h).  Fields are checked by trace_hist_new().
 */
int trace_hist_supported(const struct report_agg_opts *o, struct strbuf *why);

/*
 * The trigger for o on SYSTEM:EVENT, whose format tep holds, with the
 * tracefs filter FILTER (NULL: every event), in instance (NULL: the top
 * level), not started yet; o must outlive it.  0, -EOPNOTSUPP (as
 * trace_hist_supported()) or -EINVAL with err set: a field the event
 * lacks (the message lists its fields), a value that is a string.
 */
int trace_hist_new(struct tep_handle *tep, const char *instance,
		   const char *system, const char *event, const char *filter,
		   const struct report_agg_opts *o, struct trace_hist **out,
		   struct strbuf *err);

/* The line written to the event's trigger file, "hist:keys=...". */
const char *trace_hist_command(const struct trace_hist *h);

/*
 * trace_hist_new() with the event's format read from tracefs, then the
 * trigger written, after its removal ("!hist:...") is registered in the
 * restore registry, so that it goes on exit, error and fatal signals.
 * A kernel refusal is -errno with tracefs's error_log text in err.
 */
int trace_hist_start(const char *instance, const char *system,
		     const char *event, const char *filter,
		     const struct report_agg_opts *o, struct trace_hist **out,
		     struct strbuf *err);

/*
 * The entries of h's section of the text of a `hist` file (which holds
 * every trigger on the event) folded into into, a table made for h's
 * report_agg_opts: each entry's hitcount added under its keys, as that
 * many report_agg_event() calls would.  0; -ENOSPC when the kernel's
 * table was full ("Dropped" in its totals: what it dropped is in no
 * entry), the entries folded all the same and err saying how many and
 * the table's size; -EINVAL with err set when the text is not as the
 * kernel prints it or has no section of h.
 */
int trace_hist_parse(const struct trace_hist *h, const char *text,
		     struct aggregate *into, struct strbuf *err);

/* The event's hist file read, then trace_hist_parse(). */
int trace_hist_read(struct trace_hist *h, struct aggregate *into,
		    struct strbuf *err);

/* Empties the kernel's table (--interval): 0 or -errno. */
int trace_hist_clear(struct trace_hist *h);

/* Removes a started trigger and its undo, then frees h. */
void trace_hist_free(struct trace_hist *h);

#endif
