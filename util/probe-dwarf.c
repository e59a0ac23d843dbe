// SPDX-License-Identifier: GPL-2.0
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
#include "util/probe-dwarf.h"
#include "util/usage.h"

struct probe_debuginfo {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;	/* module address = DWARF address + bias */
	Elf *elf;		/* the main file: PT_LOAD and symbols */
	Dwarf_CFI *cfi;
	Dwarf_Addr cfi_bias;
	struct func_sym *syms;	/* sorted by name; built on first use */
	struct func_sym **by_pc;	/* the same, sorted by address */
	size_t nr_syms;
	int syms_read;
	struct func_unit *units;	/* sorted by name; built on first use */
	size_t nr_units, alloc_units;
	int units_read;
};

/* A name (DW_AT_name or linkage name) dwarf_getfuncs reports in a unit. */
struct func_unit {
	const char *name;	/* in libdw's string section */
	Dwarf_Die cu;		/* the unit, split unit for split DWARF */
};

/* A defined STT_FUNC or STT_GNU_IFUNC symbol. */
struct func_sym {
	const char *name;	/* in libelf's string table */
	Dwarf_Addr pc;		/* DWARF address */
	GElf_Xword size;
	int type, bind;
	/* in the symbol table: of aliases, the first wins */
	int ndx;
};

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

/*
 * Where a spec's function runs: its out-of-line body, or, for a function
 * that exists only inlined, each inlined copy (one probe per site, as perf).
 */
struct probe_site {
	/* the subprogram, or the DW_TAG_inlined_subroutine */
	Dwarf_Die target;
	/* the subprogram holding the code: frame base, entry */
	Dwarf_Die func;
	int inlined;
};

struct site_list {
	struct probe_site *v;
	int nr, alloc;
};

static void push_site(struct site_list *sl, Dwarf_Die *target, Dwarf_Die *func,
		      int inlined)
{
	if (sl->nr == sl->alloc) {
		sl->alloc = sl->alloc ? 2 * sl->alloc : 4;
		sl->v = xrealloc(sl->v, sl->alloc * sizeof(*sl->v));
	}
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

static int file_matches(Dwarf_Die *die, const char *want)
{
	const char *f;
	size_t fl, wl;

	if (!want)
		return 1;
	f = dwarf_decl_file(die);
	if (!f)
		return 0;
	fl = strlen(f);
	wl = strlen(want);
	/* "dw.c" matches "/src/dw.c", not "/src/xdw.c". */
	return fl >= wl && !strcmp(f + fl - wl, want) &&
	       (fl == wl || f[fl - wl - 1] == '/');
}

/*
 * The entry address.  gcc gives split hot/cold functions only
 * DW_AT_ranges, which libdw 0.188's dwarf_entrypc does not look at: the
 * first range is the entry (the .cold part comes after).
 */
static int func_entry(Dwarf_Die *die, Dwarf_Addr *pc)
{
	Dwarf_Addr base, start, end;

	if (dwarf_entrypc(die, pc) == 0)
		return 0;
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*pc = start;
		return 0;
	}
	return -ENOENT;
}

static int has_code(Dwarf_Die *die)
{
	Dwarf_Addr pc;

	return func_entry(die, &pc) == 0;
}

/* C++ (and DWARF 3's GNU spelling): the mangled name, or NULL. */
static const char *linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) &&
	    !dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

/*
 * "ns::Cls::" for a function: the namespaces and classes enclosing its
 * declaration, outermost first.  An out-of-line C++ definition sits at
 * the CU's top level and points at its declaration in the class with
 * DW_AT_specification (an abstract one with DW_AT_abstract_origin).
 */
static void scope_prefix(Dwarf_Die *die, struct strbuf *sb)
{
	Dwarf_Die decl = *die, next, *scopes = NULL;
	Dwarf_Attribute attr;
	int n, i;

	for (i = 0; i < 8; i++) {
		if ((!dwarf_attr(&decl, DW_AT_specification, &attr) &&
		     !dwarf_attr(&decl, DW_AT_abstract_origin, &attr)) ||
		    !dwarf_formref_die(&attr, &next))
			break;
		decl = next;
	}
	n = dwarf_getscopes_die(&decl, &scopes);
	/* scopes[0] is decl itself, the last one the CU. */
	for (i = n - 1; i > 0; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name = dwarf_diename(&scopes[i]);

		if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
			strbuf_addf(sb, "%s::",
				    name ? name : "(anonymous namespace)");
	}
	free(scopes);
}

/*
 * "Cls::" matches ns::Cls:: too: a qualified name may leave out the outer
 * scopes.
 */
