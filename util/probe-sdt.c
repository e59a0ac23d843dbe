// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "util/array.h"
#include "util/elf-addr.h"
#include "util/fetcharg.h"
#include "util/probe-file.h"
#include "util/probe-sdt.h"
#include "util/usage.h"

static uint64_t get_word(const unsigned char *p, int size, int elfdata)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < size; i++) {
		int b = elfdata == ELFDATA2MSB ? i : size - 1 - i;

		v = (v << 8) | p[b];
	}
	return v;
}

/* The NUL-terminated string at *pos within len bytes, or NULL. */
static const char *take_string(const unsigned char *desc, size_t len,
			       size_t *pos)
{
	const unsigned char *s = desc + *pos, *nul;

	if (*pos >= len)
		return NULL;
	nul = memchr(s, '\0', len - *pos);
	if (!nul)
		return NULL;
	*pos += nul - s + 1;
	return (const char *)s;
}

int sdt_note_decode(const unsigned char *desc, size_t len, int elfclass,
		    int elfdata, struct sdt_note *note, struct strbuf *why)
{
	int w = elfclass == ELFCLASS32 ? 4 : 8;
	size_t pos = 3 * w;

	memset(note, 0, sizeof(*note));
	if (len < pos) {
		strbuf_addf(why, "descriptor of %zu bytes is shorter than its 3 addresses", len);
		return -EINVAL;
	}
	note->pc = get_word(desc, w, elfdata);
	note->base = get_word(desc + w, w, elfdata);
	note->sema = get_word(desc + 2 * w, w, elfdata);
	note->provider = take_string(desc, len, &pos);
	note->name = note->provider ? take_string(desc, len, &pos) : NULL;
	note->args = note->name ? take_string(desc, len, &pos) : NULL;
	if (!note->args) {
		strbuf_addf(why, "descriptor ends before the NUL of its %s string",
			    !note->provider ? "provider" : !note->name ? "name" : "argument");
		return -EINVAL;
	}
	if (!*note->provider || !*note->name) {
		strbuf_addf(why, "empty %s", !*note->provider ? "provider" : "name");
		return -EINVAL;
	}
	return 0;
}

int sdt_arg_parse(const struct arch *a, const char *text, size_t len,
		  struct sdt_arg *arg, struct strbuf *why)
{
	const char *at = memchr(text, '@', len), *op = text;
	size_t oplen = len;

	memset(arg, 0, sizeof(*arg));
	if (at) {
		const char *p = text;

		if (*p == '-') {
			arg->is_signed = 1;
			p++;
		}
		if (p + 1 < at && p[1] == 'f' && p + 2 == at) {
			arg->is_float = 1;
		} else if (p + 1 != at) {
			strbuf_addf(why, "bad size '%.*s'", (int)(at - text), text);
			return -EINVAL;
		}
		arg->size = *p - '0';
		if (arg->size != 1 && arg->size != 2 && arg->size != 4 &&
		    arg->size != 8) {
			strbuf_addf(why, "bad size '%.*s'", (int)(at - text), text);
			return -EINVAL;
		}
		op = at + 1;
		oplen = text + len - op;
	}
	if (!oplen) {
		strbuf_addf(why, "empty operand");
		return -EINVAL;
	}
	return a->sdt_operand_parse(op, oplen, arg, why);
}

void sdt_arg_release(struct sdt_arg *arg)
{
	free(arg->sym);
	arg->sym = NULL;
}

