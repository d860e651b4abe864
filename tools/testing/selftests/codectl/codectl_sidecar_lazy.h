/* SPDX-License-Identifier: GPL-2.0 */
/* codectl_sidecar_lazy.c's look into ld.so's CFI, codectl_sidecar_lazy_cfi.c */
#ifndef CODECTL_SIDECAR_LAZY_H
#define CODECTL_SIDECAR_LAZY_H

unsigned long lz_rbx_cfa_addr(const char *path, unsigned long base,
			      unsigned long entry);

#endif /* CODECTL_SIDECAR_LAZY_H */
