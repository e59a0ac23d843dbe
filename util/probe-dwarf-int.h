/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_DWARF_INT_H
#define TK_PROBE_DWARF_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "util/dwarf-aux.h"
#include "util/probe-dwarf.h"

/*
 * What the files of util/probe-dwarf share, and only they include:
 * probe-dwarf.c (the debug info, its functions and symbols, the probe
 * points), probe-dwarf-var.c (the arguments at a probe point) and
 * probe-dwarf-list.c (the listings -V, -L, -F).
 */

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

/* Iterates the CUs (split units for skeletons); cb nonzero stops it. */
int probe_dwarf_for_each_cu(struct probe_debuginfo *dbg,
			    int (*cb)(Dwarf_Die *cu, void *arg), void *arg);
/* The function symbols into dbg->syms and dbg->by_pc, once. */
void probe_dwarf_syms_load(struct probe_debuginfo *dbg);
/* The function symbol holding pc, and pc's offset in it. */
const char *probe_dwarf_func_at(struct probe_debuginfo *dbg, Dwarf_Addr pc,
				GElf_Off *off);
/*
 * The sites of spec's function: by its name, else as an alias (note gets
 * a line saying so, unless NULL).
 */
int probe_dwarf_find_sites(struct probe_debuginfo *dbg,
			   const struct probe_spec *spec, struct site_list *sl,
			   struct strbuf *note, struct strbuf *err);
/* The DIE of spec's function: its first site. */
int probe_dwarf_find_function(struct probe_debuginfo *dbg,
			      const struct probe_spec *spec, Dwarf_Die *out,
			      struct strbuf *note, struct strbuf *err);
/*
 * The address spec probes in func: its entry, line or offset, past the
 * prologue of -O0 code where variables are wanted (*skipped says so).
 */
int probe_dwarf_point_address(const struct probe_spec *spec, Dwarf_Die *func,
			      int want_vars, Dwarf_Addr *pc, int *skipped,
			      struct strbuf *err);

/* Where the variables of a probe point are looked up. */
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

/*
 * The scopes whose variables are visible at pc in top (a function or an
 * inlined copy): the blocks of top's own code that hold pc, innermost
 * first, top, then the inlined copies that hold pc, innermost first,
 * and top's unit last; in an array the caller frees.  Unlike
 * dwarf_getscopes, which from a copy holding pc goes on to the copy's
 * abstract definition and leaves top out (an arm64 kernel function can
 * begin with an inlined copy).
 */
int probe_dwarf_scopes(Dwarf_Die *top, Dwarf_Addr pc, Dwarf_Die **out);

/* The variables at a probe point, for probe_point_args(). */
extern const struct probe_arg_ops probe_dwarf_arg_ops;
/* A variable's location at vc->pc: 1 and its ops, 0 none, -1 error. */
int probe_dwarf_var_location(const struct var_ctx *vc, Dwarf_Attribute *attr,
			     Dwarf_Op **ops, size_t *nops);

#endif
