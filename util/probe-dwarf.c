// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "util/array.h"
#include "util/elf-addr.h"
#include "util/probe-dwarf-int.h"
#include "util/usage.h"

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct probe_debuginfo *probe_debuginfo_open(const char *path,
					     struct strbuf *err)
{
	struct probe_debuginfo *dbg;
	Dwarf_Addr elf_bias;
	int fd, e;
	Elf *probe;

	/* Tell "not ELF" from "no debug info" before libdwfl blurs them. */
	probe = elf_addr_open_file(path, &fd, &e);
	if (!probe) {
		strbuf_addf(err, "%s: %s", path,
			    e == -EINVAL ? "not an ELF file" : strerror(-e));
		return NULL;
	}
	elf_addr_close_file(probe, fd);

	dbg = xcalloc(1, sizeof(*dbg));
	dbg->path = xstrdup(path);
	dbg->dwfl = dwfl_begin(&offline_callbacks);
	if (!dbg->dwfl)
		goto dwfl_fail;
	dbg->mod = dwfl_report_offline(dbg->dwfl, "", path, -1);
	if (!dbg->mod)
		goto dwfl_fail;
	dwfl_report_end(dbg->dwfl, NULL, NULL);
	dbg->elf = dwfl_module_getelf(dbg->mod, &elf_bias);
	if (!dbg->elf)
		goto dwfl_fail;
	/*
	 * Without DWARF the symbols remain: -F, and functions probed by symbol.
	 */
	dbg->dw = dwfl_module_getdwarf(dbg->mod, &dbg->bias);
	if (!dbg->dw)
		dbg->bias = elf_bias;
	dbg->cfi = dwfl_module_dwarf_cfi(dbg->mod, &dbg->cfi_bias);
	if (!dbg->cfi)
		dbg->cfi = dwfl_module_eh_cfi(dbg->mod, &dbg->cfi_bias);
	return dbg;
dwfl_fail:
	strbuf_addf(err, "%s: %s", path, dwfl_errmsg(-1));
	probe_debuginfo_close(dbg);
	return NULL;
}

const char *probe_debuginfo_file(const struct probe_debuginfo *dbg)
{
	const char *debug_file = NULL;

	/* libdwfl names the debug file only when it is not the main one. */
	dwfl_module_info(dbg->mod, NULL, NULL, NULL, NULL, NULL, NULL,
			 &debug_file);
	return dbg->dw && debug_file ? debug_file : dbg->path;
}

const struct arch *probe_debuginfo_arch(const struct probe_debuginfo *dbg,
					struct strbuf *why)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(dbg->elf, &eh)) {
		strbuf_addstr(why, "an unreadable ELF header");
		return NULL;
	}
	return arch_of_elf(eh.e_machine, eh.e_ident[EI_CLASS], why);
}

void probe_debuginfo_close(struct probe_debuginfo *dbg)
{
	if (!dbg)
		return;
	if (dbg->dwfl)
		dwfl_end(dbg->dwfl);
	free(dbg->syms);
	free(dbg->by_pc);
	free(dbg->units);
	free(dbg->path);
	free(dbg);
}

#define NO_DWARF "no DWARF debug info (stripped, or built without -g)"

/* ---- functions ---- */

static void push_site(struct site_list *sl, Dwarf_Die *target, Dwarf_Die *func,
		      int inlined)
{
	grow_array(sl->v, sl->nr, sl->alloc, 4);
	sl->v[sl->nr].target = *target;
	sl->v[sl->nr].func = *func;
	sl->v[sl->nr++].inlined = inlined;
}

/*
 * The out-of-line definitions of a function: one, or one per CU for a
 * static function defined in several (perf probes each of them).
 */
struct func_search {
	/* the DW_AT_name, or a mangled DW_AT_linkage_name */
	const char *name;
	/* C++ "ns::Cls::" the name was qualified with, or NULL */
	const char *scope;
	const char *file;
	/* by_pc: only the definition entered at pc */
	Dwarf_Addr pc;
	int by_pc;
	struct site_list sites;
	/* an inline-only definition, if that is all there is */
	Dwarf_Die abstract;
	int has_abstract;
};

/*
 * "Cls::" matches ns::Cls:: too: a qualified name may leave out the outer
 * scopes.
 */
static int scope_matches(Dwarf_Die *die, const char *want)
{
	struct strbuf have = STRBUF_INIT;
	size_t wl = strlen(want);
	int ok;

	dwarf_aux_scope_prefix(die, &have);
	ok = have.len >= wl && !strcmp(have.buf + have.len - wl, want) &&
	     (have.len == wl || have.buf[have.len - wl - 1] == ':');
	strbuf_release(&have);
	return ok;
}

static int func_name_matches(Dwarf_Die *die, const struct func_search *fs)
{
	const char *name = dwarf_diename(die), *mangled;

	if (name && !strcmp(name, fs->name))
		return !fs->scope || scope_matches(die, fs->scope);
	mangled = fs->scope ? NULL : dwarf_aux_linkage_name(die);
	return mangled && !strcmp(mangled, fs->name);
}

/*
 * By where the DIE is mapped: offsets repeat across the .dwo files of split
 * DWARF.
 */
static int site_known(const struct site_list *sl, Dwarf_Die *die)
{
	int i;

	for (i = 0; i < sl->nr; i++)
		if (sl->v[i].target.addr == die->addr)
			return 1;
	return 0;
}

