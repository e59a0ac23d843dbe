// SPDX-License-Identifier: GPL-2.0
/*
 * util/probe-sdt: the x86-64 and arm64 argument grammars, the register
 * names, the note descriptor, and whole ELF files built here byte by
 * byte (plain, prelinked, corrupt) so that every address rule is checked
 * against a known layout.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "tests/tests.h"
#include "util/probe-sdt.h"

struct arg_case {
	const char *text;
	int ret;
	const char *fetch;
	const char *type;
};

/* The @+ value the RIP cases resolve to. */
#define RIP_N 0x4038

static const struct arg_case arg_cases[] = {
	{ "-4@%eax", 0, "%ax", "s32" },
	{ "8@%rsi", 0, "%si", "u64" },
	{ "-2@%r8w", 0, "%r8", "s16" },
	{ "-1@%cl", 0, "%cx", "s8" },
	{ "1@%sil", 0, "%si", "u8" },
	{ "4@%r15d", 0, "%r15", "u32" },
	{ "1@%ah", 0, "%ax", "b8@8/64" },
	{ "-1@%dh", 0, "%dx", "b8@8/64" },
	{ "-8@8(%rdi)", 0, "+8(%di)", "s64" },
	{ "-4@(%rdi)", 0, "+0(%di)", "s32" },
	{ "8@-40(%rbp)", 0, "-40(%bp)", "u64" },
	{ "4@0x10(%r12)", 0, "+16(%r12)", "u32" },
	{ "-4@$42", 0, "\\42", "s32" },
	{ "1@$-56", 0, "\\-56", "u8" },
	{ "-8@$-1234567", 0, "\\-1234567", "s64" },
	{ "8@$0xffffffffffffffff", 0, "\\18446744073709551615", "u64" },
	{ "-8@g_total(%rip)", 0, "@+0x4038", "s64" },
	{ "8@g_total+16(%rip)", 0, "@+0x4038", "u64" },
	{ "8f@%rdx", 0, "%dx", "x64" },
	{ "4f@%edx", 0, "%dx", "x32" },
	{ "%eax", 0, "%ax", "" },
	{ "-8@(%rdx,%rsi,8)", -EOPNOTSUPP, NULL, NULL },
	{ "1@-96(%rbp,%rax,8)", -EOPNOTSUPP, NULL, NULL },
	{ "8@%fs:0x28", -EOPNOTSUPP, NULL, NULL },
	{ "8@%xmm0", -EOPNOTSUPP, NULL, NULL },
	{ "8@$g_buf", -EOPNOTSUPP, NULL, NULL },
	{ "8@16(%rip)", -EOPNOTSUPP, NULL, NULL },
	{ "8@sym(%rbx)", -EOPNOTSUPP, NULL, NULL },
	{ "8@g_total", -EOPNOTSUPP, NULL, NULL },
	{ "3@%eax", -EINVAL, NULL, NULL },
	{ "16@%rax", -EINVAL, NULL, NULL },
	{ "-@%eax", -EINVAL, NULL, NULL },
	{ "8@", -EINVAL, NULL, NULL },
	{ "8@(%rax", -EINVAL, NULL, NULL },
	{ "8@%", -EINVAL, NULL, NULL },
	{ "8@+(%rax)", -EINVAL, NULL, NULL },
	{ "8@0x1g(%rax)", -EINVAL, NULL, NULL },
};

/*
 * arm64, as gcc and clang write operands (the guest runs what they
 * become: tests/shell/arm64-sdt.sh): w registers read as their x
 * register, '#' optional, no index registers, no SIMD registers.
 */
