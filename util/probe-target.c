// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arch/arch.h"
#include "util/elf-addr.h"
#include "util/probe-dwarf-list.h"
#include "util/probe-target.h"
#include "util/tracefs.h"
#include "util/usage.h"

/* The kernel treats '-' and '_' in module names alike. */
static int module_file_matches(const char *base, const char *name)
{
	for (; *name; base++, name++)
		if (*base != *name && !(strchr("-_", *base) && strchr("-_", *name)))
			return 0;
	return !strcmp(base, ".ko");
}

/* Depth-first search of dir for NAME.ko; the path, or NULL. */
static char *search_module(const char *dir, const char *name, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (de = readdir(d))) {
		struct strbuf path = STRBUF_INIT;

		if (de->d_name[0] == '.')
			continue;
		strbuf_addf(&path, "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR && depth < 16)
			found = search_module(path.buf, name, depth + 1);
		else if (de->d_type == DT_REG &&
			 module_file_matches(de->d_name, name))
			found = strbuf_detach(&path, NULL);
		strbuf_release(&path);
	}
	closedir(d);
	return found;
}

/* -m NAME without a path: NAME.ko under /lib/modules/$(uname -r). */
static char *find_module_file(const char *name)
{
	struct utsname u;
	char dir[PATH_MAX], *found;

	if (strchr(name, '/') || strstr(name, ".ko") || uname(&u))
		return xstrdup(name);
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	found = search_module(dir, name, 0);
	return found ? found : xstrdup(name);
}

static char *module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = xstrdup(base ? base + 1 : path), *p;

	p = strstr(name, ".ko");
	if (p)
		*p = '\0';
	/* The kernel names modules with '_' where the file has '-'. */
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* For -v: "KIND in PATH", and why where the usual choice was not taken. */
static char *source_text(const char *kind, const char *path, const char *why)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s in %s", kind, path);
	if (why)
		strbuf_addf(&sb, " (%s)", why);
	return strbuf_detach(&sb, NULL);
}

/*
 * The running kernel's vmlinux with DWARF, from the places perf looks in
 * first, opened into t; else its BTF.  0, or -errno with err set.
 */