static int scope_matches(Dwarf_Die *die, const char *want)
{
	struct strbuf have = STRBUF_INIT;
	size_t wl = strlen(want);
	int ok;

	scope_prefix(die, &have);
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
	mangled = fs->scope ? NULL : linkage_name(die);
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

	if (!func_name_matches(die, fs) || !file_matches(die, fs->file))
		return DWARF_CB_OK;
	if (func_entry(die, &pc)) {
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
 * The unit holding the DIEs of cu: with split DWARF (-gsplit-dwarf) the
 * executable has a skeleton only, and libdw opens the split unit in the
 * .dwo (DW_AT_dwo_name under DW_AT_comp_dir) or the .dwp next to it.
 */
static int unit_die(Dwarf_Die *cu)
{
	Dwarf_Die split;
	Dwarf_Files *files;
	size_t n;
	uint8_t type;

	if (dwarf_cu_info(cu->cu, NULL, &type, NULL, &split, NULL, NULL, NULL))
		return 0;
	if (type != DW_UT_skeleton)
		return 1;
	if (!split.cu)
		return 0;
	/*
	 * libdw 0.188's dwarf_decl_file asserts on a split unit whose file
	 * table was not read before.
	 */
	dwarf_getsrcfiles(&split, &files, &n);
	*cu = split;
	return 1;
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
static int for_each_cu(struct probe_debuginfo *dbg,
		       int (*cb)(Dwarf_Die *cu, void *arg), void *arg)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu;

	while (dbg->dw &&
	       dwarf_get_units(dbg->dw, unit, &unit, NULL, NULL, &cu,
			       NULL) == 0)
		if (unit_die(&cu) && cb(&cu, arg))
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
	if (dbg->nr_units == dbg->alloc_units) {
		dbg->alloc_units = dbg->alloc_units ?
			2 * dbg->alloc_units : 1024;
		dbg->units = xrealloc(dbg->units,
				      dbg->alloc_units * sizeof(*dbg->units));
	}
	dbg->units[dbg->nr_units].name = name;
	dbg->units[dbg->nr_units++].cu = *cu;
}

static int unit_func_cb(Dwarf_Die *die, void *arg)
{
	struct unit_walk *w = arg;
	const char *name = dwarf_diename(die), *mangled = linkage_name(die);

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
static void find_func_everywhere(struct probe_debuginfo *dbg,
				 struct func_search *fs)
{
	size_t lo = 0, hi;
	const void *last = NULL;

	if (!dbg->units_read) {
		struct unit_walk w = { .dbg = dbg };

		dbg->units_read = 1;
		for_each_cu(dbg, index_unit, &w);
		if (dbg->nr_units)
			qsort(dbg->units, dbg->nr_units, sizeof(*dbg->units),
			      cmp_func_unit);
	}
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

static void func_syms_load(struct probe_debuginfo *dbg);

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
static const char *func_at(struct probe_debuginfo *dbg, Dwarf_Addr pc,
			   GElf_Off *off)
{
	size_t lo = 0, hi;
	const struct func_sym *best = NULL;
	GElf_Sym sym;

	func_syms_load(dbg);
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
static void func_syms_load(struct probe_debuginfo *dbg)
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
	func_syms_load(dbg);
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
		if (dwarf_addrdie(dbg->dw, fs->pc, &cu) && unit_die(&cu))
			find_func_in_cu(&cu, fs);
	}
	fs->by_pc = 0;
}

struct holder_search {
	Dwarf_Addr pc;
	Dwarf_Die die;
	int found;
};

static int holder_cb(Dwarf_Die *die, void *arg)
{
	struct holder_search *hs = arg;

	if (!has_code(die) || dwarf_haspc(die, hs->pc) != 1)
		return DWARF_CB_OK;
	hs->die = *die;
	hs->found = 1;
	return DWARF_CB_ABORT;
}

/*
 * dwarf_getscopes follows an inlined copy to its abstract definition, so
 * the subprogram that holds the copy's code is found by address instead.
 */
static int inline_instance_cb(Dwarf_Die *inst, void *arg)
{
	struct site_list *sl = arg;
	struct holder_search hs = { 0 };
	Dwarf_Die cu;

	if (dwarf_tag(inst) != DW_TAG_inlined_subroutine ||
	    func_entry(inst, &hs.pc) || !dwarf_diecu(inst, &cu, NULL, NULL))
		return DWARF_CB_OK;
	dwarf_getfuncs(&cu, holder_cb, &hs, 0);
	if (hs.found)
		push_site(sl, inst, &hs.die, 1);
	return DWARF_CB_OK;
}

static int cmp_site(const void *a, const void *b)
{
	const struct probe_site *sa = a, *sb = b;
	Dwarf_Off x = dwarf_dieoffset((Dwarf_Die *)&sa->target);
	Dwarf_Off y = dwarf_dieoffset((Dwarf_Die *)&sb->target);

	return x < y ? -1 : x > y;
}

static void type_name_of(Dwarf_Die *die, struct strbuf *sb);

/*
 * "f(int, double)" for a function DIE: its parameters' types, `this` left out.
 */
static void prototype(Dwarf_Die *die, struct strbuf *sb)
{
	Dwarf_Die c;
	int n = 0;

	scope_prefix(die, sb);
	strbuf_addf(sb, "%s(", dwarf_diename(die) ? dwarf_diename(die) : "?");
	if (dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter ||
			    dwarf_hasattr_integrate(&c, DW_AT_artificial))
				continue;
			strbuf_addstr(sb, n++ ? ", " : "");
			type_name_of(&c, sb);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	strbuf_addch(sb, ')');
}

/*
 * Definitions with different mangled names are C++ overloads, which one
 * event cannot share (their arguments differ): refuse, listing them.
 * Copies of one static function share their name (or have none, in C).
 */
static int overloads(struct site_list *sl, const struct probe_spec *spec,
		     struct strbuf *err)
{
	const char *first = linkage_name(&sl->v[0].target);
	int i, distinct = 0;

	for (i = 1; i < sl->nr && !distinct; i++) {
		const char *ln = linkage_name(&sl->v[i].target);

		distinct = first && ln && strcmp(first, ln);
	}
	if (!distinct)
		return 0;
	strbuf_addf(err, "'%s' is overloaded: ", spec->func);
	for (i = 0; i < sl->nr; i++) {
		strbuf_addstr(err, i ? ", " : "");
		prototype(&sl->v[i].target, err);
		strbuf_addf(err, " [%s]", linkage_name(&sl->v[i].target));
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

	if (dwarf_diename(die) && !func_entry(die, &pc) && pc == es->pc &&
	    file_matches(die, es->file))
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
	    !dwarf_addrdie(dbg->dw, es.pc, &cu) || !unit_die(&cu))
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
static int find_sites(struct probe_debuginfo *dbg,
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

static int find_function(struct probe_debuginfo *dbg,
			 const struct probe_spec *spec, Dwarf_Die *out,
			 struct strbuf *note, struct strbuf *err)
{
	struct site_list sl;
	int ret = find_sites(dbg, spec, &sl, note, err);

	if (ret)
		return ret;
	*out = sl.v[0].target;
	free(sl.v);
	return 0;
}

/*
 * gcc records its options in DW_AT_producer; -O0 code needs the prologue
 * skipped.
 */
static int cu_optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &attr));
	int opt = 0;

	if (!p)
		return 1;
	while ((p = strstr(p, " -O"))) {
		p += 3;
		opt = *p != '0';
	}
	return opt;
}

/* Line rows of die's CU within [lo, hi). */
struct line_row {
	Dwarf_Addr addr;
	int line;
};

static int func_rows(Dwarf_Die *func, struct line_row **rows, int *nr)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n, i;
	int alloc = 0;

	*rows = NULL;
	*nr = 0;
	if (!dwarf_diecu(func, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n))
		return -ENOENT;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool stmt = true;

		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln))
			continue;
		dwarf_linebeginstatement(l, &stmt);
		if (!stmt || dwarf_haspc(func, a) != 1)
			continue;
		if (*nr == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			*rows = xrealloc(*rows, alloc * sizeof(**rows));
		}
		(*rows)[*nr].addr = a;
		(*rows)[(*nr)++].line = ln;
	}
	return 0;
}

static int point_address(const struct probe_spec *spec, Dwarf_Die *func,
			 int want_vars, Dwarf_Addr *pc, int *skipped,
			 struct strbuf *err)
{
	struct line_row *rows;
	Dwarf_Addr entry, best = 0;
	Dwarf_Die cu;
	int nr, i, decl = 0, found = 0;

	*skipped = 0;
	func_entry(func, &entry);
	*pc = entry;
	if (spec->retprobe ||
	    (!spec->has_line && !spec->has_offset &&
	     (!want_vars || !dwarf_diecu(func, &cu, NULL, NULL) ||
	      cu_optimized(&cu))))
		return 0;
	func_rows(func, &rows, &nr);
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

/* ---- types ---- */

static int die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, type))
		return -ENOENT;
	return 0;
}

/* Type of die with typedefs and qualifiers removed; -ENOENT for void. */
static int real_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Die t;

	if (die_type(die, &t) || dwarf_peel_type(&t, type))
		return -ENOENT;
	return 0;
}

static void type_name(Dwarf_Die *type, struct strbuf *sb);

static void type_name_of(Dwarf_Die *die, struct strbuf *sb)
{
	Dwarf_Die t;

	if (die_type(die, &t))
		strbuf_addstr(sb, "void");
	else
		type_name(&t, sb);
}

static long long array_count(Dwarf_Die *array)
{
	Dwarf_Die sub;
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (dwarf_child(array, &sub))
		return -1;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&sub, DW_AT_count, &attr) &&
		    !dwarf_formudata(&attr, &w))
			return (long long)w;
		if (dwarf_attr(&sub, DW_AT_upper_bound, &attr) &&
		    !dwarf_formudata(&attr, &w))
			return (long long)w + 1;
		return -1;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return -1;
}