static const struct arg_case arm64_cases[] = {
	{ "8@x4", 0, "%x4", "u64" },
	{ "-4@w2", 0, "%x2", "s32" },
	{ "-4@[sp, 96]", 0, "+96(%sp)", "s32" },
	{ "-4@[sp]", 0, "+0(%sp)", "s32" },
	{ "2@[x22, 20]", 0, "+20(%x22)", "u16" },
	{ "-8@[x29, #-16]", 0, "-16(%x29)", "s64" },
	{ "8@[sp,0x10]", 0, "+16(%sp)", "u64" },
	{ "4@5", 0, "\\5", "u32" },
	{ "-4@#-5", 0, "\\-5", "s32" },
	{ "8@xzr", 0, "\\0", "u64" },
	{ "8@x30", 0, "%x30", "u64" },
	{ "8@sp", 0, "%sp", "u64" },
	{ "8@[x1, x2]", -EOPNOTSUPP, NULL, NULL },
	{ "8@[x1, x2, lsl 3]", -EOPNOTSUPP, NULL, NULL },
	{ "8@[x1, 8]!", -EOPNOTSUPP, NULL, NULL },
	{ "8f@d0", -EOPNOTSUPP, NULL, NULL },
	{ "16@q1", -EINVAL, NULL, NULL },
	{ "8@v3", -EOPNOTSUPP, NULL, NULL },
	{ "8@x31", -EOPNOTSUPP, NULL, NULL },
	{ "8@g_sym", -EOPNOTSUPP, NULL, NULL },
	{ "8@%rax", -EOPNOTSUPP, NULL, NULL },
	{ "8@[x1", -EINVAL, NULL, NULL },
	{ "8@[x0, #:lo12:g_buf]", -EOPNOTSUPP, NULL, NULL },
	{ "8@[x1, 0x1g]", -EINVAL, NULL, NULL },
	{ "8@", -EINVAL, NULL, NULL },
};

static int check_args(const struct arch *a, const struct arg_case *cases,
		      size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct arg_case *c = &cases[i];
		struct strbuf why = STRBUF_INIT, fetch = STRBUF_INIT,
			      type = STRBUF_INIT;
		struct sdt_arg arg;
		int ret = sdt_arg_parse(a, c->text, strlen(c->text), &arg,
					&why);

		fprintf(stderr, "%-24s -> %d %s\n", c->text, ret, why.buf);
		TEST_ASSERT_EQUAL(c->text, ret, c->ret);
		if (ret) {
			TEST_ASSERT_VAL("a reason is given", why.len > 0);
		} else {
			if (arg.op == SDT_OP_RIP)
				TEST_ASSERT_VAL("rip symbol", !strcmp(arg.sym, "g_total") &&
						arg.disp == (strstr(c->text, "+16") ? 16 : 0));
			sdt_arg_fetcharg(&arg, RIP_N, &fetch, &type);
			TEST_ASSERT_STR(c->text, fetch.buf, c->fetch);
			TEST_ASSERT_STR(c->text, type.buf, c->type);
		}
		sdt_arg_release(&arg);
		strbuf_release(&why);
		strbuf_release(&fetch);
		strbuf_release(&type);
	}
	return TEST_OK;
}

static int test_args(void)
{
	return check_args(&arch_x86_64, arg_cases,
			  sizeof(arg_cases) / sizeof(arg_cases[0])) ||
	       check_args(&arch_arm64, arm64_cases,
			  sizeof(arm64_cases) / sizeof(arm64_cases[0]));
}

static int test_regs(void)
{
	const struct sdt_reg *r;

	r = arch_x86_64.sdt_reg_lookup("eax");
	TEST_ASSERT_VAL("eax", r && !strcmp(r->kname, "ax") && r->bits == 32 && !r->shift);
	r = arch_x86_64.sdt_reg_lookup("bh");
	TEST_ASSERT_VAL("bh", r && !strcmp(r->kname, "bx") && r->bits == 8 && r->shift == 8);
	r = arch_x86_64.sdt_reg_lookup("r11b");
	TEST_ASSERT_VAL("r11b", r && !strcmp(r->kname, "r11") && r->bits == 8);
	r = arch_x86_64.sdt_reg_lookup("dil");
	TEST_ASSERT_VAL("dil", r && !strcmp(r->kname, "di"));
	r = arch_x86_64.sdt_reg_lookup("spl");
	TEST_ASSERT_VAL("spl", r && !strcmp(r->kname, "sp"));
	TEST_ASSERT_VAL("xmm0 unknown", !arch_x86_64.sdt_reg_lookup("xmm0"));
	TEST_ASSERT_VAL("sih unknown", !arch_x86_64.sdt_reg_lookup("sih"));
	return TEST_OK;
}

