// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/probe-ksyms.h"
#include "util/tracefs.h"
#include "util/usage.h"

#define KALLSYMS "/proc/kallsyms"
/* Where debugfs is usually mounted; tracekit never mounts it. */
#define KPROBE_BLACKLIST "/sys/kernel/debug/kprobes/blacklist"

struct kallsym {
	const char *name;
	const char *mod;	/* NULL for vmlinux */
	int text;		/* t or T */
};

struct probe_ksyms {
	/* /proc/kallsyms, and its symbols sorted by name */
	struct strbuf kallsyms;
	struct kallsym *syms;
	size_t nr_syms;
	/* available_filter_functions, its names sorted; -1: not checked */
	struct strbuf traceable;
	const char **ftrace_funcs;
	long nr_ftrace_funcs;
};

struct probe_ksyms *probe_ksyms_new(void)
{
	struct probe_ksyms *k = xcalloc(1, sizeof(*k));

	strbuf_init(&k->kallsyms, 0);
	strbuf_init(&k->traceable, 0);
	return k;
}

void probe_ksyms_free(struct probe_ksyms *k)
{
	if (!k)
		return;
	strbuf_release(&k->kallsyms);
	free(k->syms);
	strbuf_release(&k->traceable);
	free(k->ftrace_funcs);
	free(k);
}

const char *probe_ksyms_clone_suffix(const char *sym)
{
	static const char *const suffixes[] = { ".isra.", ".constprop.", ".part." };
	const char *dot;
	size_t i;

	for (dot = strchr(sym, '.'); dot; dot = strchr(dot + 1, '.'))
		for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
			if (!strncmp(dot, suffixes[i], strlen(suffixes[i])))
				return dot;
	return NULL;
}

static int kallsym_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kallsym *)a)->name,
		      ((const struct kallsym *)b)->name);
}

/*
 * One kallsyms line, "ADDR TYPE NAME" and for modules "\t[MOD]", cut in
 * place.  Every type is kept: the kernel refuses a kprobe on a name any
 * symbol shares ("The symbol is not unique": 6.1's event_function).
 */
static int kallsym_parse(char *line, struct kallsym *ks)
{
	char *p = strchr(line, ' '), *tab, *end;

	if (!p || !p[1] || p[2] != ' ')
		return 0;
	ks->text = p[1] == 't' || p[1] == 'T';
	ks->name = p + 3;
	ks->mod = NULL;
	tab = strchr(p + 3, '\t');
	if (tab) {
		*tab = '\0';
		end = strchr(tab + 1, ']');
		if (tab[1] == '[' && end) {
			*end = '\0';
			ks->mod = tab + 2;
		}
	}
	return 1;
}

/*
 * Read once and sorted by name: a batch of specs would otherwise read its
 * 200,000 lines once per spec.
 */
int probe_ksyms_load(struct probe_ksyms *k, struct strbuf *err)
{
	char *line, *nl;
	size_t alloc = 0;
	long ret;

	if (k->syms)
		return 0;
	ret = strbuf_read_file(&k->kallsyms, KALLSYMS, 1 << 22);
	if (ret < 0) {
		strbuf_addf(err, "%s: %s", KALLSYMS, strerror((int)-ret));
		return (int)ret;
	}
	for (line = k->kallsyms.buf; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		grow_array(k->syms, k->nr_syms, alloc, 1 << 16);
		k->nr_syms += kallsym_parse(line, &k->syms[k->nr_syms]);
	}
	if (!k->syms)
		k->syms = xcalloc(1, sizeof(*k->syms));
	qsort(k->syms, k->nr_syms, sizeof(*k->syms), kallsym_cmp);
	return 0;
}

/* The index of the first symbol not below name. */
static size_t kallsyms_lower(const struct probe_ksyms *k, const char *name)
{
	return lower_bound_by_name(k->syms, k->nr_syms, name, name);
}

int probe_ksyms_find(struct probe_ksyms *k, const char *name,
		     struct probe_ksym *ks, struct strbuf *err)
{
	struct strbuf dot = STRBUF_INIT;
	size_t i, n = strlen(name);
	int ret = probe_ksyms_load(k, err);

	memset(ks, 0, sizeof(*ks));
	if (ret)
		return ret;
	for (i = kallsyms_lower(k, name);
	     i < k->nr_syms && !strcmp(k->syms[i].name, name); i++)
		if (k->syms[i].text && !ks->nr++)
			ks->module = k->syms[i].mod;
	/* The clones sort right after "FUNC.". */
	strbuf_addf(&dot, "%s.", name);
	for (i = kallsyms_lower(k, dot.buf);
	     i < k->nr_syms && !strncmp(k->syms[i].name, dot.buf, n + 1) &&
	     !ks->clone;
	     i++)
		if (k->syms[i].text &&
		    probe_ksyms_clone_suffix(k->syms[i].name) ==
			    k->syms[i].name + n)
			ks->clone = k->syms[i].name;
	strbuf_release(&dot);
	return 0;
}