void sdt_arg_fetcharg(const struct sdt_arg *arg, uint64_t rip_n,
		      struct strbuf *fetch, struct strbuf *type)
{
	switch (arg->op) {
	case SDT_OP_REG:
		strbuf_addf(fetch, "%%%s", arg->reg->kname);
		break;
	case SDT_OP_MEM:
		strbuf_addf(fetch, "%+lld(%%%s)", arg->disp, arg->reg->kname);
		break;
	case SDT_OP_IMM:
		if (arg->imm_unsigned)
			strbuf_addf(fetch, "\\%llu", (unsigned long long)arg->imm);
		else
			strbuf_addf(fetch, "\\%lld", arg->imm);
		break;
	case SDT_OP_RIP:
		strbuf_addf(fetch, "@+0x%llx", (unsigned long long)rip_n);
		break;
	}
	/*
	 * A register fetch is the whole 64-bit pt_regs slot: %ah is its
	 * second byte, which only a bitfield can pick (unsigned, alas).
	 */
	if (arg->op == SDT_OP_REG && arg->reg->shift)
		strbuf_addf(type, "b%u@%u/64", arg->reg->bits, arg->reg->shift);
	else if (arg->is_float)
		strbuf_addf(type, "x%d", arg->size * 8);
	else if (arg->size)
		strbuf_addf(type, "%c%d", arg->is_signed ? 's' : 'u', arg->size * 8);
}

/* What the reader needs to resolve a PC-relative SYM. */
struct elf_ctx {
	Elf *elf;
	const char *path;
	const struct arch *arch;
};

/* st_value of a defined symbol called name, from .symtab then .dynsym. */
static int find_symbol(Elf *elf, const char *name, uint64_t *val)
{
	static const Elf64_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	size_t t;

	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[t] ||
			    !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			if (!data)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n; i++) {
				GElf_Sym sym;
				const char *s;

				if (!gelf_getsym(data, i, &sym) ||
				    sym.st_shndx == SHN_UNDEF)
					continue;
				s = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (s && !strcmp(s, name)) {
					*val = sym.st_value;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

static void convert_arg(const struct elf_ctx *ctx, const struct sdt_marker *m,
			const char *text, size_t len, struct sdt_fetch *f)
{
	struct strbuf why = STRBUF_INIT, fetch = STRBUF_INIT,
		      type = STRBUF_INIT;
	struct sdt_arg arg;
	uint64_t n = 0;
	int ret;

	memset(f, 0, sizeof(*f));
	f->text = xstrndup(text, len);
	ret = sdt_arg_parse(ctx->arch, text, len, &arg, &why);
	if (!ret && arg.op == SDT_OP_RIP) {
		uint64_t sym;
		int64_t delta;

		/* @+N is relative to the segment the probe hits in. */
		if (find_symbol(ctx->elf, arg.sym, &sym)) {
			strbuf_addf(&why, "symbol %s is in no symbol table", arg.sym);
			ret = -ENOENT;
		} else if (elf_addr_load_delta(ctx->elf, m->pc, &delta)) {
			strbuf_addf(&why, "probe address has no segment");
			ret = -ENOENT;
		} else {
			n = sym + arg.disp - delta;
		}
	}
	if (ret) {
		f->why = strbuf_detach(&why, NULL);
	} else {
		sdt_arg_fetcharg(&arg, n, &fetch, &type);
		f->fetch = strbuf_detach(&fetch, NULL);
		f->type = type.len ? strbuf_detach(&type, NULL) : NULL;
		f->size = arg.size;
		f->is_imm = arg.op == SDT_OP_IMM;
		f->high_byte = arg.op == SDT_OP_REG && arg.reg->shift;
	}
	sdt_arg_release(&arg);
	strbuf_release(&why);
	strbuf_release(&fetch);
	strbuf_release(&type);
}

static void convert_args(const struct elf_ctx *ctx, struct sdt_marker *m)
{
	const char *p = m->args;
	int alloc = 0;

	/* libbpf's rule: an argument string starting with ':' is empty. */
	if (*p == ':')
		return;
	for (;;) {
		size_t len;
		int depth = 0;

		p += strspn(p, " \t");
		/* arm64 writes "-4@[sp, 96]": a blank inside [] is its own. */
		for (len = 0; p[len] && (depth || !strchr(" \t", p[len]));
		     len++) {
			if (p[len] == '[')
				depth++;
			else if (p[len] == ']' && depth)
				depth--;
		}
		if (!len)
			break;
		grow_array(m->argv, m->argc, alloc, 8);
		convert_arg(ctx, m, p, len, &m->argv[m->argc++]);
		p += len;
	}
}

static int stapsdt_base(Elf *elf, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base")) {
			*addr = sh.sh_addr;
			return 0;
		}
	}
	return -ENOENT;
}

