/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_LINE_H
#define TK_PROBE_LINE_H

#include <limits.h>

#include "util/strbuf.h"

/*
 * The argument of -L, perf-probe(1)'s LINE SYNTAX:
 *
 *   FUNC[@SRC][:RLN[+NUM|-RLN2]]   lines of FUNC, RLN counted from its
 *                                  first line (0)
 *   SRC[:ALN[+NUM|-ALN2]]          lines ALN to ALN2 of a source file
 *
 * Parsing is textual, as perf's parse_line_range_desc(): a name holding
 * '/' or '.' is a source file, else a C identifier is a function (C++
 * names may hold "::"); numbers are strtol(3)'s of any base.
 */
struct probe_line_range {
	char *func;	/* NULL: the lines of file */
	char *file;	/* SRC: a suffix of the source's path; or NULL */
	int start;	/* relative to FUNC's first line, else a line */
	int end;	/* inclusive; PROBE_LINE_OPEN: no end given */
};

#define PROBE_LINE_OPEN INT_MAX

/* 0, or -EINVAL with err = "'TEXT': WHY". */
int probe_line_parse(const char *text, struct probe_line_range *lr,
		     struct strbuf *err);
void probe_line_release(struct probe_line_range *lr);

#endif
