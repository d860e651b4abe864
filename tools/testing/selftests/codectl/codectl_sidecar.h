/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What codectl_sidecar and the chain program it traces,
 * codectl_sidecar_chain, agree on.
 */
#ifndef CODECTL_SIDECAR_H
#define CODECTL_SIDECAR_H

/* The chain's write(): to this descriptor (/dev/null), these bytes. */
#define SC_MARKER_FD	100
#define SC_MARKER	"sidecar"
#define SC_MARKER_LEN	(sizeof(SC_MARKER) - 1)

/* What the chain's functions return, when all went as planned */
#define SC_SORTED	12	/* qsort() of { 2, 1 }: 1, 2 */

/* More frames than the chain has, and a stack can have */
#define SC_MAX_FRAMES	128

/*
 * The chain program's stdout: "stack N IP..." (hex, innermost first), then
 * "sframe LINE" for each line of its /proc/self/sframe after the unwind;
 * then, at exit, "exit-stack N IP..." and "exit-sframe LINE" lines.
 */
#define SC_STACK	"stack"
#define SC_SFRAME	"sframe"
/* The same, of a write() at exit, after ld.so closed every object */
#define SC_EXIT_STACK	"exit-stack"
#define SC_EXIT_SFRAME	"exit-sframe"

/* The programs, built with and without -Wa,--gsframe */
#define SC_CHAIN	"codectl_sidecar_chain"
#define SC_CHAIN_NOSF	"codectl_sidecar_chain_nosf"
/* x86-64: a stack inside ld.so's lazy-binding trampoline */
#define SC_LAZY		"codectl_sidecar_lazy"

#endif /* CODECTL_SIDECAR_H */