static void fetch_release(struct sdt_fetch *f)
{
	free(f->text);
	free(f->fetch);
	free(f->type);
	free(f->why);
}

static void marker_free(struct sdt_marker *m)
{
	release_array(m->argv, m->argc, fetch_release);
	free(m->provider);
	free(m->name);
	free(m->args);
}

/* File offsets of the probe and semaphore of one note. */
static int place_marker(Elf *elf, struct sdt_marker *m, struct strbuf *why)
{
	GElf_Phdr ph;

	if (elf_addr_load_segment(elf, m->pc, &ph) || !(ph.p_flags & PF_X) ||
	    m->pc - ph.p_vaddr >= ph.p_filesz) {
		strbuf_addf(why, "probe address 0x%llx is in no executable PT_LOAD",
			    (unsigned long long)m->pc);
		return -EINVAL;
	}
	m->pc_off = m->pc - ph.p_vaddr + ph.p_offset;
	if (!m->sema)
		return 0;
	/* The kernel writes the counter: it must be data with file bytes. */
	if (elf_addr_load_segment(elf, m->sema, &ph) || (ph.p_flags & PF_X) ||
	    !(ph.p_flags & PF_W) || m->sema + 2 - ph.p_vaddr > ph.p_filesz) {
		strbuf_addf(why, "semaphore address 0x%llx is in no writable PT_LOAD",
			    (unsigned long long)m->sema);
		return -EINVAL;
	}
	m->sema_off = m->sema - ph.p_vaddr + ph.p_offset;
	m->has_sema = 1;
	return 0;
}

static int read_note(const struct elf_ctx *ctx, const unsigned char *desc,
		     size_t len, const uint64_t *base, struct sdt_markers *ms,
		     struct strbuf *why)
{
	struct sdt_note note;
	struct sdt_marker m;
	uint64_t delta = 0;
	GElf_Ehdr eh;
	int ret;

	if (!gelf_getehdr(ctx->elf, &eh))
		return -EINVAL;
	ret = sdt_note_decode(desc, len, eh.e_ident[EI_CLASS],
			      eh.e_ident[EI_DATA], &note, why);
	if (ret)
		return ret;
	/*
	 * The base word is where .stapsdt.base was at link time: prelink moved
	 * it.
	 */
	if (base && note.base)
		delta = *base - note.base;
	memset(&m, 0, sizeof(m));
	m.pc = note.pc + delta;
	m.sema = note.sema ? note.sema + delta : 0;
	ret = place_marker(ctx->elf, &m, why);
	if (ret)
		return ret;
	m.provider = xstrdup(note.provider);
	m.name = xstrdup(note.name);
	m.args = xstrdup(note.args);
	convert_args(ctx, &m);
	grow_array(ms->v, ms->nr, ms->alloc, 16);
	ms->v[ms->nr++] = m;
	return 0;
}

