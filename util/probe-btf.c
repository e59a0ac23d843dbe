// SPDX-License-Identifier: GPL-2.0
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "util/array.h"
#include "util/fetcharg.h"
#include "util/probe-btf.h"
#include "util/probe-ksyms.h"
#include "util/probe-point.h"
#include "util/probe-spec.h"
#include "util/usage.h"

/*
 * The FUNCs of one BTF by name, each (name, prototype) once.  libbpf's
 * btf__find_by_name_kind() scans every type and stops at the first
 * match; a static name that several files define can have several
 * prototypes, and all of them are needed (func_protos()).
 */
struct func_ent {
	const char *name;
	__u32 proto;
};

struct func_index {
	struct func_ent *e;
	int nr;
};

struct probe_btf {
	struct btf *vmlinux;
	struct func_index vmlinux_funcs;
	/* The split BTF of the last module a function was found in. */
	struct btf *mod;
	struct func_index mod_funcs;
	char *mod_name;
	/* The running kernel's symbols; NULL for another kernel's BTF file. */
	struct probe_ksyms *ksyms;
	char *path;		/* for messages: where the BTF came from */
};

/* libbpf prints its warnings to stderr by default; util/ never prints. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return 0;
}

static struct btf *load_vmlinux(struct strbuf *err)
{
	struct btf *btf;

	libbpf_set_print(libbpf_quiet);
	if (access(PROBE_BTF_VMLINUX, R_OK)) {
		strbuf_addf(err, "%s: %s", PROBE_BTF_VMLINUX, strerror(errno));
		return NULL;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf)
		strbuf_addf(err, "%s: %s", PROBE_BTF_VMLINUX, strerror(errno));
	return btf;
}

struct probe_btf *probe_btf_open(struct strbuf *err)
{
	struct btf *btf = load_vmlinux(err);
	struct probe_btf *b;

	if (!btf)
		return NULL;
	b = xcalloc(1, sizeof(*b));
	b->vmlinux = btf;
	b->ksyms = probe_ksyms_new();
	b->path = xstrdup(PROBE_BTF_VMLINUX);
	return b;
}

struct probe_btf *probe_btf_open_file(const char *path, struct strbuf *err)
{
	struct probe_btf *b;
	struct btf *btf;

	libbpf_set_print(libbpf_quiet);
	btf = btf__parse(path, NULL);
	if (!btf) {
		strbuf_addf(err, "%s: not BTF (raw, or an ELF with .BTF): %s",
			    path, strerror(errno));
		return NULL;
	}
	b = xcalloc(1, sizeof(*b));
	b->vmlinux = btf;
	b->path = xstrdup(path);
	return b;
}

/*
 * The machine of a kernel's BTF, which says none: its struct pt_regs, of
 * the architecture's own layout (arch/arm64/include/asm/ptrace.h ends in
 * orig_x0 after the registers; arch/x86/include/asm/ptrace.h's x86-64
 * one starts with r15).
 */
unsigned int probe_btf_machine(const struct probe_btf *b)
{
	int id = btf__find_by_name_kind(b->vmlinux, "pt_regs", BTF_KIND_STRUCT);
	const struct btf_type *t;
	const struct btf_member *m;
	int i;

	if (id <= 0)
		return EM_NONE;
	t = btf__type_by_id(b->vmlinux, id);
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(b->vmlinux, m->name_off);

		if (!strcmp(name, "orig_x0"))
			return EM_AARCH64;
		if (!strcmp(name, "r15"))
			return EM_X86_64;
	}
	return EM_NONE;
}

void probe_btf_close(struct probe_btf *b)
{
	if (!b)
		return;
	btf__free(b->mod);
	btf__free(b->vmlinux);
	free(b->vmlinux_funcs.e);
	free(b->mod_funcs.e);
	free(b->mod_name);
	probe_ksyms_free(b->ksyms);
	free(b->path);
	free(b);
}

int probe_btf_needs_dwarf(const struct probe_btf *b, const char *what,
			  struct strbuf *err)
{
	strbuf_addf(err, "%s: needs DWARF debuginfo (only BTF found: %s)", what,
		    b->path);
	return -EOPNOTSUPP;
}

unsigned long probe_btf_struct_size(const char *name)
{
	struct strbuf ignore = STRBUF_INIT;
	struct btf *btf = load_vmlinux(&ignore);
	long size = 0;
	int id;

	strbuf_release(&ignore);
	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	if (id > 0)
		size = btf__resolve_size(btf, id);
	btf__free(btf);
	return size > 0 ? (unsigned long)size : 0;
}

/* What the kernel would refuse to probe, refused first; -errno with err. */
static int probeable(struct probe_btf *b, const char *func,
		     struct probe_ksym *ks, struct strbuf *err)
{
	int ret;