static int open_running_kernel(struct probe_target *t, struct strbuf *err)
{
	static const char *const fmts[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/vmlinux-%s",
		"/lib/modules/%s/build/vmlinux",
	};
	struct strbuf why = STRBUF_INIT;
	struct utsname u;
	char buf[PATH_MAX];
	size_t i;

	if (uname(&u)) {
		int ret = -errno;

		strbuf_addf(err, "uname: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(buf, sizeof(buf), fmts[i], u.release);
		if (access(buf, R_OK))
			continue;
		t->dbg = probe_debuginfo_open(buf, &why);
		if (t->dbg) {
			t->path = xstrdup(buf);
			t->source = source_text("DWARF", probe_debuginfo_file(t->dbg), NULL);
			t->ksyms = probe_ksyms_new();
			strbuf_release(&why);
			return 0;
		}
		strbuf_addstr(&why, "; ");
	}
	t->btf = probe_btf_open(err);
	if (!t->btf) {
		strbuf_addf(err, " (and %sno vmlinux with DWARF in the usual places): give -k VMLINUX "
			    "(or -m MODULE)", why.buf);
		strbuf_release(&why);
		return -ENOENT;
	}
	t->path = xstrdup(PROBE_BTF_VMLINUX);
	strbuf_addstr(&why, "no vmlinux with DWARF in the usual places");
	t->source = source_text("BTF", PROBE_BTF_VMLINUX, why.buf);
	strbuf_release(&why);
	return 0;
}

/*
 * The ELF note of the running kernel's build-id, as /sys/kernel/notes holds
 * them.
 */
struct kernel_note {
	uint32_t namesz, descsz, type;
};

#define KERNEL_NOTES "/sys/kernel/notes"
#define NOTE_GNU_BUILD_ID 3	/* NT_GNU_BUILD_ID, name "GNU" */

/* The running kernel's build-id in hex into hex; 0, or -ENOENT. */
static int running_build_id(struct strbuf *hex)
{
	struct strbuf notes = STRBUF_INIT;
	size_t off = 0;
	int ret = -ENOENT;

	if (strbuf_read_file(&notes, KERNEL_NOTES, 4096) <= 0)
		goto out;
	while (ret && off + sizeof(struct kernel_note) <= notes.len) {
		struct kernel_note n;
		size_t name = off + sizeof(n), desc, j;

		memcpy(&n, notes.buf + off, sizeof(n));
		desc = name + ((n.namesz + 3) & ~3u);
		if (desc + n.descsz > notes.len)
			break;
		if (n.type == NOTE_GNU_BUILD_ID && n.namesz == 4 &&
		    !memcmp(notes.buf + name, "GNU", 4)) {
			for (j = 0; j < n.descsz; j++)
				strbuf_addf(hex, "%02x", (unsigned char)notes.buf[desc + j]);
			ret = 0;
		}
		off = desc + ((n.descsz + 3) & ~3u);
	}
out:
	strbuf_release(&notes);
	return ret;
}

/*
 * Whether the -k or -m file is what the running kernel runs: a vmlinux
 * with the running kernel's build-id, a module of a name that is loaded
 * (a .ko has no PT_NOTE to read its build-id from here).  -D of another
 * kernel's vmlinux checks nothing against this one's kallsyms.
 */
static int is_running(const struct probe_target *t, const char *module)
{
	struct strbuf mine = STRBUF_INIT, file = STRBUF_INIT,
		      path = STRBUF_INIT;
	int fd, err, same = 0;
	Elf *elf;

	if (module) {
		strbuf_addf(&path, "/sys/module/%s", t->modname);
		same = !access(path.buf, F_OK);
		strbuf_release(&path);
		return same;
	}
	elf = elf_addr_open_file(t->path, &fd, &err);
	if (elf && !running_build_id(&mine) && !elf_addr_build_id(elf, &file))
		same = !strcmp(mine.buf, file.buf);
	if (elf)
		elf_addr_close_file(elf, fd);
	strbuf_release(&mine);
	strbuf_release(&file);
	return same;
}

int probe_realpath(const char *file, char **real, struct strbuf *err)
{
	int ret;

	*real = realpath(file, NULL);
	if (*real)
		return 0;
	/* Taken before anything else can change errno. */
	ret = -errno;
	strbuf_addf(err, "%s: %s", file, strerror(-ret));
	return ret;
}

int probe_target_file(const char *sysroot, const char *path, char **named,
		      char **file, struct strbuf *err)
{
	struct strbuf in = STRBUF_INIT;
	char *root;
	int ret;

	if (!sysroot) {
		ret = probe_realpath(path, named, err);
		if (!ret)
			*file = xstrdup(*named);
		return ret;
	}
	if (path[0] != '/') {
		strbuf_addf(err, "%s: with --sysroot, name the binary by its absolute path on the target",
			    path);
		return -EINVAL;
	}
	strbuf_addf(&in, "%s%s", sysroot, path);
	ret = probe_realpath(in.buf, file, err);
	strbuf_release(&in);
	if (ret)
		return ret;
	/*
	 * An absolute symbolic link in the copy names a file of this
	 * machine, not the target's: refused, never read instead.
	 */
	root = realpath(sysroot, NULL);
	/* "/" holds everything: its length is not that of a prefix. */
	if (!root || (strcmp(root, "/") &&
		      (strncmp(*file, root, strlen(root)) ||
		       (*file)[strlen(root)] != '/'))) {
		strbuf_addf(err, "%s: resolves to %s, outside --sysroot %s (an absolute symbolic link?)",
			    path, *file, sysroot);
		free(*file);
		free(root);
		return -EINVAL;
	}
	free(root);
	*named = xstrdup(path);
	return 0;
}

/*
 * probe for kprobes; for uprobes probe_ and the binary's basename up to
 * its first character that is neither alphanumeric nor '_', as perf 6.1
 * names it (measured: libc.so.6 probe_libc, ld-linux-x86-64.so.2
 * probe_ld, libstdc++.so.6 probe_libstdc, my-prog probe_my, .hidden
 * probe_), so that perf's `record -e 'probe_libc:*'` and scripts carry
 * over.  Past the kernel's 63 characters perf refuses; this cuts.
 */
static char *default_group(const struct probe_target *t)
{
	const char *base = strrchr(t->path, '/') + 1;
	struct strbuf grp = STRBUF_INIT;
	size_t len;

	if (t->kind != PROBE_UPROBE)
		return xstrdup("probe");
	for (len = 0; isalnum((unsigned char)base[len]) || base[len] == '_';
	     len++)
		;
	strbuf_addf(&grp, "probe_%.*s", (int)len, base);
	if (grp.len > 63)
		strbuf_setlen(&grp, 63);
	return strbuf_detach(&grp, NULL);
}

/*
 * t->arch from the file's ELF header, another kernel's BTF, or the
 * running kernel's for its BTF.
 */
static int target_arch(struct probe_target *t, const char *btf,
		       struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;

	if (btf) {
		t->arch = arch_of_elf(probe_btf_machine(t->btf), ELFCLASS64,
				      &why);
		if (!t->arch)
			strbuf_addf(err, "%s: a kernel whose struct pt_regs is neither "
				    "x86_64's nor arm64's: tracekit translates for %s only",
				    t->path, arch_known());
	} else if (t->dbg) {
		t->arch = probe_debuginfo_arch(t->dbg, &why);
		if (!t->arch)
			strbuf_addf(err, "%s: an ELF for %s: tracekit translates for %s only",
				    t->path, why.buf, arch_known());
	} else {
		t->arch = arch_of_kernel(&why);
		if (!t->arch)
			strbuf_addf(err, "the running kernel is %s: tracekit translates for %s only",
				    why.buf, arch_known());
	}
	strbuf_release(&why);
	return t->arch ? 0 : -EOPNOTSUPP;
}

/* --btf FILE: another kernel's BTF, its machine from its pt_regs. */
static int open_btf_file(struct probe_target *t, const char *path,
			 struct strbuf *err)
{
	int ret = probe_realpath(path, &t->path, err);

	if (ret)
		return ret;
	t->btf = probe_btf_open_file(t->path, err);
	if (!t->btf)
		return -EINVAL;
	t->source = source_text("BTF", t->path, "--btf: another kernel's");
	return 0;
}

int probe_target_open(struct probe_target *t,
		      const struct probe_target_names *n, struct strbuf *err)
{
	const char *exec = n->exec, *module = n->module, *vmlinux = n->vmlinux;
	char *file = NULL;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!!exec + !!module + !!vmlinux + !!n->btf > 1) {
		strbuf_addstr(err, "-x, -m, -k and --btf are exclusive");
		return -EINVAL;
	}
	if (n->btf) {
		t->kind = PROBE_KPROBE;
		ret = open_btf_file(t, n->btf, err);
		if (ret) {
			probe_target_close(t);
			memset(t, 0, sizeof(*t));
			return ret;
		}
		goto opened;
	}
	if (exec) {
		t->kind = PROBE_UPROBE;
		ret = probe_target_file(n->sysroot, exec, &t->path, &file, err);
		if (ret)
			return ret;
		goto named;
	} else if (module) {
		t->kind = PROBE_KPROBE;
		file = find_module_file(module);
	} else if (vmlinux) {
		t->kind = PROBE_KPROBE;
		file = xstrdup(vmlinux);
	} else {
		t->kind = PROBE_KPROBE;
		ret = open_running_kernel(t, err);
		if (ret)
			return ret;
		goto opened;
	}
	ret = probe_realpath(file, &t->path, err);
	free(file);
	if (ret)
		return ret;
	file = xstrdup(t->path);
named:
	t->dbg = probe_debuginfo_open(file, err);
	free(file);
	if (!t->dbg) {
		free(t->path);
		t->path = NULL;
		return -EINVAL;
	}
	t->source = source_text("DWARF", probe_debuginfo_file(t->dbg), NULL);
	if (module)
		t->modname = module_name(t->path);
	if (t->kind == PROBE_KPROBE && is_running(t, module))
		t->ksyms = probe_ksyms_new();
opened:
	ret = target_arch(t, n->btf, err);
	if (ret) {
		probe_target_close(t);
		memset(t, 0, sizeof(*t));
		return ret;
	}
	t->group = default_group(t);
	/* Read once: a lookup per name in eventfs costs more than the DWARF. */
	if (probe_defs_read(&t->existing))
		memset(&t->existing, 0, sizeof(t->existing));
	return 0;
}

