// SPDX-License-Identifier: GPL-2.0
/*
 * The accessors follow perf's tools/perf/util/unwind-libunwind-local.c:
 * find_proc_info hands libunwind the binary search table of the file's
 * .eh_frame_hdr as a UNW_INFO_FORMAT_REMOTE_TABLE and lets
 * dwarf_search_unwind_table() find the FDE; access_mem serves the dump,
 * else the file; access_reg the registers of the event.
 *
 * libunwind-generic steps the machine it is built for only (Debian
 * packages no other: /usr/lib/x86_64-linux-gnu has libunwind-x86_64
 * alone), so the frames of another machine's recording that the CFI
 * rules cannot step are given to libdw's unwinder (dwfl_attach_state()),
 * whose backends cover every architecture of struct arch.
 */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/arch.h"
#include "util/array.h"
#include "util/callgraph.h"
#include "util/elf-addr.h"
#include "util/probe-target.h"
#include "util/unwind.h"
#include "util/usage.h"

/*
 * Exported by libunwind-generic, declared by no header of it (perf does the
 * same).
 */
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)
extern int dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				     unw_dyn_info_t *di, unw_proc_info_t *pi,
				     int need_unwind_info, void *arg);

#define MAX_REGS	16
#define MAX_STACK_FIELDS	16

/* The eh_frame_hdr encodings every toolchain writes (LSB 5.0 "Exception Frames"). */
#define EH_PE_UDATA4		0x03
#define EH_PE_DATAREL_SDATA4	0x3b

struct elf_seg {
	uint64_t vaddr, filesz, off;
};

struct unwind_elf {
	char *path;		/* as the recording names it */
	char *file;		/* the file read: path, or under the sysroot */
	const char *base;	/* path's last component */
	unsigned char *data;	/* the file, mapped */
	size_t size;
	struct elf_seg *segs;
	int nr_segs;
	/* the lowest PT_LOAD, page aligned: at the map's start */
	uint64_t first_vaddr;
	/* .eh_frame_hdr; fde_count 0: none usable */
	uint64_t hdr_vaddr, fde_count;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t dwfl_bias;	/* libdw's address of vaddr 0 */
	/* the build-id on disk, when not the recorded one */
	char *mismatch;
};

struct unwind_map {
	uint64_t start, end, bias;	/* bias: runtime address - vaddr */
	struct unwind_elf *elf;		/* NULL: no file ([vdso], [heap]...) */
};

struct unwind_proc {
	int space, pid;
	struct unwind_map *maps;
	int nr_maps;
	uint64_t stack_end;		/* the end of [stack], 0 if none */
	unw_addr_space_t as;
	/* libdw's unwinder of the process, made on first use */
	Dwfl *dwfl;
	int dwfl_failed;
};

/*
 * Every record of a report asks for its event's layout: a linear search
 * of some 300 layouts was 1.6% of `report` on a file of 300 event types
 * (perf record), a slot by id makes it one compare.  The slot keeps the
 * answer too: reading it from the layout, a cache miss in 300 layouts
 * of 340 bytes, was 2% again.
 */
#define LAYOUT_SLOTS	4096

struct layout_slot {
	struct tep_event *event;
	int idx;		/* in layouts */
	int has_stack;
};

/* Where an event keeps the capture fields (util/callgraph.h). */
struct unwind_layout {
	struct tep_event *event;
	/* the machine whose capture fields event has */
	const struct arch *arch;
	int has_stack;
	int nr_regs;
	/*
	 * dwarf: the register's DWARF number, which is also libunwind's
	 * (x86-64: UNW_X86_64_RIP is 16, the return address column;
	 * aarch64: UNW_AARCH64_X0.. are 0..).
	 */
	struct { int dwarf, off; } regs[MAX_REGS];
	int nr_stack;
	struct { int off, size; } stack[MAX_STACK_FIELDS];
};

/* What the accessors see of the event being unwound. */
struct unwind_ctx {
	struct unwind_proc *proc;
	const struct unwind_layout *lay;
	const unsigned char *data;	/* the record */
	uint64_t regs[MAX_REGS];	/* the frame's, in the layout's order */
	uint32_t valid;			/* bit i: regs[i] is known */
	uint64_t sp;
	unsigned char stack[CALLGRAPH_MAX_STACK];
	size_t stack_len;
};

/* How a caller's register is found from the CFA (DWARF 5, 6.4.1 "register rules"). */
enum cfi_how { CFI_UNDEF, CFI_SAME, CFI_AT_CFA, CFI_VAL_CFA };

struct cfi_reg {
	int32_t off;
	int8_t how;
};

/*
 * The CFI at an address, when it is a register plus an offset and each
 * register is undefined, the same, at or the CFA plus an offset: what
 * compilers write for every address but the PLT and signal frames.
 */
struct cfi_rule {
	int ok;				/* 0: something else, libunwind steps */
	int cfa_reg;			/* index in the layout's regs */
	int64_t cfa_off;
	struct cfi_reg regs[MAX_REGS];	/* regs[0]: the return address */
	/*
	 * The index of the return address register: a CFI_SAME return
	 * address is its value (arm64's x30 in a leaf; x86-64's 16 is
	 * regs[0] itself).
	 */
	int ra_reg;
};