static int func_cb(Dwarf_Die *die, void *arg)
{
	struct func_search *fs = arg;
	Dwarf_Addr pc;

	if (!func_name_matches(die, fs) ||
	    !dwarf_aux_file_matches(die, fs->file))
		return DWARF_CB_OK;
	if (dwarf_aux_entry(die, &pc)) {
		if (!fs->has_abstract && dwarf_func_inline(die)) {
			fs->abstract = *die;
			fs->has_abstract = 1;
		}
		return DWARF_CB_OK;
	}
	if ((fs->by_pc && pc != fs->pc) || site_known(&fs->sites, die))
		return DWARF_CB_OK;
	push_site(&fs->sites, die, die, 0);
	return fs->by_pc ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/*
 * Appends the .dwo names of the skeletons whose split unit libdw did not find.
 */
static int missing_splits(struct probe_debuginfo *dbg, struct strbuf *names)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu, split;
	Dwarf_Attribute attr;
	uint8_t type;
	int nr = 0;

	while (dwarf_get_units(dbg->dw, unit, &unit, NULL, &type, &cu,
			       &split) == 0) {
		const char *dwo;

		if (type != DW_UT_skeleton || split.cu)
			continue;
		dwo = dwarf_formstring(dwarf_attr(&cu, DW_AT_dwo_name, &attr));
		if (!dwo)	/* DWARF 4: the GNU extension */
			dwo = dwarf_formstring(dwarf_attr(&cu,
							  DW_AT_GNU_dwo_name,
							  &attr));
		strbuf_addf(names, "%s%s", nr++ ? ", " : "", dwo ? dwo : "?");
	}
	return nr;
}

/*
 * Iterates the CUs (the split units of skeletons); cb returns nonzero to stop.
 */
int probe_dwarf_for_each_cu(struct probe_debuginfo *dbg,
			    int (*cb)(Dwarf_Die *cu, void *arg), void *arg)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu;

	while (dbg->dw &&
	       dwarf_get_units(dbg->dw, unit, &unit, NULL, NULL, &cu,
			       NULL) == 0)
		if (dwarf_aux_unit(&cu) && cb(&cu, arg))
			return 1;
	return 0;
}

static int find_func_in_cu(Dwarf_Die *cu, void *arg)
{
	dwarf_getfuncs(cu, func_cb, arg, 0);
	return 0;
}

struct unit_walk {
	struct probe_debuginfo *dbg;
	Dwarf_Die cu;
};

static void push_unit(struct probe_debuginfo *dbg, const char *name,
		      const Dwarf_Die *cu)
{
	grow_array(dbg->units, dbg->nr_units, dbg->alloc_units, 1024);
	dbg->units[dbg->nr_units].name = name;
	dbg->units[dbg->nr_units++].cu = *cu;
}

static int unit_func_cb(Dwarf_Die *die, void *arg)
{
	struct unit_walk *w = arg;
	const char *name = dwarf_diename(die),
	*mangled = dwarf_aux_linkage_name(die);

	if (name)
		push_unit(w->dbg, name, &w->cu);
	if (mangled && (!name || strcmp(mangled, name)))
		push_unit(w->dbg, mangled, &w->cu);
	return DWARF_CB_OK;
}

static int index_unit(Dwarf_Die *cu, void *arg)
{
	struct unit_walk *w = arg;

	w->cu = *cu;
	dwarf_getfuncs(cu, unit_func_cb, w, 0);
	return 0;
}

static int cmp_func_unit(const void *a, const void *b)
{
	const struct func_unit *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->cu.addr > y->cu.addr) - (x->cu.addr < y->cu.addr);
}

/*
 * find_func_in_cu in every unit that has a function of fs's name, as
 * walking them all would find it.  The walk is done once and kept as an
 * index: a spec whose function no symbol names (inlined only, or absent)
 * walked all of a vmlinux's 2,800 units, 0.2 s each time.
 */
static void units_index(struct probe_debuginfo *dbg)
{
	struct unit_walk w = { .dbg = dbg };

	if (dbg->units_read)
		return;
	dbg->units_read = 1;
	probe_dwarf_for_each_cu(dbg, index_unit, &w);
	if (dbg->nr_units)
		qsort(dbg->units, dbg->nr_units, sizeof(*dbg->units),
		      cmp_func_unit);
}

static void find_func_everywhere(struct probe_debuginfo *dbg,
				 struct func_search *fs)
{
	size_t lo = 0, hi;
	const void *last = NULL;

	units_index(dbg);
	hi = dbg->nr_units;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(dbg->units[mid].name, fs->name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < dbg->nr_units && !strcmp(dbg->units[lo].name, fs->name);
	     lo++) {
		if (dbg->units[lo].cu.addr == last)
			continue;
		last = dbg->units[lo].cu.addr;
		find_func_in_cu(&dbg->units[lo].cu, fs);
	}
}

/*
 * By name, then address: a name's copies come in the order they are laid out.
 */
static int cmp_func_sym(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->pc > y->pc) - (x->pc < y->pc);
}

static int cmp_sym_pc(const void *a, const void *b)
{
	const struct func_sym *x = *(const struct func_sym *const *)a;
	const struct func_sym *y = *(const struct func_sym *const *)b;

	return (x->pc > y->pc) - (x->pc < y->pc);
}

static int bind_rank(const struct func_sym *f)
{
	return f->bind == STB_GLOBAL ? 2 : f->bind == STB_WEAK;
}

/*
 * The function symbol holding pc and pc's offset in it, a global one
 * before a weak or a local one at the same address, as
 * dwfl_module_addrinfo answers; that one searches the whole symbol table
 * on every call (elfutils 0.188), half of a vmlinux spec's time.  Where no
 * function symbol holds pc, the answer is dwfl_module_addrinfo's.
 */
const char *probe_dwarf_func_at(struct probe_debuginfo *dbg, Dwarf_Addr pc,
				GElf_Off *off)
{
	size_t lo = 0, hi;
	const struct func_sym *best = NULL;
	GElf_Sym sym;

	probe_dwarf_syms_load(dbg);
	hi = dbg->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dbg->by_pc[mid]->pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The symbols at the nearest address at or below pc. */
	for (hi = lo; lo > 0 &&
	     dbg->by_pc[lo - 1]->pc == dbg->by_pc[hi - 1]->pc; lo--) {
		const struct func_sym *f = dbg->by_pc[lo - 1];

		if (pc >= f->pc + (f->size ? f->size : 1))
			continue;
		if (!best || bind_rank(f) > bind_rank(best) ||
		    (bind_rank(f) == bind_rank(best) && f->ndx < best->ndx))
			best = f;
	}
	if (best) {
		*off = pc - best->pc;
		return best->name;
	}
	return dwfl_module_addrinfo(dbg->mod, pc + dbg->bias, off, &sym, NULL,
				    NULL, NULL);
}

