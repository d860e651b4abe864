/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What dl-sframe.c uses of glibc's internal <ldsodefs.h>, for the host
 * test of the series' dl-sframe.c (../dl-sframe-test.c), which provides
 * the functions.
 */
#ifndef SFT_LDSODEFS_H
#define SFT_LDSODEFS_H

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define attribute_hidden
#define DL_DEBUG_FILES	(1 << 6)

/* The fields of glibc's struct link_map that dl-sframe.c uses */
struct sft_link_map {
	ElfW(Addr) l_addr;
	char *l_name;
	const ElfW(Phdr) *l_phdr;
	ElfW(Half) l_phnum;
	unsigned int l_sframe_registered;
	void *l_sframe_copy;
	size_t l_sframe_copy_size;
};
#define link_map sft_link_map

struct sft_rtld_global_ro {
	int _dl_debug_mask;
	size_t _dl_pagesize;
};
extern struct sft_rtld_global_ro sft_glro;
#define GLRO(name)	sft_glro._##name

void _dl_debug_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void *__mempcpy(void *dst, const void *src, size_t n);
void *__mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __munmap(void *addr, size_t len);
int __mprotect(void *addr, size_t len, int prot);

#define __stat64_t64	stat
int __fstat64_time64(int fd, struct stat *st);

#endif