/* A function inlined at an address: its name and where it was inlined. */
struct sym_inline {
	const char *name;
	const char *call_src;
	int call_line;
};

/* One address named by libdw, remembered (addrinfo walks the whole symtab). */
struct sym_entry {
	const struct unwind_elf *elf;	/* NULL: free slot */
	uint64_t addr;			/* libdw's address */
	const char *sym, *src;
	uint64_t off;
	int line;
	struct sym_inline *inl;		/* innermost first */
	int nr_inl;
	struct cfi_rule cfi;
};

struct unwind {
	struct unwind_ctx ctx;		/* the event being unwound */
	char *sysroot;			/* NULL: the files as named */
	/*
	 * Where libdw looks for separate debug files (libdwfl.h's format):
	 * under the sysroot when there is one.
	 */
	char *debuginfo_path;
	Dwfl_Callbacks offline_cbs;	/* of the files, each at 0 */
	Dwfl_Callbacks proc_cbs;	/* of a process's maps */
	struct strbuf build_ids;	/* as recorded: "BUILDID PATH\n" */
	/* open addressing, alloc_syms a power of 2 */
	struct sym_entry *syms;
	size_t nr_syms, alloc_syms;
	struct unwind_elf **elfs;
	int nr_elfs, alloc_elfs;
	struct unwind_proc *procs;
	int nr_procs, alloc_procs;
	struct unwind_layout *layouts;
	int nr_layouts, alloc_layouts;
	/* by event id modulo LAYOUT_SLOTS: the last event's layout */
	struct layout_slot layout_slot[LAYOUT_SLOTS];
};


static void elf_free(struct unwind_elf *e)
{
	if (!e)
		return;
	if (e->dwfl)
		dwfl_end(e->dwfl);
	if (e->data)
		munmap(e->data, e->size);
	free(e->segs);
	free(e->path);
	free(e->file);
	free(e->mismatch);
	free(e);
}

/* The LOAD segments and .eh_frame_hdr of e's program headers. */
static int read_phdrs(struct unwind_elf *e, Elf *elf)
{
	uint64_t page_mask = ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
	size_t n, i;
	GElf_Phdr ph;
	int have_first = 0;

	if (elf_getphdrnum(elf, &n))
		return -1;
	e->segs = xcalloc(n ? n : 1, sizeof(*e->segs));
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return -1;
		if (ph.p_type == PT_LOAD) {
			if (ph.p_offset > e->size ||
			    ph.p_filesz > e->size - ph.p_offset)
				return -1;
			e->segs[e->nr_segs++] =
				(struct elf_seg){ ph.p_vaddr, ph.p_filesz,
						  ph.p_offset };
			if (!have_first ||
			    (ph.p_vaddr & page_mask) < e->first_vaddr)
				e->first_vaddr = ph.p_vaddr & page_mask;
			have_first = 1;
		} else if (ph.p_type == PT_GNU_EH_FRAME &&
			   ph.p_offset <= e->size && ph.p_filesz >= 12 &&
			   ph.p_filesz <= e->size - ph.p_offset) {
			const unsigned char *h = e->data + ph.p_offset;

			if (h[0] == 1 && h[2] == EH_PE_UDATA4 &&
			    h[3] == EH_PE_DATAREL_SDATA4) {
				uint32_t cnt;

				memcpy(&cnt, h + 8, 4);
				if (cnt <= (ph.p_filesz - 12) / 8) {
					e->hdr_vaddr = ph.p_vaddr;
					e->fde_count = cnt;
				}
			}
		}
	}
	return have_first ? 0 : -1;
}

static void open_dwfl(struct unwind *u, struct unwind_elf *e)
{
	Dwarf_Addr low;

	e->dwfl = dwfl_begin(&u->offline_cbs);
	if (!e->dwfl)
		return;
	e->mod = dwfl_report_elf(e->dwfl, e->base, e->file, -1, 0, false);
	dwfl_report_end(e->dwfl, NULL, NULL);
	if (e->mod &&
	    dwfl_module_info(e->mod, NULL, &low, NULL, NULL, NULL, NULL, NULL))
		e->dwfl_bias = low - e->first_vaddr;
}

/* The build-id recorded for path, or NULL; its length in *len. */
static const char *recorded_build_id(const struct unwind *u, const char *path,
				     int *len)
{
	const char *l;

	for (l = u->build_ids.buf; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		int n = strcspn(l, " \n");
		size_t plen = strcspn(l + n + (l[n] == ' '), "\n");

		if (l[n] == ' ' && plen == strlen(path) &&
		    !strncmp(l + n + 1, path, plen)) {
			*len = n;
			return l;
		}
	}
	return NULL;
}

/* 0 when the recording saw another build-id for e (e->mismatch says which). */
static int build_id_ok(const struct unwind *u, struct unwind_elf *e, Elf *elf)
{
	struct strbuf hex = STRBUF_INIT;
	const char *want;
	int len, ok;

	want = recorded_build_id(u, e->path, &len);
	if (!want)
		return 1;
	elf_addr_build_id(elf, &hex);
	ok = hex.len == (size_t)len && !strncmp(hex.buf, want, len);
	if (!ok)
		e->mismatch = strbuf_detach(&hex, NULL);
	strbuf_release(&hex);
	return ok;
}