static int read_note_section(const struct elf_ctx *ctx, Elf_Scn *scn,
			     const GElf_Shdr *sh, struct sdt_markers *ms,
			     struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	Elf_Data *data = elf_getdata(scn, NULL);
	uint64_t base;
	int has_base = !stapsdt_base(ctx->elf, &base);
	size_t off = 0;
	int ret = 0;

	if (!data) {
		strbuf_addf(err, "%s: .note.stapsdt at 0x%llx: unreadable: %s", ctx->path,
			    (unsigned long long)sh->sh_offset, elf_errmsg(-1));
		return -EINVAL;
	}
	while (off < data->d_size) {
		size_t name_off, desc_off, next;
		GElf_Nhdr nh;

		next = gelf_getnote(data, off, &nh, &name_off, &desc_off);
		if (!next) {
			strbuf_addf(&why, "truncated or malformed note header");
			ret = -EINVAL;
			break;
		}
		if (nh.n_type == SDT_NOTE_TYPE &&
		    nh.n_namesz == sizeof(SDT_NOTE_OWNER) &&
		    !memcmp((char *)data->d_buf + name_off, SDT_NOTE_OWNER,
			    nh.n_namesz)) {
			ret = read_note(ctx,
					(unsigned char *)data->d_buf + desc_off,
					nh.n_descsz, has_base ? &base : NULL,
					ms, &why);
			if (ret)
				break;
		}
		off = next;
	}
	if (ret)
		strbuf_addf(err, "%s: stapsdt note at 0x%llx: %s", ctx->path,
			    (unsigned long long)(sh->sh_offset + off), why.buf);
	strbuf_release(&why);
	return ret;
}

int sdt_markers_from_elf(Elf *elf, const char *path, struct sdt_markers *ms,
			 struct strbuf *err)
{
	struct elf_ctx ctx = { elf, path, NULL };
	struct strbuf why = STRBUF_INIT;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, shnum;
	int ret = 0;

	memset(ms, 0, sizeof(*ms));
	if (!gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		strbuf_addf(err, "%s: not an ELF executable or shared object", path);
		return -EINVAL;
	}
	ctx.arch = arch_of_elf(eh.e_machine, eh.e_ident[EI_CLASS], &why);
	if (!ctx.arch) {
		strbuf_addf(err, "%s: an ELF for %s: tracekit translates for %s only",
			    path, why.buf, arch_known());
		strbuf_release(&why);
		return -EOPNOTSUPP;
	}
	ms->arch = ctx.arch;
	/* libelf reports no sections when their headers lie past the end. */
	if (eh.e_shoff && eh.e_shnum &&
	    (elf_getshdrnum(elf, &shnum) || !shnum)) {
		strbuf_addf(err, "%s: section headers at 0x%llx are unreadable (truncated file?)",
			    path, (unsigned long long)eh.e_shoff);
		return -EINVAL;
	}
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		strbuf_addf(err, "%s: no section names: %s", path, elf_errmsg(-1));
		return -EINVAL;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".note.stapsdt"))
			continue;
		ret = read_note_section(&ctx, scn, &sh, ms, err);
		if (ret)
			break;
	}
	if (ret)
		sdt_markers_release(ms);
	return ret;
}

int sdt_markers_read(const char *path, struct sdt_markers *ms,
		     struct strbuf *err)
{
	Elf *elf;
	int fd, ret;

	memset(ms, 0, sizeof(*ms));
	elf = elf_addr_open_file(path, &fd, &ret);
	if (!elf) {
		strbuf_addf(err, "%s: %s", path,
			    ret == -EINVAL ? "not an ELF file" : strerror(-ret));
		return ret;
	}
	ret = sdt_markers_from_elf(elf, path, ms, err);
	elf_addr_close_file(elf, fd);
	return ret;
}

void sdt_markers_release(struct sdt_markers *ms)
{
	release_array(ms->v, ms->nr, marker_free);
	memset(ms, 0, sizeof(*ms));
}

int sdt_user_arg_parse(const char *text, struct sdt_user_arg *ua,
		       struct strbuf *err)
{
	const char *eq = strchr(text, '='), *ref = eq ? eq + 1 : text;
	const char *colon = strchr(ref, ':');
	size_t reflen = colon ? (size_t)(colon - ref) : strlen(ref);
	char *end;
	long n;

