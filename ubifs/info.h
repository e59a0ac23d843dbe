/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_UBIFS_INFO_H
#define TK_UBIFS_INFO_H

/*
 * What `tracekit ubifs info` says of an image: where it came from, its
 * geometry, areas, format and flags, its authentication, and the counts
 * of what verification (ubifs_verify()) walked, as text for the caller to
 * print, as Documentation/tracekit-ubifs.txt describes it under info.
 */

#include "ubifs/image.h"
#include "ubifs/verify.h"
#include "util/strbuf.h"

/*
 * Appends the description of img, opened from path and verified into
 * res, to sb: one "label:   value" line each; with nodes, then every node
 * the scan found, "LEB N:0xOFFSET TYPE LENGTH".
 */
void ubifs_info_str(struct strbuf *sb, const char *path,
		    const struct ubifs_image *img,
		    const struct ubifs_verify_result *res, int nodes);

#endif