	if (!b->ksyms) {
		/* Another kernel's: nothing here says what it would refuse. */
		memset(ks, 0, sizeof(*ks));
		if (!probe_ksyms_clone_suffix(func))
			return 0;
		strbuf_addf(err, "%s: a compiler clone: BTF does not describe its arguments",
			    func);
		return -EOPNOTSUPP;
	}
	ret = probe_ksyms_find(b->ksyms, func, ks, err);
	if (ret)
		return ret;
	if (!ks->nr && ks->clone) {
		strbuf_addf(err, "%s: only its compiler clone %s is in /proc/kallsyms, and BTF "
			    "does not describe the clone's arguments", func,
			    ks->clone);
		return -EOPNOTSUPP;
	}
	if (probe_ksyms_clone_suffix(func)) {
		strbuf_addf(err, "%s: a compiler clone: BTF does not describe its arguments",
			    func);
		return -EOPNOTSUPP;
	}
	if (ks->nr > 1) {
		strbuf_addf(err, "%s: %d functions of that name in /proc/kallsyms: BTF cannot tell "
			    "which one it describes", func, ks->nr);
		return -EOPNOTSUPP;
	}
	return probe_ksyms_check(b->ksyms, func, ks->module, err);
}

/* The BTF of the module holding a function (split on vmlinux), or vmlinux's. */
static struct btf *btf_for(struct probe_btf *b, const char *func,
			   const char *module, struct strbuf *err)
{
	if (!module)
		return b->vmlinux;
	if (b->mod_name && !strcmp(b->mod_name, module))
		return b->mod;
	btf__free(b->mod);
	free(b->mod_name);
	free(b->mod_funcs.e);
	b->mod_funcs.e = NULL;
	b->mod_funcs.nr = 0;
	b->mod_name = xstrdup(module);
	b->mod = btf__load_module_btf(module, b->vmlinux);
	if (!b->mod)
		strbuf_addf(err, "%s: in module %s, whose BTF cannot be read (/sys/kernel/btf/%s: %s)",
			    func, module, module, strerror(errno));
	return b->mod;
}

/* ---- types ---- */

static const struct btf_type *real_type(const struct btf *btf, __u32 id,
					__u32 *out)
{
	int r = btf__resolve_type(btf, id);

	*out = r > 0 ? (__u32)r : 0;
	return *out ? btf__type_by_id(btf, *out) : NULL;
}

static void type_name(const struct btf *btf, __u32 id, struct strbuf *sb)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	const char *name;

	if (!t) {
		strbuf_addstr(sb, "void");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		type_name(btf, t->type, sb);
		strbuf_addch(sb, '*');
		return;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
		strbuf_addstr(sb, btf_is_const(t) ? "const " : "volatile ");
		type_name(btf, t->type, sb);
		return;
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		type_name(btf, t->type, sb);
		return;
	case BTF_KIND_ARRAY:
		type_name(btf, btf_array(t)->type, sb);
		strbuf_addf(sb, "[%u]", btf_array(t)->nelems);
		return;
	case BTF_KIND_FUNC_PROTO:
		strbuf_addstr(sb, "(function)");
		return;
	case BTF_KIND_STRUCT:
		strbuf_addstr(sb, "struct ");
		break;
	case BTF_KIND_UNION:
		strbuf_addstr(sb, "union ");
		break;
	case BTF_KIND_FWD:
		strbuf_addstr(sb, btf_kflag(t) ? "union " : "struct ");
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		strbuf_addstr(sb, "enum ");
		break;
	default:
		break;
	}
	strbuf_addstr(sb, name && *name ? name : "(anon)");
}

static int is_su(const struct btf_type *t)
{
	return t && (btf_is_struct(t) || btf_is_union(t));
}

/* A one-byte integer other than _Bool: what DWARF calls a char type. */
static int is_char(const struct btf_type *t)
{
	return t && btf_is_int(t) && t->size == 1 &&
		!(btf_int_encoding(t) & BTF_INT_BOOL);
}

/*
 * As in DWARF, arrays of (signed) char are strings, of unsigned char
 * bytes; plain char too, which the kernel builds unsigned since 6.2
 * (-funsigned-char) and which holds text all the same.
 */
static int is_text_char(const struct btf *btf, const struct btf_type *t)
{
	return is_char(t) &&
		((btf_int_encoding(t) & BTF_INT_SIGNED) ||
		 !strcmp(btf__name_by_offset(btf, t->name_off), "char"));
}

/*
 * Whether btf marks signed enums (kflag), as pahole 1.24 on writes it: then
 * kflag is the answer, and 0xefffffff (e820_type's E820_TYPE_SOFT_RESERVED)
 * is unsigned.  Older pahole sets no kflag: an ENUM's values, stored as
 * s32, are then taken as signed when one is negative, an ENUM64's never.
 * The answer is kept for the last btf asked about: one scan of its types.
 */
static int marks_enum_sign(const struct btf *btf)
{
	static const struct btf *last;
	static int marks;
	__u32 id, n;

	if (btf == last)
		return marks;
	last = btf;
	marks = 0;
	n = btf__type_cnt(btf);
	for (id = 1; id < n && !marks; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		marks = (btf_is_enum(t) || btf_is_enum64(t)) && btf_kflag(t);
	}
	return marks;
}

