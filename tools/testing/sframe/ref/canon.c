// SPDX-License-Identifier: GPL-2.0
/*
 * canon: print an unwind rule in the dumpers' common notation (canon.h).
 */
#include <elf.h>

#include "canon.h"

static void canon_reg(FILE *f, unsigned int machine,
		      const struct canon_loc *l)
{
	if (l->kind == CANON_SP)
		fputs("sp", f);
	else if (l->kind == CANON_FP)
		fputs("fp", f);
	else if (machine == EM_AARCH64 && l->reg == CANON_A64_LR)
		fputs("lr", f);
	else
		fprintf(f, "r%u", l->reg);
}

/*
 * The CFA is a value: "<reg><+-off>", "*" when it is the word there.  A saved
 * register is usually a stack slot: "c<+-off>" means the word at CFA + off,
 * as objdump --sframe writes it; "cv<+-off>" is the value CFA + off itself.
 */
static void canon_loc(FILE *f, unsigned int machine,
		      const struct canon_loc *l, bool is_cfa)
{
	switch (l->kind) {
	case CANON_SAME:
		fputc('s', f);
		break;
	case CANON_UNDEF:
		fputc('u', f);
		break;
	case CANON_CFA:
		if (is_cfa)
			fprintf(f, "c%+lld%s", (long long)l->off,
				l->deref ? "*" : "");
		else
			fprintf(f, "%s%+lld", l->deref ? "c" : "cv",
				(long long)l->off);
		break;
	case CANON_SP:
	case CANON_FP:
	case CANON_REG:
		canon_reg(f, machine, l);
		if (is_cfa || l->off || l->deref)
			fprintf(f, "%+lld%s", (long long)l->off,
				l->deref ? "*" : "");
		break;
	default:
		fprintf(f, "?%d", l->kind);
	}
}

/**
 * canon_print() - print the rule of one PC on one line
 * @f:		output
 * @machine:	EM_X86_64 or EM_AARCH64, for register names
 * @pc:		the address looked up
 * @r:		its rule, or NULL when the decoder has none
 *
 * An outermost frame (RA undefined) prints no CFA and FP: the walk stops
 * there, so a decoder need not compute them.  The PAC key is printed only
 * for a mangled RA, the only case where it matters.
 */
void canon_print(FILE *f, unsigned int machine, uint64_t pc,
		 const struct canon_rule *r)
{
	fprintf(f, "%llx", (unsigned long long)pc);
	if (!r) {
		fputs(" none\n", f);
		return;
	}
	if (r->ra.kind == CANON_UNDEF) {
		fprintf(f, " cfa=- ra=u fp=-%s\n", r->signal ? " signal" : "");
		return;
	}
	fputs(" cfa=", f);
	canon_loc(f, machine, &r->cfa, true);
	fputs(" ra=", f);
	canon_loc(f, machine, &r->ra, false);
	fputs(" fp=", f);
	canon_loc(f, machine, &r->fp, false);
	if (r->mangled)
		fputs(r->keyb ? " mangled keyb" : " mangled", f);
	if (r->signal)
		fputs(" signal", f);
	fputc('\n', f);
}