void unwind_set_sysroot(struct unwind *u, const char *dir)
{
	struct strbuf path = STRBUF_INIT;

	free(u->sysroot);
	free(u->debuginfo_path);
	u->sysroot = dir ? xstrdup(dir) : NULL;
	u->debuginfo_path = NULL;
	/* libdw's default, "+:.debug:/usr/lib/debug", moved into dir. */
	if (dir) {
		strbuf_addf(&path, "+:.debug:%s/usr/lib/debug", dir);
		u->debuginfo_path = strbuf_detach(&path, NULL);
	}
}

void unwind_add_build_ids(struct unwind *u, const char *text)
{
	strbuf_addstr(&u->build_ids, text);
	if (u->build_ids.len && u->build_ids.buf[u->build_ids.len - 1] != '\n')
		strbuf_addch(&u->build_ids, '\n');
}

int unwind_mismatches(const struct unwind *u, struct strbuf *out)
{
	const char *want;
	int i, len, n = 0;

	for (i = 0; i < u->nr_elfs; i++) {
		const struct unwind_elf *e = u->elfs[i];

		if (!e->mismatch ||
		    !(want = recorded_build_id(u, e->path, &len)))
			continue;
		strbuf_addf(out, "%s: build-id %s, recorded %.*s: a changed file, not used\n",
			    e->path, *e->mismatch ? e->mismatch : "(none)", len, want);
		n++;
	}
	return n;
}

/*
 * The file of this host that holds the recording's path: under the
 * sysroot when there is one (NULL when it is not there, or a symbolic
 * link leads out of it).
 */
static char *target_file(const struct unwind *u, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	char *named = NULL, *file = NULL;

	if (!u->sysroot)
		return xstrdup(path);
	if (probe_target_file(u->sysroot, path, &named, &file, &err))
		file = NULL;
	free(named);
	strbuf_release(&err);
	return file;
}

/* The file at path, opened on first use; NULL when it cannot be read as ELF. */
static struct unwind_elf *elf_get(struct unwind *u, const char *path)
{
	struct unwind_elf *e;
	struct stat st;
	Elf *elf = NULL;
	int i, fd, ok = 0;

	for (i = 0; i < u->nr_elfs; i++)
		if (!strcmp(u->elfs[i]->path, path))
			return u->elfs[i]->data ? u->elfs[i] : NULL;
	e = xcalloc(1, sizeof(*e));
	e->path = xstrdup(path);
	e->base = strrchr(e->path, '/') ? strrchr(e->path, '/') + 1 : e->path;
	e->file = target_file(u, path);
	fd = e->file ? open(e->file, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_size > 0) {
		e->size = st.st_size;
		e->data = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (e->data == MAP_FAILED)
			e->data = NULL;
	}
	if (fd >= 0)
		close(fd);
	if (e->data) {
		elf_version(EV_CURRENT);
		elf = elf_memory((char *)e->data, e->size);
		ok = elf && elf_kind(elf) == ELF_K_ELF && !read_phdrs(e, elf) &&
		     build_id_ok(u, e, elf);
		elf_end(elf);
	}
	if (ok) {
		open_dwfl(u, e);
	} else if (e->data) {
		munmap(e->data, e->size);
		e->data = NULL;
	}
	grow_array(u->elfs, u->nr_elfs, u->alloc_elfs, 16);
	u->elfs[u->nr_elfs++] = e;
	return e->data ? e : NULL;
}

static struct unwind_map *map_of(struct unwind_proc *p, uint64_t addr)
{
	int i;

