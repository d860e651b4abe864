/* SPDX-License-Identifier: GPL-2.0 */
/*
 * canon: the one-line, decoder-neutral form of an unwind rule that both
 * dumpers print, so that comparing two decoders is a diff:
 *
 *   <pc> none
 *   <pc> cfa=<loc> ra=<loc> fp=<loc>[ mangled][ keyb][ signal]
 *
 * See README for the notation of <loc>.
 */
#ifndef _CANON_H
#define _CANON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum canon_kind {
	CANON_SAME,	/* unchanged */
	CANON_UNDEF,	/* no value: outermost frame */
	CANON_CFA,	/* CFA + off, dereferenced if deref */
	CANON_SP,	/* the frame's stack pointer + off, ... */
	CANON_FP,	/* the frame's frame pointer + off, ... */
	CANON_REG,	/* another register reg + off, ... */
};

struct canon_loc {
	enum canon_kind	kind;
	unsigned int	reg;	/* DWARF number, for CANON_REG */
	bool		deref;
	int64_t		off;
};

struct canon_rule {
	struct canon_loc cfa;
	struct canon_loc ra;
	struct canon_loc fp;
	bool		mangled;	/* RA signed (arm64 PAC) */
	bool		keyb;		/* ... with key B */
	bool		signal;		/* signal frame */
};

/*
 * DWARF numbers of the registers the notation names: "sp" and "fp" are
 * CANON_SP and CANON_FP (a CANON_REG of these numbers prints as rN, and so
 * never agrees with them), "lr" is CANON_REG 30 on AArch64.
 */
#define CANON_X86_SP	7
#define CANON_X86_FP	6
#define CANON_A64_FP	29
#define CANON_A64_LR	30
#define CANON_A64_SP	31

void canon_print(FILE *f, unsigned int machine, uint64_t pc,
		 const struct canon_rule *r);

/* canon_rule.c, for the programs built with the decoder */
struct sframe_rule;
void canon_from_rule(struct canon_rule *c, const struct sframe_rule *rule);

#endif /* _CANON_H */
