/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_KSYMS_H
#define TK_PROBE_KSYMS_H

#include "util/strbuf.h"

/*
 * The running kernel's symbols as kprobe events see them: /proc/kallsyms,
 * the kprobe blacklist (debugfs) and available_filter_functions, read
 * once each.  One check refuses, before anything is written, the symbols
 * the kernel would refuse to put a kprobe event on, whatever gave the
 * symbol (BTF by name, DWARF by address).
 */

struct probe_ksyms;

/* What kallsyms says of one name. */
struct probe_ksym {
	int nr;			/* text symbols of that name */
	/* the first text one's [MOD], or NULL for vmlinux */
	const char *module;
	const char *clone;	/* FUNC.isra.N, FUNC.constprop.N, FUNC.part.N */
};

struct probe_ksyms *probe_ksyms_new(void);
void probe_ksyms_free(struct probe_ksyms *k);

/* The clone suffix GCC gives a specialised copy (".isra.0"...) in sym, or NULL. */
const char *probe_ksyms_clone_suffix(const char *sym);

/* What kallsyms holds of name; 0, or -errno with err = "/proc/kallsyms: why". */
int probe_ksyms_find(struct probe_ksyms *k, const char *name,
		     struct probe_ksym *ks, struct strbuf *err);

/* Reads /proc/kallsyms (once); 0, or -errno with err = "/proc/kallsyms: why". */
int probe_ksyms_load(struct probe_ksyms *k, struct strbuf *err);

/* After probe_ksyms_load(): whether kallsyms has a text symbol name. */
int probe_ksyms_has_text(const struct probe_ksyms *k, const char *name);

/*
 * Whether the kernel takes a kprobe event on sym (MOD:SYM when module is
 * set): not when kallsyms lacks it, when the name is not unique there
 * (text or data; within the module for MOD:SYM), when it is on the kprobe
 * blacklist, or notrace.  0, or -errno with err = "SYM: why".
 */
int probe_ksyms_check(struct probe_ksyms *k, const char *sym,
		      const char *module, struct strbuf *err);

#endif