static int enum_signed(const struct btf *btf, const struct btf_type *t)
{
	int i;

	if (marks_enum_sign(btf))
		return btf_kflag(t);
	for (i = 0; btf_is_enum(t) && i < btf_vlen(t); i++)
		if (btf_enum(t)[i].val < 0)
			return 1;
	return 0;
}

/* Kernel type for a scalar; NULL with err set when there is none. */
static char *scalar_type(const struct btf *btf, __u32 id,
			 const struct probe_opts *opts, const char *var,
			 struct strbuf *err)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *pointee;
	__u32 pid;
	char c, buf[8];

	if (id && btf_is_ptr(t)) {
		pointee = real_type(btf, t->type, &pid);
		if (pointee && btf_is_func_proto(pointee) && opts->symbol &&
		    opts->kind == PROBE_KPROBE)
			return xstrdup("symbol");
		return xstrdup("x64");
	}
	if (id && (btf_is_enum(t) || btf_is_enum64(t))) {
		c = enum_signed(btf, t) ? 's' : 'u';
	} else if (id && btf_is_int(t)) {
		c = btf_int_encoding(t) & BTF_INT_SIGNED ? 's' : 'u';
	} else if (id && btf_is_float(t)) {
		c = 'x';
	} else {
		struct strbuf tn = STRBUF_INIT;

		type_name(btf, id, &tn);
		strbuf_addf(err,
			    "'%s' is of type %s, which has no scalar value",
			    var, tn.buf);
		strbuf_release(&tn);
		return NULL;
	}
	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8) {
		strbuf_addf(err, "'%s' has %u bytes: the kernel fetches 1, 2, 4 or 8",
			    var, t->size);
		return NULL;
	}
	snprintf(buf, sizeof(buf), "%c%u", c, t->size * 8);
	return xstrdup(buf);
}

/* ---- members ---- */

struct member {
	__u32 type;
	/* from the start of the outermost struct */
	__u32 bit_off;
	__u32 bit_size;		/* 0 unless a bitfield */
};

/* Finds member name in struct/union su, following anonymous members. */
static int find_member(const struct btf *btf, const struct btf_type *su,
		       const char *name, struct member *out)
{
	const struct btf_member *m = btf_members(su);
	int i;

	for (i = 0; i < btf_vlen(su); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 off = btf_member_bit_offset(su, i), rid;
		const struct btf_type *mt;

		if (mn && *mn && !strcmp(mn, name)) {
			out->type = m->type;
			out->bit_off = off;
			out->bit_size = btf_member_bitfield_size(su, i);
			return 0;
		}
		mt = real_type(btf, m->type, &rid);
		if ((!mn || !*mn) && is_su(mt) &&
		    !find_member(btf, mt, name, out)) {
			out->bit_off += off;
			return 0;
		}
	}
	return -ENOENT;
}

static void member_list(const struct btf *btf, const struct btf_type *su,
			struct strbuf *sb)
{
	const struct btf_member *m = btf_members(su);
	int i, first = 1;

	for (i = 0; i < btf_vlen(su); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);

		if (!mn || !*mn)
			continue;
		strbuf_addf(sb, "%s%s", first ? "" : ", ", mn);
		first = 0;
	}
}

static int member_error(const struct btf *btf, __u32 id, const char *path,
			const char *name, struct strbuf *err)
{
	struct strbuf tn = STRBUF_INIT;

	type_name(btf, id, &tn);
	strbuf_addf(err, "'%s': %s has no member '%s' (members: ", path, tn.buf,
		    name);
	member_list(btf, btf__type_by_id(btf, id), err);
	strbuf_addch(err, ')');
	strbuf_release(&tn);
	return -ENOENT;
}

/*
 * The byte offset of m's container and its type b<width>@<lsb>/<bits>:
 * BTF counts bits from the start of the struct, as DWARF 4's
 * DW_AT_data_bit_offset does, on a little-endian machine.
 */
static int bitfield(const struct btf *btf, const struct member *m,
		    __u32 *byte_off, char **type, struct strbuf *err)
{
	__u32 rid;
	const struct btf_type *t = real_type(btf, m->type, &rid);
	unsigned int cbits, lsb;
	char buf[32];

	if (!t || (!btf_is_int(t) && !btf_is_enum(t) && !btf_is_enum64(t)) ||
	    !t->size || t->size > 8) {
		strbuf_addstr(err, "bitfield of an unknown container");
		return -EINVAL;
	}
	cbits = t->size * 8;
	*byte_off = (m->bit_off / cbits) * t->size;
	lsb = m->bit_off % cbits;
	if (lsb + m->bit_size > cbits) {
		strbuf_addstr(err, "bitfield straddles its container");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "b%u@%u/%u", m->bit_size, lsb, cbits);
	*type = xstrdup(buf);
	return 0;
}

