// SPDX-License-Identifier: GPL-2.0
/*
 * libdw helpers that know nothing of probes (util/dwarf-aux.h), as
 * perf's util/dwarf-aux.c: what a DIE of a function, a type, a location
 * or a member says, in DWARF 2 to 5.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/dwarf-aux.h"
#include "util/usage.h"

/* ---- functions ---- */

int dwarf_aux_path_tail(const char *a, const char *b)
{
	size_t i = strlen(a), j = strlen(b);

	while (i && j)
		if (a[--i] != b[--j])
			return 0;
	return 1;
}

int dwarf_aux_file_matches(Dwarf_Die *die, const char *want)
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
int dwarf_aux_entry(Dwarf_Die *die, Dwarf_Addr *pc)
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

int dwarf_aux_has_code(Dwarf_Die *die)
{
	Dwarf_Addr pc;

	return dwarf_aux_entry(die, &pc) == 0;
}

/* C++ (and DWARF 3's GNU spelling): the mangled name, or NULL. */
const char *dwarf_aux_linkage_name(Dwarf_Die *die)
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
void dwarf_aux_scope_prefix(Dwarf_Die *die, struct strbuf *sb)
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
 * The unit holding the DIEs of cu: with split DWARF (-gsplit-dwarf) the
 * executable has a skeleton only, and libdw opens the split unit in the
 * .dwo (DW_AT_dwo_name under DW_AT_comp_dir) or the .dwp next to it.
 */
int dwarf_aux_unit(Dwarf_Die *cu)
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
 * "f(int, double)" for a function DIE: its parameters' types, `this` left out.
 */
void dwarf_aux_prototype(Dwarf_Die *die, struct strbuf *sb)
{
	Dwarf_Die c;
	int n = 0;

	dwarf_aux_scope_prefix(die, sb);
	strbuf_addf(sb, "%s(", dwarf_diename(die) ? dwarf_diename(die) : "?");
	if (dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter ||
			    dwarf_hasattr_integrate(&c, DW_AT_artificial))
				continue;
			strbuf_addstr(sb, n++ ? ", " : "");
			dwarf_aux_type_name_of(&c, sb);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	strbuf_addch(sb, ')');
}

/*
 * gcc records its options in DW_AT_producer; -O0 code needs the prologue
 * skipped.
 */
int dwarf_aux_cu_optimized(Dwarf_Die *cu)
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

struct holder_search {
	Dwarf_Addr pc;
	Dwarf_Die *die;
	int found;
};

static int holder_cb(Dwarf_Die *die, void *arg)
{
	struct holder_search *hs = arg;

	if (!dwarf_aux_has_code(die) || dwarf_haspc(die, hs->pc) != 1)
		return DWARF_CB_OK;
	*hs->die = *die;
	hs->found = 1;
	return DWARF_CB_ABORT;
}

int dwarf_aux_func_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	struct holder_search hs = { .pc = pc, .die = out };

	dwarf_getfuncs(cu, holder_cb, &hs, 0);
	return hs.found ? 0 : -ENOENT;
}

int dwarf_aux_line_at(Dwarf_Die *cu, Dwarf_Addr pc, const char **file,
		      int *line)
{
	Dwarf_Lines *lines;
	Dwarf_Addr a, entry;
	Dwarf_Die func;
	size_t n, lo = 0, hi, i;
	bool stmt;

	if (!dwarf_aux_func_at(cu, pc, &func) &&
	    !dwarf_aux_entry(&func, &entry) && entry == pc) {
		*file = dwarf_decl_file(&func);
		return *file && !dwarf_decl_line(&func, line) ? 0 : -ENOENT;
	}
	if (dwarf_getsrclines(cu, &lines, &n))
		return -ENOENT;
	/* The rows are sorted by address: the first one at pc. */
	for (hi = n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a))
			return -ENOENT;
		if (a < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (dwarf_lineaddr(l, &a) || a != pc ||
		    dwarf_linebeginstatement(l, &stmt))
			return -ENOENT;
		if (stmt) {
			*file = dwarf_linesrc(l, NULL, NULL);
			return *file && !dwarf_lineno(l, line) ? 0 : -ENOENT;
		}
	}
	return -ENOENT;
}