/*
 * The function symbols, read once into dbg->syms (by name) and by_pc:
 * dwfl_module_getsym_info over a vmlinux's 150,000 symbols for every spec
 * was most of a kernel spec's time.
 */
void probe_dwarf_syms_load(struct probe_debuginfo *dbg)
{
	if (!dbg->syms_read) {
		int i, n = dwfl_module_getsymtab(dbg->mod);

		dbg->syms_read = 1;
		dbg->syms = xcalloc(n > 0 ? n : 1, sizeof(*dbg->syms));
		for (i = 1; i < n; i++) {
			struct func_sym *f = &dbg->syms[dbg->nr_syms];
			GElf_Sym sym;
			GElf_Addr addr;
			const char *s = dwfl_module_getsym_info(dbg->mod, i,
								&sym, &addr,
								NULL, NULL,
								NULL);

			f->type = GELF_ST_TYPE(sym.st_info);
			if (!s || !*s || sym.st_shndx == SHN_UNDEF ||
			    (f->type != STT_FUNC && f->type != STT_GNU_IFUNC))
				continue;
			f->name = s;
			f->pc = addr - dbg->bias;
			f->size = sym.st_size;
			f->bind = GELF_ST_BIND(sym.st_info);
			f->ndx = i;
			dbg->nr_syms++;
		}
		qsort(dbg->syms, dbg->nr_syms, sizeof(*dbg->syms),
		      cmp_func_sym);
		dbg->by_pc = xcalloc(dbg->nr_syms ? dbg->nr_syms : 1,
				     sizeof(*dbg->by_pc));
		for (i = 0; i < (int)dbg->nr_syms; i++)
			dbg->by_pc[i] = &dbg->syms[i];
		qsort(dbg->by_pc, dbg->nr_syms, sizeof(*dbg->by_pc),
		      cmp_sym_pc);
	}
}

/* The index of the first function symbol not sorting before name. */
static size_t func_syms_from(struct probe_debuginfo *dbg, const char *name)
{
	probe_dwarf_syms_load(dbg);
	return lower_bound_by_name(dbg->syms, dbg->nr_syms, name, name);
}

/* The STT_FUNC or STT_GNU_IFUNC symbol name: its DWARF address and type. */
static int func_symbol(struct probe_debuginfo *dbg, const char *name,
		       Dwarf_Addr *pc, int *type)
{
	size_t i = func_syms_from(dbg, name);

	if (i == dbg->nr_syms || strcmp(dbg->syms[i].name, name))
		return -ENOENT;
	*pc = dbg->syms[i].pc;
	*type = dbg->syms[i].type;
	return 0;
}

/*
 * sym is a copy of func: func itself, or a clone gcc made of a static
 * func (func.constprop.0, func.isra.0, func.part.0), whose DW_TAG_subprogram
 * is still named func.  func.cold is a part of func's body, not a copy.
 */
static int copy_symbol(const char *sym, const char *func)
{
	static const char *const clones[] = { "constprop.", "isra.", "part." };
	size_t len = strlen(func), i;

	if (strncmp(sym, func, len))
		return 0;
	if (!sym[len])
		return 1;
	if (sym[len] != '.')
		return 0;
	for (i = 0; i < sizeof(clones) / sizeof(clones[0]); i++)
		if (!strncmp(sym + len + 1, clones[i], strlen(clones[i])))
			return 1;
	return 0;
}

/*
 * The fast path: the ELF symbol gives the address, .debug_aranges its CU,
 * and only that CU is searched.  perf walks every CU for every spec (gcc's
 * DWARF 5 has no pubnames), which is most of its time on big binaries.
 */
static void find_func_by_symbol(struct probe_debuginfo *dbg,
				struct func_search *fs)
{
	size_t i, len = strlen(fs->name);

	/*
	 * Every symbol: a static function has a local one in each of its CUs.
	 */
	for (i = func_syms_from(dbg, fs->name); i < dbg->nr_syms &&
	     !strncmp(dbg->syms[i].name, fs->name, len); i++) {
		Dwarf_Die cu;

		if (dbg->syms[i].type != STT_FUNC ||
		    !copy_symbol(dbg->syms[i].name, fs->name))
			continue;
		fs->pc = dbg->syms[i].pc;
		fs->by_pc = 1;
		if (dwarf_addrdie(dbg->dw, fs->pc, &cu) && dwarf_aux_unit(&cu))
			find_func_in_cu(&cu, fs);
	}
	fs->by_pc = 0;
}

/*
 * dwarf_getscopes follows an inlined copy to its abstract definition, so
 * the subprogram that holds the copy's code is found by address instead.
 */
static int inline_instance_cb(Dwarf_Die *inst, void *arg)
{
	struct site_list *sl = arg;
	Dwarf_Die cu, holder;
	Dwarf_Addr pc;

	if (dwarf_tag(inst) != DW_TAG_inlined_subroutine ||
	    dwarf_aux_entry(inst, &pc) ||
	    !dwarf_diecu(inst, &cu, NULL, NULL))
		return DWARF_CB_OK;
	if (!dwarf_aux_func_at(&cu, pc, &holder))
		push_site(sl, inst, &holder, 1);
	return DWARF_CB_OK;
}

static int cmp_site(const void *a, const void *b)
{
	const struct probe_site *sa = a, *sb = b;
	Dwarf_Off x = dwarf_dieoffset((Dwarf_Die *)&sa->target);
	Dwarf_Off y = dwarf_dieoffset((Dwarf_Die *)&sb->target);

	return x < y ? -1 : x > y;
}

/*
 * Definitions with different mangled names are C++ overloads, which one
 * event cannot share (their arguments differ): refuse, listing them.
 * Copies of one static function share their name (or have none, in C).
 */