	for (i = 0; i < p->nr_maps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* n bytes at runtime address addr of a file mapped by p; 0 or -1. */
static int read_file_mem(struct unwind_proc *p, uint64_t addr, void *dst,
			 size_t n)
{
	struct unwind_map *m = map_of(p, addr);
	uint64_t vaddr;
	int i;

	if (!m || !m->elf)
		return -1;
	vaddr = addr - m->bias;
	for (i = 0; i < m->elf->nr_segs; i++) {
		const struct elf_seg *s = &m->elf->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr <= s->filesz &&
		    n <= s->filesz - (vaddr - s->vaddr)) {
			memcpy(dst, m->elf->data + s->off + (vaddr - s->vaddr),
			       n);
			return 0;
		}
	}
	return -1;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
	struct unwind_ctx *c = arg;
	struct unwind_map *m = map_of(c->proc, ip);
	struct unwind_elf *e = m ? m->elf : NULL;
	unw_dyn_info_t di;
	int i;

	if (!e || !e->fde_count)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	/* The whole file: the table covers every executable map of it. */
	for (i = 0; i < c->proc->nr_maps; i++) {
		const struct unwind_map *o = &c->proc->maps[i];

		if (o->elf == e && o->bias == m->bias) {
			if (o->start < di.start_ip)
				di.start_ip = o->start;
			if (o->end > di.end_ip)
				di.end_ip = o->end;
		}
	}
	di.u.rti.segbase = m->bias + e->hdr_vaddr;
	di.u.rti.table_data = m->bias + e->hdr_vaddr + 12;
	di.u.rti.table_len = e->fde_count * 8 / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info,
					 arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap,
				  void *arg)
{
	return -UNW_ENOINFO;
}

/* The word at addr of the process: from the dump, else its files.  0 or -1. */
static int read_word(struct unwind_ctx *c, uint64_t addr, uint64_t *valp)
{
	if (addr >= c->sp && addr - c->sp <= c->stack_len &&
	    sizeof(*valp) <= c->stack_len - (addr - c->sp)) {
		memcpy(valp, c->stack + (addr - c->sp), sizeof(*valp));
		return 0;
	}
	return read_file_mem(c->proc, addr, valp, sizeof(*valp));
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
		      int write, void *arg)
{
	uint64_t v;

	if (write || read_word(arg, addr, &v))
		return -UNW_EINVAL;
	*valp = v;
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum,
		      unw_word_t *valp, int write, void *arg)
{
	struct unwind_ctx *c = arg;
	int i;

	if (write)
		return -UNW_EREADONLYREG;
	for (i = 0; i < c->lay->nr_regs; i++)
		if (c->lay->regs[i].dwarf == regnum && (c->valid & 1u << i)) {
			*valp = c->regs[i];
			return 0;
		}
	return -UNW_EBADREG;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val,
			int write, void *arg)
{
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp,
			 size_t buf_len, unw_word_t *offp, void *arg)
{
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

struct unwind *unwind_new(void)
{
	struct unwind *u = xcalloc(1, sizeof(struct unwind));

	strbuf_init(&u->build_ids, 0);
	u->offline_cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	u->offline_cbs.section_address = dwfl_offline_section_address;
	u->offline_cbs.debuginfo_path = &u->debuginfo_path;
	u->proc_cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	u->proc_cbs.debuginfo_path = &u->debuginfo_path;
	return u;
}

static void proc_release(struct unwind_proc *p)
{
	if (p->as)
		unw_destroy_addr_space(p->as);
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p->maps);
}

void unwind_free(struct unwind *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < u->nr_elfs; i++)
		elf_free(u->elfs[i]);
	for (i = 0; i < (int)u->alloc_syms; i++)
		free(u->syms[i].inl);
	for (i = 0; i < u->nr_procs; i++)
		proc_release(&u->procs[i]);
	free(u->elfs);
	free(u->sysroot);
	free(u->debuginfo_path);
	strbuf_release(&u->build_ids);
	free(u->syms);
	free(u->procs);
	free(u->layouts);
	free(u);
}

static struct unwind_proc *proc_find(struct unwind *u, int space, int pid)
{
	int i;

	for (i = 0; i < u->nr_procs; i++)
		if (u->procs[i].space == space && u->procs[i].pid == pid)
			return &u->procs[i];
	return NULL;
}

static struct unwind_proc *proc_add(struct unwind *u, int space, int pid)
{
	struct unwind_proc *p = proc_find(u, space, pid);

	if (p) {
		proc_release(p);
	} else {
		grow_array(u->procs, u->nr_procs, u->alloc_procs, 8);
		p = &u->procs[u->nr_procs++];
	}
	memset(p, 0, sizeof(*p));
	p->space = space;
	p->pid = pid;
	return p;
}

/*
 * The maps keep no file offsets (trace-cmd's PROCMAPS has none): a file's
 * lowest map is taken as its first PT_LOAD, as ld.so maps it.
 */
static void set_biases(struct unwind_proc *p)
{
	int i, j;

	for (i = 0; i < p->nr_maps; i++) {
		struct unwind_map *m = &p->maps[i];
		uint64_t base = m->start;

		if (!m->elf)
			continue;
		for (j = 0; j < p->nr_maps; j++)
			if (p->maps[j].elf == m->elf && p->maps[j].start < base)
				base = p->maps[j].start;
		m->bias = base - m->elf->first_vaddr;
	}
}

/* One "PID NR EXE" block; *text moves past it.  0 or -EINVAL. */
static int add_block(struct unwind *u, int space, const char **text,
		     struct strbuf *err)
{
	const char *t = *text;
	unsigned int pid, nr, i;
	struct unwind_proc *p;
	int n = 0;

	if (sscanf(t, "%x %x %*s%n", &pid, &nr, &n) != 2 || !n || nr > 1000000) {
		strbuf_addf(err, "PROCMAPS: bad header '%.*s'", (int)strcspn(t, "\n"), t);
		return -EINVAL;
	}
	t += strcspn(t, "\n");
	p = proc_add(u, space, pid);
	p->maps = xcalloc(nr ? nr : 1, sizeof(*p->maps));
	for (i = 0; i < nr; i++) {
		unsigned long long start, end;
		char name[4096];
		struct unwind_map *m;

		t += *t == '\n';
		if (sscanf(t, "%llx %llx %4095s", &start, &end, name) != 3 || end <= start) {
			strbuf_addf(err, "PROCMAPS of %u: bad map '%.*s'", pid,
				    (int)strcspn(t, "\n"), t);
			return -EINVAL;
		}
		t += strcspn(t, "\n");
		m = &p->maps[p->nr_maps++];
		m->start = start;
		m->end = end;
		m->elf = name[0] == '/' ? elf_get(u, name) : NULL;
		if (!strcmp(name, "[stack]"))
			p->stack_end = end;
	}
	set_biases(p);
	p->as = unw_create_addr_space(&accessors, 0);
	if (p->as)
		unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	*text = t + (*t == '\n');
	return 0;
}