void probe_target_close(struct probe_target *t)
{
	probe_debuginfo_close(t->dbg);
	probe_btf_close(t->btf);
	probe_ksyms_free(t->ksyms);
	probe_defs_release(&t->existing);
	free(t->source);
	free(t->path);
	free(t->modname);
	free(t->group);
}

void probe_target_opts(const struct probe_target *t, int force_regs,
			     struct probe_opts *o)
{
	const struct tk_features *f = tk_features();

	memset(o, 0, sizeof(*o));
	o->kind = t->kind;
	o->arch = t->arch;
	/*
	 * uprobes never take $argN (the kernel's check wants a kernel
	 * function entry); README's $arg<N> line is shared with kprobes.
	 */
	o->argn = t->kind == PROBE_KPROBE && f->arg_n && !force_regs;
	o->ustring = f->ustring;
	o->symbol = f->symbol;
	o->imm = f->imm;
	o->max_probes = PROBE_MAX_PROBES;
	/* Without tracefs (-D on a build host) assume a current kernel. */
	if (!f->readme) {
		o->argn = t->kind == PROBE_KPROBE && !force_regs;
		o->symbol = 1;
	}
}

/*
 * BTF's listings are filtered here: a line of -F is a name, a variable's
 * line of -V ("\t\tTYPE\tNAME") ends with one.
 */