static int overloads(struct site_list *sl, const struct probe_spec *spec,
		     struct strbuf *err)
{
	const char *first = dwarf_aux_linkage_name(&sl->v[0].target);
	int i, distinct = 0;

	for (i = 1; i < sl->nr && !distinct; i++) {
		const char *ln = dwarf_aux_linkage_name(&sl->v[i].target);

		distinct = first && ln && strcmp(first, ln);
	}
	if (!distinct)
		return 0;
	strbuf_addf(err, "'%s' is overloaded: ", spec->func);
	for (i = 0; i < sl->nr; i++) {
		strbuf_addstr(err, i ? ", " : "");
		dwarf_aux_prototype(&sl->v[i].target, err);
		strbuf_addf(err, " [%s]",
			    dwarf_aux_linkage_name(&sl->v[i].target));
	}
	strbuf_addstr(err, ": name one by its mangled name");
	free(sl->v);
	return -EINVAL;
}

/* The function DIEs with code entered at pc (of a source file, or any). */
struct entry_search {
	Dwarf_Addr pc;
	const char *file;
	struct site_list sites;
};

static int entry_cb(Dwarf_Die *die, void *arg)
{
	struct entry_search *es = arg;
	Dwarf_Addr pc;

	if (dwarf_diename(die) && !dwarf_aux_entry(die, &pc) && pc == es->pc &&
	    dwarf_aux_file_matches(die, es->file))
		push_site(&es->sites, die, die, 0);
	return DWARF_CB_OK;
}

/*
 * A function symbol no DIE is named after, at the entry of a function
 * DIE, is an alias of it (glibc's strong_alias: malloc of __libc_malloc,
 * openat of __libc_openat64), so it has that DIE's parameters; perf 6.1
 * finds none ("Failed to add events").  One DIE is taken, the
 * first by offset where several are entered there, and note (NULL: none)
 * gets a line saying which.  An indirect function's symbol is its
 * resolver's address, not the function's: it is left to the symbol.
 */
static void find_alias(struct probe_debuginfo *dbg,
		       const struct probe_spec *spec, struct site_list *sl,
		       struct strbuf *note)
{
	struct entry_search es = { .file = spec->file };
	Dwarf_Die cu;
	int type, i;

	if (func_symbol(dbg, spec->func, &es.pc, &type) || type != STT_FUNC ||
	    !dwarf_addrdie(dbg->dw, es.pc, &cu) || !dwarf_aux_unit(&cu))
		return;
	dwarf_getfuncs(&cu, entry_cb, &es, 0);
	if (!es.sites.nr)
		return;
	qsort(es.sites.v, es.sites.nr, sizeof(*es.sites.v), cmp_site);
	if (note) {
		strbuf_addf(note, "%s: alias of %s (same address 0x%" PRIx64 ") in %s",
			    spec->func, dwarf_diename(&es.sites.v[0].target),
			    (uint64_t)es.pc, probe_debuginfo_file(dbg));
		if (es.sites.nr > 1)
			strbuf_addf(note, ", the first by offset of the %d function DIEs entered there:",
				    es.sites.nr);
		for (i = 0; es.sites.nr > 1 && i < es.sites.nr; i++)
			strbuf_addf(note, " %s",
				    dwarf_diename(&es.sites.v[i].target));
		strbuf_addch(note, '\n');
	}
	es.sites.nr = 1;
	*sl = es.sites;
}

/*
 * The sites of spec's function: by its name, else as an alias (note gets
 * a line saying so, unless NULL).
 */
int probe_dwarf_find_sites(struct probe_debuginfo *dbg,
			   const struct probe_spec *spec, struct site_list *sl,
			   struct strbuf *note, struct strbuf *err)
{
	struct func_search fs = { .name = spec->func, .file = spec->file };
	const char *colons = NULL, *c;
	char *scope = NULL, *dot;
	int ret = -ENOENT;

	memset(sl, 0, sizeof(*sl));
	if (!dbg->dw) {
		strbuf_addf(err, "%s: %s", dbg->path, NO_DWARF);
		return -ENOENT;
	}
	if (!spec->func) {
		strbuf_addf(err, "%s: a source file's line names no function here: give FUNC[@SRC]",
			    spec->file);
		return -EINVAL;
	}
	/* ns::Cls::method: the last name, in the scopes before it. */
	for (c = strstr(spec->func, "::"); c; c = strstr(c + 2, "::"))
		colons = c;
	if (colons) {
		scope = xstrndup(spec->func, colons + 2 - spec->func);
		fs.scope = scope;
		fs.name = colons + 2;
	}
	/*
	 * Every copy of a static function has a symbol, its own name or a
	 * clone's: every CU is walked only when no symbol is found (on the
	 * kernel's vmlinux, 0.07 s a spec when each static one walked them).
	 */
	find_func_by_symbol(dbg, &fs);
	if (!fs.sites.nr)
		find_func_everywhere(dbg, &fs);
	if (!fs.sites.nr && !fs.has_abstract &&
	    (dot = strchr(spec->func, '.'))) {
		/* foo.isra.0: DWARF names the clone's source function foo. */
		char *base = xstrndup(spec->func, dot - spec->func);

		fs.name = base;
		find_func_everywhere(dbg, &fs);
		free(base);
	}
	if (!fs.sites.nr && !fs.has_abstract)
		find_alias(dbg, spec, &fs.sites, note);
	free(scope);
	*sl = fs.sites;
	if (sl->nr) {
		/* In the order of the CUs, as perf lists them. */
		qsort(sl->v, sl->nr, sizeof(*sl->v), cmp_site);
		return overloads(sl, spec, err);
	}
	if (fs.has_abstract)
		dwarf_func_inline_instances(&fs.abstract, inline_instance_cb,
					    sl);
	if (!sl->nr) {
		struct strbuf dwo = STRBUF_INIT;

		strbuf_addf(err, "%s: no function '%s'%s%s with code in the debug info",
			    dbg->path, spec->func, spec->file ? " in " : "",
			    spec->file ? spec->file : "");
		if (missing_splits(dbg, &dwo)) {
			strbuf_addf(err, ": its split DWARF is missing (%s: neither next to it, nor in a .dwp, nor under DW_AT_comp_dir)",
				    dwo.buf);
			ret = -ENODATA;
		}
		strbuf_release(&dwo);
		return ret;
	}
	if (spec->retprobe || spec->has_line || spec->has_offset) {
		strbuf_addf(err, "%s is only inlined: it has no return, and only its entries can be probed",
			    spec->func);
		free(sl->v);
		return -EINVAL;
	}
	return 0;
}