struct btf_ctx {
	const struct probe_btf *b;
	const struct btf *btf;
	const struct btf_type *proto;
	const char *func;
	const struct probe_opts *opts;
	/* the var op's whole, for the helpers below it */
	int whole;
	struct strbuf *warn;	/* NULL: no warnings */
};

static int apply_index(struct btf_ctx *bc, const struct probe_field *f,
		       struct fetch_arg *fa, __u32 *id, struct strbuf *path,
		       struct strbuf *err)
{
	const struct btf_type *t = btf__type_by_id(bc->btf, *id);
	__u32 elem;
	long esize;

	strbuf_addf(path, "[%ld]", f->index);
	if (!*id || (!btf_is_array(t) && !btf_is_ptr(t)) ||
	    !real_type(bc->btf, btf_is_array(t) ? btf_array(t)->type : t->type,
		       &elem)) {
		strbuf_addf(err,
			    "'%s': only arrays and pointers can be indexed",
			    path->buf);
		return -EINVAL;
	}
	esize = btf__resolve_size(bc->btf, elem);
	if (esize <= 0) {
		strbuf_addf(err, "'%s': element size unknown", path->buf);
		return -EINVAL;
	}
	if (btf_is_array(t)) {
		__u32 n = btf_array(t)->nelems;

		if (n && f->index >= (long)n) {
			strbuf_addf(err,
				    "'%s': index out of range (%u elements)",
				    path->buf, n);
			return -EINVAL;
		}
		if (probe_need_memory(fa, path->buf, err))
			return -EINVAL;
		fa->deref[fa->nr_derefs - 1] += f->index * esize;
	} else if (fetch_arg_push_deref(fa, f->index * esize)) {
		return -E2BIG;
	}
	*id = elem;
	return 0;
}

static int apply_member(struct btf_ctx *bc, const struct probe_field *f,
			struct fetch_arg *fa, __u32 *id, char **bf,
			struct strbuf *path, struct strbuf *err)
{
	const struct btf_type *t = btf__type_by_id(bc->btf, *id), *su;
	struct member m;
	__u32 sid, off;

	strbuf_addf(path, "%s%s",
		    f->kind == PROBE_FIELD_ARROW ? "->" : ".", f->name);
	if (f->kind == PROBE_FIELD_ARROW) {
		su = *id && btf_is_ptr(t) ?
			real_type(bc->btf, t->type, &sid) : NULL;
		if (!is_su(su)) {
			strbuf_addf(err, "'%s': '->' needs a pointer to a struct or union",
				    path->buf);
			return -EINVAL;
		}
		if (fetch_arg_push_deref(fa, 0))
			return -E2BIG;
	} else {
		if (*id && btf_is_ptr(t)) {
			strbuf_addf(err, "'%s': a pointer: use '->' for %s",
				    path->buf, f->name);
			return -EINVAL;
		}
		if (!*id || !is_su(t)) {
			strbuf_addf(err, "'%s': '.' needs a struct or union",
				    path->buf);
			return -EINVAL;
		}
		if (probe_need_memory(fa, path->buf, err))
			return -EINVAL;
		su = t;
		sid = *id;
	}
	if (find_member(bc->btf, su, f->name, &m))
		return member_error(bc->btf, sid, path->buf, f->name, err);
	off = m.bit_off / 8;
	if (m.bit_size && bitfield(bc->btf, &m, &off, bf, err))
		return -EINVAL;
	fa->deref[fa->nr_derefs - 1] += off;
	real_type(bc->btf, m.type, id);
	return 0;
}

/*
 * Applies the field chain to fa, whose value has type *id, as probe-dwarf does.
 */
static int apply_fields(struct btf_ctx *bc, const struct probe_arg *arg,
			struct fetch_arg *fa, __u32 *id, char **bf,
			struct strbuf *path, struct strbuf *err)
{
	int i, ret = 0;

	for (i = 0; i < arg->nr_fields && !ret; i++) {
		const struct probe_field *f = &arg->fields[i];

		if (*bf) {
			strbuf_addf(err, "'%s': a bitfield has no members",
				    path->buf);
			return -EINVAL;
		}
		if (f->kind == PROBE_FIELD_INDEX)
			ret = apply_index(bc, f, fa, id, path, err);
		else
			ret = apply_member(bc, f, fa, id, bf, path, err);
	}
	if (ret == -E2BIG)
		strbuf_addf(err, "'%s': more than %d dereferences", path->buf,
			    FETCH_MAX_DEREF);
	return ret;
}

/* The type and its element, for btf_scalar(). */
struct btf_type_ids {
	struct btf_ctx *bc;
	__u32 id, eid;
};

static char *btf_scalar(void *ctx, int elem, const char *path,
			struct strbuf *err)
{
	struct btf_type_ids *ti = ctx;

	return scalar_type(ti->bc->btf, elem ? ti->eid : ti->id, ti->bc->opts,
			   path, err);
}