static void filter_lines(struct strbuf *sb, const struct probe_filter *f,
			 int vars)
{
	struct strbuf kept = STRBUF_INIT;
	const char *line, *nl, *name;
	char *n;
	int keep;

	for (line = sb->buf; *line; line = *nl ? nl + 1 : nl) {
		nl = strchrnul(line, '\n');
		name = line;
		if (vars)
			name = strncmp(line, "\t\t", 2) ? NULL :
			       (const char *)memrchr(line, '\t', nl - line) + 1;
		keep = 1;
		if (name) {
			n = xstrndup(name, nl - name);
			keep = probe_filter_match(f, n);
			free(n);
		}
		if (keep)
			strbuf_add(&kept, line, nl - line + !!*nl);
	}
	strbuf_release(sb);
	*sb = kept;
}

static int list_funcs(const struct probe_target *t,
		      const struct probe_filter *filter, struct strbuf *out,
		      struct strbuf *err)
{
	struct strbuf all = STRBUF_INIT;
	int ret;

	if (!t->btf)
		return probe_dwarf_list_funcs(t->dbg, filter, out, err);
	ret = probe_btf_list_funcs(t->btf, NULL, &all, err);
	filter_lines(&all, filter, 0);
	strbuf_addstr(out, all.buf);
	strbuf_release(&all);
	return ret;
}

/* BTF knows the parameters only: --externs and --range need DWARF. */
static int list_vars(const struct probe_target *t, const char *point,
		     const struct probe_dwarf_list_opts *o, int no_inlines,
		     struct strbuf *out, struct strbuf *note,
		     struct strbuf *err)
{
	struct strbuf vars = STRBUF_INIT;
	struct probe_opts popts;
	struct probe_spec spec;
	int ret;

