/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ELF_ADDR_H
#define TK_ELF_ADDR_H

#include <gelf.h>
#include <stdint.h>

#include "util/strbuf.h"

/*
 * Virtual address <-> file offset through the PT_LOAD program headers, as
 * uprobes need them: a uprobe is placed at a FILE offset, and its @+N
 * fetcharg is resolved by the kernel relative to the probed segment:
 * N = vaddr - (p_vaddr - p_offset) of the PT_LOAD that holds the probe,
 * not of the one that holds the symbol.
 */

/* The PT_LOAD containing vaddr; 0, or -ENOENT when none does. */
int elf_addr_load_segment(Elf *elf, uint64_t vaddr, GElf_Phdr *out);

/* File offset of vaddr via its PT_LOAD; 0 or -ENOENT. */
int elf_addr_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off);

/* p_vaddr - p_offset of the segment holding probe_vaddr (the @+ base). */
int elf_addr_load_delta(Elf *elf, uint64_t probe_vaddr, int64_t *delta);

/* File offset of the .symtab symbol NAME in PATH; 0, -ENOENT, or the
 * open error. */
int elf_addr_symbol_file_offset(const char *path, const char *name,
				uint64_t *off);

/*
 * The GNU build-id of elf (the NT_GNU_BUILD_ID note of a PT_NOTE
 * segment), appended to hex in lower-case hex; 0, or -ENOENT when it has
 * none.
 */
int elf_addr_build_id(Elf *elf, struct strbuf *hex);

/* Opens an ELF file read-only; returns NULL and sets *err (-errno or
 * -EINVAL for "not an ELF file"). close with elf_addr_close_file(). */
Elf *elf_addr_open_file(const char *path, int *fd, int *err);
void elf_addr_close_file(Elf *elf, int fd);

#endif