	memset(ua, 0, sizeof(*ua));
	if (eq) {
		char *name = xstrndup(text, eq - text);
		int ok = probe_name_valid(name) &&
			 eq - text < FETCH_MAX_ARG_NAME_LEN;

		free(name);
		if (!ok) {
			strbuf_addf(err, "%s: argument name must be a C identifier below %d characters",
				    text, FETCH_MAX_ARG_NAME_LEN);
			return -EINVAL;
		}
	}
	if (reflen < 4 || strncmp(ref, "arg", 3) || !isdigit((unsigned char)ref[3])) {
		strbuf_addf(err, "%s: an SDT argument is written [NAME=]argN[:TYPE]", text);
		return -EINVAL;
	}
	n = strtol(ref + 3, &end, 10);
	if (end != ref + reflen || n < 1 || n > 128) {
		strbuf_addf(err, "%s: bad argument number", text);
		return -EINVAL;
	}
	if (colon && (!colon[1] || strpbrk(colon + 1, " \t"))) {
		strbuf_addf(err, "%s: bad type", text);
		return -EINVAL;
	}
	ua->index = (int)n;
	ua->name = eq ? xstrndup(text, eq - text) : NULL;
	ua->type = colon ? xstrdup(colon + 1) : NULL;
	return 0;
}

void sdt_user_arg_release(struct sdt_user_arg *ua)
{
	free(ua->name);
	free(ua->type);
	memset(ua, 0, sizeof(*ua));
}

int sdt_spec_parse(const char *spec, char **provider, char **name,
		   struct strbuf *err)
{
	const char *p = spec, *colon;
	int pct = *p == '%';

	if (pct)
		p++;
	if (!strncmp(p, "sdt_", 4))
		p += 4;
	else if (!pct)
		return 0;
	colon = strchr(p, ':');
	if (!colon || colon == p || !colon[1] || strchr(colon + 1, ':') ||
	    strpbrk(p, " \t@+%")) {
		strbuf_addf(err, "%s: an SDT event is written [%%]sdt_PROVIDER:NAME", spec);
		return -EINVAL;
	}
	*provider = xstrndup(p, colon - p);
	*name = xstrdup(colon + 1);
	return 1;
}

/* The glob may name the marker as the note spells it or as the event does. */
static int part_matches(const char *glob, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	int ok = !fnmatch(glob, s, 0);

	if (!ok) {
		probe_name_sanitize(&sb, s);
		ok = !fnmatch(glob, sb.buf, 0);
		strbuf_release(&sb);
	}
	return ok;
}

int sdt_request_parse(struct sdt_request *rq, const char *spec,
		      const char *const *args, int nargs, struct strbuf *err)
{
	int i;

	memset(rq, 0, sizeof(*rq));
	if (sdt_spec_parse(spec, &rq->provider, &rq->name, err) != 1) {
		if (!err->len)
			strbuf_addf(err, "%s: not an SDT event: write [%%]sdt_PROVIDER:NAME or %%PROVIDER:NAME",
				    spec);
		return -EINVAL;
	}
	rq->ua = xcalloc(nargs ? nargs : 1, sizeof(*rq->ua));
	rq->nua = nargs;
	for (i = 0; i < nargs; i++) {
		if (sdt_user_arg_parse(args[i], &rq->ua[i], err)) {
			sdt_request_release(rq);
			return -EINVAL;
		}
	}
	return 0;
}

void sdt_request_release(struct sdt_request *rq)
{
	release_array(rq->ua, rq->nua, sdt_user_arg_release);
	free(rq->provider);
	free(rq->name);
	memset(rq, 0, sizeof(*rq));
}

int sdt_marker_matches(const struct sdt_marker *m, const char *provider,
		       const char *name)
{
	return part_matches(provider, m->provider) &&
	       part_matches(name, m->name);
}

int sdt_marker_event(const struct sdt_markers *ms, int i, struct strbuf *group,
		     struct strbuf *event, struct strbuf *err)
{
	const struct sdt_marker *m = &ms->v[i];
	int j, k = 0;

