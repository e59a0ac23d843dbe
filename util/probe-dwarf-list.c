// SPDX-License-Identifier: GPL-2.0
/*
 * The listings of `tracekit probe` from DWARF (util/probe-dwarf-list.h),
 * as perf 6.1 prints them: -V, -L, -F.  perf's rules are restated here
 * from its behaviour, measured side by side (tests/shell/
 * probe-perf-listing.sh); where one comes from reading perf's source,
 * the comment names the function.
 */
#include <dwarf.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/probe-dwarf-int.h"
#include "util/probe-dwarf-list.h"
#include "util/usage.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- -V ---- */

/* The variables of one probe point, as the walk of its scopes finds them. */
struct var_walk {
	const struct probe_dwarf_list_opts *o;
	int imm;		/* the kernel takes constants (\IMM) */
	Dwarf_Die *func;	/* the subprogram holding pc */
	Dwarf_Addr pc, entry;	/* entry: func's */
	char **vars;		/* the lines, unsorted */
	int nr, alloc;
};

/* What perf -V says of a variable at pc. */
enum var_state {
	VAR_NONE,	/* not listed */
	VAR_VAL,	/* located at pc */
	VAR_INV,	/* --range: located elsewhere in the function only */
};

/*
 * A type as perf -V spells it (util/dwarf-aux.c die_get_typename):
 * qualifiers dropped, typedef names kept, a pointer or an array as the
 * type it leads to and '*', a function pointer "(function_type)";
 * -ENOENT for what has no name there (void *, an anonymous struct).
 */
static int perf_type_name(Dwarf_Die *die, struct strbuf *sb)
{
	Dwarf_Die t, next;
	const char *name;
	int tag, ret;

	if (dwarf_aux_type(die, &t))
		return -ENOENT;
	for (tag = dwarf_tag(&t);
	     tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	     tag == DW_TAG_restrict_type || tag == DW_TAG_shared_type;
	     tag = dwarf_tag(&t)) {
		if (dwarf_aux_type(&t, &next))
			return -ENOENT;
		t = next;
	}
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_array_type) {
		ret = perf_type_name(&t, sb);
		if (!ret)
			strbuf_addch(sb, '*');
		return ret;
	}
	if (tag == DW_TAG_subroutine_type) {
		strbuf_addstr(sb, "(function_type)");
		return 0;
	}
	name = dwarf_diename(&t);
	if (!name)
		return -ENOENT;
	strbuf_addf(sb, "%s%s", tag == DW_TAG_structure_type ? "struct " :
		    tag == DW_TAG_union_type ? "union " :
		    tag == DW_TAG_enumeration_type ? "enum " : "", name);
	return 0;
}

/* The first address in [from, to] where attr locates the variable. */
static int location_after(Dwarf_Attribute *attr, Dwarf_Addr from,
			  Dwarf_Addr to, Dwarf_Op **ops, size_t *nops)
{
	Dwarf_Addr base, start, end, best = 0;
	Dwarf_Op *o;
	size_t n;
	ptrdiff_t off = 0;
	int found = 0;

	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &o,
					 &n)) > 0) {
		Dwarf_Addr a = start > from ? start : from;

		if (a >= end || a > to || (found && a >= best))
			continue;
		best = a;
		*ops = o;
		*nops = n;
		found = 1;
	}
	return found;
}

/*
 * perf's rule (util/probe-finder.c convert_variable_location): a global
 * (DW_AT_external) is listed, and a constant where the kernel takes one
 * (perf reads tracefs README for it as tracekit does); else the location at pc,
 * or for a parameter at the function's entry the first one after it
 * (the entry may come before the parameter is in place), or with
 * --range for a local the first one later in the function, is listed
 * when it starts with an address, a register or a register plus an
 * offset (the frame base's too, where the frame base has a location).
 */
static enum var_state var_state(const struct var_walk *vw, Dwarf_Die *var)
{
	Dwarf_Attribute attr, fb;
	Dwarf_Addr high;
	Dwarf_Op *ops, *fbops;
	size_t nops, nfb;
	enum var_state ok = VAR_VAL;
	int tag = dwarf_tag(var), atom;