/* Final type: user cast, string, array, bitfield or scalar, as DWARF's. */
static int final_type(struct btf_ctx *bc, const struct probe_arg *arg,
		      struct fetch_arg *fa, __u32 id, char *bf,
		      const char *path, struct strbuf *err)
{
	const struct btf_type *t = id ? btf__type_by_id(bc->btf, id) : NULL;
	const struct btf_type *elem = NULL;
	struct btf_type_ids ti = { .bc = bc, .id = id };
	/* $params: a struct in argument registers, as DWARF fetches it. */
	struct probe_type pt = { .name = STRBUF_INIT, .members = STRBUF_INIT,
				 .whole = bc->whole && !fa->nr_derefs,
				 .ustring_as_is = 1, .scalar = btf_scalar,
				 .ctx = &ti };
	int ret;

	if (t && btf_is_ptr(t)) {
		pt.kind = PROBE_TYPE_POINTER;
		elem = real_type(bc->btf, t->type, &ti.eid);
	} else if (t && btf_is_array(t)) {
		pt.kind = PROBE_TYPE_ARRAY;
		elem = real_type(bc->btf, btf_array(t)->type, &ti.eid);
		pt.count = btf_array(t)->nelems;
	} else if (is_su(t)) {
		pt.kind = PROBE_TYPE_AGGREGATE;
		type_name(bc->btf, id, &pt.name);
		member_list(bc->btf, t, &pt.members);
		pt.size = btf__resolve_size(bc->btf, id);
	}
	if (bf)
		pt.is_signed = t && btf_is_int(t) ?
			       !!(btf_int_encoding(t) & BTF_INT_SIGNED) :
			       t && (btf_is_enum(t) || btf_is_enum64(t)) &&
			       enum_signed(bc->btf, t);
	pt.has_elem = elem != NULL;
	pt.elem_char = is_char(elem);
	pt.elem_text = is_text_char(bc->btf, elem);
	ret = probe_final_type(&pt, arg, bc->opts, fa, bf, path, bc->warn, err);
	probe_type_release(&pt);
	return ret;
}

/* ---- arguments ---- */

static const char *param_name(const struct btf *btf, const struct btf_param *p)
{
	return btf__name_by_offset(btf, p->name_off);
}

/* Whether t holds integers and pointers only, as members and array elements. */
static int all_integer(const struct btf *btf, const struct btf_type *t,
		       int depth)
{
	const struct btf_member *m;
	__u32 id;
	int i;

	if (!t || depth > 8)
		return 0;
	if (btf_is_int(t) || btf_is_ptr(t) || btf_is_enum(t) ||
	    btf_is_enum64(t))
		return 1;
	if (btf_is_array(t))
		return all_integer(btf, real_type(btf, btf_array(t)->type, &id),
				   depth + 1);
	if (!is_su(t))
		return 0;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++)
		if (!all_integer(btf, real_type(btf, m->type, &id), depth + 1))
			return 0;
	return 1;
}

/*
 * The argument slot k ($argk) of parameter p, the earlier ones having
 * taken *regs registers and *stack stack slots (the arch's arg_slot(),
 * which sets *by_ref); -1 for a float, or an aggregate holding one,
 * whose place BTF cannot tell.
 */
static int param_slot(const struct arch *a, const struct btf *btf,
		      const struct btf_param *p, int *regs, int *stack,
		      int *by_ref)
{
	__u32 id;
	const struct btf_type *t = real_type(btf, p->type, &id);
	long size = t ? btf__resolve_size(btf, id) : -1;

	if (!t || size <= 0)
		return -1;
	if (is_su(t))
		return all_integer(btf, t, 0) ?
			a->arg_slot((size_t)size, 1, regs, stack, by_ref) : -1;
	if (btf_is_int(t) || btf_is_ptr(t) || btf_is_enum(t) ||
	    btf_is_enum64(t))
		return a->arg_slot((size_t)size, 0, regs, stack, by_ref);
	return -1;
}

/*
 * Where argument k is at the entry: $argk, or the register or stack slot
 * it is in; by_ref: the address of the argument's copy is.
 */
static int arg_base(struct btf_ctx *bc, int k, int by_ref,
		    struct fetch_arg *fa, struct strbuf *err)
{
	long long off;
	int ret;

	if (bc->opts->argn && arch_argn_ok(bc->opts->arch, k)) {
		fa->base = FETCH_ARGN;
		fa->argn = k;
		return by_ref ? fetch_arg_push_deref(fa, 0) : 0;
	}
	fa->base = FETCH_REG;
	switch (arch_entry_arg(bc->opts->arch, k, &fa->reg, &off)) {
	case 0:
		return by_ref ? fetch_arg_push_deref(fa, 0) : 0;
	case 1:
		ret = fetch_arg_push_deref(fa, off);
		return !ret && by_ref ? fetch_arg_push_deref(fa, 0) : ret;
	default:
		strbuf_addf(err, "argument %d: this architecture does not say where it is",
			    k);
		return -EINVAL;
	}
}

