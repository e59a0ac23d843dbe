/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_CALLGRAPH_H
#define TK_CALLGRAPH_H

#include "arch/arch.h"
#include "util/strbuf.h"

/*
 * The fields `probe --call-graph` adds to a uprobe, named once for the
 * probe that writes them and for the printer and the unwinder that read
 * them back: neither of those two needs the rest of the probe modules.
 *
 * --call-graph: what a uprobe captures for an offline unwinder.  The
 * registers of the arch's unwind_regs as CALLGRAPH_PREFIX + their name
 * (__ip, __sp...), then the stack from %sp as CALLGRAPH_STACK0, 1, ...
 * x64 arrays of up to FETCH_MAX_ARRAY_LEN elements: the one dump
 * the kernel can take, since an array's length is fixed.
 *
 * The size: the kernel refuses a probe whose fixed-size fields exceed
 * MAX_PROBE_EVENT_SIZE (kernel/trace/trace_probe.h: 3072 bytes, "Event
 * too big"), which binds before the one-page per-CPU uprobe buffer
 * (MAX_UCB_BUFFER_SIZE in kernel/trace/trace_uprobe.c) does.  Measured
 * on 6.18: eight registers and 3008 bytes of stack are taken, 3016 are
 * not.  The default leaves 64 bytes for the user's own arguments.
 */
#define CALLGRAPH_PREFIX		"__"
#define CALLGRAPH_STACK			"__stack"
#define CALLGRAPH_MAX_PROBE_EVENT_SIZE	3072
#define CALLGRAPH_MAX_STACK	(CALLGRAPH_MAX_PROBE_EVENT_SIZE - 8 * 8)
#define CALLGRAPH_DEF_STACK	(CALLGRAPH_MAX_STACK - 64)

/*
 * Appends the capture fetchargs of a target of arch a for stack_size
 * bytes of stack (a multiple of 8, up to CALLGRAPH_MAX_STACK) to out;
 * the number appended.  report unwinds them on any machine.
 */
int callgraph_fetch_args(const struct arch *a, unsigned int stack_size,
			 struct strbuf *out);

/*
 * The stack size of --call-graph's SIZE into *size: a multiple of 8 from
 * 8 to CALLGRAPH_MAX_STACK, CALLGRAPH_DEF_STACK when arg is NULL.  0, or
 * -EINVAL for anything else.
 */
int callgraph_parse_size(const char *arg, unsigned int *size);

/*
 * --call-graph[=SIZE] as a util/parse-options.h callback, opt->value an
 * unsigned int; a bad SIZE ends the command (a usage error).
 */
struct option;
int callgraph_opt(const struct option *opt, const char *arg, int unset);

/* 1 when name is a field callgraph_fetch_args() writes, for any machine. */
int callgraph_is_field(const char *name);

#endif