	if (t->btf && (o->externs || o->range))
		return probe_btf_needs_dwarf(t->btf, o->externs ?
					     "--externs: the globals of a unit" :
					     "--range: where variables are located",
					     err);
	ret = probe_spec_parse(point, &spec, err);
	if (ret)
		return ret;
	if (t->btf) {
		ret = probe_btf_list_vars(t->btf, &spec, &vars, err);
		filter_lines(&vars, o->filter, 1);
		strbuf_addstr(out, vars.buf);
		strbuf_release(&vars);
	} else {
		probe_target_opts(t, 0, &popts);
		popts.no_inlines = no_inlines;
		ret = probe_dwarf_list_vars(t->dbg, &spec, &popts, o, out, note,
					    err);
	}
	probe_spec_release(&spec);
	return ret;
}

/*
 * perf ORs the filters of a command line: -F's own (or its default) and
 * each --filter; -V's default stands where none is given.
 */
static int listing_filter(const struct probe_target_listing *l,
			  struct probe_filter **f, struct strbuf *err)
{
	int i, ret = 0;

	*f = NULL;
	if (l->funcs)
		ret = probe_filter_add(f, l->funcs_filter ? l->funcs_filter :
				       PROBE_FILTER_FUNCS, err);
	for (i = 0; !ret && i < l->nr_filters; i++)
		ret = probe_filter_add(f, l->filters[i], err);
	if (!ret && l->nr_vars && !l->nr_filters)
		ret = probe_filter_add(f, PROBE_FILTER_VARS, err);
	if (ret) {
		probe_filter_free(*f);
		*f = NULL;
	}
	return ret;
}

/* The filter of l and the range of its first -L. */
static int listing_parse(const struct probe_target_listing *l,
			 struct probe_filter **f, struct probe_line_range *lr,
			 struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret = listing_filter(l, f, &why);

	memset(lr, 0, sizeof(*lr));
	if (ret) {
		strbuf_addf(err, "filter %s", why.buf);
	} else if (l->nr_lines && probe_line_parse(l->lines[0], lr, &why)) {
		strbuf_addf(err, "-L %s", why.buf);
		probe_filter_free(*f);
		*f = NULL;
		ret = -EINVAL;
	}
	strbuf_release(&why);
	return ret;
}

int probe_target_listing_check(const struct probe_target_listing *l,
			       struct strbuf *err)
{
	struct probe_filter *f;
	struct probe_line_range lr;
	struct probe_spec spec;
	int i, ret = listing_parse(l, &f, &lr, err);

	for (i = 0; i < l->nr_vars && !ret; i++) {
		struct strbuf why = STRBUF_INIT;

		ret = probe_spec_parse(l->vars[i], &spec, &why);
		/* perf: "'--vars' doesn't accept arguments". */
		if (!ret && spec.nr_args) {
			strbuf_addf(&why, "'%s': a probe point, without arguments",
				    l->vars[i]);
			ret = -EINVAL;
		}
		/* A failed parse left spec empty: releasing it is a no-op. */
		probe_spec_release(&spec);
		if (ret)
			strbuf_addf(err, "-V %s", why.buf);
		strbuf_release(&why);
	}
	probe_filter_free(f);
	probe_line_release(&lr);
	return ret;
}

int probe_target_list(const struct probe_target *t,
		      const struct probe_target_listing *l, struct strbuf *out,
		      struct strbuf *note, struct strbuf *err)
{
	struct probe_dwarf_list_opts o = {
		.externs = l->externs, .range = l->range,
	};
	struct probe_filter *f;
	struct probe_line_range lr;
	int i, ret = listing_parse(l, &f, &lr, err);

	if (ret)
		return ret;
	o.filter = f;
	if (l->funcs)
		ret = list_funcs(t, f, out, err);
	else if (l->nr_lines && t->btf)
		ret = probe_btf_needs_dwarf(t->btf, "-L: the lines of a function",
					    err);
	else if (l->nr_lines)
		ret = probe_dwarf_list_lines(t->dbg, &lr, out, note, err);
	for (i = 0; i < l->nr_vars && !ret; i++)
		ret = list_vars(t, l->vars[i], &o, l->no_inlines, out, note,
				err);
	probe_filter_free(f);
	probe_line_release(&lr);
	return ret;
}
