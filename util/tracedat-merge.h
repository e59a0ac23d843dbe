/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEDAT_MERGE_H
#define TK_TRACEDAT_MERGE_H

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
void tracedat_merge_free(struct tracedat_merge *m);

#endif