/*
 * name, for a wildcard: it has code, or with inlines set inlined copies,
 * to probe.
 */
static int func_probed(struct probe_debuginfo *dbg, const char *name,
		       int inlines)
{
	struct probe_spec spec = { .func = (char *)name };
	struct strbuf err = STRBUF_INIT;
	struct site_list sl;
	int i, ok = 0;

	if (!probe_dwarf_find_sites(dbg, &spec, &sl, NULL, &err)) {
		for (i = 0; i < sl.nr && !ok; i++)
			ok = inlines || !sl.v[i].inlined;
		free(sl.v);
	}
	strbuf_release(&err);
	return ok;
}

int probe_dwarf_match_funcs(struct probe_debuginfo *dbg, const char *glob,
			    int inlines, const char ***names, int *nr)
{
	int alloc = 0;
	size_t i;

	*names = NULL;
	*nr = 0;
	if (!dbg->dw) {
		probe_dwarf_syms_load(dbg);
		for (i = 0; i < dbg->nr_syms; i++) {
			const char *n = dbg->syms[i].name;

			if (fnmatch(glob, n, 0) ||
			    (*nr && !strcmp(n, (*names)[*nr - 1])))
				continue;
			grow_array(*names, *nr, alloc, 16);
			(*names)[(*nr)++] = n;
		}
		return 0;
	}
	units_index(dbg);
	for (i = 0; i < dbg->nr_units; i++) {
		const char *n = dbg->units[i].name;

		if ((i && !strcmp(n, dbg->units[i - 1].name)) ||
		    fnmatch(glob, n, 0) || !func_probed(dbg, n, inlines))
			continue;
		grow_array(*names, *nr, alloc, 16);
		(*names)[(*nr)++] = n;
	}
	return 0;
}

int probe_dwarf_find_function(struct probe_debuginfo *dbg,
			      const struct probe_spec *spec, Dwarf_Die *out,
			      struct strbuf *note, struct strbuf *err)
{
	struct site_list sl;
	int ret = probe_dwarf_find_sites(dbg, spec, &sl, note, err);

	if (ret)
		return ret;
	*out = sl.v[0].target;
	free(sl.v);
	return 0;
}

int probe_dwarf_point_address(const struct probe_spec *spec, Dwarf_Die *func,
			      int want_vars, Dwarf_Addr *pc, int *skipped,
			      struct strbuf *err)
{
	struct dwarf_aux_row *rows;
	Dwarf_Addr entry, best = 0;
	Dwarf_Die cu;
	int nr, i, decl = 0, found = 0;

	*skipped = 0;
	dwarf_aux_entry(func, &entry);
	*pc = entry;
	if (spec->retprobe ||
	    (!spec->has_line && !spec->has_offset &&
	     (!want_vars || !dwarf_diecu(func, &cu, NULL, NULL) ||
	      dwarf_aux_cu_optimized(&cu))))
		return 0;
	dwarf_aux_func_rows(func, &rows, &nr);
	if (spec->has_offset) {
		*pc = entry + spec->offset;
		/*
		 * uprobes do not check instruction boundaries (SIGILL): we do.
		 */
		for (i = 0; i < nr && !found; i++)
			found = rows[i].addr == *pc;
		free(rows);
		if (spec->offset && !found) {
			strbuf_addf(err, "%s+%lu: not at an instruction boundary known from the line table",
				    spec->func, spec->offset);
			return -EINVAL;
		}
		return 0;
	}
	if (spec->has_line) {
		dwarf_decl_line(func, &decl);
		for (i = 0; i < nr; i++)
			if (rows[i].line == decl + spec->line &&
			    (!found || rows[i].addr < best)) {
				best = rows[i].addr;
				found = 1;
			}
		free(rows);
		if (!found) {
			strbuf_addf(err, "%s:%d: no code at that line (line %d of the file)",
				    spec->func, spec->line, decl + spec->line);
			return -ENOENT;
		}
		*pc = best;
		return 0;
	}
	/*
	 * -O0: arguments live in stack slots the prologue fills, so the
	 * first row past the entry is where their DWARF locations hold
	 * (what perf does too).
	 */
	for (i = 0; i < nr; i++)
		if (rows[i].addr > entry && (!found || rows[i].addr < best)) {
			best = rows[i].addr;
			found = 1;
		}
	free(rows);
	if (found) {
		*pc = best;
		*skipped = 1;
	}
	return 0;
}

/* ---- resolve ---- */

/* pp's address pc: its symbol, and for uprobes its file offset. */
static int place_point(struct probe_debuginfo *dbg,
		       const struct probe_spec *spec, const char *func,
		       const struct probe_opts *opts, Dwarf_Addr pc,
		       struct probe_point *pp, struct strbuf *err)
{
	GElf_Off off;
	const char *name;

	pp->func = xstrdup(func);
	pp->addr = pc;
	pp->retprobe = spec->retprobe;
	name = probe_dwarf_func_at(dbg, pc, &off);
	if (!name) {
		strbuf_addf(err, "%s: no symbol covers %s at 0x%" PRIx64,
			    dbg->path, func, (uint64_t)pc);
		return -ENOENT;
	}
	pp->sym = xstrdup(name);
	pp->sym_off = off;
	if (opts->kind == PROBE_UPROBE &&
	    (elf_addr_vaddr_to_offset(dbg->elf, pc, &pp->file_off) ||
	     elf_addr_load_delta(dbg->elf, pc, &pp->load_delta))) {
		strbuf_addf(err, "%s: 0x%" PRIx64 " is in no loadable segment",
			    dbg->path, (uint64_t)pc);
		return -ENOENT;
	}
	return 0;
}