/* desc: 3 words then strings; returns its length. */
static size_t make_desc(unsigned char *d, int w, int msb, uint64_t pc,
			uint64_t base, uint64_t sema, const char *strs,
			size_t slen)
{
	uint64_t v[3] = { pc, base, sema };
	int i, b;

	for (i = 0; i < 3; i++)
		for (b = 0; b < w; b++)
			d[i * w + b] = v[i] >> (8 * (msb ? w - 1 - b : b));
	memcpy(d + 3 * w, strs, slen);
	return 3 * w + slen;
}

#define STRS(s) s, sizeof(s) - 1

/* Little-endian ELFCLASS64 descriptors of test_decode(). */
#define DECODE64(len) sdt_note_decode(d, len, ELFCLASS64, ELFDATA2LSB, &n, &why)

static int test_decode(void)
{
	unsigned char d[128];
	struct strbuf why = STRBUF_INIT;
	struct sdt_note n;
	size_t len;

	len = make_desc(d, 8, 0, 0x1234, 0x2000, 0x4040, STRS("app\0req\0-4@%eax\0"));
	TEST_ASSERT_EQUAL("good", DECODE64(len), 0);
	TEST_ASSERT_EQUAL("pc", n.pc, 0x1234);
	TEST_ASSERT_EQUAL("sema", n.sema, 0x4040);
	TEST_ASSERT_STR("provider", n.provider, "app");
	TEST_ASSERT_STR("name", n.name, "req");
	TEST_ASSERT_STR("args", n.args, "-4@%eax");
	TEST_ASSERT_EQUAL("truncated args", DECODE64(len - 1), -EINVAL);
	TEST_ASSERT_VAL("names the string", strstr(why.buf, "argument"));
	strbuf_reset(&why);
	TEST_ASSERT_EQUAL("short", DECODE64(20), -EINVAL);
	TEST_ASSERT_VAL("says short", strstr(why.buf, "shorter"));
	TEST_ASSERT_EQUAL("no strings", DECODE64(24), -EINVAL);
	len = make_desc(d, 8, 0, 1, 2, 3, STRS("app"));
	TEST_ASSERT_EQUAL("provider without NUL", DECODE64(len), -EINVAL);
	len = make_desc(d, 8, 0, 1, 2, 3, STRS("\0req\0\0"));
	TEST_ASSERT_EQUAL("empty provider", DECODE64(len), -EINVAL);
	len = make_desc(d, 4, 1, 0x08048000, 0x0804a000, 0, STRS("p\0n\0\0"));
	TEST_ASSERT_EQUAL(
		"32-bit big endian",
		sdt_note_decode(d, len, ELFCLASS32, ELFDATA2MSB, &n, &why), 0);
	TEST_ASSERT_EQUAL("32-bit pc", n.pc, 0x08048000);
	TEST_ASSERT_EQUAL("32-bit base", n.base, 0x0804a000);
	TEST_ASSERT_STR("empty args", n.args, "");
	strbuf_release(&why);
	return TEST_OK;
}

