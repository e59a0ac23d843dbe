// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat's kallsyms: the table of its functions that libtraceevent
 * resolves addresses through, built at the first lookup, and the
 * functions registered into the handle instead where a format names one.
 */
#include <ctype.h>
#include <stdlib.h>

#include "util/tracedat-read-int.h"
#include "util/usage.h"


/*
 * One /proc/kallsyms line as the kernel writes it: "ADDR T NAME", then
 * optionally "\t[MODULE]".  0 and the pieces, or -1 for anything else.
 */
static int kallsyms_line(const char *p, const char *end,
			 unsigned long long *addr, char *type,
			 const char **name, size_t *name_len, const char **mod,
			 size_t *mod_len)
{
	const char *q = p;

	*addr = 0;
	for (; q < end && isxdigit((unsigned char)*q); q++)
		*addr = *addr << 4 | (isdigit((unsigned char)*q) ? *q - '0' :
				      (tolower((unsigned char)*q) - 'a' + 10));
	if (q == p || q - p > 16 || end - q < 4 || q[0] != ' ' ||
	    isspace((unsigned char)q[1]) || q[2] != ' ')
		return -1;
	*type = q[1];
	*name = q += 3;
	while (q < end && !isspace((unsigned char)*q))
		q++;
	*name_len = q - *name;
	*mod = NULL;
	*mod_len = 0;
	if (!*name_len)
		return -1;
	if (q == end)
		return 0;
	if (end - q < 3 || q[0] != '\t' || q[1] != '[')
		return -1;
	*mod = q += 2;
	while (q < end && !isspace((unsigned char)*q))
		q++;
	if (q != end || q[-1] != ']' || q - *mod < 2)
		return -1;
	*mod_len = q - *mod - 1;
	return 0;
}

/*
 * tep_parse_kallsyms() sscanf()s each of some 100,000 lines, a tenth of
 * a report's time.  Lines of the kernel's own shape are registered here
 * as it would register them (same order, same '$' and absolute-symbol
 * rules); any other text is left to it whole.
 */
static void parse_kallsyms(struct tep_handle *tep, const char *text)
{
	const char *p, *nl, *name, *mod;
	size_t name_len, mod_len;
	unsigned long long addr;
	char type, *fn, *mn;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (p = text; *p; p = *nl ? nl + 1 : nl) {
			nl = strchrnul(p, '\n');
			if (nl == p)
				continue;
			if (kallsyms_line(p, nl, &addr, &type, &name, &name_len,
					  &mod, &mod_len)) {
				tep_parse_kallsyms(tep, text);
				return;
			}
			if (!pass || name[0] == '$' || type == 'A' ||
			    type == 'a')
				continue;
			fn = xstrndup(name, name_len);
			mn = mod ? xstrndup(mod, mod_len) : NULL;
			tep_register_function(tep, fn, addr, mn);
			free(fn);
			free(mn);
		}
	}
}

/*
 * The functions of a file's kallsyms as libtraceevent 1.7 holds the ones
 * tep_register_function() was given: func_map_init() puts them, the
 * last registered first, into an array that qsort() sorts by address,
 * with an entry of address 0 after them, and __find_func() bsearch()es
 * it with func_bcmp().  Built and searched the same way, this array
 * finds the same function for every address, also where several share
 * one.  Registering them into a handle (a malloc and two strdup()s
 * each, then that sort) and searching it were 30% of `report` on a file
 * of 301 event types where kmem's call sites are looked up (perf
 * record); here the names are one block, and an address once looked up
 * is remembered.
 */
#define SYM_CACHE	4096

struct td_sym {
	unsigned long long addr;
	const char *name;
};

struct td_syms {
	struct td_sym *v;		/* nr, then the entry of address 0 */
	size_t nr;
	char *names;
	struct {
		unsigned long long addr;
		const struct td_sym *sym;	/* NULL: none */
		int used;
	} cache[SYM_CACHE];
};