/* The C keyword that types of tag are written with, or NULL. */
static const char *tag_keyword(int tag)
{
	static const struct {
		int tag;
		const char *word;
	} words[] = {
		{ DW_TAG_const_type, "const " },
		{ DW_TAG_volatile_type, "volatile " },
		{ DW_TAG_structure_type, "struct " },
		{ DW_TAG_union_type, "union " },
		{ DW_TAG_enumeration_type, "enum " },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i].tag == tag)
			return words[i].word;
	return NULL;
}

static void type_name(Dwarf_Die *type, struct strbuf *sb)
{
	const char *name = dwarf_diename(type);
	const char *word = tag_keyword(dwarf_tag(type));
	long long n;

	if (word)
		strbuf_addstr(sb, word);
	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
		type_name_of(type, sb);
		strbuf_addch(sb, '*');
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		type_name_of(type, sb);
		return;
	case DW_TAG_array_type:
		type_name_of(type, sb);
		n = array_count(type);
		if (n >= 0)
			strbuf_addf(sb, "[%lld]", n);
		else
			strbuf_addstr(sb, "[]");
		return;
	case DW_TAG_subroutine_type:
		strbuf_addstr(sb, "(function)");
		return;
	default:
		break;
	}
	strbuf_addstr(sb, name ? name : "(anon)");
}

static int is_char_type(Dwarf_Die *t, int *is_unsigned)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc;
	int size = dwarf_bytesize(t);

	if (dwarf_tag(t) != DW_TAG_base_type || size != 1 ||
	    !dwarf_attr(t, DW_AT_encoding, &attr) ||
	    dwarf_formudata(&attr, &enc))
		return 0;
	*is_unsigned = enc == DW_ATE_unsigned_char || enc == DW_ATE_unsigned;
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
}

/* DW_AT_encoding says signed: base types, and the enums gcc gives one. */
static int encoding_signed(Dwarf_Die *t)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc;

	return dwarf_attr(t, DW_AT_encoding, &attr) &&
		!dwarf_formudata(&attr, &enc) &&
	       (enc == DW_ATE_signed || enc == DW_ATE_signed_char);
}

/*
 * An enum is signed as its underlying type is (DW_AT_type, DWARF 3 on),
 * else as gcc's DW_AT_encoding says, else (strict DWARF 2) when a value
 * is negative: only DW_FORM_sdata tells one, data1..8 carry no sign.
 */
static int enum_signed(Dwarf_Die *t)
{
	Dwarf_Attribute attr;
	Dwarf_Sword v;
	Dwarf_Die c;

	if (!real_type(t, &c))
		return encoding_signed(&c);
	if (dwarf_hasattr(t, DW_AT_encoding))
		return encoding_signed(t);
	if (dwarf_child(t, &c))
		return 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_enumerator &&
		    dwarf_attr(&c, DW_AT_const_value, &attr) &&
		    dwarf_whatform(&attr) == DW_FORM_sdata &&
		    !dwarf_formsdata(&attr, &v) && v < 0)
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* Kernel type for a scalar; NULL with err set when there is none. */
static char *scalar_type(Dwarf_Die *t, const struct probe_opts *opts,
			 const char *var, struct strbuf *err)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = DW_ATE_unsigned;
	Dwarf_Die pointee;
	int size = dwarf_bytesize(t);
	char c;

	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		if (!real_type(t, &pointee) &&
		    dwarf_tag(&pointee) == DW_TAG_subroutine_type &&
		    opts->symbol && opts->kind == PROBE_KPROBE)
			return xstrdup("symbol");
		return xstrdup("x64");
	case DW_TAG_enumeration_type:
		c = enum_signed(t) ? 's' : 'u';
		break;
	case DW_TAG_base_type:
		if (dwarf_attr(t, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
		c = enc == DW_ATE_signed || enc == DW_ATE_signed_char ? 's' :
		    enc == DW_ATE_float ? 'x' : 'u';
		break;
	default: {
		struct strbuf tn = STRBUF_INIT;

		type_name(t, &tn);
		strbuf_addf(err,
			    "'%s' is of type %s, which has no scalar value",
			    var, tn.buf);
		strbuf_release(&tn);
		return NULL;
	}
	}
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		strbuf_addf(err, "'%s' has %d bytes: the kernel fetches 1, 2, 4 or 8",
			    var, size);
		return NULL;
	}
	{
		char buf[8];

		snprintf(buf, sizeof(buf), "%c%d", c, size * 8);
		return xstrdup(buf);
	}
}

/* ---- locations ---- */

struct var_ctx {
	struct probe_debuginfo *dbg;
	const struct probe_opts *opts;
	Dwarf_Die *func;	/* holds the code: frame base */
	/* the function named: parameters, return type */
	Dwarf_Die *target;
	int inlined;
	Dwarf_Addr pc;
	Dwarf_Addr entry;	/* of func */
	Dwarf_Die *scopes;	/* nested scopes at pc, innermost first */
	int nr_scopes;
	const char *sym;	/* the ELF symbol holding pc */
	/* NULL: this site's warnings were given by another */
	struct strbuf *warn;
	/* the var op's whole, for the helpers below it */
	int whole;
};

static int op_reg(const Dwarf_Op *op, int *reg, Dwarf_Sword *off, int *is_breg)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
		*is_breg = 0;
	} else if (op->atom == DW_OP_regx) {
		*reg = (int)op->number;
		*is_breg = 0;
	} else if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (Dwarf_Sword)op->number;
		*is_breg = 1;
	} else if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (Dwarf_Sword)op->number2;
		*is_breg = 1;
	} else {
		return -EINVAL;
	}
	return 0;
}

/* The frame base at pc as "register + offset" (a value, not memory). */
static int frame_base(struct var_ctx *vc, int *reg, Dwarf_Sword *off,
		      struct strbuf *err)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	int is_breg;

	*off = 0;
	if (!dwarf_attr_integrate(vc->func, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, vc->pc, &ops, &nops, 1) != 1 ||
	    nops != 1)
		goto bad;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *cfa;
		size_t ncfa;

		if (vc->dbg->cfi &&
		    dwarf_cfi_addrframe(vc->dbg->cfi, vc->pc + vc->dbg->bias -
					vc->dbg->cfi_bias, &frame) == 0 &&
		    dwarf_frame_cfa(frame, &cfa, &ncfa) == 0 && ncfa == 1 &&
		    !op_reg(&cfa[0], reg, off, &is_breg) && is_breg) {
			free(frame);
			return 0;
		}
		free(frame);
		/* No CFI (kernel modules): the ABI says where the CFA is. */
		if (vc->pc == vc->entry) {
			long long cfa_off;

			arch_entry_cfa(reg, &cfa_off);
			*off = (Dwarf_Sword)cfa_off;
			return 0;
		}
		strbuf_addstr(err, "no call frame information for the frame base at this address");
		return -EINVAL;
	}
	if (!op_reg(&ops[0], reg, off, &is_breg))
		return 0;
bad:
	strbuf_addstr(err, "unsupported frame base");
	return -EINVAL;
}