static int test_user_args(void)
{
	static const char *const bad[] = { "arg0", "foo", "arg2:", "1x=arg1", "arg", "arg2x", "=arg1" };
	struct strbuf err = STRBUF_INIT;
	struct sdt_user_arg ua;
	char *p, *n;
	size_t i;

	TEST_ASSERT_EQUAL("arg2:string", sdt_user_arg_parse("arg2:string", &ua, &err), 0);
	TEST_ASSERT_VAL("index/type", ua.index == 2 && !ua.name && !strcmp(ua.type, "string"));
	sdt_user_arg_release(&ua);
	TEST_ASSERT_EQUAL("tag=arg6:ustring", sdt_user_arg_parse("tag=arg6:ustring", &ua, &err), 0);
	TEST_ASSERT_VAL("name", ua.index == 6 && !strcmp(ua.name, "tag"));
	sdt_user_arg_release(&ua);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TEST_ASSERT_EQUAL(bad[i], sdt_user_arg_parse(bad[i], &ua, &err),
				  -EINVAL);
		TEST_ASSERT_VAL("names the text", strstr(err.buf, bad[i]));
		strbuf_reset(&err);
	}
	{
		char prov[] = "my-app", name[] = "req.start";
		struct sdt_marker mm = { .provider = prov, .name = name };

		TEST_ASSERT_VAL("as the note spells it", sdt_marker_matches(&mm, "my-app", "req.start"));
		TEST_ASSERT_VAL("as the event spells it", sdt_marker_matches(&mm, "my_app", "req_*"));
		TEST_ASSERT_VAL("no match", !sdt_marker_matches(&mm, "my_app", "start"));
	}
	TEST_ASSERT_EQUAL("sdt_a:b", sdt_spec_parse("sdt_a:b", &p, &n, &err), 1);
	TEST_ASSERT_VAL("parts", !strcmp(p, "a") && !strcmp(n, "b"));
	free(p), free(n);
	TEST_ASSERT_EQUAL("%a:*", sdt_spec_parse("%a:*", &p, &n, &err), 1);
	TEST_ASSERT_VAL("glob", !strcmp(p, "a") && !strcmp(n, "*"));
	free(p), free(n);
	TEST_ASSERT_EQUAL("%sdt_a:b", sdt_spec_parse("%sdt_a:b", &p, &n, &err), 1);
	free(p), free(n);
	TEST_ASSERT_EQUAL("not sdt", sdt_spec_parse("main", &p, &n, &err), 0);
	TEST_ASSERT_EQUAL("no name", sdt_spec_parse("sdt_a", &p, &n, &err), -EINVAL);
	TEST_ASSERT_EQUAL("empty provider", sdt_spec_parse("sdt_:b", &p, &n, &err), -EINVAL);
	TEST_ASSERT_EQUAL("two colons", sdt_spec_parse("sdt_a:b:c", &p, &n, &err), -EINVAL);
	strbuf_release(&err);
	return TEST_OK;
}

/*
 * A minimal ET_DYN: text PT_LOAD (R X) at vaddr 0x1000 + shift, file 0x1000;
 * data PT_LOAD (RW) at 0x4000 + shift, file 0x2000; .stapsdt.base at
 * 0x1800 + shift; symbol g_total at 0x4010 + shift.  shift plays prelink:
 * everything moves except the note's words.
 */
struct fake_elf {
	uint64_t shift;
	const unsigned char *desc;	/* one note's descriptor */
	size_t desc_len;
	int notes;			/* how many copies of the note */
	/* bytes cut from the end of .note.stapsdt */
	size_t cut;
};

enum {
	S_NULL,
	S_TEXT,
	S_BASE,
	S_PROBES,
	S_NOTE,
	S_SYMTAB,
	S_STRTAB,
	S_SHSTRTAB,
	S_NR
};

#define FAKE_SIZE 0x2800
#define NOTE_OFF 0x2100

static void shdr(Elf64_Shdr *sh, Elf64_Word name, Elf64_Word type,
		 Elf64_Xword flags, Elf64_Addr addr, Elf64_Off off,
		 Elf64_Xword size)
{
	sh->sh_name = name;
	sh->sh_type = type;
	sh->sh_flags = flags;
	sh->sh_addr = addr;
	sh->sh_offset = off;
	sh->sh_size = size;
	sh->sh_addralign = 1;
}