/* func_cmp() and func_bcmp() of libtraceevent 1.7 */
static int sym_cmp(const void *a, const void *b)
{
	const struct td_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int sym_bcmp(const void *a, const void *b)
{
	const struct td_sym *x = a, *y = b;

	if (x->addr == y->addr || (x->addr > y->addr && x->addr < y[1].addr))
		return 0;
	return x->addr < y->addr ? -1 : 1;
}

void tracedat_syms_free(struct td_syms *st)
{
	if (!st)
		return;
	free(st->v);
	free(st->names);
	free(st);
}

/* Reverses v[0..n). */
static void syms_reverse(struct td_sym *v, size_t n)
{
	struct td_sym t;
	size_t i;

	for (i = 0; i < n / 2; i++) {
		t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

/*
 * 0, or -1 for text parse_kallsyms() leaves to tep_parse_kallsyms().
 * The kernel writes its own symbols in address order: then the stable
 * sort of the list, last registered first, is the text's order with
 * each run of one address turned around, and no sort is needed.
 */
static int syms_build(struct tracedat *td)
{
	const char *p, *nl, *name, *mod;
	size_t name_len, mod_len, n = 0, at = 0, i, j, len;
	unsigned long long addr;
	struct td_syms *st;
	int sorted = 1;
	char type;

	for (p = td->kallsyms; (p = strchr(p, '\n')); p++)
		n++;
	st = xcalloc(1, sizeof(*st));
	st->v = xcalloc(n + 2, sizeof(*st->v));
	len = strlen(td->kallsyms) + 1;
	st->names = xmalloc(len);
	tracedat_prefault(st->names, len);
	tracedat_prefault(st->v, (n + 2) * sizeof(*st->v));
	for (p = td->kallsyms; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		if (nl == p)
			continue;
		if (kallsyms_line(p, nl, &addr, &type, &name, &name_len, &mod,
				  &mod_len)) {
			tracedat_syms_free(st);
			return -1;
		}
		if (name[0] == '$' || type == 'A' || type == 'a')
			continue;
		if (st->nr && addr < st->v[st->nr - 1].addr)
			sorted = 0;
		st->v[st->nr].addr = addr;
		st->v[st->nr++].name = st->names + at;
		memcpy(st->names + at, name, name_len);
		st->names[at + name_len] = '\0';
		at += name_len + 1;
	}
	if (sorted) {
		for (i = 0; i < st->nr; i = j) {
			for (j = i + 1;
			     j < st->nr && st->v[j].addr == st->v[i].addr; j++)
				;
			syms_reverse(st->v + i, j - i);
		}
	} else {
		syms_reverse(st->v, st->nr);
		qsort(st->v, st->nr, sizeof(*st->v), sym_cmp);
	}
	st->v[st->nr].addr = 0;
	td->syms = st;
	return 0;
}

static const struct td_sym *sym_find(struct td_syms *st,
				     unsigned long long addr)
{
	unsigned int slot = (unsigned int)((addr ^ addr >> 12) % SYM_CACHE);
	struct td_sym key = { .addr = addr };

	if (st->cache[slot].used && st->cache[slot].addr == addr)
		return st->cache[slot].sym;
	st->cache[slot].used = 1;
	st->cache[slot].addr = addr;
	st->cache[slot].sym = st->nr ? bsearch(&key, st->v, st->nr,
					       sizeof(*st->v), sym_bcmp) :
				       NULL;
	return st->cache[slot].sym;
}

/*
 * The functions go into the file's own handle, instead of aside (below),
 * when a format names one of them: what libtraceevent finds by name is
 * there.
 */
void tracedat_register_symbols(struct tracedat *td)
{
	td->want_symbols = 1;
	if (!td->kallsyms)
		return;
	tep_reset_function_resolver(td->tep);
	td->resolver_set = 0;
	parse_kallsyms(td->tep, td->kallsyms);
	free(td->kallsyms_mem);
	td->kallsyms = td->kallsyms_mem = NULL;
	tracedat_syms_free(td->syms);
	td->syms = NULL;
	if (td->ksyms)
		tep_free(td->ksyms);
	td->ksyms = NULL;
}

/*
 * 1 when name is a function of the file's kallsyms, which
 * libtraceevent's test_for_symbol() would find in the handle.  Asked
 * before the kallsyms are read, the name waits for them.  Text of
 * another shape than the kernel's is not searched: 1, as before names
 * were looked for.
 */
static int sym_wanted(struct tracedat *td, const char *name)
{
	size_t i;

	tracedat_kallsyms_now(td);
	if (!td->kallsyms) {
		td->sym_names = xrealloc(td->sym_names,
					 (td->nr_sym_names + 1) *
						 sizeof(*td->sym_names));
		td->sym_names[td->nr_sym_names++] = xstrdup(name);
		return 0;
	}
	if (!td->syms && syms_build(td))
		return 1;
	for (i = 0; i < td->syms->nr; i++)
		if (!strcmp(td->syms->v[i].name, name))
			return 1;
	return 0;
}

/*
 * kallsyms is some 100,000 lines that many reports never look up (sched,
 * syscalls): registering them was 21% of `report` on a file of 300
 * sched_switch records.  The file's handle resolves through the table
 * above, built on the first lookup; text of another shape goes to
 * libtraceevent's own parser, in a handle of its own.
 */
static char *resolve_function(void *priv, unsigned long long *addrp,
			      char **modp)
{
	struct tracedat *td = priv;
	const struct td_sym *sym;
	unsigned long long start;
	const char *name;

	*modp = NULL;
	tracedat_kallsyms_now(td);
	if (td->late_err.len)
		return NULL;
	if (!td->syms && !td->ksyms && syms_build(td)) {
		td->ksyms = tep_alloc();
		if (!td->ksyms)
			die("out of memory");
		tep_parse_kallsyms(td->ksyms, td->kallsyms);
	}
	if (td->ksyms) {
		if (!tep_find_function_info(td->ksyms, *addrp, &name, &start,
					    NULL))
			return NULL;
		*addrp = start;
		return (char *)name;
	}
	sym = sym_find(td->syms, *addrp);
	if (!sym)
		return NULL;
	*addrp = sym->addr;
	return (char *)sym->name;
}

/*
 * Once: libtraceevent frees the resolver it replaces, and the one that
 * reads kallsyms late (tracedat_kallsyms_now()) runs inside a lookup through
 * it.
 */
void tracedat_set_resolver(struct tracedat *td)
{
	if (td->resolver_set)
		return;
	if (tep_set_function_resolver(td->tep, resolve_function, td))
		die("out of memory");
	td->resolver_set = 1;
}

/* text, NUL-terminated, lies in mem (malloc'ed), which td takes. */
void tracedat_set_kallsyms(struct tracedat *td, char *text, void *mem)
{
	int i;

	free(td->kallsyms_mem);
	tracedat_syms_free(td->syms);
	td->syms = NULL;
	td->kallsyms = text;
	td->kallsyms_mem = mem;
	for (i = 0; !td->want_symbols && i < td->nr_sym_names; i++)
		if (sym_wanted(td, td->sym_names[i]))
			td->want_symbols = 1;
	if (td->want_symbols)
		tracedat_register_symbols(td);
	else
		tracedat_set_resolver(td);
}

/*
 * Where a print fmt wants a number and has a name (mm_page_alloc's
 * vmemmap_base), libtraceevent looks the name up among the functions
 * registered in the handle when it prints (libtraceevent 1.7's
 * test_for_symbol(): a linear search, 0 when not there; the resolver
 * below is not asked).  Such a name is one an argument in a number's
 * place, not a %s's.  1 when one is a function of the file's kallsyms.
 */
static int arg_names_symbol(struct tracedat *td, const struct tep_print_arg *a,
			    int str)
{
	const char *t;

	for (; a; a = NULL) {
		switch (a->type) {
		case TEP_PRINT_ATOM:
			t = a->atom.atom + (a->atom.atom[0] == '-');
			return !str && !isdigit((unsigned char)*t) &&
			       sym_wanted(td, a->atom.atom);
		case TEP_PRINT_TYPE:
			return arg_names_symbol(td, a->typecast.item, str);
		case TEP_PRINT_OP:
			if (str && a->op.op[0] == '?' && a->op.right &&
			    a->op.right->type == TEP_PRINT_OP)
				return arg_names_symbol(td, a->op.left, 0) ||
				       arg_names_symbol(td,
							a->op.right->op.left,
							1) ||
				       arg_names_symbol(td,
							a->op.right->op.right,
							1);
			return arg_names_symbol(td, a->op.left, 0) ||
			       arg_names_symbol(td, a->op.right, 0);
		case TEP_PRINT_FLAGS:
			return arg_names_symbol(td, a->flags.field, 0);
		case TEP_PRINT_SYMBOL:
			return arg_names_symbol(td, a->symbol.field, 0);
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			return arg_names_symbol(td, a->hex.field, 0) ||
			       arg_names_symbol(td, a->hex.size, 0);
		case TEP_PRINT_INT_ARRAY:
			return arg_names_symbol(td, a->int_array.field, 0) ||
			       arg_names_symbol(td, a->int_array.count, 0) ||
			       arg_names_symbol(td, a->int_array.el_size, 0);
		case TEP_PRINT_DYNAMIC_ARRAY:
			return arg_names_symbol(td, a->dynarray.index, 0);
		case TEP_PRINT_FUNC:
			for (a = a->func.args; a; a = a->next)
				if (arg_names_symbol(td, a, 0))
					return 1;
			return 0;
		default:
			return 0;
		}
	}
	return 0;
}

/* The arguments in the order of the format's conversions, as %s or not. */
int tracedat_names_symbol(struct tracedat *td, const struct tep_event *ev)
{
	const struct tep_print_arg *a = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;

	for (; p && *p && a; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		for (; *p && !isalpha((unsigned char)*p); p++)
			if (*p == '*') {
				if (arg_names_symbol(td, a, 0))
					return 1;
				a = a->next;
			}
		while (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'z' ||
		       *p == 'Z')
			p++;
		if (!*p || !a)
			break;
		if (arg_names_symbol(td, a, *p == 's'))
			return 1;
		a = a->next;
	}
	for (; a; a = a->next)
		if (arg_names_symbol(td, a, 0))
			return 1;
	return 0;
}
