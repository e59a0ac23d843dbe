/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_DWARF_AUX_H
#define TK_DWARF_AUX_H

#include <elfutils/libdw.h>

#include "util/strbuf.h"

/*
 * libdw helpers that know nothing of probes, as perf's util/dwarf-aux.c:
 * what the DIE of a function, a type, a location or a member says, in
 * DWARF 2 to 5, split DWARF included.  Each returns 0 (or the answer),
 * or -errno where it says so.
 */

/* ---- functions ---- */

/*
 * One path ends the other, character by character: how perf's
 * strtailcmp matches a SRC of a spec or of -L to a source's path.
 */
int dwarf_aux_path_tail(const char *a, const char *b);
/* die was declared in a file whose path ends in want (NULL: any). */
int dwarf_aux_file_matches(Dwarf_Die *die, const char *want);
/* The entry address, hot/cold split functions included; -ENOENT: none. */
int dwarf_aux_entry(Dwarf_Die *die, Dwarf_Addr *pc);
int dwarf_aux_has_code(Dwarf_Die *die);
/* The function of cu with code at pc (not an inlined copy); -ENOENT. */
int dwarf_aux_func_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out);
/*
 * The line pc stands for, as perf reads it back (cu_find_lineinfo): a
 * function's entry is its declaration line, another address the first
 * is_stmt row at it.  0, or -ENOENT for none.
 */
int dwarf_aux_line_at(Dwarf_Die *cu, Dwarf_Addr pc, const char **file,
		      int *line);
/* C++ (and DWARF 3's GNU spelling): the mangled name, or NULL. */
const char *dwarf_aux_linkage_name(Dwarf_Die *die);
/* Appends "ns::Cls::", the scopes enclosing a function's declaration. */
void dwarf_aux_scope_prefix(Dwarf_Die *die, struct strbuf *sb);
/* cu becomes the unit holding its DIEs (split DWARF); 0: none found. */
int dwarf_aux_unit(Dwarf_Die *cu);
/* Appends "f(int, double)": a function's parameters' types. */
void dwarf_aux_prototype(Dwarf_Die *die, struct strbuf *sb);
/* The CU was compiled with optimization (its DW_AT_producer's -O). */
int dwarf_aux_cu_optimized(Dwarf_Die *cu);

/* Line rows of die's CU within [lo, hi). */
struct dwarf_aux_row {
	Dwarf_Addr addr;
	int line;
	const char *file;	/* its source file, as dwarf_linesrc names it */
};

/*
 * The source file named file (a DW_AT_decl_file, a line's), in path: a
 * relative name is relative to the CU's DW_AT_comp_dir.
 */
void dwarf_aux_source_path(Dwarf_Die *die, const char *file,
			   struct strbuf *path);

/* The is_stmt rows of func's code, in an array the caller frees. */
int dwarf_aux_func_rows(Dwarf_Die *func, struct dwarf_aux_row **rows,
			int *nr);

/* ---- types ---- */

/* die's DW_AT_type; -ENOENT for void. */
int dwarf_aux_type(Dwarf_Die *die, Dwarf_Die *type);
/* Type of die with typedefs and qualifiers removed; -ENOENT for void. */
int dwarf_aux_real_type(Dwarf_Die *die, Dwarf_Die *type);
/* Appends the type of die as C spells it ("const char*"). */
void dwarf_aux_type_name_of(Dwarf_Die *die, struct strbuf *sb);
/* Appends type as C spells it ("struct pkt", "long[4]"). */
void dwarf_aux_type_name(Dwarf_Die *type, struct strbuf *sb);
/* The elements of an array type, -1 unknown. */
long long dwarf_aux_array_count(Dwarf_Die *array);
/* t is a one-byte character type, its signedness in *is_unsigned. */
int dwarf_aux_is_char(Dwarf_Die *t, int *is_unsigned);
/* DW_AT_encoding says signed. */
int dwarf_aux_encoding_signed(Dwarf_Die *t);
/* The enum type t is signed. */
int dwarf_aux_enum_signed(Dwarf_Die *t);

/* ---- locations ---- */

/*
 * A DW_OP_reg* (a register's value) or DW_OP_breg* (memory at register
 * + *off, *is_breg set); -EINVAL for any other op.
 */
int dwarf_aux_op_reg(const Dwarf_Op *op, int *reg, Dwarf_Sword *off,
		     int *is_breg);

/* ---- members ---- */

/*
 * Member name of struct or union su, anonymous members followed: its DIE
 * and byte offset; -ENOENT: none.
 */
int dwarf_aux_find_member(Dwarf_Die *su, const char *name, Dwarf_Die *out,
			  Dwarf_Word *off);
/* Appends the named members of su, ", " between. */
void dwarf_aux_member_list(Dwarf_Die *su, struct strbuf *sb);
/*
 * The kernel type of bitfield member m, b<width>@<lsb>/<bits> in *type,
 * and the byte offset of its container; -EINVAL with err where there is
 * none.
 */
int dwarf_aux_bitfield(Dwarf_Die *m, Dwarf_Word member_off,
		       Dwarf_Word *byte_off, char **type, struct strbuf *err);

#endif
