// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files and their SFrame sections, as the tests read and damage them:
 * find PT_GNU_SFRAME and the executable segments, find the FDE of an
 * address, and write modified copies of a program.  The tests' own reading
 * of the format, written from the specification; it trusts its input only
 * as far as it checks it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../kselftest.h"
#include "sframe_lib.h"

/**
 * sft_elf_load() - Read an ELF64 file into memory
 * @e: receives the file; free with sft_elf_free()
 * @path: the file
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_elf_load(struct sft_elf *e, const char *path)
{
	const struct elf64_hdr *eh;
	int ret;

	memset(e, 0, sizeof(*e));
	ret = sft_read_file(path, &e->image, &e->len);
	if (ret) {
		ksft_print_msg("reading %s: %s\n", path, strerror(-ret));
		return ret;
	}
	eh = (const struct elf64_hdr *)e->image;
	if (e->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(struct elf64_phdr) ||
	    !sft_in_bounds(e->len, eh->e_phoff,
			   (__u64)eh->e_phnum * sizeof(struct elf64_phdr))) {
		ksft_print_msg("%s: not an ELF64 file with program headers\n",
			       path);
		sft_elf_free(e);
		return -ENOEXEC;
	}
	e->phdr = (struct elf64_phdr *)(e->image + eh->e_phoff);
	e->phnum = eh->e_phnum;
	return 0;
}

/**
 * sft_elf_free() - Release what sft_elf_load() allocated
 * @e: the file
 */
void sft_elf_free(struct sft_elf *e)
{
	free(e->image);
	memset(e, 0, sizeof(*e));
}

/**
 * sft_elf_save() - Write the (modified) file as an executable
 * @e: the file
 * @path: where; an existing file is replaced
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_elf_save(const struct sft_elf *e, const char *path)
{
	size_t done = 0;
	int fd, err;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd < 0)
		goto fail;
	while (done < e->len) {
		ssize_t n = write(fd, e->image + done, e->len - done);

		if (n <= 0) {
			if (!n)
				errno = EIO;
			goto fail_close;
		}
		done += n;
	}
	if (close(fd))
		goto fail;
	return 0;

fail_close:
	err = errno;
	close(fd);
	errno = err;
fail:
	err = errno;
	ksft_print_msg("writing %s: %s\n", path, strerror(err));
	return -err;
}

/**
 * sft_elf_find_phdr() - Find the first program header of a type
 * @e: the file
 * @type: PT_*
 *
 * Return: the header, inside @e's image, or NULL.
 */
struct elf64_phdr *sft_elf_find_phdr(const struct sft_elf *e, __u32 type)
{
	unsigned int i;

	for (i = 0; i < e->phnum; i++)
		if (e->phdr[i].p_type == type)
			return &e->phdr[i];
	return NULL;
}