	for (j = 0; j < i; j++)
		if (!strcmp(ms->v[j].provider, m->provider) &&
		    !strcmp(ms->v[j].name, m->name))
			k++;
	strbuf_addstr(group, "sdt_");
	probe_name_sanitize(group, m->provider);
	if (isdigit((unsigned char)m->name[0]))
		strbuf_addch(event, '_');
	probe_name_sanitize(event, m->name);
	if (k)
		strbuf_addf(event, "_%d", k);
	if (!probe_name_valid(group->buf) || !probe_name_valid(event->buf)) {
		strbuf_addf(err, "%s:%s: no valid event name (%s/%s)", m->provider,
			    m->name, group->buf, event->buf);
		return -EINVAL;
	}
	return 0;
}

static const struct sdt_user_arg *user_arg(const struct sdt_user_arg *ua,
					   int nua, int index)
{
	int i;

	for (i = 0; i < nua; i++)
		if (ua[i].index == index)
			return &ua[i];
	return NULL;
}

/* Checks that every request names an argument this marker can fetch. */
static int check_user_args(const struct sdt_marker *m,
			   const struct sdt_user_arg *ua, int nua,
			   struct strbuf *err)
{
	int i;

	for (i = 0; i < nua; i++) {
		const struct sdt_fetch *f = ua[i].index <= m->argc
						    ? &m->argv[ua[i].index - 1]
						    : NULL;
		const char *t = ua[i].type;
		int deref = t && (!strcmp(t, "string") || !strcmp(t, "ustring"));

		if (!f) {
			strbuf_addf(err, "%s:%s has no arg%d (it has %d)", m->provider,
				    m->name, ua[i].index, m->argc);
			return -EINVAL;
		}
		if (!f->fetch) {
			strbuf_addf(err, "%s:%s arg%d (%s) cannot be fetched: %s", m->provider,
				    m->name, ua[i].index, f->text, f->why);
			return -EINVAL;
		}
		if (deref &&
		    (f->is_imm || f->high_byte || (f->size && f->size != 8))) {
			strbuf_addf(
				err,
				"%s:%s arg%d (%s) is no pointer: cannot be a %s",
				m->provider, m->name, ua[i].index, f->text, t);
			return -EINVAL;
		}
		if (t && !deref && f->high_byte) {
			strbuf_addf(err, "%s:%s arg%d (%s) is a high-byte register: its type is fixed",
				    m->provider, m->name, ua[i].index, f->text);
			return -EINVAL;
		}
	}
	return 0;
}

int sdt_marker_fetchargs(const struct sdt_marker *m,
			 const struct sdt_user_arg *ua, int nua,
			 struct strbuf *out, struct strbuf *warn,
			 struct strbuf *err)
{
	int i, ret = check_user_args(m, ua, nua, err);

	if (ret)
		return ret;
	for (i = 0; i < m->argc; i++) {
		const struct sdt_fetch *f = &m->argv[i];
		const struct sdt_user_arg *u = user_arg(ua, nua, i + 1);
		const char *type = u && u->type ? u->type : f->type;

		if (!f->fetch) {
			strbuf_addf(warn, "%s:%s arg%d (%s) left out: %s\n", m->provider,
				    m->name, i + 1, f->text, f->why);
			continue;
		}
		if (u && u->name)
			strbuf_addf(out, " %s=", u->name);
		else
			strbuf_addf(out, " arg%d=", i + 1);
		/*
		 * string types read at the address the fetch yields: the
		 * pointer.
		 */
		if (u && u->type && (!strcmp(u->type, "string") || !strcmp(u->type, "ustring")))
			strbuf_addf(out, "+0(%s)", f->fetch);
		else
			strbuf_addstr(out, f->fetch);
		if (type)
			strbuf_addf(out, ":%s", type);
	}
	return 0;
}

int sdt_marker_definition(const struct sdt_marker *m, const char *path,
			  const char *group, const char *event, int ref_ctr,
			  const struct sdt_user_arg *ua, int nua,
			  struct strbuf *def, struct strbuf *warn,
			  struct strbuf *err)
{
	strbuf_addf(def, "p:%s/%s %s:0x%llx", group, event, path,
		    (unsigned long long)m->pc_off);
	if (m->has_sema && ref_ctr)
		strbuf_addf(def, "(0x%llx)", (unsigned long long)m->sema_off);
	else if (m->has_sema)
		strbuf_addf(warn, "%s:%s has a semaphore but this kernel has no uprobe "
			    "ref_ctr_offset: the code it guards will not run\n",
			    m->provider, m->name);
	return sdt_marker_fetchargs(m, ua, nua, def, warn, err);
}

