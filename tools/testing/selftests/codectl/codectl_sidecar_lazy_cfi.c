// SPDX-License-Identifier: GPL-2.0
/*
 * Where ld.so's lazy-binding trampoline keeps its CFA in rbx, from ld.so's
 * own CFI (.eh_frame), for codectl_sidecar_lazy.c.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <elfutils/libdw.h>

#include "codectl_sidecar_lazy.h"

#define LZ_MAX_ROWS	64	/* of a trampoline, to its rbx-based CFA */

/**
 * lz_rbx_cfa_addr() - the first address of a function whose CFA is in rbx
 * @path:	the object, ld.so
 * @base:	its load bias
 * @entry:	the function's entry, in the process
 *
 * Walks the rows of the function's FDE from @entry on.
 *
 * Return: the address, in the process, of the first row whose CFA is
 * rbx + offset, or 0 (after saying why when the CFI cannot be read).
 */
unsigned long lz_rbx_cfa_addr(const char *path, unsigned long base,
			      unsigned long entry)
{
	Dwarf_Addr pc = entry - base, start, end;
	unsigned long found = 0;
	Dwarf_CFI *cfi;
	Elf *elf;
	int fd, i;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	if (!cfi)
		printf("lazy: %s: no CFI (%s)\n", path, dwarf_errmsg(-1));
	for (i = 0; cfi && !found && i < LZ_MAX_ROWS; i++) {
		Dwarf_Frame *frame;
		Dwarf_Op *ops;
		size_t nops;

		if (dwarf_cfi_addrframe(cfi, pc, &frame))
			break;
		dwarf_frame_info(frame, &start, &end, NULL);
		/* libdw gives a register rule as DW_OP_bregx */
		if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1 &&
		    (ops[0].atom == DW_OP_breg3 ||
		     (ops[0].atom == DW_OP_bregx && ops[0].number == 3)))
			found = base + pc;
		free(frame);
		pc = end;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}