/*
 * A variable's location at vc->pc, as dwarf_getlocation_addr() gives it,
 * except at a function's entry: there GCC's location views can give a
 * parameter an empty range [entry, entry), its place at view 0, before
 * the first instruction, which is where a kprobe or uprobe at +0 fires;
 * the range after it holds from a later view at the same address on.
 * Lookup by address skips empty ranges, and so gave 6.1's
 * css_rightmost_descendant(pos) the constant 0 (pos = NULL, set in the
 * loop before any instruction) where pos is still in %di.
 */
static int var_location(const struct var_ctx *vc, Dwarf_Attribute *attr,
			Dwarf_Op **ops, size_t *nops)
{
	if (vc->pc == vc->entry && !vc->inlined) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		while ((off = dwarf_getlocations(attr, off, &base, &start, &end,
						 ops, nops)) > 0)
			if (start == vc->pc || (start < vc->pc && vc->pc < end))
				return 1;
		if (off < 0)
			return -1;
		return 0;
	}
	return dwarf_getlocation_addr(attr, vc->pc, ops, nops, 1);
}

static int location_to_fetch(struct var_ctx *vc, Dwarf_Die *var,
			     const char *name, struct fetch_arg *fa,
			     struct strbuf *err)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	int reg, is_breg, n;
	Dwarf_Sword off = 0;

	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		Dwarf_Sword v;

		if (!vc->opts->imm || dwarf_formsdata(&attr, &v)) {
			strbuf_addf(err, "'%s' is a constant the kernel cannot be given here",
				    name);
			return -EINVAL;
		}
		fa->base = FETCH_IMM;
		fa->imm = v;
		return 0;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &attr)) {
		strbuf_addf(err, "'%s' has no location: optimized out", name);
		return -ENOENT;
	}
	n = var_location(vc, &attr, &ops, &nops);
	if (n <= 0 || !nops) {
		strbuf_addf(err, "'%s' is optimized out at this address (no location for pc 0x%" PRIx64 ")",
			    name, (uint64_t)vc->pc);
		return -ENOENT;
	}
	if (nops == 1 && !op_reg(&ops[0], &reg, &off, &is_breg)) {
		fa->base = FETCH_REG;
		fa->reg = reg;
		if (is_breg)
			fetch_arg_push_deref(fa, off);
		return 0;
	}
	if (nops == 1 && ops[0].atom == DW_OP_fbreg) {
		int ret = frame_base(vc, &reg, &off, err);

		if (ret)
			return ret;
		fa->base = FETCH_REG;
		fa->reg = reg;
		fetch_arg_push_deref(fa, off + (Dwarf_Sword)ops[0].number);
		return 0;
	}
	if (nops == 1 && ops[0].atom == DW_OP_addr) {
		fa->base = FETCH_ADDR;
		fa->addr = ops[0].number;
		fetch_arg_push_deref(fa, 0);
		return 0;
	}
	/* Split DWARF: the address is in the skeleton's .debug_addr. */
	if (nops == 1 &&
	    (ops[0].atom == DW_OP_addrx ||
	     ops[0].atom == DW_OP_GNU_addr_index)) {
		Dwarf_Attribute a;
		Dwarf_Addr addr;

		if (dwarf_getlocation_attr(&attr, &ops[0], &a) ||
		    dwarf_formaddr(&a, &addr)) {
			strbuf_addf(err,
				    "'%s': its address is not in .debug_addr",
				    name);
			return -EINVAL;
		}
		fa->base = FETCH_ADDR;
		fa->addr = addr;
		fetch_arg_push_deref(fa, 0);
		return 0;
	}
	if (nops == 2 && ops[1].atom == DW_OP_stack_value && vc->opts->imm &&
	    ((ops[0].atom >= DW_OP_lit0 && ops[0].atom <= DW_OP_lit31) ||
	     ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_consts)) {
		fa->base = FETCH_IMM;
		fa->imm = ops[0].atom == DW_OP_consts ?
			  (long long)(Dwarf_Sword)ops[0].number :
			  ops[0].atom == DW_OP_constu ?
			  (long long)ops[0].number :
			  ops[0].atom - DW_OP_lit0;
		return 0;
	}
	if (ops[0].atom == DW_OP_entry_value ||
	    ops[0].atom == DW_OP_GNU_entry_value) {
		strbuf_addf(err, "'%s' is optimized out here: only its value at function entry is known (DW_OP_entry_value); probe the function entry",
			    name);
		return -ENOENT;
	}
	if (ops[nops - 1].atom == DW_OP_stack_value) {
		strbuf_addf(err, "'%s' is computed at this address (DW_OP_stack_value), not stored: fetchargs cannot do arithmetic",
			    name);
		return -EINVAL;
	}
	/*
	 * perf's $params takes a split struct's first piece: its first bytes.
	 */
	if (nops > 1 && ops[1].atom == DW_OP_piece && vc->whole &&
	    !op_reg(&ops[0], &reg, &off, &is_breg) && !is_breg &&
	    ops[1].number >= 8) {
		fa->base = FETCH_REG;
		fa->reg = reg;
		return 0;
	}
	if (nops > 1 && ops[1].atom == DW_OP_piece) {
		strbuf_addf(err, "'%s' is split across registers (DW_OP_piece), which is not supported",
			    name);
		return -EINVAL;
	}
	strbuf_addf(err, "'%s' has an unsupported location (DW_OP 0x%x)", name,
		    ops[0].atom);
	return -EINVAL;
}

/* ---- members ---- */

static int member_offset(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	*off = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &attr))
		return 0;	/* union members, and DWARF 5 bitfields */
	if (!dwarf_formudata(&attr, off))
		return 0;
	if (!dwarf_getlocation(&attr, &ops, &nops) && nops == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -EINVAL;
}

/* Finds member name in struct/union su, following anonymous members. */
static int find_member(Dwarf_Die *su, const char *name, Dwarf_Die *out,
		       Dwarf_Word *off)
{
	Dwarf_Die m;

	if (dwarf_child(su, &m))
		return -ENOENT;
	do {
		const char *mn;
		Dwarf_Word o;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		mn = dwarf_diename(&m);
		if (member_offset(&m, &o))
			continue;
		if (mn && !strcmp(mn, name)) {
			*out = m;
			*off = o;
			return 0;
		}
		if (!mn) {
			Dwarf_Die t, inner;
			Dwarf_Word io;

			if (!real_type(&m, &t) &&
			    !find_member(&t, name, &inner, &io)) {
				*out = inner;
				*off = o + io;
				return 0;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return -ENOENT;
}

static void member_list(Dwarf_Die *su, struct strbuf *sb)
{
	Dwarf_Die m;
	int first = 1;

	if (dwarf_child(su, &m))
		return;
	do {
		const char *mn = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !mn)
			continue;
		strbuf_addf(sb, "%s%s", first ? "" : ", ", mn);
		first = 0;
	} while (dwarf_siblingof(&m, &m) == 0);
}

/*
 * Bitfield type for member m (DW_AT_bit_size set): b<width>@<lsb>/<bits>
 * and the byte offset of its container relative to the member offset.
 */
static int bitfield(Dwarf_Die *m, Dwarf_Word member_off, Dwarf_Word *byte_off,
		    char **type, struct strbuf *err)
{
	Dwarf_Attribute attr;
	Dwarf_Word width, bo;
	Dwarf_Die t;
	int csize, cbits;
	long long lsb;
	char buf[32];

	if (!dwarf_attr(m, DW_AT_bit_size, &attr) ||
	    dwarf_formudata(&attr, &width) || real_type(m, &t))
		return -EINVAL;
	csize = dwarf_bytesize(m);
	if (csize <= 0)
		csize = dwarf_bytesize(&t);
	cbits = csize * 8;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &attr) &&
	    !dwarf_formudata(&attr, &bo)) {
		/*
		 * DWARF 4/5: bits from the start of the struct, little-endian.
		 */
		*byte_off = (bo / cbits) * csize;
		lsb = bo % cbits;
	} else if (dwarf_attr(m, DW_AT_bit_offset, &attr) &&
		   !dwarf_formudata(&attr, &bo)) {
		/*
		 * DWARF 2/3: counted from the container's most significant bit.
		 */
		*byte_off = member_off;
		lsb = (long long)cbits - (long long)bo - (long long)width;
	} else {
		return -EINVAL;
	}
	if (lsb < 0 || lsb + (long long)width > cbits) {
		strbuf_addstr(err, "bitfield straddles its container");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "b%u@%lld/%d", (unsigned)width, lsb, cbits);
	*type = xstrdup(buf);
	return 0;
}