	if (dwarf_attr(var, DW_AT_external, &attr) ||
	    (vw->imm && dwarf_attr(var, DW_AT_const_value, &attr)))
		return VAR_VAL;
	if (!dwarf_attr(var, DW_AT_location, &attr))
		return VAR_NONE;
	if (dwarf_getlocation_addr(&attr, vw->pc, &ops, &nops, 1) <= 0) {
		if (vw->o->range && tag == DW_TAG_variable)
			ok = VAR_INV;
		else if (vw->pc != vw->entry || tag != DW_TAG_formal_parameter)
			return VAR_NONE;
		if (dwarf_highpc(vw->func, &high) ||
		    !location_after(&attr, vw->pc + 1, high, &ops, &nops))
			return VAR_NONE;
	}
	if (!nops)
		return VAR_NONE;
	atom = ops[0].atom;
	if (atom == DW_OP_fbreg)
		return dwarf_attr(vw->func, DW_AT_frame_base, &fb) &&
		       dwarf_getlocation_addr(&fb, vw->pc, &fbops, &nfb,
					      1) > 0 && nfb ? ok : VAR_NONE;
	/* Split DWARF's addresses (DW_OP_addrx) too, which perf cannot read. */
	if (atom == DW_OP_addr || atom == DW_OP_addrx ||
	    atom == DW_OP_GNU_addr_index ||
	    (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) ||
	    (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) ||
	    atom == DW_OP_bregx || atom == DW_OP_regx)
		return ok;
	return VAR_NONE;
}

/* Appends one range of "@<FUNC+[START-END,...]>", relative to entry. */
static void add_range(struct strbuf *sb, const char *func, Dwarf_Addr entry,
		      Dwarf_Addr start, Dwarf_Addr end, int *first)
{
	if (*first)
		strbuf_addf(sb, "@<%s+[", func);
	else
		strbuf_addch(sb, ',');
	strbuf_addf(sb, "%" PRIu64 "-%" PRIu64, (uint64_t)(start - entry),
		    (uint64_t)(end - entry));
	*first = 0;
}

/* A single location's: the ranges of the scope holding var; -ENOENT: none. */
static int scope_ranges(const struct var_walk *vw, const char *func,
			Dwarf_Die *var, struct strbuf *sb, int *first)
{
	Dwarf_Addr base, start, end;
	Dwarf_Die *scopes;
	ptrdiff_t off = 0;
	int n = dwarf_getscopes_die(var, &scopes);

	while (n > 1 &&
	       (off = dwarf_ranges(&scopes[1], off, &base, &start, &end)) > 0)
		add_range(sb, func, vw->entry, start, end, first);
	if (n > 0)
		free(scopes);
	return n > 1 ? 0 : -ENOENT;
}

/*
 * --range, as perf prints it (util/dwarf-aux.c die_get_var_range): the
 * ranges of a location list, or of the scope holding a variable of one
 * location; offsets from the function's entry.
 */
static int var_range(const struct var_walk *vw, Dwarf_Die *var,
		     struct strbuf *sb)
{
	const char *func = dwarf_diename(vw->func);
	Dwarf_Addr base, start, end;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	ptrdiff_t off = 0;
	int first = 1, ret = 0;

	if (!func || !dwarf_attr(var, DW_AT_location, &attr))
		return -ENOENT;
	while ((off = dwarf_getlocations(&attr, off, &base, &start, &end,
					 &ops, &nops)) > 0) {
		/* libdw gives one location the range [0, -1). */
		if (!start) {
			ret = scope_ranges(vw, func, var, sb, &first);
			break;
		}
		add_range(sb, func, vw->entry, start, end, &first);
	}
	if (!first)
		strbuf_addstr(sb, "]>");
	return ret;
}

/* var's line, "[STATE]\t" (--range) "TYPE\tNAME", "\tRANGE" (--range). */
static void push_var(struct var_walk *vw, Dwarf_Die *var, const char *state,
		     int with_range)
{
	const char *name = dwarf_diename(var);
	struct strbuf sb = STRBUF_INIT;

	if (!name || !probe_filter_match(vw->o->filter, name))
		return;
	if (state)
		strbuf_addf(&sb, "%s\t", state);
	if (perf_type_name(var, &sb))
		strbuf_addstr(&sb, "(unknown_type)");
	strbuf_addf(&sb, "\t%s", name);
	if (with_range) {
		strbuf_addch(&sb, '\t');
		if (var_range(vw, var, &sb)) {
			strbuf_release(&sb);
			return;
		}
	}
	grow_array(vw->vars, vw->nr, vw->alloc, 16);
	vw->vars[vw->nr++] = strbuf_detach(&sb, NULL);
}

static int is_var(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_formal_parameter || tag == DW_TAG_variable;
}

/*
 * The variables of scope, and of the blocks and inlined copies within
 * it that hold pc, as perf walks them (util/probe-finder.c
 * collect_variables_cb).
 */
