/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_BTF_H
#define TK_PROBE_BTF_H

#include "util/strbuf.h"

/*
 * BTF side of `tracekit probe`, for a running kernel without a vmlinux
 * with DWARF: /sys/kernel/btf/vmlinux, and /sys/kernel/btf/MODULE (split
 * BTF on top of it) for a function a module holds, read with libbpf.  BTF
 * has the prototypes and the type layouts but no locations: a probe is at
 * a function's entry, where a parameter is the $argN of the slot the
 * calling convention gives it (arch_arg_slot()), or at its return, and
 * what needs more (lines, offsets, locals, globals) is refused with that
 * reason.  Before anything is written it refuses what the kernel would
 * (probe_ksyms_check()), and compiler clones (.isra, .constprop, .part),
 * whose prototype BTF does not describe.
 */

struct probe_btf;
struct probe_opts;
struct probe_point;
struct probe_spec;

#define PROBE_BTF_VMLINUX "/sys/kernel/btf/vmlinux"

/* The running kernel's BTF; NULL with err = "PATH: why". */
struct probe_btf *probe_btf_open(struct strbuf *err);
/*
 * The BTF of another kernel (its /sys/kernel/btf/vmlinux copied, or an
 * ELF with .BTF): nothing is checked against this machine's kallsyms,
 * and functions are taken to be vmlinux's.  NULL with err.
 */
struct probe_btf *probe_btf_open_file(const char *path, struct strbuf *err);
/* EM_X86_64 or EM_AARCH64 from the kernel's struct pt_regs; EM_NONE. */
unsigned int probe_btf_machine(const struct probe_btf *b);
void probe_btf_close(struct probe_btf *b);

/*
 * As probe_dwarf_resolve(), from BTF: one point, at the entry or the
 * return; warn (NULL: none) gets a line for each parameter $params
 * leaves out or cuts.
 */
int probe_btf_resolve(struct probe_btf *b, const struct probe_spec *spec,
		      const struct probe_opts *opts, struct probe_point **pps,
		      int *nr, struct strbuf *warn, struct strbuf *err);

/* -V: the parameters of spec's function, with their types. */
int probe_btf_list_vars(struct probe_btf *b, const struct probe_spec *spec,
			struct strbuf *out, struct strbuf *err);
/*
 * The functions vmlinux's BTF describes and kallsyms has, matching glob
 * (NULL: all), sorted, each once: a wildcard spec's functions.  The
 * strings are b's, the array the caller's to free.
 */
int probe_btf_match_funcs(struct probe_btf *b, const char *glob,
			  const char ***names, int *nr, struct strbuf *err);
/* -F: probe_btf_match_funcs(), a line each. */
int probe_btf_list_funcs(struct probe_btf *b, const char *glob,
			 struct strbuf *out, struct strbuf *err);

/*
 * -EOPNOTSUPP with err = "WHAT: needs DWARF debuginfo (only BTF found: ...)".
 */
int probe_btf_needs_dwarf(const struct probe_btf *b, const char *what,
			  struct strbuf *err);

/* sizeof(struct name) in the running kernel's BTF, 0 when it has none. */
unsigned long probe_btf_struct_size(const char *name);

#endif