int probe_ksyms_has_text(const struct probe_ksyms *k, const char *name)
{
	size_t i;

	for (i = kallsyms_lower(k, name);
	     i < k->nr_syms && !strcmp(k->syms[i].name, name); i++)
		if (k->syms[i].text)
			return 1;
	return 0;
}

/* debugfs kprobes/blacklist lines: "0xSTART-0xEND\tNAME[\t[MOD]]". */
static int blacklisted(const char *func)
{
	FILE *f = fopen(KPROBE_BLACKLIST, "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0) {
		char name[256];

		found = sscanf(line, "%*s %255s", name) == 1 && !strcmp(name, func);
	}
	free(line);
	fclose(f);
	return found;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Whether func can carry a kprobe event: unless the kernel was built with
 * KPROBE_EVENTS_ON_NOTRACE, trace_kprobe refuses ("Failed to register
 * probe event") a function without an ftrace location, which is what
 * available_filter_functions lists (6.1: the __bpf_trace_* stubs, every
 * notrace function).  Without that file there is nothing to check.
 */
static int traceable(struct probe_ksyms *k, const char *func)
{
	if (!k->ftrace_funcs) {
		long n = 0, alloc = 0;
		char *line, *nl;

		k->ftrace_funcs = xcalloc(1, sizeof(*k->ftrace_funcs));
		k->nr_ftrace_funcs = -1;
		if (tk_kconfig_has("CONFIG_KPROBE_EVENTS_ON_NOTRACE", NULL) ||
		    tk_tracefs_read(NULL, "available_filter_functions", &k->traceable) <= 0)
			return 1;
		for (line = k->traceable.buf; (nl = strchr(line, '\n'));
		     line = nl + 1) {
			*nl = '\0';
			line[strcspn(line, " \t")] = '\0';
			grow_array(k->ftrace_funcs, n, alloc, 1 << 16);
			k->ftrace_funcs[n++] = line;
		}
		qsort(k->ftrace_funcs, n, sizeof(*k->ftrace_funcs), str_cmp);
		k->nr_ftrace_funcs = n;
	}
	return k->nr_ftrace_funcs < 0 ||
	       bsearch(&func, k->ftrace_funcs, k->nr_ftrace_funcs,
		       sizeof(*k->ftrace_funcs), str_cmp);
}

/*
 * The symbols of name in the kernel's scope for a kprobe on it: with
 * MOD:SYM the module's alone (measured on 6.1.0-57: tktest:kallsyms_open
 * is taken while vmlinux has a kallsyms_open too), else all of them.
 */
static void count_in(const struct probe_ksyms *k, const char *name,
		     const char *module, int *nr, int *all)
{
	size_t i;

	*nr = *all = 0;
	for (i = kallsyms_lower(k, name);
	     i < k->nr_syms && !strcmp(k->syms[i].name, name); i++) {
		if (module &&
		    (!k->syms[i].mod || strcmp(k->syms[i].mod, module)))
			continue;
		++*all;
		*nr += k->syms[i].text;
	}
}

int probe_ksyms_check(struct probe_ksyms *k, const char *sym,
		      const char *module, struct strbuf *err)
{
	int nr, all, ret = probe_ksyms_load(k, err);

	if (ret)
		return ret;
	count_in(k, sym, module, &nr, &all);
	if (!nr) {
		strbuf_addf(err, "%s: not in %s (inlined everywhere, or its module is not "
			    "loaded): no kprobe can be put on it", sym, KALLSYMS);
		return -ENOENT;
	}
	if (all > 1) {
		strbuf_addf(err, "%s: %d symbols of that name in %s%s%s%s, %s: the kernel puts no "
			    "kprobe on a name that is not unique", sym, all, KALLSYMS,
			    module ? " [" : "", module ? module : "", module ? "]" : "",
			    nr > 1 ? "functions" : "not all functions");
		return -EOPNOTSUPP;
	}
	if (blacklisted(sym)) {
		strbuf_addf(err, "%s: on the kprobe blacklist (%s)", sym, KPROBE_BLACKLIST);
		return -EPERM;
	}
	if (!traceable(k, sym)) {
		strbuf_addf(err, "%s: notrace (not in available_filter_functions): this kernel "
			    "puts kprobe events on ftrace-able functions only", sym);
		return -EPERM;
	}
	return 0;
}