static int arg_var(void *ctx, const struct probe_arg *arg, int whole,
		   struct fetch_arg *fa, struct strbuf *err)
{
	struct btf_ctx *bc = ctx;
	const struct btf_param *p = btf_params(bc->proto);
	struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
	char *bf = NULL;
	int i, k = 0, n = btf_vlen(bc->proto), ret;
	int slot = 0, regs = 0, stack = 0, by_ref = 0;
	__u32 id;

	bc->whole = whole;
	strbuf_addf(&path, "%s%s", arg->global ? "@" : "", arg->var);
	for (i = 0; i < n && !k; i++)
		if (!strcmp(param_name(bc->btf, &p[i]), arg->var))
			k = i + 1;
	if (arg->global || !k) {
		strbuf_addf(&what, "'%s': not a parameter of %s (params:",
			    path.buf, bc->func);
		for (i = 0; i < n; i++)
			strbuf_addf(&what, " %s", param_name(bc->btf, &p[i]));
		strbuf_addstr(&what, "); globals and locals");
		ret = probe_btf_needs_dwarf(bc->b, what.buf, err);
		goto out;
	}
	for (i = 0; i < k; i++) {
		slot = param_slot(bc->opts->arch, bc->btf, &p[i], &regs,
				  &stack, &by_ref);
		if (slot < 0) {
			strbuf_addf(&what, "'%s': %s '%s', passed as a float or holding one, "
				    "its argument slot", arg->var,
				    i < k - 1 ? "after" : "as",
				    param_name(bc->btf, &p[i]));
			ret = probe_btf_needs_dwarf(bc->b, what.buf, err);
			goto out;
		}
	}
	ret = arg_base(bc, slot, by_ref, fa, err);
	if (ret)
		goto out;
	real_type(bc->btf, p[k - 1].type, &id);
	ret = apply_fields(bc, arg, fa, &id, &bf, &path, err);
	if (!ret)
		ret = final_type(bc, arg, fa, id, bf, path.buf, err);
	else
		free(bf);
out:
	strbuf_release(&path);
	strbuf_release(&what);
	return ret;
}

static int arg_retval(void *ctx, struct fetch_arg *fa, struct strbuf *err)
{
	struct btf_ctx *bc = ctx;
	__u32 id;

	if (!real_type(bc->btf, bc->proto->type, &id)) {
		strbuf_addf(err, "%s returns void: no $retval", bc->func);
		return -EINVAL;
	}
	fa->type = scalar_type(bc->btf, id, bc->opts, "$retval", err);
	return fa->type ? 0 : -EINVAL;
}

static int arg_params(void *ctx, const char ***names, int *nr)
{
	struct btf_ctx *bc = ctx;
	const struct btf_param *p = btf_params(bc->proto);
	int i, n = btf_vlen(bc->proto);

	*names = xcalloc(n ? n : 1, sizeof(**names));
	*nr = 0;
	/* A variadic function ends in a nameless parameter of type void. */
	for (i = 0; i < n; i++)
		if (p[i].type && *param_name(bc->btf, &p[i]))
			(*names)[(*nr)++] = param_name(bc->btf, &p[i]);
	return 0;
}

/* BTF has the parameters of a function, not its locals. */
static int arg_vars(void *ctx, const char ***names, int *nr,
		    struct strbuf *err)
{
	struct btf_ctx *bc = ctx;

	*names = NULL;
	*nr = 0;
	return probe_btf_needs_dwarf(bc->b, "$vars: the local variables", err);
}

static const struct probe_arg_ops btf_arg_ops = {
	.var = arg_var,
	.retval = arg_retval,
	.params = arg_params,
	.vars = arg_vars,
};

/* What BTF cannot say: lines, offsets, source files, source text. */
static int spec_needs_dwarf(const struct probe_btf *b,
			    const struct probe_spec *spec, struct strbuf *err)
{
	struct strbuf what = STRBUF_INIT;
	int ret = 0;

	if (!spec->func)
		strbuf_addf(&what, "%s: a source file", spec->file);
	else if (spec->has_line)
		strbuf_addf(&what, "%s:%d: a line probe", spec->func,
			    spec->line);
	else if (spec->has_offset && spec->offset)
		strbuf_addf(&what, "%s+%lu: an offset into a function",
			    spec->func, spec->offset);
	else if (spec->file)
		strbuf_addf(&what, "%s@%s: a source file", spec->func,
			    spec->file);
	else if (spec->lazy)
		strbuf_addf(&what, "%s;%s: a lazy-line pattern", spec->func,
			    spec->lazy);
	if (what.len)
		ret = probe_btf_needs_dwarf(b, what.buf, err);
	strbuf_release(&what);
	return ret;
}

static int cmp_func_ent(const void *a, const void *b)
{
	const struct func_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->proto > y->proto) - (x->proto < y->proto);
}