int unwind_add_procmaps(struct unwind *u, int space, const char *text,
			struct strbuf *err)
{
	int ret = 0;

	while (!ret && text && *text)
		ret = add_block(u, space, &text, err);
	return ret;
}

/* The registers of a's capture into l: 1, or 0 when event lacks one. */
static int layout_regs(struct unwind_layout *l, struct tep_event *event,
		       const struct arch *a)
{
	const struct arch_unwind_reg *regs = a->unwind_regs;
	struct tep_format_field *f;
	char name[64];
	int i;

	if (a->nr_unwind_regs > MAX_REGS)
		return 0;
	for (i = 0; i < a->nr_unwind_regs; i++) {
		snprintf(name, sizeof(name), "%s%s", CALLGRAPH_PREFIX,
			 regs[i].kname);
		f = tep_find_field(event, name);
		if (!f || f->size != 8)
			return 0;
		l->regs[i].dwarf = regs[i].dwarf;
		l->regs[i].off = f->offset;
	}
	l->nr_regs = i;
	l->arch = a;
	return 1;
}

static void layout_init(struct unwind_layout *l, struct tep_event *event)
{
	const struct arch *a = NULL;
	struct tep_format_field *f;
	char name[64];
	int i;

	memset(l, 0, sizeof(*l));
	l->event = event;
	/* The recording's machine, whatever this one is. */
	while ((a = arch_next(a)) && !layout_regs(l, event, a))
		;
	if (!a)
		return;
	for (i = 0; i < MAX_STACK_FIELDS; i++) {
		snprintf(name, sizeof(name), "%s%d", CALLGRAPH_STACK, i);
		f = tep_find_field(event, name);
		if (!f)
			break;
		l->stack[i].off = f->offset;
		l->stack[i].size = f->size;
	}
	l->nr_stack = i;
	l->has_stack = l->nr_stack > 0;
}

static const struct unwind_layout *layout_of(struct unwind *u,
					     struct tep_event *event)
{
	struct layout_slot *slot =
		&u->layout_slot[(unsigned int)event->id % LAYOUT_SLOTS];
	int i;

	if (slot->event == event)
		return &u->layouts[slot->idx];
	for (i = 0; i < u->nr_layouts; i++)
		if (u->layouts[i].event == event)
			break;
	if (i == u->nr_layouts) {
		grow_array(u->layouts, u->nr_layouts, u->alloc_layouts, 8);
		layout_init(&u->layouts[u->nr_layouts++], event);
	}
	slot->event = event;
	slot->idx = i;
	slot->has_stack = u->layouts[i].has_stack;
	return &u->layouts[i];
}

int unwind_event_has_stack(struct unwind *u, struct tep_event *event)
{
	const struct layout_slot *slot =
		&u->layout_slot[(unsigned int)event->id % LAYOUT_SLOTS];

	if (slot->event == event)
		return slot->has_stack;
	return layout_of(u, event)->has_stack;
}

/*
 * The dump, cut at the end of [stack]: the kernel zeroes an array whose
 * fetch faults past it (measured on 6.18), and those zeros are no stack.
 */
static int load_dump(struct unwind_ctx *c, const struct tep_record *rec)
{
	const struct unwind_layout *l = c->lay;
	size_t max;
	int i;

	c->valid = 0;
	for (i = 0; i < l->nr_regs; i++) {
		memcpy(&c->regs[i], c->data + l->regs[i].off,
		       sizeof(c->regs[i]));
		c->valid |= 1u << i;
	}
	c->sp = c->regs[1];
	c->stack_len = 0;
	for (i = 0; i < l->nr_stack; i++) {
		int off = l->stack[i].off, size = l->stack[i].size;

		if (off < 0 || size < 0 || off + size > rec->size ||
		    c->stack_len + size > sizeof(c->stack))
			return -1;
		memcpy(c->stack + c->stack_len, c->data + off, size);
		c->stack_len += size;
	}
	if (c->proc->stack_end && c->sp < c->proc->stack_end) {
		max = c->proc->stack_end - c->sp;
		if (c->stack_len > max)
			c->stack_len = max;
	}
	return 0;
}

static struct unwind_frame *push_frame(struct unwind_stack *st)
{
	grow_array(st->v, st->nr, st->alloc, 32);
	memset(&st->v[st->nr], 0, sizeof(st->v[0]));
	return &st->v[st->nr++];
}

static size_t sym_slot(const struct sym_entry *v, size_t alloc,
		       const struct unwind_elf *e, uint64_t addr)
{
	size_t i = (addr * 0x9e3779b97f4a7c15ull ^ (uintptr_t)e) & (alloc - 1);

	while (v[i].elf && (v[i].elf != e || v[i].addr != addr))
		i = (i + 1) & (alloc - 1);
	return i;
}

static void syms_grow(struct unwind *u)
{
	struct sym_entry *old = u->syms;
	size_t i, n = u->alloc_syms;

	u->alloc_syms = n ? 2 * n : 1024;
	u->syms = xcalloc(u->alloc_syms, sizeof(*u->syms));
	for (i = 0; i < n; i++)
		if (old[i].elf)
			u->syms[sym_slot(u->syms, u->alloc_syms, old[i].elf,
					 old[i].addr)] = old[i];
	free(old);
}