static char *fake_build(const struct fake_elf *f, size_t *size)
{
	static const char shstr[] = "\0.text\0.stapsdt.base\0.probes\0.note.stapsdt\0"
		".symtab\0.strtab\0.shstrtab";
	static const char strtab[] = "\0g_total";
	char *buf = calloc(1, FAKE_SIZE);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	Elf64_Shdr *sh = (Elf64_Shdr *)(buf + 0x2600);
	Elf64_Sym *sym = (Elf64_Sym *)(buf + 0x2400);
	unsigned char *note = (unsigned char *)buf + NOTE_OFF;
	size_t note_size = 0, step = 12 + 8 + ((f->desc_len + 3) & ~3UL);
	int i;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = 0x2600;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = S_NR;
	eh->e_shstrndx = S_SHSTRTAB;
	ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, 0x1000, 0x1000 + f->shift,
			      0x1000 + f->shift, 0x1000, 0x1000, 0x1000 };
	ph[1] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W, 0x2000, 0x4000 + f->shift,
			      0x4000 + f->shift, 0x20, 0x20, 0x1000 };
	for (i = 0; i < f->notes && note_size + step <= 0x200; i++) {
		unsigned char *n = note + note_size;

		((Elf64_Word *)n)[0] = 8;
		((Elf64_Word *)n)[1] = f->desc_len;
		((Elf64_Word *)n)[2] = 3;
		memcpy(n + 12, "stapsdt", 8);
		memcpy(n + 20, f->desc, f->desc_len);
		note_size += step;
	}
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
	sym[1].st_shndx = S_PROBES;
	sym[1].st_value = 0x4010 + f->shift;
	sym[1].st_size = 8;
	memcpy(buf + 0x2480, strtab, sizeof(strtab));
	memcpy(buf + 0x2500, shstr, sizeof(shstr));
	shdr(&sh[S_TEXT], 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	     0x1000 + f->shift, 0x1000, 0x800);
	shdr(&sh[S_BASE], 7, SHT_PROGBITS, SHF_ALLOC, 0x1800 + f->shift, 0x1800,
	     1);
	shdr(&sh[S_PROBES], 21, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
	     0x4000 + f->shift, 0x2000, 0x20);
	shdr(&sh[S_NOTE], 29, SHT_NOTE, 0, 0, NOTE_OFF, note_size - f->cut);
	sh[S_NOTE].sh_addralign = 4;
	shdr(&sh[S_SYMTAB], 43, SHT_SYMTAB, 0, 0, 0x2400, 2 * sizeof(*sym));
	sh[S_SYMTAB].sh_link = S_STRTAB;
	sh[S_SYMTAB].sh_entsize = sizeof(*sym);
	sh[S_SYMTAB].sh_info = 1;
	shdr(&sh[S_STRTAB], 51, SHT_STRTAB, 0, 0, 0x2480, sizeof(strtab));
	shdr(&sh[S_SHSTRTAB], 59, SHT_STRTAB, 0, 0, 0x2500, sizeof(shstr));
	*size = FAKE_SIZE;
	return buf;
}

/* Reads the fake file; 0 or the error, with err filled. */
static int fake_read(const struct fake_elf *f, struct sdt_markers *ms,
		     struct strbuf *err)
{
	size_t size;
	char *buf = fake_build(f, &size);
	Elf *elf;
	int ret;

	elf_version(EV_CURRENT);
	elf = elf_memory(buf, size);
	if (!elf) {
		free(buf);
		return -ENOMEM;
	}
	ret = sdt_markers_from_elf(elf, "fake.so", ms, err);
	fprintf(stderr, "fake (shift 0x%llx): %d %s\n", (unsigned long long)f->shift, ret, err->buf);
	elf_end(elf);
	free(buf);
	return ret;
}

#define MARKER_STRS STRS("app\0req\0-4@%eax -8@g_total(%rip) 8@(%rax,%rbx,8) 8@%rsi\0")

struct conflict_case {
	const char *line;
	int ref_ctr;
	int conflict;
};

static const struct conflict_case conflict_cases[] = {
	{ "p:g/e /x/fake.so:0x0000000000001010 arg1=%ax", 1, 1 },
	{ "p:g/e /x/fake.so:0x0000000000001010(0x2002) arg1=%ax", 1, 0 },
	{ "p:g/e /x/fake.so:0x0000000000001010(0x2004)", 1, 1 },
	{ "p:g/e /x/fake.so:0x0000000000001010(0x2002)", 0, 1 },
	{ "p:g/e /x/fake.so:0x0000000000001010", 0, 0 },
	{ "p:g/e /x/fake.so:0x0000000000001014", 1, 0 },
	{ "p:g/e /x/other.so:0x0000000000001010", 1, 0 },
};

