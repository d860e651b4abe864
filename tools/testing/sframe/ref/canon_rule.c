// SPDX-License-Identifier: GPL-2.0
/*
 * canon: the kernel decoder's rule in the dumpers' common notation (canon.h).
 * Compiled with the decoder's shims (../shim.mk), unlike canon.c.
 */
#include <string.h>
#include <linux/sframe.h>

#include "canon.h"

static void canon_loc_of(struct canon_loc *c, const struct sframe_loc *l)
{
	switch (l->kind) {
	case SFRAME_LOC_SAME:
		c->kind = CANON_SAME;
		break;
	case SFRAME_LOC_UNDEFINED:
		c->kind = CANON_UNDEF;
		break;
	case SFRAME_LOC_CFA:
		c->kind = CANON_CFA;
		break;
	case SFRAME_LOC_SP:
		c->kind = CANON_SP;
		break;
	case SFRAME_LOC_FP:
		c->kind = CANON_FP;
		break;
	case SFRAME_LOC_REG:
		/* SP or FP by number prints as rN: never agrees */
		c->kind = CANON_REG;
		break;
	default:
		/* Shows up in the diff as "?<kind>" */
		c->kind = (enum canon_kind)(l->kind + 100);
	}
	c->reg = l->reg;
	c->deref = l->deref;
	c->off = l->offset;
}

/**
 * canon_from_rule() - the canonical form of a rule of sframe_find_rule()
 * @c:		filled in
 * @rule:	the decoder's rule
 *
 * A rule whose outermost flag disagrees with its RA gets an RA that never
 * agrees with any other dumper's.
 */
void canon_from_rule(struct canon_rule *c, const struct sframe_rule *rule)
{
	memset(c, 0, sizeof(*c));
	canon_loc_of(&c->cfa, &rule->cfa);
	canon_loc_of(&c->ra, &rule->ra);
	canon_loc_of(&c->fp, &rule->fp);
	if (!(rule->flags & SFRAME_RULE_OUTERMOST) !=
	    !(rule->ra.kind == SFRAME_LOC_UNDEFINED))
		c->ra.kind = CANON_REG + 200;
	c->mangled = rule->flags & SFRAME_RULE_RA_MANGLED;
	c->keyb = rule->flags & SFRAME_RULE_PAUTH_KEY_B;
	c->signal = rule->flags & SFRAME_RULE_SIGNAL;
}