/*
 * Applies the field chain to fa (whose value has type *type), leaving in
 * *type the type of the result and in *bf the bitfield type if the last
 * member is one.
 */
static int apply_fields(const struct probe_arg *arg, struct fetch_arg *fa,
			Dwarf_Die *type, char **bf, struct strbuf *path,
			struct strbuf *err)
{
	int i;

	for (i = 0; i < arg->nr_fields; i++) {
		const struct probe_field *f = &arg->fields[i];
		Dwarf_Die next, m;
		Dwarf_Word off;
		int tag = dwarf_tag(type);

		if (*bf) {
			strbuf_addf(err, "'%s': a bitfield has no members",
				    path->buf);
			return -EINVAL;
		}
		if (f->kind == PROBE_FIELD_INDEX) {
			Dwarf_Die elem;
			int esize;

			strbuf_addf(path, "[%ld]", f->index);
			if ((tag != DW_TAG_array_type &&
			     tag != DW_TAG_pointer_type) ||
			    real_type(type, &elem)) {
				strbuf_addf(err, "'%s': only arrays and pointers can be indexed",
					    path->buf);
				return -EINVAL;
			}
			esize = dwarf_aggregate_size(&elem, &off) ?
				-1 : (int)off;
			if (esize <= 0) {
				strbuf_addf(err, "'%s': element size unknown",
					    path->buf);
				return -EINVAL;
			}
			if (tag == DW_TAG_array_type) {
				long long n = array_count(type);

				if (n >= 0 && f->index >= n) {
					strbuf_addf(err, "'%s': index out of range (%lld elements)",
						    path->buf, n);
					return -EINVAL;
				}
				if (probe_need_memory(fa, path->buf, err))
					return -EINVAL;
				fa->deref[fa->nr_derefs - 1] +=
					f->index * esize;
			} else if (fetch_arg_push_deref(fa, f->index * esize)) {
				goto too_deep;
			}
			*type = elem;
			continue;
		}
		strbuf_addf(path, "%s%s",
			    f->kind == PROBE_FIELD_ARROW ? "->" : ".", f->name);
		if (f->kind == PROBE_FIELD_ARROW) {
			if (tag != DW_TAG_pointer_type ||
			    real_type(type, &next) ||
			    (dwarf_tag(&next) != DW_TAG_structure_type &&
			     dwarf_tag(&next) != DW_TAG_union_type)) {
				strbuf_addf(err, "'%s': '->' needs a pointer to a struct or union",
					    path->buf);
				return -EINVAL;
			}
			if (fetch_arg_push_deref(fa, 0))
				goto too_deep;
			*type = next;
		} else {
			if (tag == DW_TAG_pointer_type) {
				strbuf_addf(err,
					    "'%s': a pointer: use '->' for %s",
					    path->buf, f->name);
				return -EINVAL;
			}
			if (tag != DW_TAG_structure_type &&
			    tag != DW_TAG_union_type) {
				strbuf_addf(err,
					    "'%s': '.' needs a struct or union",
					    path->buf);
				return -EINVAL;
			}
			if (probe_need_memory(fa, path->buf, err))
				return -EINVAL;
		}
		if (find_member(type, f->name, &m, &off)) {
			struct strbuf tn = STRBUF_INIT;

			type_name(type, &tn);
			strbuf_addf(err,
				    "'%s': %s has no member '%s' (members: ",
				    path->buf, tn.buf, f->name);
			member_list(type, err);
			strbuf_addch(err, ')');
			strbuf_release(&tn);
			return -ENOENT;
		}
		if (dwarf_hasattr(&m, DW_AT_bit_size)) {
			Dwarf_Word boff;

			if (bitfield(&m, off, &boff, bf, err))
				return -EINVAL;
			off = boff;
		}
		fa->deref[fa->nr_derefs - 1] += off;
		if (real_type(&m, type)) {
			strbuf_addf(err, "'%s': member without a type",
				    path->buf);
			return -EINVAL;
		}
	}
	return 0;
too_deep:
	strbuf_addf(err, "'%s': more than %d dereferences", path->buf,
		    FETCH_MAX_DEREF);
	return -E2BIG;
}

/* The type and its element, for dwarf_scalar(). */
struct dwarf_type {
	const struct probe_opts *opts;
	Dwarf_Die *type;
	Dwarf_Die elem;
};

static char *dwarf_scalar(void *ctx, int elem, const char *path,
			  struct strbuf *err)
{
	struct dwarf_type *dt = ctx;

	return scalar_type(elem ? &dt->elem : dt->type, dt->opts, path, err);
}

/* Final type: user cast, string, array, bitfield or scalar. */
static int final_type(struct var_ctx *vc, const struct probe_arg *arg,
		      struct fetch_arg *fa, Dwarf_Die *type, char *bf,
		      const char *path, struct strbuf *err)
{
	struct dwarf_type dt = { .opts = vc->opts, .type = type };
	struct probe_type t = { .name = STRBUF_INIT, .members = STRBUF_INIT,
				.whole = vc->whole, .scalar = dwarf_scalar,
				.ctx = &dt };
	int tag = dwarf_tag(type), uns, ret;

	if (tag == DW_TAG_pointer_type)
		t.kind = PROBE_TYPE_POINTER;
	else if (tag == DW_TAG_array_type)
		t.kind = PROBE_TYPE_ARRAY;
	else if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
		t.kind = PROBE_TYPE_AGGREGATE;
	if (bf)
		t.is_signed = tag == DW_TAG_enumeration_type ?
			      enum_signed(type) : encoding_signed(type);
	if ((t.kind == PROBE_TYPE_POINTER || t.kind == PROBE_TYPE_ARRAY) &&
	    !real_type(type, &dt.elem)) {
		t.has_elem = 1;
		t.elem_char = is_char_type(&dt.elem, &uns);
		t.elem_text = t.elem_char && !uns;
	}
	if (t.kind == PROBE_TYPE_ARRAY)
		t.count = array_count(type);
	if (t.kind == PROBE_TYPE_AGGREGATE) {
		type_name(type, &t.name);
		member_list(type, &t.members);
		t.size = dwarf_bytesize(type);
	}
	ret = probe_final_type(&t, arg, vc->opts, fa, bf, path, vc->warn, err);
	probe_type_release(&t);
	return ret;
}

