// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util/elf-addr.h"

int elf_addr_load_segment(Elf *elf, uint64_t vaddr, GElf_Phdr *out)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*out = ph;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_addr_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	GElf_Phdr ph;
	int ret = elf_addr_load_segment(elf, vaddr, &ph);

	if (ret)
		return ret;
	/* .bss lies past p_filesz: it has no file offset. */
	if (vaddr - ph.p_vaddr >= ph.p_filesz)
		return -ENOENT;
	*off = vaddr - ph.p_vaddr + ph.p_offset;
	return 0;
}

int elf_addr_load_delta(Elf *elf, uint64_t probe_vaddr, int64_t *delta)
{
	GElf_Phdr ph;
	int ret = elf_addr_load_segment(elf, probe_vaddr, &ph);

	if (ret)
		return ret;
	*delta = (int64_t)(ph.p_vaddr - ph.p_offset);
	return 0;
}

Elf *elf_addr_open_file(const char *path, int *fd, int *err)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		*err = -errno;
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		*err = -EINVAL;
		return NULL;
	}
	*err = 0;
	return elf;
}

void elf_addr_close_file(Elf *elf, int fd)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int elf_addr_symbol_file_offset(const char *path, const char *name,
				uint64_t *off)
{
	Elf_Scn *scn = NULL;
	int fd, err, ret = -ENOENT;
	Elf *elf = elf_addr_open_file(path, &fd, &err);

	if (!elf)
		return err;
	while ((scn = elf_nextscn(elf, scn)) && ret) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, i, &sym))
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				ret = elf_addr_vaddr_to_offset(
					elf, sym.st_value, off);
				break;
			}
		}
	}
	elf_addr_close_file(elf, fd);
	return ret;
}

int elf_addr_build_id(Elf *elf, struct strbuf *hex)
{
	size_t n, i, off, name_off, desc_off;
	GElf_Phdr ph;
	GElf_Nhdr nh;
	Elf_Data *d;

	if (elf_getphdrnum(elf, &n))
		return -ENOENT;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		for (off = 0; d && (off = gelf_getnote(d, off, &nh, &name_off,
						       &desc_off));) {
			const unsigned char *desc =
				(const unsigned char *)d->d_buf + desc_off;
			size_t j;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4))
				continue;
			for (j = 0; j < nh.n_descsz; j++)
				strbuf_addf(hex, "%02x", desc[j]);
			return 0;
		}
	}
	return -ENOENT;
}
