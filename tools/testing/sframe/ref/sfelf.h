/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sfelf: what the dumpers need from an ELF file, read the way the kernel's
 * ELF loader would see it: the PT_GNU_SFRAME segment (its bytes and virtual
 * address) and the executable PT_LOAD segments (the text it describes).
 * Shared by the libsframe dumper, our decoder's dumper and the benchmark.
 */
#ifndef _SFELF_H
#define _SFELF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SFELF_MAX_LOADS	16

struct sfelf_range {
	uint64_t	start;
	uint64_t	end;	/* exclusive */
};

struct sfelf {
	const char	*path;
	unsigned char	*map;		/* the whole file */
	size_t		size;
	unsigned int	machine;	/* EM_X86_64 or EM_AARCH64 */
	const unsigned char *sframe;	/* PT_GNU_SFRAME bytes, in the file */
	size_t		sframe_len;
	uint64_t	sframe_vaddr;
	unsigned int	ntext;		/* executable PT_LOADs, by address */
	struct sfelf_range text[SFELF_MAX_LOADS];
	unsigned int	nload;		/* all PT_LOADs, by address */
	struct sfelf_range load[SFELF_MAX_LOADS];
};

int sfelf_open(struct sfelf *e, const char *path);
void sfelf_close(struct sfelf *e);
const char *sfelf_arch(const struct sfelf *e);
int sfelf_text_of(const struct sfelf *e, uint64_t pc);

/* The PC list both dumpers read: one hex address a line. */
int sfelf_read_pc(FILE *f, uint64_t *pc);

#endif /* _SFELF_H */