/* The FUNCs btf adds to its base (a module's own, not vmlinux's). */
static void index_funcs(const struct btf *btf, struct func_index *fi)
{
	const struct btf *base = btf__base_btf(btf);
	__u32 id, n = btf__type_cnt(btf);
	int alloc = 0, i, k;

	for (id = base ? btf__type_cnt(base) : 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t))
			continue;
		grow_array(fi->e, fi->nr, alloc, 4096);
		fi->e[fi->nr].name = btf__name_by_offset(btf, t->name_off);
		fi->e[fi->nr++].proto = t->type;
	}
	if (!fi->nr)
		return;
	qsort(fi->e, fi->nr, sizeof(*fi->e), cmp_func_ent);
	for (i = k = 1; i < fi->nr; i++)
		if (cmp_func_ent(&fi->e[i], &fi->e[k - 1]))
			fi->e[k++] = fi->e[i];
	fi->nr = k;
}

/*
 * The prototypes btf gives func (*protos, their number); 0, or -ENOENT
 * with err set.  More than one when files define static functions of
 * that name with other parameters: pahole encodes each, and BTF has no
 * address to tell which of them is the one kallsyms names.
 */
static int func_protos(struct probe_btf *b, const struct btf *btf,
		       const char *func, const char *module,
		       const struct func_ent **protos, int *nr,
		       struct strbuf *err)
{
	struct func_index *fi = btf == b->vmlinux ?
		&b->vmlinux_funcs : &b->mod_funcs;
	int lo, i;

	if (!fi->e)
		index_funcs(btf, fi);
	lo = lower_bound_by_name(fi->e, fi->nr, name, func);
	for (i = lo; i < fi->nr && !strcmp(fi->e[i].name, func); i++) {
		const struct btf_type *t = btf__type_by_id(btf, fi->e[i].proto);

		if (!t || !btf_is_func_proto(t)) {
			strbuf_addf(err, "%s: BTF gives it no prototype", func);
			return -ENOENT;
		}
	}
	if (i == lo) {
		strbuf_addf(err, "no function '%s' in the BTF of %s", func,
			    module ? module : "vmlinux");
		return -ENOENT;
	}
	*protos = &fi->e[lo];
	*nr = i - lo;
	return 0;
}

/* "(a, b)": a prototype's parameter names. */
static void proto_params(const struct btf *btf, const struct btf_type *proto,
			 struct strbuf *out)
{
	const struct btf_param *p = btf_params(proto);
	int i, n = btf_vlen(proto);

	strbuf_addch(out, '(');
	for (i = 0; i < n; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "",
			    p[i].type ? param_name(btf, &p[i]) : "...");
	strbuf_addstr(out, n ? ")" : "void)");
}

/* err = why several prototypes leave the spec's function unknown. */
static void ambiguous(const struct btf *btf, const char *func,
		      const struct func_ent *protos, int nr, struct strbuf *err)
{
	int i;

	strbuf_addf(err, "%s: BTF has %d prototypes of that name, which give other arguments: ",
		    func, nr);
	for (i = 0; i < nr; i++) {
		strbuf_addstr(err, i ? ", " : "");
		strbuf_addstr(err, func);
		proto_params(btf, btf__type_by_id(btf, protos[i].proto), err);
	}
	strbuf_addstr(err, "; it has no addresses to tell which one /proc/kallsyms names: "
		      "needs DWARF debuginfo (-k VMLINUX)");
}

/*
 * out = the arguments of pp as the kernel would be given them, or err's reason.
 */
static void point_args(const struct probe_opts *opts,
		       const struct probe_point *pp, int ret,
		       const struct strbuf *err, struct strbuf *out)
{
	struct fetch_ctx fc = { .kind = PROBE_KPROBE, .arch = opts->arch };
	struct strbuf ignore = STRBUF_INIT;
	int i;

	if (ret) {
		strbuf_addf(out, "error: %s", err->buf);
		return;
	}
	for (i = 0; i < pp->nr_args; i++)
		if (fetch_arg_format(&pp->args[i], &fc, out, &ignore))
			strbuf_addf(out, " error: %s", ignore.buf);
	strbuf_release(&ignore);
}

/*
 * What resolve and -V share: the refusals, then the BTF (vmlinux's or
 * the module's, ks->module) and the prototypes it has of spec's function.
 */
static int find_protos(struct probe_btf *b, const struct probe_spec *spec,
		       struct probe_ksym *ks, const struct btf **btf,
		       const struct func_ent **protos, int *nr,
		       struct strbuf *err)
{
	int ret = spec_needs_dwarf(b, spec, err);

	if (ret)
		return ret;
	ret = probeable(b, spec->func, ks, err);
	if (ret)
		return ret;
	*btf = btf_for(b, spec->func, ks->module, err);
	if (!*btf)
		return -ENOENT;
	return func_protos(b, *btf, spec->func, ks->module, protos, nr, err);
}

/* The probe point of spec from prototype proto: 0, or -errno with err. */
static int proto_point(struct btf_ctx *bc, const struct probe_spec *spec,
		       const struct probe_ksym *ks, __u32 proto,
		       struct strbuf *warn, struct probe_point **pp,
		       struct strbuf *err)
{
	bc->proto = btf__type_by_id(bc->btf, proto);
	bc->warn = warn;
	*pp = xcalloc(1, sizeof(**pp));
	(*pp)->func = xstrdup(spec->func);
	(*pp)->sym = xstrdup(spec->func);
	(*pp)->module = ks->module ? xstrdup(ks->module) : NULL;
	(*pp)->retprobe = spec->retprobe;
	return probe_point_args(*pp, spec, &btf_arg_ops, bc, warn, err);
}

