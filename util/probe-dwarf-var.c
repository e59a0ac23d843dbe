// SPDX-License-Identifier: GPL-2.0
/*
 * The arguments of a probe point from DWARF (util/probe-dwarf-int.h's
 * probe_dwarf_arg_ops): a variable found at the point's address, its
 * location there as a fetch chain (registers, the frame base through the
 * CFI, globals by symbol), its member chain and its kernel type.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "util/array.h"
#include "util/probe-dwarf-int.h"
#include "util/usage.h"

/* ---- types ---- */

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
		if (!dwarf_aux_real_type(t, &pointee) &&
		    dwarf_tag(&pointee) == DW_TAG_subroutine_type &&
		    opts->symbol && opts->kind == PROBE_KPROBE)
			return xstrdup("symbol");
		return xstrdup("x64");
	case DW_TAG_enumeration_type:
		c = dwarf_aux_enum_signed(t) ? 's' : 'u';
		break;
	case DW_TAG_base_type:
		if (dwarf_attr(t, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
		c = enc == DW_ATE_signed || enc == DW_ATE_signed_char ? 's' :
		    enc == DW_ATE_float ? 'x' : 'u';
		break;
	default: {
		struct strbuf tn = STRBUF_INIT;

		dwarf_aux_type_name(t, &tn);
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
		    !dwarf_aux_op_reg(&cfa[0], reg, off, &is_breg) && is_breg) {
			free(frame);
			return 0;
		}
		free(frame);
		/* No CFI (kernel modules): the ABI says where the CFA is. */
		if (vc->pc == vc->entry) {
			long long cfa_off;

			arch_entry_cfa(vc->opts->arch, reg, &cfa_off);
			*off = (Dwarf_Sword)cfa_off;
			return 0;
		}
		strbuf_addstr(err, "no call frame information for the frame base at this address");
		return -EINVAL;
	}
	if (!dwarf_aux_op_reg(&ops[0], reg, off, &is_breg))
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
int probe_dwarf_var_location(const struct var_ctx *vc, Dwarf_Attribute *attr,
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
	n = probe_dwarf_var_location(vc, &attr, &ops, &nops);
	if (n <= 0 || !nops) {
		strbuf_addf(err, "'%s' is optimized out at this address (no location for pc 0x%" PRIx64 ")",
			    name, (uint64_t)vc->pc);
		return -ENOENT;
	}
	if (nops == 1 && !dwarf_aux_op_reg(&ops[0], &reg, &off, &is_breg)) {
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
	    !dwarf_aux_op_reg(&ops[0], &reg, &off, &is_breg) && !is_breg &&
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
			    dwarf_aux_real_type(type, &elem)) {
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
				long long n = dwarf_aux_array_count(type);

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
			    dwarf_aux_real_type(type, &next) ||
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
		if (dwarf_aux_find_member(type, f->name, &m, &off)) {
			struct strbuf tn = STRBUF_INIT;

			dwarf_aux_type_name(type, &tn);
			strbuf_addf(err,
				    "'%s': %s has no member '%s' (members: ",
				    path->buf, tn.buf, f->name);
			dwarf_aux_member_list(type, err);
			strbuf_addch(err, ')');
			strbuf_release(&tn);
			return -ENOENT;
		}
		if (dwarf_hasattr(&m, DW_AT_bit_size)) {
			Dwarf_Word boff;

			if (dwarf_aux_bitfield(&m, off, &boff, bf, err))
				return -EINVAL;
			off = boff;
		}
		fa->deref[fa->nr_derefs - 1] += off;
		if (dwarf_aux_real_type(&m, type)) {
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
			      dwarf_aux_enum_signed(type) :
			      dwarf_aux_encoding_signed(type);
	if ((t.kind == PROBE_TYPE_POINTER || t.kind == PROBE_TYPE_ARRAY) &&
	    !dwarf_aux_real_type(type, &dt.elem)) {
		t.has_elem = 1;
		t.elem_char = dwarf_aux_is_char(&dt.elem, &uns);
		/*
		 * Text: signed char, and plain char, which is unsigned on
		 * arm64 (AAPCS64) and signed on x86-64; unsigned char is bytes.
		 */
		t.elem_text = t.elem_char &&
			      (!uns || !strcmp(dwarf_diename(&dt.elem) ?: "", "char"));
	}
	if (t.kind == PROBE_TYPE_ARRAY)
		t.count = dwarf_aux_array_count(type);
	if (t.kind == PROBE_TYPE_AGGREGATE) {
		dwarf_aux_type_name(type, &t.name);
		dwarf_aux_member_list(type, &t.members);
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

/* The child of die that holds pc, of a tag of inlined's choosing. */
static int child_at(Dwarf_Die *die, Dwarf_Addr pc, int inlined,
		    Dwarf_Die *out)
{
	if (dwarf_child(die, out))
		return 0;
	do {
		int tag = dwarf_tag(out);

		if ((inlined ? tag == DW_TAG_inlined_subroutine :
		     tag == DW_TAG_lexical_block) &&
		    dwarf_haspc(out, pc) == 1)
			return 1;
	} while (dwarf_siblingof(out, out) == 0);
	return 0;
}

/*
 * Appends die and the descendants that hold pc (blocks; with inlined,
 * inlined copies too), a chain, innermost first.
 */
static void push_chain(Dwarf_Die *die, Dwarf_Addr pc, int inlined,
		       Dwarf_Die **v, int *n, int *alloc)
{
	Dwarf_Die d = *die, c;
	int first = *n, i;

	for (;;) {
		grow_array(*v, *n, *alloc, 8);
		(*v)[(*n)++] = d;
		if (!child_at(&d, pc, 0, &c) &&
		    !(inlined && child_at(&d, pc, 1, &c)))
			break;
		d = c;
	}
	for (i = 0; i < (*n - first) / 2; i++) {
		c = (*v)[first + i];
		(*v)[first + i] = (*v)[*n - 1 - i];
		(*v)[*n - 1 - i] = c;
	}
}

int probe_dwarf_scopes(Dwarf_Die *top, Dwarf_Addr pc, Dwarf_Die **out)
{
	Dwarf_Die *v = NULL, c;
	int n = 0, alloc = 0;

	push_chain(top, pc, 0, &v, &n, &alloc);
	/* v[0], the innermost of top's own scopes, may hold a copy. */
	if (child_at(&v[0], pc, 1, &c))
		push_chain(&c, pc, 1, &v, &n, &alloc);
	if (dwarf_diecu(top, &c, NULL, NULL)) {
		grow_array(v, n, alloc, 8);
		v[n++] = c;
	}
	*out = v;
	return n;
}

/* A variable visible at pc, else a global anywhere (with a location). */
static int find_variable(struct var_ctx *vc, const struct probe_arg *arg,
			 Dwarf_Die *out, struct strbuf *err)
{
	struct global_search gs = { .name = arg->var };
	int idx;

	if (!arg->global && !vc->scopes)
		vc->nr_scopes = probe_dwarf_scopes(vc->target, vc->pc,
						   &vc->scopes);
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
	probe_dwarf_for_each_cu(vc->dbg, find_global_in_cu, &gs);
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
		if (dwarf_aux_real_type(&c, &t))
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
	if (!k || !abi_ok || !arch_argn_ok(vc->opts->arch, k))
		return;
	switch (arch_entry_arg(vc->opts->arch, k, &reg, &off)) {
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
	if (dwarf_aux_real_type(&var, &type)) {
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

	if (dwarf_aux_real_type(vc->target, &type)) {
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

/*
 * perf's $vars: the parameters and variables among the children of the
 * function (or inlined copy), and of each block whose code holds the
 * probe address, in the order of the DIEs.  Not those of a copy inlined
 * there, which perf leaves out too: another function's.
 */
static void scope_vars(Dwarf_Die *scope, Dwarf_Addr pc, const char ***names,
		       int *nr, int *alloc)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c))
		return;
	do {
		int tag = dwarf_tag(&c);
		const char *n = dwarf_diename(&c);

		if ((tag == DW_TAG_formal_parameter ||
		     tag == DW_TAG_variable) && n) {
			grow_array(*names, *nr, *alloc, 8);
			(*names)[(*nr)++] = n;
		} else if (tag == DW_TAG_lexical_block &&
			   dwarf_haspc(&c, pc) == 1) {
			scope_vars(&c, pc, names, nr, alloc);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int dwarf_vars(void *ctx, const char ***names, int *nr,
		      struct strbuf *err)
{
	struct var_ctx *vc = ctx;
	int alloc = 0;

	(void)err;
	*names = NULL;
	*nr = 0;
	scope_vars(vc->target, vc->pc, names, nr, &alloc);
	return 0;
}

const struct probe_arg_ops probe_dwarf_arg_ops = {
	.var = resolve_var,
	.retval = resolve_retval,
	.params = dwarf_params,
	.vars = dwarf_vars,
};
