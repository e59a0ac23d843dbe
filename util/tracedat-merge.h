/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_MERGE_H
#define TK_TRACEDAT_MERGE_H

#include <stdint.h>

#include "util/strbuf.h"
#include "util/tracedat-read.h"

/*
 * A timestamp-ordered merge of per-CPU streams from any number of files
 * and buffers: a binary heap, O(log streams) per event.  Ties go to the
 * stream added first, which is trace-cmd's order (buffer, then CPU).
 */
struct tracedat_merge;

struct tracedat_event {
	/* Valid until the next call; offset is the file offset of its page
	 * or chunk. */
	struct tep_record *rec;
	struct tracedat *td;
	int buffer;
	int source;			/* index of the stream, in add order */
	int id;				/* the event's id (common_type), read
					 * once */
};

struct tracedat_merge *tracedat_merge_new(void);
/*
 * Adds the idx-th CPU stream of a buffer; 0, or -errno with the error in
 * err.
 */
int tracedat_merge_add(struct tracedat_merge *m, struct tracedat *td,
		       int buffer, int idx, struct strbuf *err);
/*
 * 1 with ev filled, 0 at the end, -errno on a corrupt file (-EINVAL) or a
 * failed read (error in err).
 */
int tracedat_merge_next(struct tracedat_merge *m, struct tracedat_event *ev,
			struct strbuf *err);
/*
 * Live streams (tracekit trace): a CPU's ring-buffer pages handed in as
 * they are read, not read from td's file.  td (a file of no events
 * that holds the formats) decodes them.  A live stream that has no
 * pages left is not at its end: it waits for the next feed, and an
 * event of another stream may be handed out meanwhile that is later
 * than its next.  So the caller holds back what may still have an
 * earlier event coming (tracedat_merge_hold()) and releases it all at
 * the end.
 */
/* The live stream of td's idx-th CPU; returns its source index. */
int tracedat_merge_add_live(struct tracedat_merge *m, struct tracedat *td,
			    int idx);
/*
 * Whole pages of the live stream source, copied; 0, -EINVAL for a
 * length of no whole pages, or -errno with err set on a corrupt page.
 */
int tracedat_merge_feed(struct tracedat_merge *m, int source,
			const void *pages, size_t len, struct strbuf *err);
/* tracedat_merge_next() hands out no event later than until (ns). */
void tracedat_merge_hold(struct tracedat_merge *m, uint64_t until);
/* The time of the latest event fed so far, of any live stream. */
uint64_t tracedat_merge_fed_ts(const struct tracedat_merge *m);

void tracedat_merge_free(struct tracedat_merge *m);

#endif