void dwarf_aux_source_path(Dwarf_Die *die, const char *file,
			   struct strbuf *path)
{
	Dwarf_Attribute attr;
	Dwarf_Die cu;
	const char *dir = NULL;

	if (*file != '/' && dwarf_diecu(die, &cu, NULL, NULL))
		dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
	if (dir)
		strbuf_addf(path, "%s/", dir);
	strbuf_addstr(path, file);
}

int dwarf_aux_func_rows(Dwarf_Die *func, struct dwarf_aux_row **rows, int *nr)
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
		grow_array(*rows, *nr, alloc, 32);
		(*rows)[*nr].addr = a;
		(*rows)[*nr].file = dwarf_linesrc(l, NULL, NULL);
		(*rows)[(*nr)++].line = ln;
	}
	return 0;
}

/* ---- types ---- */

int dwarf_aux_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, type))
		return -ENOENT;
	return 0;
}

/* Type of die with typedefs and qualifiers removed; -ENOENT for void. */
int dwarf_aux_real_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Die t;

	if (dwarf_aux_type(die, &t) || dwarf_peel_type(&t, type))
		return -ENOENT;
	return 0;
}

void dwarf_aux_type_name_of(Dwarf_Die *die, struct strbuf *sb)
{
	Dwarf_Die t;

	if (dwarf_aux_type(die, &t))
		strbuf_addstr(sb, "void");
	else
		dwarf_aux_type_name(&t, sb);
}

long long dwarf_aux_array_count(Dwarf_Die *array)
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

void dwarf_aux_type_name(Dwarf_Die *type, struct strbuf *sb)
{
	const char *name = dwarf_diename(type);
	const char *word = tag_keyword(dwarf_tag(type));
	long long n;

	if (word)
		strbuf_addstr(sb, word);
	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
		dwarf_aux_type_name_of(type, sb);
		strbuf_addch(sb, '*');
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		dwarf_aux_type_name_of(type, sb);
		return;
	case DW_TAG_array_type:
		dwarf_aux_type_name_of(type, sb);
		n = dwarf_aux_array_count(type);
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

int dwarf_aux_is_char(Dwarf_Die *t, int *is_unsigned)
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
int dwarf_aux_encoding_signed(Dwarf_Die *t)
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
int dwarf_aux_enum_signed(Dwarf_Die *t)
{
	Dwarf_Attribute attr;
	Dwarf_Sword v;
	Dwarf_Die c;

	if (!dwarf_aux_real_type(t, &c))
		return dwarf_aux_encoding_signed(&c);
	if (dwarf_hasattr(t, DW_AT_encoding))
		return dwarf_aux_encoding_signed(t);
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

/* ---- locations ---- */

int dwarf_aux_op_reg(const Dwarf_Op *op, int *reg, Dwarf_Sword *off,
		     int *is_breg)
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
int dwarf_aux_find_member(Dwarf_Die *su, const char *name, Dwarf_Die *out,
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

			if (!dwarf_aux_real_type(&m, &t) &&
			    !dwarf_aux_find_member(&t, name, &inner, &io)) {
				*out = inner;
				*off = o + io;
				return 0;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return -ENOENT;
}

void dwarf_aux_member_list(Dwarf_Die *su, struct strbuf *sb)
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
int dwarf_aux_bitfield(Dwarf_Die *m, Dwarf_Word member_off,
		       Dwarf_Word *byte_off, char **type, struct strbuf *err)
{
	Dwarf_Attribute attr;
	Dwarf_Word width, bo;
	Dwarf_Die t;
	int csize, cbits;
	long long lsb;
	char buf[32];

	if (!dwarf_attr(m, DW_AT_bit_size, &attr) ||
	    dwarf_formudata(&attr, &width) || dwarf_aux_real_type(m, &t))
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