/* ---- variables ---- */

struct global_search {
	const char *name;
	Dwarf_Die die;
	int found;
};

static int find_global_in_cu(Dwarf_Die *cu, void *arg)
{
	struct global_search *gs = arg;
	Dwarf_Die d;

	if (dwarf_child(cu, &d))
		return 0;
	do {
		const char *n;

		if (dwarf_tag(&d) != DW_TAG_variable ||
		    !dwarf_hasattr(&d, DW_AT_location))
			continue;
		n = dwarf_diename(&d);
		if (n && !strcmp(n, gs->name)) {
			gs->die = d;
			gs->found = 1;
			return 1;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

/* A variable visible at pc, else a global anywhere (with a location). */
static int find_variable(struct var_ctx *vc, const struct probe_arg *arg,
			 Dwarf_Die *out, struct strbuf *err)
{
	struct global_search gs = { .name = arg->var };
	Dwarf_Die cu;
	int idx;

	if (!arg->global && !vc->scopes &&
	    dwarf_diecu(vc->func, &cu, NULL, NULL)) {
		vc->nr_scopes = dwarf_getscopes(&cu, vc->pc, &vc->scopes);
		if (vc->nr_scopes <= 0) {
			vc->nr_scopes = 0;
			vc->scopes = NULL;
		}
	}
	if (!arg->global && vc->nr_scopes) {
		idx = dwarf_getscopevar(vc->scopes, vc->nr_scopes, arg->var, 0,
					NULL, 0, 0, out);
		if (idx >= 0 &&
		    (dwarf_hasattr_integrate(out, DW_AT_location) ||
		     dwarf_hasattr_integrate(out, DW_AT_const_value)))
			return 0;
	}
	/* A parameter of $params that has no location here is not a global. */
	if (vc->whole) {
		strbuf_addf(err, "'%s': optimized out at %s", arg->var,
			    dwarf_diename(vc->target));
		return -ENOENT;
	}
	for_each_cu(vc->dbg, find_global_in_cu, &gs);
	if (gs.found) {
		*out = gs.die;
		return 0;
	}
	strbuf_addf(err, "'%s': no such variable at %s", arg->var,
		    dwarf_diename(vc->target));
	return -ENOENT;
}

/* 1-based parameter position of var in the function, 0 if not a parameter. */
static int param_index(struct var_ctx *vc, Dwarf_Die *var, int *abi_ok)
{
	Dwarf_Die c;
	int i = 0;

	*abi_ok = 1;
	if (dwarf_child(vc->target, &c))
		return 0;
	do {
		Dwarf_Die t;
		int tag;

		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		i++;
		if (c.addr == var->addr)
			return i;
		/* A float or aggregate before us shifts the register slots. */
		if (real_type(&c, &t))
			*abi_ok = 0;
		tag = dwarf_tag(&t);
		if ((tag != DW_TAG_base_type && tag != DW_TAG_pointer_type &&
		     tag != DW_TAG_enumeration_type) || dwarf_bytesize(&t) > 8)
			*abi_ok = 0;
		if (tag == DW_TAG_base_type) {
			Dwarf_Attribute a;
			Dwarf_Word enc;

			if (dwarf_attr(&t, DW_AT_encoding, &a) &&
			    !dwarf_formudata(&a, &enc) && enc == DW_ATE_float)
				*abi_ok = 0;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * kprobes take $argN at a function's entry.  Use it where the DWARF
 * location at the entry IS the ABI slot: the DWARF decides, the ABI only
 * renames (clones like .isra break the convention, and then disagree).
 */
static void use_argn(struct var_ctx *vc, Dwarf_Die *var, const char *sym,
		     struct fetch_arg *fa)
{
	int abi_ok, k, reg;
	long long off;

	if (!vc->opts->argn || vc->opts->kind != PROBE_KPROBE ||
	    vc->pc != vc->entry || vc->inlined || strchr(sym, '.') ||
	    fa->base != FETCH_REG)
		return;
	k = param_index(vc, var, &abi_ok);
	if (!k || !abi_ok)
		return;
	switch (arch_entry_arg(k, &reg, &off)) {
	case 0:
		if (fa->reg != reg)
			return;
		break;
	case 1:
		if (fa->reg != reg || !fa->nr_derefs || fa->deref[0] != off)
			return;
		/* $argN is the stack slot's value: its load is part of it. */
		memmove(fa->deref, fa->deref + 1,
			(fa->nr_derefs - 1) * sizeof(fa->deref[0]));
		fa->nr_derefs--;
		break;
	default:
		return;
	}
	fa->base = FETCH_ARGN;
	fa->argn = k;
}

/* kprobes spell globals @SYM+OFF: name the symbol holding the address. */
static void global_symbol(struct var_ctx *vc, struct fetch_arg *fa)
{
	GElf_Sym sym;
	GElf_Off off;
	const char *name;

	if (fa->base != FETCH_ADDR || vc->opts->kind != PROBE_KPROBE)
		return;
	name = dwfl_module_addrinfo(vc->dbg->mod, fa->addr + vc->dbg->bias,
				    &off, &sym, NULL, NULL, NULL);
	if (name) {
		fa->sym = xstrdup(name);
		fa->sym_addr = fa->addr - off;
	}
}

static int resolve_var(void *ctx, const struct probe_arg *arg, int whole,
		       struct fetch_arg *fa, struct strbuf *err)
{
	struct var_ctx *vc = ctx;
	struct strbuf path = STRBUF_INIT;
	Dwarf_Die var, type;
	char *bf = NULL;
	int ret;

	vc->whole = whole;
	strbuf_addf(&path, "%s%s", arg->global ? "@" : "", arg->var);
	ret = find_variable(vc, arg, &var, err);
	if (ret)
		goto out;
	ret = location_to_fetch(vc, &var, path.buf, fa, err);
	if (ret)
		goto out;
	if (real_type(&var, &type)) {
		strbuf_addf(err, "'%s' has no type", path.buf);
		ret = -EINVAL;
		goto out;
	}
	use_argn(vc, &var, vc->sym, fa);
	global_symbol(vc, fa);
	if (fa->base == FETCH_IMM && arg->nr_fields) {
		strbuf_addf(err, "'%s' is a constant here: it has no fields",
			    path.buf);
		ret = -EINVAL;
		goto out;
	}
	ret = apply_fields(arg, fa, &type, &bf, &path, err);
	if (!ret)
		ret = final_type(vc, arg, fa, &type, bf, path.buf, err);
	else
		free(bf);
out:
	strbuf_release(&path);
	return ret;
}

static int resolve_retval(void *ctx, struct fetch_arg *fa, struct strbuf *err)
{
	struct var_ctx *vc = ctx;
	Dwarf_Die type;

	if (real_type(vc->target, &type)) {
		strbuf_addf(err, "%s returns void: no $retval",
			    dwarf_diename(vc->target));
		return -EINVAL;
	}
	fa->type = scalar_type(&type, vc->opts, "$retval", err);
	return fa->type ? 0 : -EINVAL;
}

static int dwarf_params(void *ctx, const char ***names, int *nr)
{
	struct var_ctx *vc = ctx;
	Dwarf_Die c;

	*names = NULL;
	*nr = 0;
	if (dwarf_child(vc->target, &c))
		return 0;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_formal_parameter || !n)
			continue;
		*names = xrealloc(*names, (*nr + 1) * sizeof(**names));
		(*names)[(*nr)++] = n;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static const struct probe_arg_ops dwarf_arg_ops = {
	.var = resolve_var,
	.retval = resolve_retval,
	.params = dwarf_params,
};

/* pp's address pc: its symbol, and for uprobes its file offset. */
static int place_point(struct probe_debuginfo *dbg,
		       const struct probe_spec *spec,
		       const struct probe_opts *opts, Dwarf_Addr pc,
		       struct probe_point *pp, struct strbuf *err)
{
	GElf_Off off;
	const char *name;

	pp->func = xstrdup(spec->func);
	pp->addr = pc;
	pp->retprobe = spec->retprobe;
	name = func_at(dbg, pc, &off);
	if (!name) {
		strbuf_addf(err, "%s: no symbol covers %s at 0x%" PRIx64,
			    dbg->path, spec->func, (uint64_t)pc);
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
	ret = place_point(dbg, spec, opts, pc, *pps, err);
	if (!ret) {
		vc.sym = (*pps)->sym;
		ret = probe_point_args(*pps, spec, &dwarf_arg_ops, &vc, warn,
				       err);
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

static int resolve_site(struct probe_debuginfo *dbg,
			const struct probe_spec *spec,
			const struct probe_opts *opts, struct probe_site *site,
			int want_vars, struct probe_point *pp,
			struct strbuf *warn, struct strbuf *err)
{
	struct var_ctx vc = { .dbg = dbg, .opts = opts, .func = &site->func,
			      .target = &site->target, .inlined = site->inlined,
			      .warn = warn };
	int ret;

	memset(pp, 0, sizeof(*pp));
	func_entry(&site->func, &vc.entry);
	if (site->inlined)
		ret = func_entry(&site->target, &vc.pc);
	else
		ret = point_address(spec, &site->func, want_vars, &vc.pc,
				    &pp->skipped_prologue, err);
	if (ret)
		return ret;
	ret = place_point(dbg, spec, opts, vc.pc, pp, err);
	if (!ret) {
		vc.sym = pp->sym;
		ret = probe_point_args(pp, spec, &dwarf_arg_ops, &vc, vc.warn,
				       err);
	}
	free(vc.scopes);
	if (ret)
		goto fail;
	return 0;
fail:
	probe_point_release(pp);
	return ret;
}

int probe_dwarf_resolve(struct probe_debuginfo *dbg,
			const struct probe_spec *spec,
			const struct probe_opts *opts, struct probe_point **pps,
			int *nr, struct strbuf *warn, struct strbuf *err)
{
	struct strbuf note = STRBUF_INIT;
	struct site_list sl;
	int ret, i, want_vars = 0;

	*pps = NULL;
	*nr = 0;
	for (i = 0; i < spec->nr_args; i++)
		want_vars |= spec->args[i].kind == PROBE_ARG_VAR ||
			     spec->args[i].kind == PROBE_ARG_PARAMS;
	ret = find_sites(dbg, spec, &sl, &note, err);
	if (ret == -ENOENT &&
	    resolve_symbol_only(dbg, spec, opts, pps, nr, warn, err) != -ENOENT)
		return *nr ? 0 : -EINVAL;
	if (ret)
		return ret;
	*pps = xcalloc(sl.nr, sizeof(**pps));
	for (i = 0; i < sl.nr && !ret; i++) {
		/* The copies share the arguments: their warnings once. */
		ret = resolve_site(dbg, spec, opts, &sl.v[i], want_vars,
				   &(*pps)[i], i ? NULL : warn, err);
		if (!ret)
			(*nr)++;
		else if (sl.nr > 1)
			strbuf_addf(err, " (inlined copy %d of %d)", i + 1,
				    sl.nr);
	}
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

/* ---- listings ---- */

static void list_scope_vars(struct var_ctx *vc, Dwarf_Die *scope,
			    struct strbuf *out)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c))
		return;
	do {
		int tag = dwarf_tag(&c);
		const char *n = dwarf_diename(&c);
		Dwarf_Attribute attr;
		Dwarf_Op *ops;
		size_t nops;

		if ((tag != DW_TAG_formal_parameter &&
		     tag != DW_TAG_variable) || !n)
			continue;
		if (!dwarf_hasattr_integrate(&c, DW_AT_const_value) &&
		    (!dwarf_attr_integrate(&c, DW_AT_location, &attr) ||
		     var_location(vc, &attr, &ops, &nops) <= 0 || !nops))
			continue;
		strbuf_addstr(out, "\t\t");
		type_name_of(&c, out);
		strbuf_addf(out, "\t%s\n", n);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* One copy's "\t@<SYM+OFF>" line and the variables at its probe address. */
static int list_site_vars(struct probe_debuginfo *dbg,
			  const struct probe_spec *spec,
			  struct probe_site *site, struct strbuf *out,
			  struct strbuf *err)
{
	struct probe_opts opts = { .kind = PROBE_UPROBE };
	struct var_ctx vc = { .dbg = dbg, .opts = &opts, .func = &site->func };
	Dwarf_Die cu, *scopes = NULL;
	GElf_Off off = 0;
	const char *name;
	int ret, skipped, n, i;
	size_t len;

	func_entry(&site->func, &vc.entry);
	ret = site->inlined ? func_entry(&site->target, &vc.pc) :
	      point_address(spec, &site->func, 1, &vc.pc, &skipped, err);
	if (ret)
		return ret;
	name = func_at(dbg, vc.pc, &off);
	strbuf_addf(out, "\t@<%s+%" PRIu64 ">\n", name ? name : spec->func,
		    (uint64_t)off);
	len = out->len;
	/*
	 * An inlined copy's entry may lie outside its own ranges (gcc -O2),
	 * where dwarf_getscopes gives the caller's scopes: its own parameters.
	 */
	if (site->inlined) {
		list_scope_vars(&vc, &site->target, out);
	} else {
		dwarf_diecu(&site->target, &cu, NULL, NULL);
		n = dwarf_getscopes(&cu, vc.pc, &scopes);
		/* Innermost scope first, up to the function itself. */
		for (i = 0; i < n; i++) {
			list_scope_vars(&vc, &scopes[i], out);
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
				break;
		}
		free(scopes);
	}
	if (out->len == len)
		strbuf_addstr(out, "\t\t(No matched variables)\n");
	return 0;
}

/* As perf -V: every copy the spec probes, each with its own variables. */
int probe_dwarf_list_vars(struct probe_debuginfo *dbg,
			  const struct probe_spec *spec, struct strbuf *out,
			  struct strbuf *note, struct strbuf *err)
{
	struct site_list sl;
	int ret, i;

	ret = find_sites(dbg, spec, &sl, note, err);
	if (ret)
		return ret;
	strbuf_addf(out, "Available variables at %s\n", spec->func);
	for (i = 0; i < sl.nr && !ret; i++)
		ret = list_site_vars(dbg, spec, &sl.v[i], out, err);
	free(sl.v);
	return ret;
}

/* The outermost inlined copy within scope whose code holds pc. */
static int inline_at(Dwarf_Die *scope, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c))
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inlined_subroutine &&
		    dwarf_haspc(&c, pc) == 1) {
			*out = c;
			return 1;
		}
		if (tag == DW_TAG_lexical_block && inline_at(&c, pc, out))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * perf's rule for the lines -L numbers (util/dwarf-aux.c die_walk_lines,
 * util/probe-finder.c line_range_walk_cb): the declaration line, and each
 * is_stmt row of the function's own file at or below it, not inside an
 * inlined copy (but for the copy's call line), whose address maps back
 * to the same line: the entry maps to the declaration line, any other
 * address to its first is_stmt row (cu_getsrc_die).
 */
static Dwarf_Line *first_stmt_at(Dwarf_Lines *lines, size_t n, Dwarf_Addr pc)
{
	size_t lo = 0, hi = n, i;
	Dwarf_Addr a;
	bool stmt;

	/* The rows are sorted by address: the first one at pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a))
			return NULL;
		if (a < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (dwarf_lineaddr(l, &a) || a != pc ||
		    dwarf_linebeginstatement(l, &stmt))
			return NULL;
		if (stmt)
			return l;
	}
	return NULL;
}

static int line_listed(Dwarf_Die *func, Dwarf_Lines *lines, size_t n,
		       Dwarf_Line *l, int decl, const char *file,
		       Dwarf_Addr entry)
{
	Dwarf_Addr a;
	Dwarf_Die inl;
	Dwarf_Line *back;
	Dwarf_Attribute attr;
	Dwarf_Word call;
	const char *src;
	int ln, back_ln;
	bool flag = false;

	if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || ln < decl ||
	    dwarf_lineendsequence(l, &flag) || flag ||
	    dwarf_linebeginstatement(l, &flag) || !flag ||
	    dwarf_haspc(func, a) != 1)
		return 0;
	src = dwarf_linesrc(l, NULL, NULL);
	if (!src || !file || strcmp(src, file))
		return 0;
	if (inline_at(func, a, &inl) &&
	    (!dwarf_attr(&inl, DW_AT_call_line, &attr) ||
	     dwarf_formudata(&attr, &call) || (int)call != ln))
		return 0;
	if (a == entry)
		return ln == decl;
	back = first_stmt_at(lines, n, a);
	return back && !dwarf_lineno(back, &back_ln) && back_ln == ln;
}

static int listed_lines(Dwarf_Die *func, int decl, const char *file, int **out,
			int *nr)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	Dwarf_Addr entry = 0;
	size_t n, i;
	int alloc = 1;

	*out = xmalloc(sizeof(**out));
	(*out)[0] = decl;
	*nr = 1;
	func_entry(func, &entry);
	if (!dwarf_diecu(func, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n))
		return 0;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		int ln;

		if (!line_listed(func, lines, n, l, decl, file, entry) ||
		    dwarf_lineno(l, &ln))
			continue;
		if (*nr == alloc) {
			alloc *= 2;
			*out = xrealloc(*out, alloc * sizeof(**out));
		}
		(*out)[(*nr)++] = ln;
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * perf prints this many lines past the last numbered one
 * (NR_ADDITIONAL_LINES + 1).
 */
#define LIST_LINES_AFTER 3

/*
 * A relative source name is relative to the CU's DW_AT_comp_dir (perf
 * prints it so).
 */
static void source_path(Dwarf_Die *func, const char *file, struct strbuf *path)
{
	Dwarf_Attribute attr;
	Dwarf_Die cu;
	const char *dir = NULL;

	if (*file != '/' && dwarf_diecu(func, &cu, NULL, NULL))
		dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
	if (dir)
		strbuf_addf(path, "%s/", dir);
	strbuf_addstr(path, file);
}

int probe_dwarf_list_lines(struct probe_debuginfo *dbg,
			   const struct probe_spec *spec, struct strbuf *out,
			   struct strbuf *note, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	Dwarf_Die func;
	const char *file;
	int *listed, nr, i, j = 0, decl = 0, last, ret;
	char *line = NULL;
	size_t cap = 0;
	FILE *src;

	ret = find_function(dbg, spec, &func, note, err);
	if (ret)
		return ret;
	dwarf_decl_line(&func, &decl);
	file = dwarf_decl_file(&func);
	listed_lines(&func, decl, file, &listed, &nr);
	qsort(listed, nr, sizeof(*listed), cmp_int);
	last = listed[nr - 1];
	if (file)
		source_path(&func, file, &path);
	strbuf_addf(out, "<%s@%s:%d>\n", spec->func, file ? path.buf : "?", 0);
	src = file ? fopen(path.buf, "re") : NULL;
	for (i = 1; src && i < decl && getline(&line, &cap, src) > 0; i++)
		;
	for (i = decl; i <= last + LIST_LINES_AFTER; i++) {
		ssize_t len = src ? getline(&line, &cap, src) : -1;

		/* Past the function, up to the end of the file only. */
		if (i > last && len <= 0)
			break;
		while (j < nr && listed[j] < i)
			j++;
		if (j < nr && listed[j] == i)
			strbuf_addf(out, "%7d  ", i - decl);
		else
			strbuf_addstr(out, "         ");
		if (len > 0)
			strbuf_add(out, line, len);
		else
			strbuf_addch(out, '\n');
	}
	if (src)
		fclose(src);
	free(line);
	free(listed);
	strbuf_release(&path);
	return 0;
}

struct func_list {
	const char *glob;
	char **names;
	int nr, alloc;
};

static void list_func_push(struct func_list *fl, const char *name)
{
	if (fl->glob && fnmatch(fl->glob, name, 0))
		return;
	if (fl->nr == fl->alloc) {
		fl->alloc = fl->alloc ? 2 * fl->alloc : 64;
		fl->names = xrealloc(fl->names, fl->alloc * sizeof(*fl->names));
	}
	fl->names[fl->nr++] = xstrdup(name);
}

static int list_func_cb(Dwarf_Die *die, void *arg)
{
	const char *name = dwarf_diename(die);

	if (name && has_code(die))
		list_func_push(arg, name);
	return DWARF_CB_OK;
}

/*
 * Functions the DWARF does not describe (libc's assembly memchr, objects
 * built without -g) are still probe-able by their symbol: perf -F lists
 * the symbol table, so the listing has both.
 */
static void list_func_symbols(struct probe_debuginfo *dbg, struct func_list *fl)
{
	size_t i;

	func_syms_load(dbg);
	for (i = 0; i < dbg->nr_syms; i++)
		list_func_push(fl, dbg->syms[i].name);
}

static int list_funcs_in_cu(Dwarf_Die *cu, void *arg)
{
	dwarf_getfuncs(cu, list_func_cb, arg, 0);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int probe_dwarf_list_funcs(struct probe_debuginfo *dbg, const char *glob,
			   struct strbuf *out, struct strbuf *err)
{
	struct func_list fl = { .glob = glob };
	int i;

	for_each_cu(dbg, list_funcs_in_cu, &fl);
	list_func_symbols(dbg, &fl);
	qsort(fl.names, fl.nr, sizeof(*fl.names), cmp_str);
	for (i = 0; i < fl.nr; i++) {
		if (!i || strcmp(fl.names[i], fl.names[i - 1]))
			strbuf_addf(out, "%s\n", fl.names[i]);
	}
	for (i = 0; i < fl.nr; i++)
		free(fl.names[i]);
	free(fl.names);
	return 0;
}