static __u16 get_u16(const unsigned char *p)
{
	__u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static __u32 get_u32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static __s32 get_s32(const unsigned char *p)
{
	__s32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static __s64 get_s64(const unsigned char *p)
{
	__s64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * sft_sframe_parse() - Find and check the SFrame section of a file
 * @e: the file
 * @s: receives the section's layout
 *
 * Accepts what the tests build: little-endian AMD64, version 2 or 3, the
 * sub-sections inside the segment.
 *
 * Return: 0, -ENOENT without PT_GNU_SFRAME, or -EBADMSG after printing why.
 */
int sft_sframe_parse(const struct sft_elf *e, struct sft_sframe *s)
{
	const struct elf64_phdr *ph = sft_elf_find_phdr(e, PT_GNU_SFRAME);
	const unsigned char *b;
	__u64 fde_size;

	memset(s, 0, sizeof(*s));
	if (!ph)
		return -ENOENT;
	if (!sft_in_bounds(e->len, ph->p_offset, ph->p_filesz) ||
	    ph->p_filesz < SFT_SFRAME_HDR_SIZE) {
		ksft_print_msg("PT_GNU_SFRAME lies outside the file\n");
		return -EBADMSG;
	}
	b = (const unsigned char *)e->image + ph->p_offset;
	s->base = (unsigned char *)b;
	s->size = ph->p_filesz;
	s->vaddr = ph->p_vaddr;
	s->version = b[2];
	s->flags = b[3];
	s->hdr_size = SFT_SFRAME_HDR_SIZE + b[7];
	s->num_fdes = get_u32(b + 8);
	s->num_fres = get_u32(b + 12);
	s->fre_len = get_u32(b + 16);
	s->fdes = s->hdr_size + (__u64)get_u32(b + 20);
	s->fres = s->hdr_size + (__u64)get_u32(b + 24);

	if (b[0] != 0xe2 || b[1] != 0xde || b[4] != SFT_SFRAME_ABI ||
	    (s->version != 2 && s->version != 3)) {
		ksft_print_msg("SFrame header: magic %02x%02x, version %u, ABI %u: unknown\n",
			       b[1], b[0], s->version, b[4]);
		return -EBADMSG;
	}
	fde_size = s->version == 2 ? SFT_V2_FDE_SIZE : SFT_V3_FDE_SIZE;
	if (!sft_in_bounds(s->size, s->fdes, s->num_fdes * fde_size) ||
	    !sft_in_bounds(s->size, s->fres, s->fre_len) ||
	    s->fdes + s->num_fdes * fde_size > s->fres) {
		ksft_print_msg("SFrame header: sub-sections outside the section\n");
		return -EBADMSG;
	}
	return 0;
}

/**
 * sft_sframe_fde() - Decode one FDE
 * @s: the section
 * @i: its index, below @s->num_fdes
 * @fde: receives it; addresses are link-time addresses
 *
 * Return: 0, or -EBADMSG when a V3 attribute record lies outside the FREs.
 */
int sft_sframe_fde(const struct sft_sframe *s, __u32 i, struct sft_fde *fde)
{
	const unsigned char *b = s->base;
	__u64 at;

	memset(fde, 0, sizeof(*fde));
	if (s->version == 2) {
		at = s->fdes + (__u64)i * SFT_V2_FDE_SIZE;
		fde->start = get_s32(b + at);
		fde->size = get_u32(b + at + 4);
		fde->fre_off = get_u32(b + at + 8);
		fde->num_fres = get_u32(b + at + 12);
		fde->info = b[at + 16];
		fde->fres = s->fres + fde->fre_off;
	} else {
		at = s->fdes + (__u64)i * SFT_V3_FDE_SIZE;
		fde->start = get_s64(b + at);
		fde->size = get_u32(b + at + 8);
		fde->fre_off = get_u32(b + at + 12);
		if (!sft_in_bounds(s->fre_len, fde->fre_off, SFT_V3_ATTR_SIZE))
			return -EBADMSG;
		fde->num_fres = get_u16(b + s->fres + fde->fre_off);
		fde->info = b[s->fres + fde->fre_off + 2];
		fde->flex = (b[s->fres + fde->fre_off + 3] & 0x1f) == 1;
		fde->fres = s->fres + fde->fre_off + SFT_V3_ATTR_SIZE;
	}
	/* With FUNC_START_PCREL, relative to the field itself. */
	fde->start += s->vaddr + (s->flags & SFT_SFRAME_F_PCREL ? at : 0);
	return 0;
}

/**
 * sft_sframe_find() - Find the FDE of a link-time address
 * @s: the section
 * @addr: the address
 * @fde: receives the FDE
 *
 * A scan, not a search: the tests do not trust the order.
 *
 * Return: 0, or -ENOENT when no FDE covers @addr.
 */
int sft_sframe_find(const struct sft_sframe *s, unsigned long addr,
		    struct sft_fde *fde)
{
	__u32 i;

	for (i = 0; i < s->num_fdes; i++) {
		if (sft_sframe_fde(s, i, fde))
			continue;
		if (addr >= fde->start && addr - fde->start < fde->size)
			return 0;
	}
	return -ENOENT;
}

/**
 * sft_sframe_fre_info() - The info byte of the FRE that covers an address
 * @s: the section
 * @fde: the FDE that covers @addr, from sft_sframe_find()
 * @addr: the link-time address
 *
 * The FREs of a default FDE, not PCMASK: what GNU as emits for C functions.
 *
 * Return: the info byte, or -ENOENT (no FRE covers @addr), or -EBADMSG (an
 * FRE outside the section).
 */
int sft_sframe_fre_info(const struct sft_sframe *s, const struct sft_fde *fde,
			unsigned long addr)
{
	static const unsigned int start_size[] = { 1, 2, 4 };
	const unsigned char *b = s->base;
	unsigned int type = fde->info & 0xf, i;
	__u64 at = fde->fres, off = addr - fde->start;
	int info = -ENOENT;

	if (type > 2 || addr < fde->start)
		return -EBADMSG;
	for (i = 0; i < fde->num_fres; i++) {
		unsigned int ss = start_size[type], ws, n;
		__u32 start;

		if (!sft_in_bounds(s->size, at, ss + 1))
			return -EBADMSG;
		start = ss == 1 ? b[at] : ss == 2 ? get_u16(b + at) :
			get_u32(b + at);
		if (start > off)
			break;
		info = b[at + ss];
		ws = 1 << ((info >> 5) & 3);
		n = SFT_FRE_NWORDS(info);
		at += ss + 1 + n * ws;
	}
	return info;
}