/* Another probe at the marker's place must carry the same ref_ctr. */
static int test_conflicts(const struct sdt_marker *m)
{
	struct strbuf who = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(conflict_cases) / sizeof(conflict_cases[0]);
	     i++) {
		const struct conflict_case *c = &conflict_cases[i];
		struct probe_def d;
		struct probe_defs defs = { &d, 1, 1 };

		TEST_ASSERT_EQUAL("parse", probe_def_parse(c->line, PROBE_UPROBE, &d), 0);
		TEST_ASSERT_EQUAL(c->line,
				  sdt_ref_ctr_conflict(&defs, "/x/fake.so", m,
						       c->ref_ctr, &who),
				  c->conflict);
		if (c->conflict)
			TEST_ASSERT_STR("names it", who.buf, "g:e");
		strbuf_reset(&who);
		free(d.group), free(d.event), free(d.line);
	}
	strbuf_release(&who);
	return TEST_OK;
}

static int test_fake_good(uint64_t shift)
{
	unsigned char d[128];
	struct strbuf err = STRBUF_INIT, def = STRBUF_INIT, warn = STRBUF_INIT;
	struct strbuf g = STRBUF_INIT, e = STRBUF_INIT;
	struct sdt_user_arg ua[1];
	struct fake_elf f = { shift, d, 0, 2, 0 };
	struct sdt_markers ms;
	const struct sdt_marker *m;
	int ret;

	/* The note keeps the link-time (unshifted) addresses. */
	f.desc_len = make_desc(d, 8, 0, 0x1010, 0x1800, 0x4002, MARKER_STRS);
	TEST_ASSERT_EQUAL("read", fake_read(&f, &ms, &err), 0);
	TEST_ASSERT_EQUAL("two sites", ms.nr, 2);
	m = &ms.v[0];
	TEST_ASSERT_EQUAL("pc vaddr adjusted", m->pc, 0x1010 + shift);
	TEST_ASSERT_EQUAL("pc file offset", m->pc_off, 0x1010);
	TEST_ASSERT_VAL("has semaphore", m->has_sema);
	TEST_ASSERT_EQUAL("semaphore file offset", m->sema_off, 0x2002);
	TEST_ASSERT_EQUAL("four args", m->argc, 4);
	TEST_ASSERT_STR("arg1", m->argv[0].fetch, "%ax");
	/*
	 * @+ is relative to the text segment: the same N however far it moved.
	 */
	TEST_ASSERT_STR("arg2 rip", m->argv[1].fetch, "@+0x4010");
	TEST_ASSERT_VAL("arg3 SIB left out", !m->argv[2].fetch && strstr(m->argv[2].why, "index"));

	TEST_ASSERT_VAL("glob matches", sdt_marker_matches(m, "a*", "r?q"));
	TEST_ASSERT_VAL("other name", !sdt_marker_matches(m, "app", "req_x"));
	TEST_ASSERT_EQUAL("event", sdt_marker_event(&ms, 1, &g, &e, &err), 0);
	TEST_ASSERT_STR("group", g.buf, "sdt_app");
	TEST_ASSERT_STR("second site suffixed", e.buf, "req_1");
	ret = sdt_marker_definition(m, "/x/fake.so", "sdt_app", "req", 1,
				    NULL, 0, &def, &warn, &err);
	TEST_ASSERT_EQUAL("definition", ret, 0);
	TEST_ASSERT_STR("definition text", def.buf,
			"p:sdt_app/req /x/fake.so:0x1010(0x2002) arg1=%ax:s32 arg2=@+0x4010:s64 arg4=%si:u64");
	TEST_ASSERT_VAL("warns about arg3", strstr(warn.buf, "arg3"));
	strbuf_reset(&def), strbuf_reset(&warn);
	TEST_ASSERT_EQUAL("user args", sdt_user_arg_parse("p=arg4:string", &ua[0], &err), 0);
	ret = sdt_marker_definition(m, "/x/fake.so", "sdt_app", "req", 0, ua,
				    1, &def, &warn, &err);
	TEST_ASSERT_EQUAL("no ref_ctr", ret, 0);
	TEST_ASSERT_STR("without ref_ctr", def.buf,
			"p:sdt_app/req /x/fake.so:0x1010 arg1=%ax:s32 arg2=@+0x4010:s64 p=+0(%si):string");
	TEST_ASSERT_VAL("warns about the semaphore", strstr(warn.buf, "semaphore"));
	sdt_user_arg_release(&ua[0]);
	strbuf_reset(&def);
	TEST_ASSERT_EQUAL("string of an int", sdt_user_arg_parse("arg1:string", &ua[0], &err), 0);
	TEST_ASSERT_EQUAL("refused",
			  sdt_marker_definition(m, "/x", "g", "e", 1, ua, 1,
						&def, &warn, &err),
			  -EINVAL);
	sdt_user_arg_release(&ua[0]);
	TEST_ASSERT_EQUAL("missing arg", sdt_user_arg_parse("arg9", &ua[0], &err), 0);
	TEST_ASSERT_EQUAL("refused",
			  sdt_marker_definition(m, "/x", "g", "e", 1, ua, 1,
						&def, &warn, &err),
			  -EINVAL);
	TEST_ASSERT_VAL("names it", strstr(err.buf, "arg9"));
	sdt_user_arg_release(&ua[0]);
	if (test_conflicts(m))
		return TEST_FAIL;
	sdt_markers_release(&ms);
	strbuf_release(&err), strbuf_release(&def), strbuf_release(&warn);
	strbuf_release(&g), strbuf_release(&e);
	return TEST_OK;
}