/* The file name of index idx of cu's file table (DW_AT_call_file). */
static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nr;

	if (dwarf_getsrcfiles(cu, &files, &nr) || idx >= nr)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The DW_TAG_inlined_subroutine scopes at addr, innermost first, into s. */
static void find_inlines(struct unwind_elf *e, uint64_t addr,
			 struct sym_entry *s)
{
	Dwarf_Die *cu, *scopes = NULL, origin;
	Dwarf_Attribute attr;
	Dwarf_Addr bias;
	Dwarf_Word file, line;
	int i, n;

	cu = dwfl_module_addrdie(e->mod, addr, &bias);
	n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	for (i = 0; i < n; i++) {
		struct sym_inline *in;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		s->inl = xrealloc(s->inl, (s->nr_inl + 1) * sizeof(*s->inl));
		in = &s->inl[s->nr_inl++];
		memset(in, 0, sizeof(*in));
		if (dwarf_formref_die(dwarf_attr(&scopes[i],
						 DW_AT_abstract_origin, &attr),
				      &origin))
			in->name = dwarf_diename(&origin);
		if (!dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file,
						&attr),
				     &file))
			in->call_src = cu_file(cu, file);
		if (!dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line,
						&attr),
				     &line))
			in->call_line = line;
	}
	free(scopes);
}

/* The index in l of DWARF register regno; -1 when not captured. */
static int reg_index(const struct unwind_layout *l, uint64_t regno)
{
	int i;

	for (i = 0; i < l->nr_regs; i++)
		if ((uint64_t)l->regs[i].dwarf == regno)
			return i;
	return -1;
}

/*
 * libdw's location of a register (dwarf_frame_register(): no ops and a
 * NULL ops the same value, no ops undefined, else CFA [+ N] [value]) as
 * a rule; 0 when it is another expression.
 */
static int reg_rule(const Dwarf_Op *ops, size_t nops, struct cfi_reg *r)
{
	size_t k = 1;
	int64_t off = 0;

	r->how = ops ? CFI_UNDEF : CFI_SAME;
	if (!nops)
		return 1;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return 0;
	if (k < nops && ops[k].atom == DW_OP_plus_uconst)
		off = (int64_t)ops[k++].number;
	r->how = CFI_AT_CFA;
	if (k < nops && ops[k].atom == DW_OP_stack_value) {
		r->how = CFI_VAL_CFA;
		k++;
	}
	r->off = off;
	return k == nops && r->off == off;
}

/* fr's rules for the registers of l into r; 0 when one is not such a rule. */
static int frame_rule(Dwarf_Frame *fr, const struct unwind_layout *l,
		      struct cfi_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool signal;
	int i, ra;

	ra = dwarf_frame_info(fr, NULL, NULL, &signal);
	if (ra < 0 || signal || dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_bregx)
		return 0;
	r->cfa_reg = reg_index(l, ops[0].number);
	r->cfa_off = (int64_t)ops[0].number2;
	r->ra_reg = reg_index(l, ra);
	if (r->cfa_reg < 0 || r->ra_reg < 0)
		return 0;
	for (i = 0; i < l->nr_regs; i++)
		if (dwarf_frame_register(fr, i ? l->regs[i].dwarf : ra, mem,
					 &ops, &nops) ||
		    !reg_rule(ops, nops, &r->regs[i]))
			return 0;
	/*
	 * The caller's stack pointer is the CFA (x86-64 psABI 3.7; libdw's
	 * default).
	 */
	if (r->regs[1].how == CFI_UNDEF || r->regs[1].how == CFI_SAME)
		r->regs[1] = (struct cfi_reg){ 0, CFI_VAL_CFA };
	return 1;
}

/*
 * The CFI of addr (libdw's address): .eh_frame, else .debug_frame (of the
 * file or of its separate debug file), which libunwind 1.6 does not read
 * in a remote address space.
 */
static void cfi_lookup(struct unwind_elf *e, const struct unwind_layout *l,
		       uint64_t addr, struct cfi_rule *r)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;

	cfi = dwfl_module_eh_cfi(e->mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &fr)) {
		cfi = dwfl_module_dwarf_cfi(e->mod, &bias);
		if (cfi && dwarf_cfi_addrframe(cfi, addr - bias, &fr))
			fr = NULL;
	}
	r->ok = fr && frame_rule(fr, l, r);
	free(fr);
}

/* What libdw knows of addr in e, looked up once. */
static const struct sym_entry *sym_lookup(struct unwind *u,
					  struct unwind_elf *e,
					  const struct unwind_layout *l,
					  uint64_t addr)
{
	struct sym_entry *s;
	Dwfl_Line *line;
	GElf_Sym sym;
	GElf_Off off = 0;

	if (2 * (u->nr_syms + 1) > u->alloc_syms)
		syms_grow(u);
	s = &u->syms[sym_slot(u->syms, u->alloc_syms, e, addr)];
	if (s->elf)
		return s;
	s->elf = e;
	s->addr = addr;
	u->nr_syms++;
	s->sym = dwfl_module_addrinfo(e->mod, addr, &off, &sym, NULL, NULL,
				      NULL);
	s->off = off;
	line = dwfl_module_getsrc(e->mod, addr);
	if (line)
		s->src = dwfl_lineinfo(line, NULL, &s->line, NULL, NULL, NULL);
	find_inlines(e, addr, s);
	cfi_lookup(e, l, addr, &s->cfi);
	return s;
}

