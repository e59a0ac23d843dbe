// SPDX-License-Identifier: GPL-2.0
/*
 * The listings of `tracekit probe` from DWARF (util/probe-dwarf-list.h),
 * as perf prints them: -V, -L, -F.
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
		     probe_dwarf_var_location(vc, &attr, &ops, &nops) <= 0 ||
		     !nops))
			continue;
		strbuf_addstr(out, "\t\t");
		dwarf_aux_type_name_of(&c, out);
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
	struct strbuf why = STRBUF_INIT;
	Dwarf_Die cu, *scopes = NULL;
	GElf_Off off = 0;
	const char *name;
	int ret, skipped, n, i;
	size_t len;

	/* The target's open refused the machines no arch translates for. */
	opts.arch = probe_debuginfo_arch(dbg, &why);
	if (!opts.arch)
		strbuf_addf(err, "an ELF for %s", why.buf);
	strbuf_release(&why);
	if (!opts.arch)
		return -EOPNOTSUPP;
	dwarf_aux_entry(&site->func, &vc.entry);
	ret = site->inlined ? dwarf_aux_entry(&site->target, &vc.pc) :
	      probe_dwarf_point_address(spec, &site->func, 1, &vc.pc, &skipped,
					err);
	if (ret)
		return ret;
	name = probe_dwarf_func_at(dbg, vc.pc, &off);
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

	ret = probe_dwarf_find_sites(dbg, spec, &sl, note, err);
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
	dwarf_aux_entry(func, &entry);
	if (!dwarf_diecu(func, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n))
		return 0;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		int ln;

		if (!line_listed(func, lines, n, l, decl, file, entry) ||
		    dwarf_lineno(l, &ln))
			continue;
		grow_array(*out, *nr, alloc, 1);
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

	ret = probe_dwarf_find_function(dbg, spec, &func, note, err);
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int probe_dwarf_list_funcs(struct probe_debuginfo *dbg, const char *glob,
			   struct strbuf *out, struct strbuf *err)
{
	struct func_list fl = { .glob = glob };
	int i;

	probe_dwarf_for_each_cu(dbg, list_funcs_in_cu, &fl);
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