struct corrupt_case {
	const char *what;
	uint64_t pc, sema;
	size_t strip;		/* bytes taken off the descriptor's end */
	size_t cut;		/* bytes taken off the section's end */
	const char *expect;	/* in the message */
};

static const struct corrupt_case corrupt_cases[] = {
	{ "semaphore outside any PT_LOAD", 0x1010, 0x9000, 0, 0, "semaphore address 0x9000" },
	{ "semaphore in text", 0x1010, 0x1100, 0, 0, "semaphore" },
	{ "semaphore in .bss part", 0x1010, 0x4030, 0, 0, "semaphore" },
	{ "pc in data", 0x4004, 0, 0, 0, "probe address 0x4004" },
	{ "args without NUL", 0x1010, 0x4002, 1, 0, "NUL" },
	{ "desc of 20 bytes", 0x1010, 0x4002, 0, 0, "shorter" },
	{ "section ends inside the note", 0x1010, 0x4002, 0, 9, "malformed" },
};

static int test_fake_corrupt(void)
{
	size_t i;

	for (i = 0; i < sizeof(corrupt_cases) / sizeof(corrupt_cases[0]); i++) {
		const struct corrupt_case *c = &corrupt_cases[i];
		unsigned char d[128];
		struct strbuf err = STRBUF_INIT;
		struct fake_elf f = { 0, d, 0, 1, c->cut };
		struct sdt_markers ms;

		f.desc_len = make_desc(d, 8, 0, c->pc, 0x1800, c->sema,
				       MARKER_STRS) -
			     c->strip;
		if (strstr(c->what, "20 bytes"))
			f.desc_len = 20;
		TEST_ASSERT_EQUAL(c->what, fake_read(&f, &ms, &err), -EINVAL);
		TEST_ASSERT_VAL(c->expect, strstr(err.buf, c->expect));
		TEST_ASSERT_VAL("names the file", !strncmp(err.buf, "fake.so: stapsdt note at 0x21", 29));
		TEST_ASSERT_EQUAL("nothing returned", ms.nr, 0);
		strbuf_release(&err);
	}
	return TEST_OK;
}

int test__probe_sdt(void)
{
	if (test_regs() || test_args() || test_decode() || test_user_args())
		return TEST_FAIL;
	if (test_fake_good(0) || test_fake_good(0x200000))
		return TEST_FAIL;
	return test_fake_corrupt();
}
