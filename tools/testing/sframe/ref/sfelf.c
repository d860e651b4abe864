// SPDX-License-Identifier: GPL-2.0
/*
 * sfelf: find the SFrame section and the text of an ELF file, as the kernel's
 * ELF loader sees them (program headers only).  See sfelf.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sfelf.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

static int sfelf_fail(const struct sfelf *e, const char *why)
{
	fprintf(stderr, "%s: %s\n", e->path, why);
	return -1;
}

/* Keep @r sorted by start address. */
static void sfelf_add_range(struct sfelf_range *r, unsigned int *n,
			    uint64_t start, uint64_t end)
{
	unsigned int i = *n;

	while (i && r[i - 1].start > start) {
		r[i] = r[i - 1];
		i--;
	}
	r[i].start = start;
	r[i].end = end;
	(*n)++;
}

/**
 * sfelf_open() - map an ELF file and find its SFrame section and text
 * @e:		filled in
 * @path:	the file
 *
 * Only 64-bit little-endian x86-64 and AArch64 files with a PT_GNU_SFRAME
 * segment are accepted.  Return: 0, or -1 after printing why.
 */
int sfelf_open(struct sfelf *e, const char *path)
{
	const Elf64_Ehdr *eh;
	struct stat st;
	unsigned int i;
	int fd, found = 0;

	memset(e, 0, sizeof(*e));
	e->path = path;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	e->size = st.st_size;
	e->map = e->size < sizeof(*eh) ? MAP_FAILED :
		 mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		return sfelf_fail(e, "cannot map (too small?)");
	}

	eh = (const Elf64_Ehdr *)e->map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return sfelf_fail(e, "not a 64-bit little-endian ELF file");
	if (eh->e_machine != EM_X86_64 && eh->e_machine != EM_AARCH64)
		return sfelf_fail(e, "neither x86-64 nor AArch64");
	e->machine = eh->e_machine;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > e->size ||
	    (e->size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return sfelf_fail(e, "bad program header table");

	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)
			(e->map + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD && ph->p_memsz) {
			if (e->nload == SFELF_MAX_LOADS)
				return sfelf_fail(e, "too many PT_LOADs");
			sfelf_add_range(e->load, &e->nload, ph->p_vaddr,
					ph->p_vaddr + ph->p_memsz);
			if (ph->p_flags & PF_X)
				sfelf_add_range(e->text, &e->ntext, ph->p_vaddr,
						ph->p_vaddr + ph->p_memsz);
		} else if (ph->p_type == PT_GNU_SFRAME) {
			if (found++)
				return sfelf_fail(e, "two PT_GNU_SFRAMEs");
			if (ph->p_offset > e->size ||
			    e->size - ph->p_offset < ph->p_filesz ||
			    ph->p_filesz != ph->p_memsz || !ph->p_filesz)
				return sfelf_fail(e, "bad PT_GNU_SFRAME");
			e->sframe = e->map + ph->p_offset;
			e->sframe_len = ph->p_filesz;
			e->sframe_vaddr = ph->p_vaddr;
		}
	}
	if (!found)
		return sfelf_fail(e, "no PT_GNU_SFRAME");
	if (!e->ntext)
		return sfelf_fail(e, "no executable PT_LOAD");
	return 0;
}

/**
 * sfelf_close() - unmap a file opened by sfelf_open()
 * @e:	the file
 */
void sfelf_close(struct sfelf *e)
{
	if (e->map)
		munmap(e->map, e->size);
	e->map = NULL;
}

/**
 * sfelf_arch() - name of the file's architecture
 * @e:	the file
 *
 * Return: "x86_64" or "aarch64".
 */
const char *sfelf_arch(const struct sfelf *e)
{
	return e->machine == EM_X86_64 ? "x86_64" : "aarch64";
}

/**
 * sfelf_text_of() - the executable segment that contains an address
 * @e:	the file
 * @pc:	the address
 *
 * Return: its index in @e->text, or -1 when @pc is in none.
 */
int sfelf_text_of(const struct sfelf *e, uint64_t pc)
{
	unsigned int i;

	for (i = 0; i < e->ntext; i++)
		if (pc >= e->text[i].start && pc < e->text[i].end)
			return i;
	return -1;
}

/**
 * sfelf_read_pc() - read the next address of a PC list
 * @f:	the list: one hexadecimal address a line
 * @pc:	the address read
 *
 * Return: 1 when an address was read, 0 at the end, -1 on a malformed line.
 */
int sfelf_read_pc(FILE *f, uint64_t *pc)
{
	char line[64], *end;

	if (!fgets(line, sizeof(line), f))
		return 0;
	errno = 0;
	*pc = strtoull(line, &end, 16);
	if (errno || end == line || (*end != '\n' && *end != '\0'))
		return -1;
	return 1;
}
