/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_TARGET_H
#define TK_PROBE_TARGET_H

#include "util/probe-btf.h"
#include "util/probe-dwarf.h"
#include "util/probe-dwarf-list.h"
#include "util/probe-file.h"
#include "util/probe-ksyms.h"
#include "util/probe-point.h"
#include "util/strbuf.h"

/*
 * The binary a probe command works on: -x BINARY (uprobes), -m MODULE or
 * -k VMLINUX (kprobes), found, opened for its DWARF, and how its probes
 * are spelled.  Without any, the running kernel: a vmlinux with DWARF in
 * the usual places, else its BTF.
 */
struct probe_target {
	enum probe_kind kind;
	/* absolute: the kernel keeps the path it is given */
	char *path;
	/* -m: the module's name as the kernel knows it */
	char *modname;
	char *group;		/* default group */
	/* the ELF's machine; the running kernel's for its BTF */
	const struct arch *arch;
	struct probe_debuginfo *dbg;	/* NULL when btf is set */
	struct probe_btf *btf;
	/*
	 * DWARF of the running kernel (found in the usual places, a -k
	 * VMLINUX with its build-id, a -m MODULE that is loaded): what the
	 * kernel would refuse is checked as for BTF.  NULL otherwise.
	 */
	struct probe_ksyms *ksyms;
	char *source;		/* for -v: "DWARF in PATH", "BTF in PATH (why)" */
	/* for default names that do not clash */
	struct probe_defs existing;
};

/*
 * realpath(3) of file into *real; -errno with err = "FILE: why".  The
 * kernel keeps the path a uprobe is given, so it has to be absolute.
 */
int probe_realpath(const char *file, char **real, struct strbuf *err);

/*
 * The binary a uprobe names (*named, as the definition writes it) and
 * the file read for it here (*file): both realpath(path) without
 * sysroot; with it, path is the target's absolute path and
 * sysroot/path the copy of its file tree on this host.  0, or -errno
 * with err set.
 */
int probe_target_file(const char *sysroot, const char *path, char **named,
		      char **file, struct strbuf *err);

/* What the command line names as the target; NULL for each not given. */
struct probe_target_names {
	const char *exec;	/* -x */
	const char *module;	/* -m */
	const char *vmlinux;	/* -k */
	const char *sysroot;	/* exec is in this copy of a target's files */
	const char *btf;	/* another kernel's BTF, for kprobes */
};

/*
 * Opens the target n names: exec, module, vmlinux or btf (at most one;
 * none: the running kernel's vmlinux with DWARF from the usual places,
 * else /sys/kernel/btf); exec in the file tree sysroot when it is not
 * NULL (probe_target_file()).  A module without a path is looked up
 * under /lib/modules/$(uname -r).  0, or -errno with err set:
 * -EOPNOTSUPP for a machine tracekit does not translate for.
 */
int probe_target_open(struct probe_target *t,
		      const struct probe_target_names *n, struct strbuf *err);
void probe_target_close(struct probe_target *t);

/*
 * A listing as the command line asks for it: -F (funcs, funcs_filter its
 * own FILTER or NULL), -L LINE (the first of lines, as perf), -V SPEC
 * (each of vars), with --filter, --externs, --range and --no-inlines.
 */
struct probe_target_listing {
	int funcs;
	const char *funcs_filter;
	const char *const *lines;
	int nr_lines;
	const char *const *vars;
	int nr_vars;
	const char *const *filters;
	int nr_filters;
	int externs;
	int range;
	int no_inlines;
};

/*
 * What of l is malformed, before any file is read, as perf's usage
 * errors: its filters (ORed as perf ORs them, -F's default "!_* &
 * !*@plt" and -V's "!__k???tab_* & !__crc_*" where perf has them), -L's
 * LINE, and each -V's SPEC (which takes no arguments).  0, or -EINVAL
 * with err.
 */
int probe_target_listing_check(const struct probe_target_listing *l,
			       struct strbuf *err);
/*
 * The listing l of t, from its BTF or else its DWARF, into out: the
 * functions with code, sorted, each once; the lines of the range; the
 * variables at each point in turn (out keeps those listed before a
 * failure).  note gets how they were found (for -v).  BTF has no lines,
 * no globals and no locations (-L, --externs, --range).  0, or the
 * listing's error with err set.
 */
int probe_target_list(const struct probe_target *t,
		      const struct probe_target_listing *l, struct strbuf *out,
		      struct strbuf *note, struct strbuf *err);

/*
 * The translation options for t that the running kernel accepts
 * (tk_features); force_regs spells kprobe arguments as registers.
 */
void probe_target_opts(const struct probe_target *t, int force_regs,
			     struct probe_opts *o);

#endif