/*
 * The frames of ip: one, or with inlined functions there one for each of
 * them, innermost first and marked inlined, then the function they were
 * inlined into; each at the source line of the call in the one before.
 */
static const struct sym_entry *
push_named(struct unwind *u, struct unwind_stack *st, uint64_t ip, int caller)
{
	struct unwind_map *m = map_of(u->ctx.proc, ip);
	struct unwind_elf *e = m ? m->elf : NULL;
	const struct sym_entry *s;
	struct unwind_frame *f;
	int i;

	f = push_frame(st);
	f->ip = ip;
	if (!e)
		return NULL;
	f->dso = e->base;
	if (!e->mod)
		return NULL;
	/*
	 * A return address may be the first byte after a noreturn call's
	 * function.
	 */
	s = sym_lookup(u, e, u->ctx.lay, ip - m->bias + e->dwfl_bias - caller);
	f->src = s->src;
	f->line = s->line;
	for (i = 0; i < s->nr_inl && st->nr < UNWIND_MAX_FRAMES; i++) {
		f->sym = s->inl[i].name;
		f->inlined = 1;
		f = push_frame(st);
		f->ip = ip;
		f->dso = e->base;
		f->src = s->inl[i].call_src;
		f->line = s->inl[i].call_line;
	}
	f->sym = s->sym;
	if (f->sym)
		f->sym_off = s->off + caller;
	return s;
}

/*
 * The caller's registers by rule r into c: 1, 0 at the outermost frame, -1 if r
 * fails.
 */
static int cfi_step(struct unwind_ctx *c, const struct cfi_rule *r)
{
	uint64_t regs[MAX_REGS], cfa;
	uint32_t valid = 0;
	int i;

	if (!(c->valid & 1u << r->cfa_reg))
		return -1;
	cfa = c->regs[r->cfa_reg] + r->cfa_off;
	for (i = 0; i < c->lay->nr_regs; i++) {
		const struct cfi_reg *g = &r->regs[i];
		int ok = 0, same = i ? i : r->ra_reg;

		regs[i] = 0;
		if (g->how == CFI_SAME) {
			regs[i] = c->regs[same];
			ok = c->valid >> same & 1;
		} else if (g->how == CFI_AT_CFA) {
			ok = !read_word(c, cfa + g->off, &regs[i]);
		} else if (g->how == CFI_VAL_CFA) {
			regs[i] = cfa + g->off;
			ok = 1;
		}
		valid |= (uint32_t)ok << i;
	}
	/*
	 * libunwind's ends: an undefined or null return address, a frame that
	 * repeats.
	 */
	if (r->regs[0].how == CFI_UNDEF || (valid & 1 && !regs[0]))
		return 0;
	if (!(valid & 1) || (regs[0] == c->regs[0] && regs[1] == c->regs[1]))
		return -1;
	memcpy(c->regs, regs, sizeof(regs));
	c->valid = valid;
	return 1;
}

/*
 * One step of libunwind from c's registers, for what cfi_step() cannot
 * do: libunwind's first frame is taken at its exact pc, so a caller's is
 * given as the call's last byte, where its CFI holds.
 */
static int unw_one_step(struct unwind_ctx *c, int caller)
{
	unw_cursor_t cur;
	unw_word_t v;
	int i, ret;

	c->regs[0] -= caller;
	ret = unw_init_remote(&cur, c->proc->as, c);
	c->regs[0] += caller;
	if (ret >= 0)
		ret = unw_step(&cur);
	if (ret <= 0)
		return ret;
	c->valid = 0;
	for (i = 0; i < c->lay->nr_regs; i++)
		if (unw_get_reg(&cur, c->lay->regs[i].dwarf, &v) >= 0) {
			c->regs[i] = v;
			c->valid |= 1u << i;
		}
	return c->valid & 1 ? 1 : -1;
}

/* libdw's view of the process of the event: one thread, its dump, its files. */
static pid_t dw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_ctx *c = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return c->proc->pid;
}

static bool dw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool dw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	uint64_t v;

	if (read_word(arg, addr, &v))
		return false;
	*result = v;
	return true;
}

/*
 * The event's registers, the pc as the pc and, where the machine numbers
 * it (x86-64's 16, which CFI expressions of the PLT read), as a register.
 */
static bool dw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_ctx *c = arg;
	Dwarf_Word v;
	int i;

	for (i = 0; i < c->lay->nr_regs; i++) {
		v = c->regs[i];
		if ((c->valid & 1u << i) &&
		    !dwfl_thread_state_registers(thread, c->lay->regs[i].dwarf,
						 1, &v) && i)
			return false;
	}
	dwfl_thread_state_register_pc(thread, c->regs[0]);
	return true;
}

/*
 * libdw's unwinder of the process of u's event, with each file it mapped
 * reported where it was; NULL when it cannot be had.
 */
