// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/probe-sdt: whole ELF files (input starting
 * with the ELF magic) through the note reader and the definition builder,
 * other inputs through the descriptor decoder, the argument grammar and
 * the spec/argument-request parsers.  Built and run by tests/fuzz/run-sdt.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/probe-sdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_elf(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct sdt_user_arg ua;
	struct sdt_markers ms;
	char *copy = malloc(size);
	Elf *elf;
	int i;

	if (!copy)
		return;
	if (sdt_user_arg_parse("p=arg1:string", &ua, &err))
		abort();
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (elf && !sdt_markers_from_elf(elf, "fuzz", &ms, &err)) {
		for (i = 0; i < ms.nr; i++) {
			struct strbuf g = STRBUF_INIT, e = STRBUF_INIT;
			struct strbuf def = STRBUF_INIT, warn = STRBUF_INIT;

			if (!sdt_marker_event(&ms, i, &g, &e, &err))
				sdt_marker_definition(&ms.v[i], "/fuzz", g.buf,
						      e.buf, i & 1, &ua,
						      i & 2 ? 1 : 0, &def,
						      &warn, &err);
			strbuf_release(&g);
			strbuf_release(&e);
			strbuf_release(&def);
			strbuf_release(&warn);
		}
		sdt_markers_release(&ms);
	}
	if (elf)
		elf_end(elf);
	free(copy);
	sdt_user_arg_release(&ua);
	strbuf_release(&err);
}

static void fuzz_text(uint8_t mode, const char *s, size_t len)
{
	struct strbuf why = STRBUF_INIT, fetch = STRBUF_INIT,
		      type = STRBUF_INIT;
	struct sdt_user_arg ua;
	struct sdt_arg arg;
	char *p, *n;

	switch (mode % 4) {
	case 0:
	case 3:
		/* Both assemblers' operand syntaxes. */
		if (!sdt_arg_parse(mode % 4 ? &arch_arm64 : &arch_x86_64, s,
				   len, &arg, &why))
			sdt_arg_fetcharg(&arg, 0x4010, &fetch, &type);
		sdt_arg_release(&arg);
		break;
	case 1:
		if (!sdt_user_arg_parse(s, &ua, &why))
			sdt_user_arg_release(&ua);
		break;
	case 2:
		if (sdt_spec_parse(s, &p, &n, &why) == 1) {
			free(p);
			free(n);
		}
		break;
	}
	strbuf_release(&why);
	strbuf_release(&fetch);
	strbuf_release(&type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf why = STRBUF_INIT;
	struct sdt_note note;
	char *s;

	if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG)) {
		fuzz_elf(data, size);
		return 0;
	}
	if (size < 1)
		return 0;
	if (data[0] < 0x80) {
		sdt_note_decode(data + 1, size - 1,
				data[0] & 1 ? ELFCLASS32 : ELFCLASS64,
				data[0] & 2 ? ELFDATA2MSB : ELFDATA2LSB, &note,
				&why);
		strbuf_release(&why);
		return 0;
	}
	/*
	 * The parsers take NUL-terminated text from the command line or a note.
	 */
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	fuzz_text(data[0], s, strlen(s));
	free(s);
	return 0;
}
