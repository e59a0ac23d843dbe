/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_SPEC_H
#define TK_PROBE_SPEC_H

#include "util/strbuf.h"

/*
 * perf-probe compatible probe specifications:
 *
 *   [[GROUP:]EVENT=]FUNC[@SRC][:RLINE|+OFFS|%return|;PATTERN] [ARG...]
 *   [[GROUP:]EVENT=]SRC:LINE [ARG...] | SRC;PATTERN [ARG...]
 *   ARG: [NAME=]VAR[->FIELD|.FIELD|[IDX]]...[:TYPE] | @GLOBAL[...] |
 *        $retval | $params | $vars | a raw fetcharg (%REG, +OFF(...),
 *        $stackN...)
 *
 * Parsing is purely textual; probe-dwarf gives the names their meaning.
 */

enum probe_field_kind {
	PROBE_FIELD_MEMBER,	/* .name */
	PROBE_FIELD_ARROW,	/* ->name */
	PROBE_FIELD_INDEX,	/* [index] */
};

struct probe_field {
	enum probe_field_kind kind;
	char *name;
	long index;
};

enum probe_arg_kind {
	PROBE_ARG_VAR,		/* a local, parameter or (with @) a global */
	PROBE_ARG_RETVAL,	/* $retval */
	PROBE_ARG_PARAMS,	/* $params: every parameter */
	PROBE_ARG_VARS,		/* $vars: parameters and locals in scope */
	PROBE_ARG_RAW,		/* a kernel fetcharg, passed through */
};

struct probe_arg {
	enum probe_arg_kind kind;
	char *name;		/* NAME= given by the user, or NULL */
	char *var;		/* VAR without fields; raw text for RAW */
	int global;		/* written as @VAR */
	struct probe_field *fields;
	int nr_fields;
	char *type;		/* :TYPE, or NULL */
};

struct probe_spec {
	char *group;		/* NULL: the default group */
	char *event;		/* NULL: derived from the function */
	char *func;		/* NULL: a SRC:LINE or SRC;PATTERN */
	int glob;		/* func is a wildcard */
	char *file;		/* @SRC or SRC, or NULL */
	/* from the function's first line (0); SRC:LINE: the file's */
	int line;
	int has_line;
	unsigned long offset;
	int has_offset;
	int retprobe;
	char *lazy;		/* FUNC;PATTERN: the lines it matches */
	struct probe_arg *args;
	int nr_args;
};

/* 0, or -EINVAL with err = "<token>: <why>". */
int probe_spec_parse(const char *text, struct probe_spec *spec,
		     struct strbuf *err);
void probe_spec_release(struct probe_spec *spec);

/* 1 for an SDT spec ("sdt_PROV:NAME", "%[sdt_]PROV:NAME"), handled by probe-sdt. */
int probe_spec_is_sdt(const char *text);
/*
 * 1 when text is a definition as tracefs takes it ("p:GRP/EVENT PLACE
 * ARGS...", "r10:..."), not a spec: written as it is, after
 * probe_events_raw()'s checks.
 */
int probe_spec_is_raw(const char *text);

#endif