/*
 * A function the DWARF does not describe (assembly, code built without
 * -g: libc's memchr) is probed at its symbol, as perf does; with no
 * types or locations, only raw fetchargs can be its arguments.
 */
static int resolve_symbol_only(struct probe_debuginfo *dbg,
			       const struct probe_spec *spec,
			       const struct probe_opts *opts,
			       struct probe_point **pps, int *nr,
			       struct strbuf *warn, struct strbuf *err)
{
	struct var_ctx vc = { .dbg = dbg, .opts = opts };
	Dwarf_Addr pc;
	int i, ret, type, raw = 1;

	if (spec->file || func_symbol(dbg, spec->func, &pc, &type))
		return -ENOENT;
	for (i = 0; i < spec->nr_args; i++)
		raw &= spec->args[i].kind == PROBE_ARG_RAW;
	if (spec->has_line || spec->has_offset || !raw) {
		strbuf_reset(err);
		if (!dbg->dw)
			strbuf_addf(err, "%s: %s: ", dbg->path, NO_DWARF);
		strbuf_addf(err, "%s is a symbol without debug info: %s",
			    spec->func,
			    raw ? "no lines or offsets" :
			    "only raw fetchargs (%di, $stack1...) can be fetched");
		return -EINVAL;
	}
	strbuf_reset(err);
	*pps = xcalloc(1, sizeof(**pps));
	ret = place_point(dbg, spec, spec->func, opts, pc, *pps, err);
	if (!ret) {
		vc.sym = (*pps)->sym;
		ret = probe_point_args(*pps, spec, &probe_dwarf_arg_ops, &vc,
				       warn, err);
	}
	if (ret) {
		probe_points_release(*pps, 1);
		*pps = NULL;
		return ret;
	}
	/* perf warns too: the resolver runs once, at relocation. */
	if (type == STT_GNU_IFUNC && warn)
		strbuf_addf(warn, "%s is a GNU indirect function: this probes its resolver, not the function it picks at run time\n",
			    spec->func);
	*nr = 1;
	return 0;
}

/* One point of site: at *at (a lazy line's), or where spec says. */
static int resolve_site(struct probe_debuginfo *dbg,
			const struct probe_spec *spec,
			const struct probe_opts *opts, struct probe_site *site,
			const Dwarf_Addr *at, int want_vars,
			struct probe_point *pp, struct strbuf *warn,
			struct strbuf *err)
{
	struct var_ctx vc = { .dbg = dbg, .opts = opts, .func = &site->func,
			      .target = &site->target, .inlined = site->inlined,
			      .warn = warn };
	const char *func;
	int ret;

	memset(pp, 0, sizeof(*pp));
	dwarf_aux_entry(&site->func, &vc.entry);
	if (at) {
		vc.pc = *at;
		ret = 0;
	} else if (site->inlined)
		ret = dwarf_aux_entry(&site->target, &vc.pc);
	else
		ret = probe_dwarf_point_address(spec, &site->func, want_vars,
						&vc.pc, &pp->skipped_prologue,
						err);
	if (ret)
		return ret;
	/* A SRC spec's point is named by the function that holds it. */
	func = spec->func ? spec->func : dwarf_diename(&site->target);
	ret = place_point(dbg, spec, func, opts, vc.pc, pp, err);
	if (!ret) {
		vc.sym = pp->sym;
		ret = probe_point_args(pp, spec, &probe_dwarf_arg_ops, &vc,
				       vc.warn, err);
	}
	free(vc.scopes);
	if (ret)
		goto fail;
	return 0;
fail:
	probe_point_release(pp);
	return ret;
}

/* s without its spaces and tabs (and newline), in place. */
static void squeeze(char *s)
{
	char *d = s;

	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			*d++ = *s;
	*d = 0;
}

static int cmp_addr(const void *a, const void *b)
{
	Dwarf_Addr x = *(const Dwarf_Addr *)a, y = *(const Dwarf_Addr *)b;

	return (x > y) - (x < y);
}