static Dwfl *proc_dwfl(struct unwind *u)
{
	static const Dwfl_Thread_Callbacks thread_cbs = {
		.next_thread = dw_next_thread,
		.get_thread = dw_get_thread,
		.memory_read = dw_memory_read,
		.set_initial_registers = dw_set_initial_registers,
	};
	struct unwind_ctx *c = &u->ctx;
	struct unwind_proc *p = c->proc;
	int i, j;

	if (p->dwfl || p->dwfl_failed)
		return p->dwfl;
	p->dwfl_failed = 1;
	p->dwfl = dwfl_begin(&u->proc_cbs);
	if (!p->dwfl)
		return NULL;
	for (i = 0; i < p->nr_maps; i++) {
		const struct unwind_map *m = &p->maps[i];

		for (j = 0; j < i; j++)
			if (p->maps[j].elf == m->elf &&
			    p->maps[j].bias == m->bias)
				break;
		/* A file libdw cannot take stays unknown, as a missing one. */
		if (m->elf && j == i)
			dwfl_report_elf(p->dwfl, m->elf->base, m->elf->file,
					-1, m->bias, true);
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_cbs, c)) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		return NULL;
	}
	p->dwfl_failed = 0;
	return p->dwfl;
}

struct dw_step {
	struct unwind_ctx *c;
	int frames;		/* seen so far */
	int stepped;		/* the caller's registers are in c */
};

/* Frame 0 is the event's; at frame 1 its registers are the caller's. */
static int dw_frame(Dwfl_Frame *fr, void *arg)
{
	struct dw_step *s = arg;
	struct unwind_ctx *c = s->c;
	Dwarf_Addr pc;
	Dwarf_Word v;
	int i;

	if (!s->frames++)
		return DWARF_CB_OK;
	if (!dwfl_frame_pc(fr, &pc, NULL))
		return DWARF_CB_ABORT;
	c->regs[0] = pc;
	c->valid = 1;
	for (i = 1; i < c->lay->nr_regs; i++)
		if (!dwfl_frame_reg(fr, c->lay->regs[i].dwarf, &v)) {
			c->regs[i] = v;
			c->valid |= 1u << i;
		}
	s->stepped = 1;
	return DWARF_CB_ABORT;
}

/*
 * One step of libdw's unwinder, for the frames of another machine that
 * cfi_step() cannot do (libdw's backends: the PLT, signal frames, the
 * frame-pointer guess where there is no CFI).  The pc of a caller is
 * given as the call's last byte, as for unw_one_step().
 */
static int dw_one_step(struct unwind *u, int caller)
{
	struct unwind_ctx *c = &u->ctx;
	struct dw_step s = { c, 0, 0 };
	Dwfl *dwfl = proc_dwfl(u);
	if (!dwfl || c->proc->pid <= 0)
		return -1;
	c->regs[0] -= caller;
	dwfl_getthread_frames(dwfl, c->proc->pid, dw_frame, &s);
	if (s.stepped)
		return 1;
	/*
	 * No caller: libdw says the same (0, no error) at the outermost
	 * frame and where a read of ours or a register it needs failed, so
	 * the stack ends unknown; the outermost frames of code with CFI end
	 * in cfi_step().
	 */
	c->regs[0] += caller;
	return -1;
}

/*
 * Each frame is stepped by the CFI rules libdw found at its address,
 * kept with its name: libunwind 1.6 takes a lock that blocks signals
 * (two sigprocmask() calls) on every unw_step(), and more to allocate
 * its CIE info; measured with strace, 68 calls an event, 2/3 of the CPU
 * time of report.  A frame whose rules are not offsets from the CFA (the
 * PLT, signal frames) or that has no CFI (libunwind's frame-pointer
 * guess) is stepped by libunwind, or libdw for another machine's.
 */
int unwind_record(struct unwind *u, int space, struct tep_event *event,
		  struct tep_record *rec, int pid, struct unwind_stack *st)
{
	const struct unwind_layout *l = layout_of(u, event);
	struct unwind_proc *p = proc_find(u, space, pid);
	struct unwind_ctx *c = &u->ctx;
	const struct sym_entry *s;
	int ret, i, caller = 0;

	st->nr = 0;
	if (!l->has_stack || !p || !p->as)
		return 0;
	for (i = 0; i < l->nr_regs; i++)
		if (l->regs[i].off < 0 || l->regs[i].off + 8 > rec->size)
			return 0;
	c->proc = p;
	c->lay = l;
	c->data = rec->data;
	ret = load_dump(c, rec) ? -1 : 0;
	/*
	 * A step: > 0 a caller, 0 the outermost frame (CFI says so), < 0 lost.
	 */
	while (ret >= 0) {
		s = push_named(u, st, c->regs[0], caller);
		if (st->nr >= UNWIND_MAX_FRAMES)
			break;
		ret = s && s->cfi.ok ? cfi_step(c, &s->cfi) : -1;
		if (ret < 0 && l->arch == ARCH_NATIVE)
			ret = unw_one_step(c, caller);
		else if (ret < 0)
			ret = dw_one_step(u, caller);
		if (!ret)
			break;
		caller = 1;
	}
	if (ret < 0)
		push_frame(st)->unknown = 1;
	return st->nr;
}

void unwind_stack_release(struct unwind_stack *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}
