/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_FILTER_H
#define TK_PROBE_FILTER_H

#include "util/strbuf.h"

/*
 * The filters of the listings -F and -V (--filter, -F FILTER), as
 * perf-probe(1)'s FILTER PATTERN: globs (fnmatch(3): *, ?, [...],
 * [!...], \ escapes) combined with ! (not), & (and), | (or) and
 * parentheses, & binding closer than |; spaces separate words.
 */
struct probe_filter;

/* perf 6.1's defaults (builtin-probe.c DEFAULT_FUNC_FILTER, ..._VAR_...). */
#define PROBE_FILTER_FUNCS "!_* & !*@plt"
#define PROBE_FILTER_VARS "!__k???tab_* & !__crc_*"

/*
 * Parses rules and ORs them onto *f (NULL: none yet), as perf combines
 * every filter of a command line.  0, or -EINVAL with err = "'RULES':
 * WHY at column N"; *f is unchanged then.
 */
int probe_filter_add(struct probe_filter **f, const char *rules,
		     struct strbuf *err);
/* s matches f; a NULL f matches everything. */
int probe_filter_match(const struct probe_filter *f, const char *s);
void probe_filter_free(struct probe_filter *f);

#endif