/* v sorted, each address once; the new count. */
static int sort_unique(Dwarf_Addr *v, int n)
{
	int i, k = 1;

	qsort(v, n, sizeof(*v), cmp_addr);
	for (i = 1; i < n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

/* The entries of the functions whose declaration line a pattern matched. */
struct lazy_entries {
	const char *file;
	const unsigned char *match;
	int nlines;
	Dwarf_Addr **out;
	int *nr, alloc;
};

static int lazy_entry_cb(Dwarf_Die *func, void *arg)
{
	struct lazy_entries *le = arg;
	const char *file = dwarf_decl_file(func);
	Dwarf_Addr entry;
	int line;

	if (file && !strcmp(file, le->file) && !dwarf_decl_line(func, &line) &&
	    line >= 1 && line <= le->nlines && le->match[line - 1] &&
	    !dwarf_aux_entry(func, &entry)) {
		grow_array(*le->out, *le->nr, le->alloc, 8);
		(*le->out)[(*le->nr)++] = entry;
	}
	return DWARF_CB_OK;
}

/*
 * A lazy pattern's lines (FUNC;PATTERN), as perf matches them: the lines
 * of scope's source file the glob matches, spaces ignored on both sides
 * (perf's strlazymatch), and scope's code at each: the address of each
 * is_stmt row of the line table for those lines in that file, once; a
 * function's entry stands for its declaration line, as in perf's walk.
 * With src, SRC;PATTERN: scope is a unit, its lines of the file src
 * ends, and its functions' entries.
 */
static int lazy_addrs(Dwarf_Die *scope, const char *src, const char *pattern,
		      Dwarf_Addr **out, int *nr, struct strbuf *err)
{
	const char *file = src ? NULL : dwarf_decl_file(scope);
	struct strbuf path = STRBUF_INIT;
	struct dwarf_aux_row *rows = NULL;
	char *line = NULL, *pat = xstrdup(pattern);
	unsigned char *match = NULL;
	struct lazy_entries le;
	size_t cap = 0;
	int nlines = 0, alloc_m = 0, nrows = 0, i, ret = 0;
	FILE *f = NULL;

	*out = NULL;
	*nr = 0;
	dwarf_aux_func_rows(scope, &rows, &nrows);
	/* SRC;PATTERN: the file of the unit's lines that SRC ends. */
	for (i = 0; src && !file && i < nrows; i++)
		if (rows[i].file && dwarf_aux_path_tail(rows[i].file, src))
			file = rows[i].file;
	if (src && !file)
		goto out;
	if (file) {
		dwarf_aux_source_path(scope, file, &path);
		f = fopen(path.buf, "re");
	}
	if (!f) {
		strbuf_addf(err, "%s: %s: a lazy pattern is matched against the source",
			    file ? path.buf : dwarf_diename(scope),
			    file ? strerror(errno) : "no source file in the debug info");
		ret = -ENOENT;
		goto out;
	}
	squeeze(pat);
	while (getline(&line, &cap, f) > 0) {
		squeeze(line);
		grow_array(match, nlines, alloc_m, 256);
		match[nlines++] = !fnmatch(pat, line, 0);
	}
	fclose(f);
	le = (struct lazy_entries){ .file = file, .match = match,
				    .nlines = nlines, .out = out, .nr = nr };
	if (src)
		dwarf_getfuncs(scope, lazy_entry_cb, &le, 0);
	else if (dwarf_tag(scope) == DW_TAG_subprogram)
		lazy_entry_cb(scope, &le);
	for (i = 0; i < nrows; i++) {
		int ln = rows[i].line;

		if (ln < 1 || ln > nlines || !match[ln - 1] || !rows[i].file ||
		    strcmp(rows[i].file, file))
			continue;
		grow_array(*out, *nr, le.alloc, 8);
		(*out)[(*nr)++] = rows[i].addr;
	}
	if (*nr)
		*nr = sort_unique(*out, *nr);
	if (!*nr && !src) {
		strbuf_addf(err, "%s;%s: no line of %s with code matches",
			    dwarf_diename(scope), pattern, path.buf);
		ret = -ENOENT;
	}
out:
	free(rows);
	free(match);
	free(line);
	free(pat);
	strbuf_release(&path);
	return ret;
}

/*
 * The points of line LINE (FUNC:LINE, SRC:LINE) in scope (a function, or
 * a unit for SRC): an address for each is_stmt row of the line in file
 * (a SRC's suffix with tail), as perf walks them.  A row whose address
 * stands for another line (its first row there, or a function's entry:
 * dwarf_aux_line_at) is refused, as perf refuses it, naming that line
 * as the spec would (what: the spec's place; rel: the file's line its
 * numbers count from, FUNC's declaration line or 0).
 */
static int line_addrs(Dwarf_Die *scope, const char *file, int tail, int line,
		      const char *what, int rel, Dwarf_Addr **out, int *nr,
		      struct strbuf *err)
{
	struct dwarf_aux_row *rows;
	int nrows, i, alloc = 0, back, ret = 0;
	const char *bfile;
	Dwarf_Die cu;

	*out = NULL;
	*nr = 0;
	if (!dwarf_diecu(scope, &cu, NULL, NULL))
		return -ENOENT;
	dwarf_aux_func_rows(scope, &rows, &nrows);
	for (i = 0; i < nrows && !ret; i++) {
		const char *f = rows[i].file;

		if (rows[i].line != line || !f ||
		    (tail ? !dwarf_aux_path_tail(f, file) : strcmp(f, file)) ||
		    (*nr && (*out)[*nr - 1] == rows[i].addr))
			continue;
		if (!dwarf_aux_line_at(&cu, rows[i].addr, &bfile, &back) &&
		    !strcmp(bfile, f) && back != line) {
			strbuf_addf(err, "%s: the code at 0x%" PRIx64 " is line %d's (line %d of the file): probe that line",
				    what, (uint64_t)rows[i].addr, back - rel,
				    back);
			ret = -ENOENT;
			continue;
		}
		grow_array(*out, *nr, alloc, 8);
		(*out)[(*nr)++] = rows[i].addr;
	}
	free(rows);
	if (ret) {
		free(*out);
		*out = NULL;
		*nr = 0;
	}
	return ret;
}

/* FUNC:LINE's points in func. */
static int func_line_addrs(const struct probe_spec *spec, Dwarf_Die *func,
			   Dwarf_Addr **addrs, int *n, struct strbuf *err)
{
	const char *file = dwarf_decl_file(func);
	struct strbuf what = STRBUF_INIT;
	int decl = 0, ret = 0;

	*addrs = NULL;
	*n = 0;
	dwarf_decl_line(func, &decl);
	strbuf_addf(&what, "%s:%d", spec->func, spec->line);
	if (file)
		ret = line_addrs(func, file, 0, decl + spec->line, what.buf,
				 decl, addrs, n, err);
	if (!ret && !*n) {
		strbuf_addf(err, "%s: no code at that line (line %d of the file)",
			    what.buf, decl + spec->line);
		ret = -ENOENT;
	}
	strbuf_release(&what);
	return ret;
}

/* Where one point goes: a site, and a lazy line's address or none. */
struct place {
	struct probe_site *site;
	Dwarf_Addr addr;
	int has_addr;
};

/*
 * The places of spec at sites: one per site, or one per lazy line; an
 * inlined copy is none with --no-inlines.
 */
static int places_of(const struct probe_spec *spec,
		     const struct probe_opts *opts, struct site_list *sl,
		     struct place **out, int *nr, struct strbuf *err)
{
	int i, j, n, alloc = 0, ret = 0;
	Dwarf_Addr *addrs;

	*out = NULL;
	*nr = 0;
	for (i = 0; i < sl->nr && !ret; i++) {
		struct probe_site *site = &sl->v[i];

		if (opts->no_inlines && site->inlined)
			continue;
		if (!spec->lazy && !spec->has_line) {
			grow_array(*out, *nr, alloc, 4);
			(*out)[(*nr)++] = (struct place){ .site = site };
			continue;
		}
		ret = spec->lazy ?
		      lazy_addrs(&site->target, NULL, spec->lazy, &addrs, &n,
				 err) :
		      func_line_addrs(spec, &site->target, &addrs, &n, err);
		for (j = 0; j < n; j++) {
			grow_array(*out, *nr, alloc, 4);
			(*out)[(*nr)++] = (struct place){
				.site = site, .addr = addrs[j], .has_addr = 1 };
		}
		free(addrs);
	}
	if (!ret && !*nr) {
		strbuf_addf(err, "%s has only inlined copies (--no-inlines)",
			    spec->func);
		ret = -ENOENT;
	}
	return ret;
}

/* SRC:LINE and SRC;PATTERN: each unit's points, a site each. */
struct src_search {
	const struct probe_spec *spec;
	struct site_list sites;
	Dwarf_Addr *addrs;	/* one per site */
	int alloc;
	struct strbuf *err;
	int ret;
};

static int src_unit(Dwarf_Die *cu, void *arg)
{
	struct src_search *ss = arg;
	const struct probe_spec *spec = ss->spec;
	struct strbuf what = STRBUF_INIT;
	Dwarf_Addr *addrs;
	Dwarf_Die func;
	int i, n;

	strbuf_addf(&what, "%s:%d", spec->file, spec->line);
	ss->ret = spec->lazy ?
		  lazy_addrs(cu, spec->file, spec->lazy, &addrs, &n, ss->err) :
		  line_addrs(cu, spec->file, 1, spec->line, what.buf, 0, &addrs,
			     &n, ss->err);
	strbuf_release(&what);
	for (i = 0; !ss->ret && i < n; i++) {
		if (dwarf_aux_func_at(cu, addrs[i], &func))
			continue;
		push_site(&ss->sites, &func, &func, 0);
		grow_array(ss->addrs, ss->sites.nr - 1, ss->alloc, 8);
		ss->addrs[ss->sites.nr - 1] = addrs[i];
	}
	free(addrs);
	return ss->ret != 0;
}

/*
 * The places of a SRC spec (no function): every unit with lines of a
 * file SRC ends, as perf searches them; the functions holding the code
 * are the sites.
 */
static int src_places(struct probe_debuginfo *dbg,
		      const struct probe_spec *spec, struct site_list *sl,
		      struct place **out, int *nr, struct strbuf *err)
{
	struct src_search ss = { .spec = spec, .err = err };
	int i;

	*out = NULL;
	*nr = 0;
	probe_dwarf_for_each_cu(dbg, src_unit, &ss);
	*sl = ss.sites;
	if (!ss.ret && !sl->nr) {
		if (spec->lazy)
			strbuf_addf(err, "%s;%s: no line with code matches in a file named so",
				    spec->file, spec->lazy);
		else
			strbuf_addf(err, "%s:%d: no code at that line in a file named so",
				    spec->file, spec->line);
		ss.ret = -ENOENT;
	}
	if (!ss.ret) {
		*out = xcalloc(sl->nr, sizeof(**out));
		for (i = 0; i < sl->nr; i++)
			(*out)[i] = (struct place){ .site = &sl->v[i],
				.addr = ss.addrs[i], .has_addr = 1 };
		*nr = sl->nr;
	}
	free(ss.addrs);
	return ss.ret;
}

int probe_dwarf_resolve(struct probe_debuginfo *dbg,
			const struct probe_spec *spec,
			const struct probe_opts *opts, struct probe_point **pps,
			int *nr, struct strbuf *warn, struct strbuf *err)
{
	struct strbuf note = STRBUF_INIT;
	struct site_list sl;
	struct place *pl = NULL;
	int ret, i, npl = 0, want_vars = 0;

	*pps = NULL;
	*nr = 0;
	for (i = 0; i < spec->nr_args; i++)
		want_vars |= spec->args[i].kind == PROBE_ARG_VAR ||
			     spec->args[i].kind == PROBE_ARG_PARAMS ||
			     spec->args[i].kind == PROBE_ARG_VARS;
	if (!spec->func) {
		ret = src_places(dbg, spec, &sl, &pl, &npl, err);
		goto resolve;
	}
	ret = probe_dwarf_find_sites(dbg, spec, &sl, &note, err);
	if (ret == -ENOENT &&
	    resolve_symbol_only(dbg, spec, opts, pps, nr, warn, err) != -ENOENT)
		return *nr ? 0 : -EINVAL;
	if (ret) {
		strbuf_release(&note);
		return ret;
	}
	ret = places_of(spec, opts, &sl, &pl, &npl, err);
resolve:
	if (ret) {
		free(pl);
		free(sl.v);
		strbuf_release(&note);
		return ret;
	}
	*pps = xcalloc(npl, sizeof(**pps));
	for (i = 0; i < npl && !ret; i++) {
		/* The copies share the arguments: their warnings once. */
		ret = resolve_site(dbg, spec, opts, pl[i].site,
				   pl[i].has_addr ? &pl[i].addr : NULL,
				   want_vars, &(*pps)[i], i ? NULL : warn, err);
		if (!ret)
			(*nr)++;
		else if (npl > 1)
			strbuf_addf(err, " (probe point %d of %d)", i + 1,
				    npl);
	}
	free(pl);
	free(sl.v);
	if (ret) {
		probe_points_release(*pps, *nr);
		*pps = NULL;
		*nr = 0;
	} else if (note.len) {
		(*pps)[0].note = strbuf_detach(&note, NULL);
	}
	strbuf_release(&note);
	return ret;
}