static void walk_scope(struct var_walk *vw, Dwarf_Die *scope)
{
	Dwarf_Die c;
	enum var_state st;

	if (dwarf_child(scope, &c))
		return;
	do {
		if (!is_var(&c)) {
			if (dwarf_haspc(&c, vw->pc) == 1)
				walk_scope(vw, &c);
			continue;
		}
		st = var_state(vw, &c);
		if (st != VAR_NONE)
			push_var(vw, &c, !vw->o->range ? NULL :
				 st == VAR_INV ? "[INV]" : "[VAL]",
				 vw->o->range);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* --externs: the variables declared at the top of the unit. */
static void walk_unit(struct var_walk *vw, Dwarf_Die *cu)
{
	Dwarf_Die c;

	if (dwarf_child(cu, &c))
		return;
	do {
		if (is_var(&c) && var_state(vw, &c) != VAR_NONE)
			push_var(vw, &c, vw->o->range ? "[EXT]" : NULL, 0);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* die is the function name names (its DW_AT_name or mangled name). */
static int is_named(Dwarf_Die *die, const char *name)
{
	const char *n = dwarf_diename(die), *m = dwarf_aux_linkage_name(die);

	return name && ((n && !strcmp(n, name)) || (m && !strcmp(m, name)));
}

/* The outermost inlined copy of the function name below scope at pc. */
static int copy_at(Dwarf_Die *scope, Dwarf_Addr pc, const char *name,
		   Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c))
		return 0;
	do {
		if (dwarf_haspc(&c, pc) != 1)
			continue;
		if (dwarf_tag(&c) == DW_TAG_inlined_subroutine &&
		    is_named(&c, name)) {
			*out = c;
			return 1;
		}
		if (copy_at(&c, pc, name, out))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

struct unit_search {
	Dwarf_Addr pc;
	Dwarf_Die cu;
	int found;
};

static int unit_pc_cb(Dwarf_Die *cu, void *arg)
{
	struct unit_search *us = arg;

	if (dwarf_haspc(cu, us->pc) != 1)
		return 0;
	us->cu = *cu;
	us->found = 1;
	return 1;
}

/*
 * The unit whose code holds pc: by .debug_aranges, else by each unit's
 * ranges (clang writes no .debug_aranges, and libdw 0.188's
 * dwarf_addrdie reads nothing else).
 */
static int unit_at(struct probe_debuginfo *dbg, Dwarf_Addr pc, Dwarf_Die *cu)
{
	struct unit_search us = { .pc = pc };

	if (dwarf_addrdie(dbg->dw, pc, cu) && dwarf_aux_unit(cu))
		return 1;
	probe_dwarf_for_each_cu(dbg, unit_pc_cb, &us);
	*cu = us.cu;
	return us.found;
}

/*
 * A point's "\t@<SYM+OFF>" line and the variables there: from the
 * function holding it down, or from the inlined copy of the function
 * named where the point is one (perf's scope, util/probe-finder.c
 * add_available_vars).
 */
static int list_point_vars(struct probe_debuginfo *dbg,
			   const struct probe_spec *spec,
			   const struct probe_opts *popts,
			   const struct probe_dwarf_list_opts *o,
			   const struct probe_point *pp, struct strbuf *out,
			   struct strbuf *err)
{
	struct var_walk vw = { .o = o, .imm = popts->imm, .pc = pp->addr };
	Dwarf_Die cu, func, top;
	int i, shown = 0;

	if (!unit_at(dbg, pp->addr, &cu) ||
	    dwarf_aux_func_at(&cu, pp->addr, &func)) {
		strbuf_addf(err, "%s: no debug info describes the code at %s+%" PRIu64 ": no variables to list",
			    pp->func, pp->sym, pp->sym_off);
		return -ENOENT;
	}
	vw.func = &func;
	dwarf_aux_entry(&func, &vw.entry);
	top = func;
	if (!is_named(&func, spec->func))
		copy_at(&func, pp->addr, spec->func, &top);
	strbuf_addf(out, "\t@<%s+%" PRIu64 ">\n", pp->sym, pp->sym_off);
	walk_scope(&vw, &top);
	if (o->externs)
		walk_unit(&vw, &cu);
	if (vw.nr)
		qsort(vw.vars, vw.nr, sizeof(*vw.vars), cmp_str);
	for (i = 0; i < vw.nr; i++) {
		if (i && !strcmp(vw.vars[i], vw.vars[i - 1]))
			continue;
		strbuf_addf(out, "\t\t%s\n", vw.vars[i]);
		shown++;
	}
	if (!shown)
		strbuf_addstr(out, "\t\t(No matched variables)\n");
	release_array(vw.vars, vw.nr, free_ptr);
	return 0;
}

/*
 * The probe point as perf names it (util/probe-event.c
 * synthesize_perf_probe_point): FUNC, then +OFF, :LINE or %return, then
 * @SRC (its last 30 characters, from a '/' among them), then a SRC's
 * :LINE.
 */
static void point_text(const struct probe_spec *spec, struct strbuf *sb)
{
	const char *file = spec->file, *cut;
	size_t len;

	if (spec->func) {
		strbuf_addstr(sb, spec->func);
		if (spec->has_offset && spec->offset)
			strbuf_addf(sb, "+%lu", spec->offset);
		else if (spec->has_line && spec->line)
			strbuf_addf(sb, ":%d", spec->line);
		else if (spec->retprobe)
			strbuf_addstr(sb, "%return");
	}
	if (!file)
		return;
	len = strlen(file);
	if (len > 30) {
		cut = strchr(file + len - 30, '/');
		file = cut ? cut + 1 : file + len - 30;
	}
	strbuf_addf(sb, "@%s", file);
	if (!spec->func && spec->has_line && spec->line)
		strbuf_addf(sb, ":%d", spec->line);
}

/* The points spec resolves to, as -D places them without arguments. */
static int list_spec_vars(struct probe_debuginfo *dbg,
			  const struct probe_spec *spec,
			  const struct probe_opts *popts,
			  const struct probe_dwarf_list_opts *o,
			  struct strbuf *out, struct strbuf *note,
			  struct strbuf *err)
{
	struct strbuf warn = STRBUF_INIT;
	struct probe_point *pps;
	int nr, i, ret = probe_dwarf_resolve(dbg, spec, popts, &pps, &nr,
					     &warn, err);

	strbuf_release(&warn);
	if (ret)
		return ret;
	if (pps[0].note)
		strbuf_addstr(note, pps[0].note);
	for (i = 0; i < nr && !ret; i++)
		ret = list_point_vars(dbg, spec, popts, o, &pps[i], out, err);
	probe_points_release(pps, nr);
	return ret;
}

/*
 * As perf -V: the points of the spec (every function a wildcard
 * matches), each with the variables visible there; all or nothing.
 */
int probe_dwarf_list_vars(struct probe_debuginfo *dbg,
			  const struct probe_spec *spec,
			  const struct probe_opts *popts,
			  const struct probe_dwarf_list_opts *o,
			  struct strbuf *out, struct strbuf *note,
			  struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT;
	struct probe_spec one = *spec;
	const char **names = NULL;
	int i, nr = 1, ret = 0;

	if (spec->glob)
		probe_dwarf_match_funcs(dbg, spec->func, !popts->no_inlines,
					&names, &nr);
	one.glob = 0;
	for (i = 0; i < nr && !ret; i++) {
		one.func = names ? (char *)names[i] : spec->func;
		ret = list_spec_vars(dbg, &one, popts, o, &body, note, err);
	}
	free(names);
	if (!nr) {
		strbuf_addf(err, "%s: no function with code matches", spec->func);
		ret = -ENOENT;
	}
	if (!ret) {
		strbuf_addstr(out, "Available variables at ");
		point_text(spec, out);
		strbuf_addf(out, "\n%s", body.buf);
	}
	strbuf_release(&body);
	return ret;
}

/* ---- -L ---- */

/*
 * The lines listed, from the walk of a unit's line table and functions
 * (util/dwarf-aux.c die_walk_lines, util/probe-finder.c
 * line_range_walk_cb): a line of the file want (the two paths
 * tail-matching, as perf's strtailcmp compares them) within [lo, hi],
 * whose address leads back to it.
 */
struct line_walk {
	const char *want;
	int lo, hi;
	int *listed;
	int nr, alloc;
	const char *path;	/* the source of the first line listed */
	Dwarf_Die cu;		/* the unit walked now */
	Dwarf_Lines *lines;
	size_t nlines;
};

/* w walks cu's lines from now on; -ENOENT: it has no line table. */
static int walk_unit_begin(struct line_walk *w, Dwarf_Die *cu)
{
	w->cu = *cu;
	return dwarf_getsrclines(cu, &w->lines, &w->nlines) ? -ENOENT : 0;
}

static void walk_line(struct line_walk *w, const char *file, int line,
		      Dwarf_Addr addr)
{
	const char *back_file = NULL;
	int back;

	if (!file || !dwarf_aux_path_tail(file, w->want) || line < w->lo ||
	    line > w->hi)
		return;
	/*
	 * Listed only where probing the line probes it.  An address without
	 * a statement row (an inlined copy's entry, at -O2) leaves perf
	 * comparing with a line number it never set (util/probe-finder.c
	 * line_range_walk_cb reads __lineno uninitialized; measured: most
	 * often not listed, a few others run to run): not listed.
	 */
	if (dwarf_aux_line_at(&w->cu, addr, &back_file, &back) ||
	    back != line || strcmp(file, back_file))
		return;
	if (!w->path)
		w->path = file;
	grow_array(w->listed, w->nr, w->alloc, 64);
	w->listed[w->nr++] = line;
}

/* The file of die's DW_AT_call_file, in its unit's file table. */
static const char *call_file(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	Dwarf_Die cu;

	if (!dwarf_attr(die, DW_AT_call_file, &attr) ||
	    dwarf_formudata(&attr, &idx) ||
	    !dwarf_diecu(die, &cu, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, NULL))
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int call_line(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word line;

	if (!dwarf_attr(die, DW_AT_call_line, &attr) ||
	    dwarf_formudata(&attr, &line))
		return 0;
	return (int)line;
}

/* The first inlined copy below scope, depth first, whose code holds addr. */
static int inline_at(Dwarf_Die *scope, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c))
		return 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_inlined_subroutine &&
		    dwarf_haspc(&c, addr) == 1) {
			*out = c;
			return 1;
		}
		if (inline_at(&c, addr, out))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * A row inside an inlined copy belongs to func only as the copy's call
 * line, or where the copy is of func itself (util/dwarf-aux.c
 * die_walk_lines): perf looks at the innermost copy.
 */
static int row_is_func(Dwarf_Die *func, Dwarf_Addr addr, int line,
		       const char *decl_file, int decl)
{
	Dwarf_Die inl, deeper;
	const char *cf;
	int inl_decl = 0;

	if (!inline_at(func, addr, &inl))
		return 1;
	while (inline_at(&inl, addr, &deeper))
		inl = deeper;
	cf = call_file(&inl);
	if (cf && decl_file && !strcmp(cf, decl_file) &&
	    call_line(&inl) == line)
		return 1;
	dwarf_decl_line(&inl, &inl_decl);
	/* perf compares the unit's file table entries, not their names. */
	return inl_decl == decl && dwarf_decl_file(&inl) == decl_file;
}

/* The statement rows of func's code, or of the whole unit (func NULL). */
static void walk_rows(struct line_walk *w, Dwarf_Die *func)
{
	const char *decl_file = func ? dwarf_decl_file(func) : NULL;
	int decl = 0, line;
	Dwarf_Addr addr;
	size_t i;
	bool flag;

	if (func)
		dwarf_decl_line(func, &decl);
	for (i = 0; i < w->nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(w->lines, i);

		if (!l || dwarf_lineno(l, &line) || dwarf_lineaddr(l, &addr) ||
		    dwarf_lineendsequence(l, &flag) || flag ||
		    dwarf_linebeginstatement(l, &flag) || !flag)
			continue;
		if (func && (!dwarf_haspc(func, addr) ||
			     !row_is_func(func, addr, line, decl_file, decl)))
			continue;
		walk_line(w, dwarf_linesrc(l, NULL, NULL), line, addr);
	}
}

/*
 * The lines the line table leaves out (util/dwarf-aux.c
 * __die_walk_funclines): the call line of each inlined copy in scope, at
 * the copy's entry; with all (a unit's walk), of the copies within
 * copies too, and each copy's declaration line at its entry.
 */
static void walk_calls(struct line_walk *w, Dwarf_Die *scope, int all)
{
	Dwarf_Addr addr;
	Dwarf_Die c;
	const char *f;
	int line;

	if (dwarf_child(scope, &c))
		return;
	do {
		if (dwarf_tag(&c) == DW_TAG_inlined_subroutine) {
			if (dwarf_aux_entry(&c, &addr))
				addr = 0;
			f = call_file(&c);
			line = call_line(&c);
			if (addr && f && line > 0)
				walk_line(w, f, line, addr);
			if (!all)
				continue;
			f = dwarf_decl_file(&c);
			if (addr && f && !dwarf_decl_line(&c, &line))
				walk_line(w, f, line, addr);
		}
		walk_calls(w, &c, all);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* func's declaration line, at its entry, and its calls of inlined code. */
static void walk_func_lines(struct line_walk *w, Dwarf_Die *func, int all)
{
	const char *f = dwarf_decl_file(func);
	Dwarf_Addr addr;
	int line;

	if (f && !dwarf_decl_line(func, &line) && !dwarf_aux_entry(func, &addr))
		walk_line(w, f, line, addr);
	walk_calls(w, func, all);
}

static int unit_funcs_cb(Dwarf_Die *die, void *arg)
{
	walk_func_lines(arg, die, 1);
	return DWARF_CB_OK;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * perf prints this many lines past the last numbered one when the range
 * has no end (util/probe-event.c __show_line_range: NR_ADDITIONAL_LINES
 * and the line after the last).
 */
#define LIST_LINES_AFTER 3

/* One line of src, prefixed with its number or blanks; 0 at the end. */
static int print_line(FILE *src, char **buf, size_t *cap, int number,
		      int numbered, struct strbuf *out)
{
	ssize_t len = getline(buf, cap, src);

	if (len <= 0)
		return 0;
	if (numbered)
		strbuf_addf(out, "%7d  ", number);
	else
		strbuf_addstr(out, "         ");
	strbuf_add(out, *buf, len);
	return 1;
}

/*
 * The listing of w's lines from src as perf prints it: from line start
 * to end, each listed line numbered (minus offset, a function's first
 * line), or without an end to the third line after the last listed.
 */
static int print_lines(struct line_walk *w, const char *path, int offset,
		       int start, int end, struct strbuf *out,
		       struct strbuf *err)
{
	FILE *src = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;
	int i, l = 1, ret = 0;

	if (!src) {
		ret = -errno;
		strbuf_addf(err, "%s: %s", path, strerror(-ret));
		return ret;
	}
	for (; l < start && ret >= 0; l++)
		ret = getline(&buf, &cap, src) > 0 ? 0 : -EINVAL;
	for (i = 0; i < w->nr && ret >= 0; i++) {
		if (i && w->listed[i] == w->listed[i - 1])
			continue;
		for (; l <= w->listed[i] && ret >= 0; l++)
			ret = print_line(src, &buf, &cap, l - offset,
					 l == w->listed[i], out) ? 0 : -EINVAL;
	}
	if (ret < 0)
		strbuf_addf(err, "%s: shorter than its line table (line %d)",
			    path, l - 1);
	if (end == PROBE_LINE_OPEN)
		end = l - 1 + LIST_LINES_AFTER;
	while (ret >= 0 && l <= end && print_line(src, &buf, &cap, 0, 0, out))
		l++;
	free(buf);
	fclose(src);
	return ret;
}

/* The path of w's first listed line, relative ones under cu's comp_dir. */
static int print_walk(struct line_walk *w, Dwarf_Die *cu, const char *func,
		      int offset, int start, int end, struct strbuf *out,
		      struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	qsort(w->listed, w->nr, sizeof(*w->listed), cmp_int);
	dwarf_aux_source_path(cu, w->path, &path);
	if (func)
		strbuf_addf(out, "<%s@%s:%d>\n", func, path.buf, start - offset);
	else
		strbuf_addf(out, "<%s:%d>\n", path.buf, start);
	ret = print_lines(w, path.buf, offset, start, end, out, err);
	strbuf_release(&path);
	return ret;
}

static void walk_release(struct line_walk *w)
{
	free(w->listed);
}

/* perf adds a function's first line and clamps what leaves int to its end. */
static int func_line(int decl, int rel)
{
	long long l = (long long)decl + rel;

	return l < 0 || l > PROBE_LINE_OPEN ? PROBE_LINE_OPEN : (int)l;
}

/* "WHAT: no line has code" and the range of lr, if it has one. */
static int no_lines(struct strbuf *err, const char *what,
		    const struct probe_line_range *lr)
{
	strbuf_addf(err, "%s: no line has code", what);
	if (lr->end != PROBE_LINE_OPEN)
		strbuf_addf(err, " from line %d to %d", lr->start, lr->end);
	else if (lr->start)
		strbuf_addf(err, " from line %d on", lr->start);
	if (lr->func)
		strbuf_addstr(err, " (of the function's lines, 0 its first)");
	return -ENOENT;
}

/* A subprogram or an inlined copy that has code (perf's func instance). */
static int has_code(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Addr pc;
	int tag = dwarf_tag(die);

	return (tag == DW_TAG_subprogram ||
		tag == DW_TAG_inlined_subroutine) &&
	       (!dwarf_entrypc(die, &pc) ||
		dwarf_attr(die, DW_AT_ranges, &attr));
}

/* die's DW_AT_abstract_origin into origin. */
static int origin_of(Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Attribute attr;

	return dwarf_attr(die, DW_AT_abstract_origin, &attr) &&
	       dwarf_formref_die(&attr, origin);
}

static int file_index(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	return dwarf_attr_integrate(die, name, &attr) &&
	       !dwarf_formudata(&attr, &w) ? (int)w : -1;
}

/*
 * The lines of every copy of origin in its unit, the out-of-line one
 * too, but for a copy inlined at origin's own first line
 * (util/dwarf-aux.c die_walk_instances).
 */
static void walk_copies(struct line_walk *w, Dwarf_Die *scope,
			Dwarf_Die *origin)
{
	Dwarf_Die c, o;
	int decl = 0;

	if (dwarf_child(scope, &c))
		return;
	do {
		dwarf_decl_line(origin, &decl);
		if (has_code(&c) && origin_of(&c, &o) &&
		    o.addr == origin->addr &&
		    (dwarf_tag(&c) != DW_TAG_inlined_subroutine ||
		     call_line(&c) != decl ||
		     file_index(&c, DW_AT_call_file) !=
		     file_index(origin, DW_AT_decl_file))) {
			walk_rows(w, &c);
			walk_func_lines(w, &c, 0);
		}
		walk_copies(w, &c, origin);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/*
 * The lines of a function's definition def in cu, as perf walks them: its
 * own where it has code, else those of its copies (util/probe-finder.c
 * line_range_search_cb); *decl gets its first line.
 */
static void walk_def(struct line_walk *w, const struct probe_line_range *lr,
		     Dwarf_Die *cu, Dwarf_Die *def, int *decl)
{
	w->want = dwarf_decl_file(def);
	dwarf_decl_line(def, decl);
	w->lo = func_line(*decl, lr->start);
	w->hi = lr->end == PROBE_LINE_OPEN ? PROBE_LINE_OPEN :
		func_line(*decl, lr->end);
	if (!w->want || walk_unit_begin(w, cu))
		return;
	if (has_code(def)) {
		walk_rows(w, def);
		walk_func_lines(w, def, 0);
	} else {
		walk_copies(w, cu, def);
	}
}

/* The first definition of a function named as lr says in each unit. */
struct def_search {
	const struct probe_line_range *lr;
	struct line_walk *w;
	Dwarf_Die def;
	int found, decl;
};

static int def_cb(Dwarf_Die *die, void *arg)
{
	struct def_search *ds = arg;
	const char *f = dwarf_decl_file(die), *name = dwarf_diename(die);
	const char *mangled = dwarf_aux_linkage_name(die);
	Dwarf_Attribute attr;

	if ((ds->lr->file && (!f || !dwarf_aux_path_tail(f, ds->lr->file))) ||
	    dwarf_tag(die) != DW_TAG_subprogram ||
	    dwarf_attr(die, DW_AT_declaration, &attr))
		return DWARF_CB_OK;
	/* perf matches a glob (util/dwarf-aux.c die_match_name). */
	if ((!name || fnmatch(ds->lr->func, name, 0)) &&
	    (!mangled || fnmatch(ds->lr->func, mangled, 0)))
		return DWARF_CB_OK;
	ds->def = *die;
	ds->found = 1;
	return DWARF_CB_ABORT;
}

/* Units in order, until one has a line in the range. */
static int def_unit_cb(Dwarf_Die *cu, void *arg)
{
	struct def_search *ds = arg;
	int found = ds->found;

	ds->found = 0;
	dwarf_getfuncs(cu, def_cb, ds, 0);
	if (ds->found)
		walk_def(ds->w, ds->lr, cu, &ds->def, &ds->decl);
	ds->found |= found;
	return ds->w->nr > 0;
}

/*
 * A name no definition has, which find_sites knows as an alias, a C++
 * qualified name or a clone's: its first copy's definition (the abstract
 * one, where it comes first, as a unit's walk finds it).
 */
static int def_of_site(struct probe_debuginfo *dbg,
		       const struct probe_line_range *lr, struct def_search *ds,
		       struct strbuf *note, struct strbuf *err)
{
	struct probe_spec spec = { .func = lr->func, .file = lr->file };
	struct site_list sl;
	Dwarf_Die origin, cu;
	Dwarf_Attribute attr;
	int ret = probe_dwarf_find_sites(dbg, &spec, &sl, note, err);

	if (ret)
		return ret;
	ds->def = sl.v[0].target;
	if (dwarf_attr(&ds->def, DW_AT_abstract_origin, &attr) &&
	    dwarf_formref_die(&attr, &origin) &&
	    (sl.v[0].inlined ||
	     dwarf_dieoffset(&origin) < dwarf_dieoffset(&ds->def)))
		ds->def = origin;
	free(sl.v);
	if (dwarf_diecu(&ds->def, &cu, NULL, NULL))
		walk_def(ds->w, lr, &cu, &ds->def, &ds->decl);
	return 0;
}

/*
 * FUNC's lines: of its first definition, in the order of the units, with
 * a line in the range (util/probe-finder.c debuginfo__find_line_range).
 */
static int list_func_lines(struct probe_debuginfo *dbg,
			   const struct probe_line_range *lr,
			   struct strbuf *out, struct strbuf *note,
			   struct strbuf *err)
{
	struct line_walk w = { 0 };
	struct def_search ds = { .lr = lr, .w = &w };
	struct strbuf alias = STRBUF_INIT;
	int ret = 0;

	probe_dwarf_for_each_cu(dbg, def_unit_cb, &ds);
	if (!ds.found)
		ret = def_of_site(dbg, lr, &ds, &alias, err);
	strbuf_addstr(note, alias.buf);
	if (!ret && !w.nr)
		ret = no_lines(err, lr->func, lr);
	/* An alias is listed as the function it is, as perf finds it. */
	if (!ret)
		ret = print_walk(&w, &w.cu, alias.len ? dwarf_diename(&ds.def) :
				 lr->func, ds.decl, w.lo, w.hi, out, err);
	strbuf_release(&alias);
	walk_release(&w);
	return ret;
}

struct file_search {
	struct probe_debuginfo *dbg;
	const struct probe_line_range *lr;
	struct line_walk w;
	Dwarf_Die cu;
	int named;	/* a unit names the file */
};

/*
 * The first unit naming the file (in its file table) that has a line in
 * the range: its line table and the lines of its functions.
 */
static int file_unit_cb(Dwarf_Die *cu, void *arg)
{
	struct file_search *fs = arg;
	Dwarf_Files *files;
	size_t n, i;

	if (dwarf_getsrcfiles(cu, &files, &n))
		return 0;
	for (i = 0; i < n; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);

		if (f && dwarf_aux_path_tail(f, fs->lr->file))
			break;
	}
	if (i == n)
		return 0;
	fs->named = 1;
	fs->w.want = dwarf_filesrc(files, i, NULL, NULL);
	if (walk_unit_begin(&fs->w, cu))
		return 0;
	walk_rows(&fs->w, NULL);
	dwarf_getfuncs(cu, unit_funcs_cb, &fs->w, 0);
	fs->cu = *cu;
	return fs->w.nr > 0;
}

static int list_file_lines(struct probe_debuginfo *dbg,
			   const struct probe_line_range *lr,
			   struct strbuf *out, struct strbuf *note,
			   struct strbuf *err)
{
	struct file_search fs = {
		.dbg = dbg, .lr = lr, .w = { .lo = lr->start, .hi = lr->end },
	};
	struct probe_line_range clone = *lr;
	int ret;

	if (probe_dwarf_for_each_cu(dbg, file_unit_cb, &fs)) {
		ret = print_walk(&fs.w, &fs.cu, NULL, 0, lr->start, lr->end,
				 out, err);
		walk_release(&fs.w);
		return ret;
	}
	walk_release(&fs.w);
	/* foo.isra.0, which perf takes for a file: a clone, when no file is. */
	if (!fs.named && !strchr(lr->file, '/')) {
		struct strbuf ignore = STRBUF_INIT;

		clone.func = lr->file;
		clone.file = NULL;
		ret = list_func_lines(dbg, &clone, out, note, &ignore);
		strbuf_release(&ignore);
		if (!ret)
			return 0;
	}
	if (fs.named)
		return no_lines(err, lr->file, lr);
	strbuf_addf(err, "%s: no source file of that name in the debug info of %s",
		    lr->file, probe_debuginfo_file(dbg));
	return -ENOENT;
}

int probe_dwarf_list_lines(struct probe_debuginfo *dbg,
			   const struct probe_line_range *lr,
			   struct strbuf *out, struct strbuf *note,
			   struct strbuf *err)
{
	return lr->func ? list_func_lines(dbg, lr, out, note, err) :
	       list_file_lines(dbg, lr, out, note, err);
}

/* ---- -F ---- */

struct func_list {
	const struct probe_filter *filter;
	char **names;
	int nr, alloc;
};

static void list_func_push(struct func_list *fl, const char *name)
{
	if (!probe_filter_match(fl->filter, name))
		return;
	grow_array(fl->names, fl->nr, fl->alloc, 64);
	fl->names[fl->nr++] = xstrdup(name);
}

static int list_func_cb(Dwarf_Die *die, void *arg)
{
	const char *name = dwarf_diename(die);

	if (name && dwarf_aux_has_code(die))
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

	probe_dwarf_syms_load(dbg);
	for (i = 0; i < dbg->nr_syms; i++)
		list_func_push(fl, dbg->syms[i].name);
}

static int list_funcs_in_cu(Dwarf_Die *cu, void *arg)
{
	dwarf_getfuncs(cu, list_func_cb, arg, 0);
	return 0;
}

int probe_dwarf_list_funcs(struct probe_debuginfo *dbg,
			   const struct probe_filter *filter,
			   struct strbuf *out, struct strbuf *err)
{
	struct func_list fl = { .filter = filter };
	int i;

	(void)err;
	probe_dwarf_for_each_cu(dbg, list_funcs_in_cu, &fl);
	list_func_symbols(dbg, &fl);
	if (fl.nr)
		qsort(fl.names, fl.nr, sizeof(*fl.names), cmp_str);
	for (i = 0; i < fl.nr; i++) {
		if (!i || strcmp(fl.names[i], fl.names[i - 1]))
			strbuf_addf(out, "%s\n", fl.names[i]);
	}
	release_array(fl.names, fl.nr, free_ptr);
	return 0;
}
