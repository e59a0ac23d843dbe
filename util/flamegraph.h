/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_FLAMEGRAPH_H
#define TK_FLAMEGRAPH_H

#include <stdint.h>

#include "util/strbuf.h"

/*
 * A flame graph of folded stacks (report --format folded), written as one
 * self-contained SVG file: a frame is a rectangle whose width is its
 * count of samples, the callers beneath their callees, with the frame's
 * name, count and share in its <title> (the hover text) and a small
 * embedded script that shows them below the graph, zooms into a clicked
 * frame and resets the zoom.  Nothing is fetched from the network.
 * Every frame is drawn, however narrow.  The layout of each element is
 * Documentation/tracekit-report.txt's FLAME GRAPH.
 */

struct flamegraph;

struct flamegraph *flamegraph_new(void);
void flamegraph_free(struct flamegraph *fg);

/*
 * Adds count samples of stack, its frames outer first and separated by
 * ';' (the first is the task's name, as folded stacks have it); the
 * frames of equal names under the same parent are one frame.
 */
void flamegraph_add(struct flamegraph *fg, const char *stack, uint64_t count);

/* The samples added so far. */
uint64_t flamegraph_total(const struct flamegraph *fg);

/*
 * Writes the SVG, titled title, to path through a temporary file beside
 * it renamed over path when complete.  0, or -EINVAL (no stacks) or
 * -EIO (the file not written) with a one-line reason naming the file in
 * err; then no file is left.
 */
int flamegraph_write(const struct flamegraph *fg, const char *path,
		     const char *title, struct strbuf *err);

#endif