static void describe_marker(const struct sdt_markers *ms, int i,
			    struct strbuf *out)
{
	const struct sdt_marker *m = &ms->v[i];
	struct strbuf group = STRBUF_INIT, event = STRBUF_INIT,
		      err = STRBUF_INIT;
	struct strbuf args = STRBUF_INIT, warn = STRBUF_INIT;
	int j;

	if (sdt_marker_event(ms, i, &group, &event, &err))
		strbuf_addf(&group, "(%s)", err.buf);
	/* What cannot be fetched is listed below as left out. */
	sdt_marker_fetchargs(m, NULL, 0, &args, &warn, &err);
	strbuf_addf(out, "%s:%s  provider %s  name %s  offset 0x%llx  semaphore ",
		    group.buf, event.buf, m->provider, m->name,
		    (unsigned long long)m->pc_off);
	if (m->has_sema)
		strbuf_addf(out, "0x%llx\n", (unsigned long long)m->sema_off);
	else
		strbuf_addstr(out, "none\n");
	strbuf_addf(out, "  arguments: %s\n", m->args);
	strbuf_addf(out, "  fetchargs:%s\n", args.len ? args.buf : " (none)");
	for (j = 0; j < m->argc; j++)
		if (!m->argv[j].fetch)
			strbuf_addf(out, "  left out:  arg%d (%s): %s\n", j + 1,
				    m->argv[j].text, m->argv[j].why);
	strbuf_release(&group);
	strbuf_release(&event);
	strbuf_release(&err);
	strbuf_release(&args);
	strbuf_release(&warn);
}

int sdt_markers_describe(const struct sdt_markers *ms, const char *provider,
			 const char *name, struct strbuf *out)
{
	int i, shown = 0;

	for (i = 0; i < ms->nr; i++) {
		if (provider && !sdt_marker_matches(&ms->v[i], provider, name))
			continue;
		describe_marker(ms, i, out);
		shown++;
	}
	return shown;
}

int sdt_ref_ctr_conflict(const struct probe_defs *defs, const char *path,
			 const struct sdt_marker *m, int ref_ctr,
			 struct strbuf *who)
{
	int i;

	for (i = 0; i < defs->nr; i++) {
		const struct probe_def *d = &defs->v[i];
		const char *place = strchr(d->line, ' '), *colon, *paren;
		unsigned long long off, ref = 0;
		int has_ref, want_ref = m->has_sema && ref_ctr;
		size_t plen;
		char *end;

		if (d->kind != PROBE_UPROBE || !place)
			continue;
		place++;
		plen = strcspn(place, " ");
		colon = memrchr(place, ':', plen);
		if (!colon || (size_t)(colon - place) != strlen(path) ||
		    strncmp(place, path, colon - place))
			continue;
		off = strtoull(colon + 1, &end, 0);
		if (off != m->pc_off)
			continue;
		paren = memchr(colon, '(', place + plen - colon);
		has_ref = paren != NULL;
		if (has_ref)
			ref = strtoull(paren + 1, NULL, 0);
		if (has_ref == want_ref && (!has_ref || ref == m->sema_off))
			continue;
		strbuf_addf(who, "%s:%s", d->group, d->event);
		return 1;
	}
	return 0;
}

int sdt_markers_list(const char *path, const char *provider, const char *name,
		     struct strbuf *out, struct strbuf *err)
{
	struct sdt_markers ms;
	int ret = sdt_markers_read(path, &ms, err);

	if (ret)
		return ret;
	ret = sdt_markers_describe(&ms, provider, name, out);
	sdt_markers_release(&ms);
	return ret;
}