int probe_btf_resolve(struct probe_btf *b, const struct probe_spec *spec,
		      const struct probe_opts *opts, struct probe_point **pps,
		      int *nr, struct strbuf *warn, struct strbuf *err)
{
	struct btf_ctx bc = { .b = b, .func = spec->func, .opts = opts };
	struct strbuf def = STRBUF_INIT, other = STRBUF_INIT;
	struct strbuf other_err = STRBUF_INIT;
	struct probe_point *pp, *first;
	const struct func_ent *protos;
	struct probe_ksym ks;
	int ret, i, nprotos;

	*pps = NULL;
	*nr = 0;
	ret = find_protos(b, spec, &ks, &bc.btf, &protos, &nprotos, err);
	if (ret)
		return ret;
	ret = proto_point(&bc, spec, &ks, protos[0].proto, warn, &first, err);
	/*
	 * Each other prototype gives a definition too; where they all agree
	 * (a bare function, or parameters alike), it does not matter which
	 * is kallsyms' function.
	 */
	if (nprotos > 1)
		point_args(opts, first, ret, err, &def);
	for (i = 1; i < nprotos; i++) {
		int r = proto_point(&bc, spec, &ks, protos[i].proto, NULL, &pp,
				    &other_err);

		point_args(opts, pp, r, &other_err, &other);
		probe_points_release(pp, 1);
		if (strcmp(def.buf, other.buf)) {
			strbuf_reset(err);
			ambiguous(bc.btf, spec->func, protos, nprotos, err);
			ret = -EOPNOTSUPP;
			break;
		}
		strbuf_reset(&other);
		strbuf_reset(&other_err);
	}
	strbuf_release(&def);
	strbuf_release(&other);
	strbuf_release(&other_err);
	if (ret) {
		probe_points_release(first, 1);
		return ret;
	}
	*pps = first;
	*nr = 1;
	return 0;
}

/* ---- listings ---- */

int probe_btf_list_vars(struct probe_btf *b, const struct probe_spec *spec,
			struct strbuf *out, struct strbuf *err)
{
	const struct func_ent *protos;
	const struct btf *btf;
	struct probe_ksym ks;
	int i, k, nprotos;
	int ret = find_protos(b, spec, &ks, &btf, &protos, &nprotos, err);

	if (ret)
		return ret;
	strbuf_addf(out, "Available variables at %s\n", spec->func);
	/* One block per prototype, as perf gives one per copy it finds. */
	for (k = 0; k < nprotos; k++) {
		const struct btf_type *proto = btf__type_by_id(btf,
							       protos[k].proto);
		const struct btf_param *p = btf_params(proto);

		strbuf_addf(out, "        @<%s+0>", spec->func);
		if (nprotos > 1)
			strbuf_addf(out, " (BTF prototype %d of %d; BTF cannot tell which is in "
				    "/proc/kallsyms)", k + 1, nprotos);
		strbuf_addch(out, '\n');
		for (i = 0; i < btf_vlen(proto); i++) {
			if (!p[i].type)
				continue;
			strbuf_addstr(out, "\t\t");
			type_name(btf, p[i].type, out);
			strbuf_addf(out, "\t%s\n", param_name(btf, &p[i]));
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int probe_btf_match_funcs(struct probe_btf *b, const char *glob,
			  const char ***out, int *nr_out, struct strbuf *err)
{
	__u32 id, n = btf__type_cnt(b->vmlinux);
	const char **names = NULL;
	int nr = 0, alloc = 0, i, k = 0;
	int ret = b->ksyms ? probe_ksyms_load(b->ksyms, err) : 0;

	*out = NULL;
	*nr_out = 0;
	if (ret)
		return ret;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b->vmlinux, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(b->vmlinux, t->name_off);
		if (glob && fnmatch(glob, name, 0))
			continue;
		/*
		 * What has no code of its own (inlined everywhere) cannot be
		 * probed.
		 */
		if (b->ksyms && !probe_ksyms_has_text(b->ksyms, name))
			continue;
		grow_array(names, nr, alloc, 256);
		names[nr++] = name;
	}
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	for (i = 0; i < nr; i++)
		if (!i || strcmp(names[i], names[i - 1]))
			names[k++] = names[i];
	*out = names;
	*nr_out = k;
	return 0;
}

int probe_btf_list_funcs(struct probe_btf *b, const char *glob,
			 struct strbuf *out, struct strbuf *err)
{
	const char **names;
	int nr, i, ret = probe_btf_match_funcs(b, glob, &names, &nr, err);

	for (i = 0; i < nr; i++)
		strbuf_addf(out, "%s\n", names[i]);
	free(names);
	return ret;
}
