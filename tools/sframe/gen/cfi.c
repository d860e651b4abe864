// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen: an object's DWARF CFI as SFrame rows.
 *
 * libdw does the work: dwarf_next_cfi() lists the entries of .eh_frame and
 * .debug_frame, and dwarf_cfi_addrframe() computes the rule of every row.
 * Two things it does not hand out are read here from the entries' bytes:
 * an FDE's address range (two encoded pointers) and, on arm64, the return
 * address signing state that DW_CFA_AARCH64_negate_ra_state toggles, which
 * libdw 0.192 executes as a no-op.  Both are checked against libdw: the
 * first row must start where the FDE does, and the rows the instruction
 * scan finds must be libdw's rows.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "sframe-gen.h"

const char *const sfgen_reason_name[SFGEN_NREASONS] = {
	[SFGEN_OK]		= "ok",
	[SFGEN_CFA_EXPR]	= "cfa-expression",
	[SFGEN_CFA_REG]		= "cfa-register",
	[SFGEN_RA_RULE]		= "ra-rule",
	[SFGEN_RA_OFFSET]	= "ra-offset",
	[SFGEN_FP_RULE]		= "fp-rule",
	[SFGEN_FP_NO_RA]	= "fp-without-ra",
	[SFGEN_SP_RULE]		= "sp-rule",
	[SFGEN_SIGNAL]		= "signal-frame",
	[SFGEN_RA_STATE]	= "ra-state",
	[SFGEN_CFI_ERROR]	= "cfi-error",
	[SFGEN_OVERLAP]		= "overlap",
	[SFGEN_NOT_TEXT]	= "not-text",
	[SFGEN_LIMITS]		= "limits",
};

/* A cursor over CFI bytes: reads past @end set @bad and return 0. */
struct cursor {
	const uint8_t	*p;
	const uint8_t	*end;
	bool		bad;
};

/*
 * The value bits of a LEB128 number (0 if it runs past the end), their
 * count in *@shift and its last byte in *@last, for the sign.
 */
static uint64_t get_leb(struct cursor *c, unsigned int *shift, uint8_t *last)
{
	uint64_t v = 0;
	uint8_t b;

	*shift = 0;
	do {
		if (c->p >= c->end) {
			c->bad = true;
			*last = 0;
			return 0;
		}
		b = *c->p++;
		if (*shift < 64)
			v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	*last = b;
	return v;
}

static uint64_t get_uleb(struct cursor *c)
{
	unsigned int shift;
	uint8_t last;

	return get_leb(c, &shift, &last);
}

static int64_t get_sleb(struct cursor *c)
{
	unsigned int shift;
	uint8_t last;
	uint64_t v = get_leb(c, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

/* @n bytes, little-endian: the only byte order sframe-gen reads */
static uint64_t get_fixed(struct cursor *c, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static void skip(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return;
	}
	c->p += n;
}

/* The value part of a DW_EH_PE encoding; false for one not known. */
static bool get_format(struct cursor *c, uint8_t enc, uint64_t *val)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		*val = get_fixed(c, 8);
		break;
	case DW_EH_PE_uleb128:
		*val = get_uleb(c);
		break;
	case DW_EH_PE_udata2:
		*val = get_fixed(c, 2);
		break;
	case DW_EH_PE_udata4:
		*val = get_fixed(c, 4);
		break;
	case DW_EH_PE_sleb128:
		*val = get_sleb(c);
		break;
	case DW_EH_PE_sdata2:
		*val = (int16_t)get_fixed(c, 2);
		break;
	case DW_EH_PE_sdata4:
		*val = (int32_t)get_fixed(c, 4);
		break;
	default:
		return false;
	}
	return !c->bad;
}

/*
 * An FDE's initial location: absolute, or relative to the field's own
 * address (@field_addr); other applications are not used for it by GNU
 * toolchains.
 */
static bool get_address(struct cursor *c, uint8_t enc, uint64_t field_addr,
			uint64_t *val)
{
	if (enc & DW_EH_PE_indirect)
		return false;
	if (!get_format(c, enc, val))
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		return true;
	case DW_EH_PE_pcrel:
		*val += field_addr;
		return true;
	default:
		return false;
	}
}

/* What an FDE needs from its CIE */
struct cie {
	Dwarf_Off	offset;
	const uint8_t	*insns;
	size_t		ninsns;
	uint64_t	caf;
	uint8_t		ptr_enc;
	bool		has_aug_data;	/* 'z': FDEs have augmentation data */
	bool		signal;
	bool		key_b;
	bool		known;		/* the augmentation was understood */
};

static void read_cie(const Dwarf_CIE *e, Dwarf_Off offset, struct cie *cie)
{
	const char *aug = e->augmentation;
	struct cursor c = {
		.p = e->augmentation_data,
		.end = e->augmentation_data + e->augmentation_data_size,
	};
	uint64_t ignored;

	memset(cie, 0, sizeof(*cie));
	cie->offset = offset;
	cie->insns = e->initial_instructions;
	cie->ninsns = e->initial_instructions_end - e->initial_instructions;
	cie->caf = e->code_alignment_factor;
	cie->ptr_enc = DW_EH_PE_absptr;
	cie->known = true;
	if (aug[0] == '\0')
		return;
	if (aug[0] != 'z') {
		cie->known = false;
		return;
	}
	cie->has_aug_data = true;
	for (aug++; *aug && !c.bad; aug++) {
		switch (*aug) {
		case 'R':
			cie->ptr_enc = get_fixed(&c, 1);
			break;
		case 'L':
			skip(&c, 1);
			break;
		case 'P':
			if (!get_format(&c, get_fixed(&c, 1), &ignored))
				cie->known = false;
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B':
			cie->key_b = true;
			break;
		case 'G':	/* arm64 MTE-tagged frames: no data */
			break;
		default:
			cie->known = false;
			return;
		}
	}
	if (c.bad)
		cie->known = false;
}

struct fde_list {
	struct sfgen_fde *fdes;
	size_t		n;
	size_t		cap;
};

static struct sfgen_fde *new_fde(struct fde_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct sfgen_fde *f = realloc(l->fdes, cap * sizeof(*f));

		if (!f)
			return NULL;
		l->fdes = f;
		l->cap = cap;
	}
	memset(&l->fdes[l->n], 0, sizeof(l->fdes[0]));
	return &l->fdes[l->n++];
}

static int cmp_cie(const void *key, const void *elem)
{
	Dwarf_Off off = *(const Dwarf_Off *)key;
	const struct cie *cie = elem;

	return off < cie->offset ? -1 : off > cie->offset;
}

/*
 * Every entry of one CFI section: CIEs come before the FDEs that use them
 * in what GNU tools write, so one pass finds them; an FDE whose CIE was not
 * seen (or not understood) is kept with SFGEN_CFI_ERROR so it is counted.
 */
static int read_section(struct sfgen_obj *obj, Elf_Scn *scn, bool eh,
			Dwarf_CFI *cfi, struct fde_list *out)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(obj->elf, NULL);
	Elf_Data *data = elf_getdata(scn, NULL);
	struct cie *cies = NULL, *cie;
	size_t ncies = 0, cap = 0;
	Dwarf_Off off = 0, next;
	GElf_Shdr shdr;
	int ret = 0;

	if (!data || !gelf_getshdr(scn, &shdr))
		return -1;
	for (;;) {
		Dwarf_CFI_Entry e;
		struct sfgen_fde *f;
		uint64_t start, len;
		struct cursor c;
		int rc;

		next = (Dwarf_Off)-1;
		rc = dwarf_next_cfi(ident, data, eh, off, &next, &e);
		if (rc > 0)
			break;
		if (rc < 0) {
			/* a bad entry that can be skipped, or the end */
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		if (dwarf_cfi_cie_p(&e)) {
			if (ncies == cap) {
				cap = cap ? 2 * cap : 8;
				cie = realloc(cies, cap * sizeof(*cie));
				if (!cie) {
					ret = -1;
					break;
				}
				cies = cie;
			}
			read_cie(&e.cie, off, &cies[ncies++]);
			off = next;
			continue;
		}
		off = next;
		cie = bsearch(&e.fde.CIE_pointer, cies, ncies, sizeof(*cies),
			      cmp_cie);
		f = new_fde(out);
		if (!f) {
			ret = -1;
			break;
		}
		f->cfi = cfi;
		f->debug_frame = !eh;
		c.p = e.fde.start;
		c.end = e.fde.end;
		c.bad = false;
		if (!cie || !cie->known ||
		    !get_address(&c, cie->ptr_enc, shdr.sh_addr +
				 (e.fde.start - (const uint8_t *)data->d_buf),
				 &start) ||
		    !get_format(&c, cie->ptr_enc & 0x0f, &len) ||
		    start + len < start) {
			f->why = SFGEN_CFI_ERROR;
			continue;
		}
		if (cie->has_aug_data)
			skip(&c, get_uleb(&c));
		if (c.bad) {
			f->why = SFGEN_CFI_ERROR;
			continue;
		}
		if (!len) {		/* describes nothing */
			out->n--;
			continue;
		}
		f->start = start;
		f->end = start + len;
		f->cie_insns = cie->insns;
		f->ncie_insns = cie->ninsns;
		f->insns = c.p;
		f->ninsns = c.end - c.p;
		f->caf = cie->caf;
		f->signal = cie->signal;
		f->key_b = cie->key_b;
	}
	free(cies);
	return ret;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct sfgen_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* .eh_frame first: it is the one kept */
	return (int)x->debug_frame - (int)y->debug_frame;
}

static Elf_Scn *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		/* lld types x86-64 .eh_frame SHT_X86_64_UNWIND */
		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_PROGBITS &&
		     shdr.sh_type != SHT_X86_64_UNWIND))
			continue;
		n = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/**
 * sfgen_read_fdes() - list the FDEs of an object
 * @obj:	the object, from sfgen_open()
 *
 * Fills @obj->fdes with the FDEs of .eh_frame and, where no .eh_frame FDE
 * covers the same code, of .debug_frame, sorted by address.  FDEs that
 * describe no byte are dropped; FDEs whose entry cannot be read, and FDEs
 * that overlap another of the same section, are kept with the reason
 * (SFGEN_CFI_ERROR, SFGEN_OVERLAP) so that they are counted.
 *
 * Return: 0, or -1 when out of memory or the sections cannot be read.
 */
int sfgen_read_fdes(struct sfgen_obj *obj)
{
	struct fde_list all = { 0 };
	Elf_Scn *eh, *debug;
	uint64_t max_end = 0;
	size_t i, n = 0, last = 0;

	eh = find_section(obj->elf, ".eh_frame");
	if (eh && obj->eh_cfi && read_section(obj, eh, true, obj->eh_cfi, &all))
		goto fail;
	debug = find_section(obj->elf, ".debug_frame");
	if (debug) {
		Dwarf_CFI *cfi;

		obj->dwarf = dwarf_begin_elf(obj->elf, DWARF_C_READ, NULL);
		cfi = obj->dwarf ? dwarf_getcfi(obj->dwarf) : NULL;
		if (cfi && read_section(obj, debug, false, cfi, &all))
			goto fail;
	}
	if (all.n)
		qsort(all.fdes, all.n, sizeof(all.fdes[0]), cmp_fde);

	/*
	 * One sweep: an FDE that starts before the furthest end so far
	 * overlaps the FDE that reaches there (@last).  A .debug_frame FDE
	 * over .eh_frame code says again what .eh_frame says: dropped.
	 */
	for (i = 0; i < all.n; i++) {
		struct sfgen_fde *f = &all.fdes[i];

		if (f->why == SFGEN_CFI_ERROR) {
			all.fdes[n++] = *f;
			continue;
		}
		if (n && f->start < max_end) {
			struct sfgen_fde *o = &all.fdes[last];

			if (f->debug_frame && !o->debug_frame)
				continue;
			f->why = SFGEN_OVERLAP;
			o->why = SFGEN_OVERLAP;
		}
		all.fdes[n] = *f;
		if (f->end > max_end || !n) {
			max_end = f->end;
			last = n;
		}
		n++;
	}
	obj->fdes = all.fdes;
	obj->nfdes = n;
	return 0;
fail:
	free(all.fdes);
	return -1;
}

/*
 * The arm64 RA signing state, row by row: the CFA instructions of the CIE
 * and the FDE, of which only the location advances, remember/restore_state
 * and DW_CFA_AARCH64_negate_ra_state matter; every other instruction is
 * skipped by its operands.  An instruction not known, a rule of any other
 * kind on RA_SIGN_STATE, a location that goes back, or a restore without a
 * remember fails the scan.
 */
#define RA_STATE_DEPTH	64

struct ra_scan {
	const struct sfgen_fde *fde;
	struct sfgen_ra_row *rows;
	size_t		n;
	size_t		cap;
	uint64_t	loc;
	bool		state;
	unsigned int	depth;
	bool		stack[RA_STATE_DEPTH];
};

/* Returns 1 at a location past the FDE: the rest cannot make rows. */
static int ra_advance(struct ra_scan *s, uint64_t delta)
{
	uint64_t loc = s->loc + delta * s->fde->caf;

	if (loc < s->loc)
		return -1;
	if (loc == s->loc)
		return 0;
	if (loc >= s->fde->end)
		return 1;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct sfgen_ra_row *r = realloc(s->rows, cap * sizeof(*r));

		if (!r)
			return -1;
		s->rows = r;
		s->cap = cap;
	}
	s->rows[s->n].pc = loc;
	s->rows[s->n].signed_ra = s->state;
	s->n++;
	s->loc = loc;
	return 0;
}

static void ra_set(struct ra_scan *s, bool state)
{
	s->state = state;
	if (s->n)
		s->rows[s->n - 1].signed_ra = state;
}

/*
 * The register an instruction gives a rule to: any rule on RA_SIGN_STATE
 * but the toggle (an expression, a restore, undefined...) is one the scan
 * does not follow, and fails it.
 */
static bool ra_reg_ok(struct cursor *c)
{
	return get_uleb(c) != SFGEN_A64_RA_SIGN_STATE;
}

static int ra_run(struct ra_scan *s, const uint8_t *insns, size_t len,
		  bool cie)
{
	struct cursor c = { .p = insns, .end = insns + len };
	int rc = 0;

	while (c.p < c.end && !c.bad && !rc) {
		uint8_t op = *c.p++;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			rc = cie ? -1 : ra_advance(s, op & 0x3f);
			continue;
		case DW_CFA_offset:
			if ((op & 0x3f) == SFGEN_A64_RA_SIGN_STATE)
				return -1;
			get_uleb(&c);
			continue;
		case DW_CFA_restore:
			if ((op & 0x3f) == SFGEN_A64_RA_SIGN_STATE)
				return -1;
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4: {
			static const unsigned int size[] = { 1, 2, 4 };
			uint64_t d = get_fixed(&c, size[op - DW_CFA_advance_loc1]);

			rc = cie || c.bad ? -1 : ra_advance(s, d);
			break;
		}
		case DW_CFA_offset_extended:
		case DW_CFA_register:
		case DW_CFA_val_offset:
		case DW_CFA_GNU_negative_offset_extended:
			if (!ra_reg_ok(&c))
				return -1;
			get_uleb(&c);
			break;
		case DW_CFA_def_cfa:
			get_uleb(&c);
			get_uleb(&c);
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			if (!ra_reg_ok(&c))
				return -1;
			break;
		case DW_CFA_def_cfa_register:
		case DW_CFA_def_cfa_offset:
		case DW_CFA_GNU_args_size:
			get_uleb(&c);
			break;
		case DW_CFA_def_cfa_offset_sf:
			get_sleb(&c);
			break;
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset_sf:
			if (!ra_reg_ok(&c))
				return -1;
			get_sleb(&c);
			break;
		case DW_CFA_def_cfa_sf:
			get_uleb(&c);
			get_sleb(&c);
			break;
		case DW_CFA_def_cfa_expression:
			skip(&c, get_uleb(&c));
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			if (!ra_reg_ok(&c))
				return -1;
			skip(&c, get_uleb(&c));
			break;
		case DW_CFA_remember_state:
			if (s->depth == RA_STATE_DEPTH)
				return -1;
			s->stack[s->depth++] = s->state;
			break;
		case DW_CFA_restore_state:
			if (!s->depth)
				return -1;
			ra_set(s, s->stack[--s->depth]);
			break;
		case DW_CFA_AARCH64_negate_ra_state:
			ra_set(s, !s->state);
			break;
		default:
			/* DW_CFA_set_loc among them: gcc and gas never emit it */
			return -1;
		}
	}
	return rc < 0 || c.bad ? -1 : 0;
}

/**
 * sfgen_ra_rows() - the RA signing state of an arm64 FDE's rows
 * @fde:	the FDE
 * @rows:	set to a malloc()ed array, the caller frees it
 * @nrows:	its length
 *
 * Runs the CFA instructions for what libdw does not track: one entry for
 * each row (each location the instructions advance to inside the FDE, the
 * first at @fde->start), with the state after the row's instructions.  The
 * caller checks that these are libdw's rows.
 *
 * Return: 0, or -1 when the instructions could not be followed.
 */
int sfgen_ra_rows(const struct sfgen_fde *fde, struct sfgen_ra_row **rows,
		  size_t *nrows)
{
	struct ra_scan s = { .fde = fde, .loc = fde->start, .cap = 16 };
	int rc;

	/* the first row, at the FDE's start */
	s.rows = malloc(s.cap * sizeof(*s.rows));
	if (!s.rows)
		return -1;
	s.rows[0].pc = fde->start;
	s.rows[0].signed_ra = false;
	s.n = 1;
	rc = ra_run(&s, fde->cie_insns, fde->ncie_insns, true);
	if (!rc)
		rc = ra_run(&s, fde->insns, fde->ninsns, false);
	if (rc) {
		free(s.rows);
		return -1;
	}
	*rows = s.rows;
	*nrows = s.n;
	return 0;
}

/*
 * A register's rule (see dwarf_frame_register()): unchanged, undefined,
 * saved at CFA + *@off, or based on register *@reg: the word at *@reg +
 * *@off (*@deref: DW_CFA_expression of one DW_OP_breg) or that value
 * (DW_CFA_register; DW_CFA_val_expression of one DW_OP_breg).
 */
enum reg_rule { REG_UNDEFINED, REG_SAME, REG_AT_CFA, REG_AT_REG, REG_OTHER };

static bool breg_of(const Dwarf_Op *op, int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
	} else if (op->atom == DW_OP_bregx && op->number <= INT32_MAX) {
		*reg = op->number;
		*off = (int64_t)op->number2;
	} else {
		return false;
	}
	return true;
}

static enum reg_rule reg_rule(Dwarf_Frame *frame, int regno, int64_t *off,
			      int *reg, bool *deref)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return REG_OTHER;
	if (!nops)
		return ops ? REG_UNDEFINED : REG_SAME;
	/* DW_CFA_register: another register's value */
	if (nops == 1 && ((ops[0].atom >= DW_OP_reg0 &&
			   ops[0].atom <= DW_OP_reg31) ||
			  (ops[0].atom == DW_OP_regx &&
			   ops[0].number <= INT32_MAX))) {
		*reg = ops[0].atom == DW_OP_regx ? (int)ops[0].number :
						    ops[0].atom - DW_OP_reg0;
		*off = 0;
		*deref = false;
		return REG_AT_REG;
	}
	/* libdw starts every other rule with the CFA, as DWARF evaluates it */
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return REG_OTHER;
	if (nops == 1) {
		*off = 0;
		return REG_AT_CFA;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return REG_AT_CFA;
	}
	if (!breg_of(&ops[1], reg, off))
		return REG_OTHER;
	if (nops == 2) {
		*deref = true;
		return REG_AT_REG;
	}
	if (nops == 3 && ops[2].atom == DW_OP_stack_value) {
		*deref = false;
		return REG_AT_REG;
	}
	return REG_OTHER;
}

/*
 * Is the SP's rule DWARF's default for it, the value CFA + 0 (libdw's
 * backends start every frame with val_offset(0) for it), which SFrame
 * assumes for every row?
 */
static bool sp_is_cfa(Dwarf_Frame *frame, int sp)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, sp, mem, &ops, &nops) || nops < 2)
		return false;
	if (ops[0].atom != DW_OP_call_frame_cfa ||
	    ops[nops - 1].atom != DW_OP_stack_value)
		return false;
	return nops == 2 || (nops == 3 && ops[1].atom == DW_OP_plus_uconst &&
			     !ops[1].number);
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * A CFA expression at one address: CFA = SP + *off, computed with SP as
 * the unknown and the x86-64 RIP as @pc, or false.  The x86-64 lazy PLT
 * has one: SP + 8, plus 8 from the push on in each 16-byte entry
 * (breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus).  Any
 * operation but adding a constant to the SP-relative value fails, and so
 * does any operation not listed here.
 */
struct sym {
	uint64_t v;	/* modulo 2^64, as the DWARF machine computes */
	bool	sp;	/* v + SP, else v */
};

#define EVAL_DEPTH	16

static bool eval_cfa(const struct sfgen_obj *obj, const Dwarf_Op *ops,
		     size_t nops, uint64_t pc, int64_t *off)
{
	bool x86 = obj->machine == EM_X86_64;
	unsigned int sp = x86 ? SFGEN_X86_SP : SFGEN_A64_SP;
	struct sym st[EVAL_DEPTH], a, b;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < nops; i++) {
		uint8_t op = ops[i].atom;
		uint64_t reg = ~0ULL, o = ops[i].number;

		if (n == EVAL_DEPTH)
			return false;
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			reg = op - DW_OP_breg0;
		} else if (op == DW_OP_bregx) {
			reg = ops[i].number;
			o = ops[i].number2;
		}
		if (reg == sp) {
			st[n++] = (struct sym){ o, true };
			continue;
		}
		if (x86 && reg == 16) {		/* RIP */
			st[n++] = (struct sym){ pc + o, false };
			continue;
		}
		if (reg != ~0ULL)
			return false;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			st[n++] = (struct sym){ op - DW_OP_lit0, false };
			continue;
		}
		switch (op) {
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			st[n++] = (struct sym){ o, false };
			continue;
		case DW_OP_plus_uconst:
			if (!n)
				return false;
			st[n - 1].v += o;
			continue;
		}
		if (n < 2)
			return false;
		b = st[--n];
		a = st[--n];
		if (op == DW_OP_plus && !(a.sp && b.sp)) {
			st[n++] = (struct sym){ a.v + b.v, a.sp || b.sp };
			continue;
		}
		if (op == DW_OP_minus && !b.sp) {
			st[n++] = (struct sym){ a.v - b.v, a.sp };
			continue;
		}
		if (a.sp || b.sp)
			return false;
		switch (op) {
		case DW_OP_and:
			a.v &= b.v;
			break;
		case DW_OP_or:
			a.v |= b.v;
			break;
		case DW_OP_shl:
			if (b.v >= 64)
				return false;
			a.v <<= b.v;
			break;
		case DW_OP_shr:
			if (b.v >= 64)
				return false;
			a.v >>= b.v;
			break;
		case DW_OP_ge:
			a.v = (int64_t)a.v >= (int64_t)b.v;
			break;
		case DW_OP_gt:
			a.v = (int64_t)a.v > (int64_t)b.v;
			break;
		case DW_OP_le:
			a.v = (int64_t)a.v <= (int64_t)b.v;
			break;
		case DW_OP_lt:
			a.v = (int64_t)a.v < (int64_t)b.v;
			break;
		case DW_OP_eq:
			a.v = a.v == b.v;
			break;
		case DW_OP_ne:
			a.v = a.v != b.v;
			break;
		default:
			return false;
		}
		st[n++] = a;
	}
	if (n != 1 || !st[0].sp)
		return false;
	*off = (int64_t)st[0].v;
	return true;
}

/* The highest DWARF register number a flexible FDE's rule may use */
static unsigned int max_gpr(const struct sfgen_obj *obj)
{
	return obj->machine == EM_X86_64 ? SFGEN_X86_MAX_GPR : SFGEN_A64_SP;
}

/**
 * sfgen_row_flex() - does a row need a flexible FDE (SFrame V3)?
 * @obj:	the object
 * @row:	one of its rows, not a hole
 *
 * A default FDE's row has a CFA based on SP or FP, and the FP saved at an
 * offset from the CFA, on arm64 only after the RA.
 *
 * Return: true when @row says more than a default FDE's row can.
 */
bool sfgen_row_flex(const struct sfgen_obj *obj, const struct sfgen_row *row)
{
	bool x86 = obj->machine == EM_X86_64;
	int sp = x86 ? SFGEN_X86_SP : SFGEN_A64_SP;
	int fp = x86 ? SFGEN_X86_FP : SFGEN_A64_FP;

	if (row->why || row->ra == SFGEN_RA_UNDEFINED)
		return false;
	return (row->cfa_reg != sp && row->cfa_reg != fp) || row->cfa_deref ||
	       row->fp == SFGEN_FP_AT_REG ||
	       (row->fp == SFGEN_FP_SAVED && row->ra == SFGEN_RA_IN_LR);
}

/*
 * libdw's rule for one row as an SFrame row at @pc, or why it cannot be
 * one.  *@per_pc is set when the CFA is an expression of the address, whose
 * row must then be asked for at each address of libdw's row.
 */
static enum sfgen_reason row_of(const struct sfgen_obj *obj,
				const struct sfgen_version *ver,
				Dwarf_Frame *frame, int ra_reg, uint64_t pc,
				struct sfgen_row *row, bool *per_pc)
{
	bool x86 = obj->machine == EM_X86_64;
	int sp = x86 ? SFGEN_X86_SP : SFGEN_A64_SP;
	int fp = x86 ? SFGEN_X86_FP : SFGEN_A64_FP;
	int expected_ra = x86 ? SFGEN_X86_RA : SFGEN_A64_LR;
	int64_t ra_off = 0, fp_off = 0, cfa_off;
	enum reg_rule ra, fpr;
	int reg, ra_base, fp_reg = 0;
	bool ra_deref, fp_deref = false;
	Dwarf_Op *ops;
	size_t nops;

	if (ra_reg != expected_ra)
		return SFGEN_RA_RULE;
	ra = reg_rule(frame, ra_reg, &ra_off, &ra_base, &ra_deref);
	if (ra == REG_UNDEFINED) {
		/* the outermost frame: no CFA, RA or FP needed */
		row->ra = SFGEN_RA_UNDEFINED;
		return SFGEN_OK;
	}

	if (dwarf_frame_cfa(frame, &ops, &nops) || !nops)
		return SFGEN_CFA_EXPR;
	if ((nops == 1 || (nops == 2 && ops[1].atom == DW_OP_deref)) &&
	    breg_of(&ops[0], &reg, &cfa_off)) {
		/* reg + offset, or the word there (GCC's DRAP: rbp - 8) */
		if (nops == 2 && !ver->flex)
			return SFGEN_CFA_EXPR;
		row->cfa_deref = nops == 2;
	} else {
		/* an expression of the address, evaluated at each */
		*per_pc = true;
		if (!eval_cfa(obj, ops, nops, pc, &cfa_off))
			return SFGEN_CFA_EXPR;
		reg = sp;
	}
	/* a CFA on another register needs a flexible FDE */
	if ((reg != sp && reg != fp) &&
	    (!ver->flex || reg < 0 || (unsigned int)reg > max_gpr(obj)))
		return SFGEN_CFA_REG;
	if (!fits_s32(cfa_off))
		return SFGEN_LIMITS;
	row->cfa_reg = reg;
	row->cfa_off = cfa_off;

	switch (ra) {
	case REG_AT_CFA:
		if (!fits_s32(ra_off))
			return SFGEN_LIMITS;
		if (x86 && ra_off != -8)
			return SFGEN_RA_OFFSET;
		row->ra = SFGEN_RA_SAVED;
		row->ra_off = ra_off;
		break;
	case REG_SAME:
		if (x86)
			return SFGEN_RA_RULE;
		row->ra = SFGEN_RA_IN_LR;
		break;
	default:
		return SFGEN_RA_RULE;
	}

	fpr = reg_rule(frame, fp, &fp_off, &fp_reg, &fp_deref);
	switch (fpr) {
	case REG_SAME:
		row->fp = SFGEN_FP_SAME;
		break;
	case REG_AT_CFA:
		if (!fits_s32(fp_off))
			return SFGEN_LIMITS;
		/* arm64 default rows carry the FP after the RA, never alone */
		if (row->ra == SFGEN_RA_IN_LR && !ver->flex)
			return SFGEN_FP_NO_RA;
		row->fp = SFGEN_FP_SAVED;
		row->fp_off = fp_off;
		break;
	case REG_AT_REG:
		/* DRAP: the FP saved at FP + 0; or kept in another register */
		if (!ver->flex || fp_reg < 0 ||
		    (unsigned int)fp_reg > max_gpr(obj))
			return SFGEN_FP_RULE;
		if (!fits_s32(fp_off))
			return SFGEN_LIMITS;
		row->fp = SFGEN_FP_AT_REG;
		row->fp_reg = fp_reg;
		row->fp_off = fp_off;
		row->fp_deref = fp_deref;
		break;
	default:
		return SFGEN_FP_RULE;
	}

	/*
	 * The caller's SP is the CFA in every SFrame row: a stack switch
	 * (val_offset, register, expression... on the SP) cannot be one.
	 */
	if (!sp_is_cfa(frame, sp))
		return SFGEN_SP_RULE;
	return SFGEN_OK;
}

static bool same_rule(const struct sfgen_row *a, const struct sfgen_row *b)
{
	return a->why == b->why && a->cfa_reg == b->cfa_reg &&
	       a->cfa_off == b->cfa_off && a->cfa_deref == b->cfa_deref &&
	       a->ra == b->ra && a->ra_off == b->ra_off && a->fp == b->fp &&
	       a->fp_reg == b->fp_reg && a->fp_off == b->fp_off &&
	       a->fp_deref == b->fp_deref && a->mangled == b->mangled;
}

static bool in_one_segment(const struct sfgen_obj *obj,
			   const struct sfgen_fde *fde)
{
	unsigned int i;

	for (i = 0; i < obj->nsegs; i++)
		if (fde->start >= obj->segs[i].vaddr &&
		    fde->end <= obj->segs[i].vaddr + obj->segs[i].memsz)
			return true;
	return false;
}

/* The most rows one SFrame function has: V3 counts them in 16 bits. */
#define SFGEN_MAX_ROWS	65535
/* The most addresses a CFA expression is evaluated at, in one function */
#define SFGEN_MAX_EXPR_BYTES	(16 * 1024 * 1024)

/* Appends @row, or merges it into the last row when the rules are equal. */
static int add_row(struct sfgen_func *func, struct sfgen_row *row,
		   size_t *cap)
{
	if (row->why || row->ra == SFGEN_RA_UNDEFINED) {
		/* a hole's reason, or the outermost frame's RA: all there is */
		*row = (struct sfgen_row){ .pc = row->pc, .why = row->why,
					   .ra = row->why ? 0 : row->ra };
	}
	if (func->nrows && same_rule(&func->rows[func->nrows - 1], row))
		return 0;
	if (func->nrows == *cap) {
		size_t n = *cap ? 2 * *cap : 8;
		struct sfgen_row *r = realloc(func->rows, n * sizeof(*r));

		if (!r)
			return -1;
		func->rows = r;
		*cap = n;
	}
	func->rows[func->nrows++] = *row;
	return 0;
}

/**
 * sfgen_func_rows() - the SFrame rows of one FDE
 * @obj:	the object
 * @fde:	one of @obj->fdes
 * @ver:	what the SFrame version being written can hold
 * @func:	filled in; sfgen_free_func() frees its rows
 *
 * Asks libdw for the rule of each of the FDE's rows and converts it; rows
 * whose rules are the same for SFrame (which does not track the other
 * registers) are merged.  A row whose rule SFrame cannot express becomes a
 * hole, which says why: only its addresses are left without a rule.  When
 * the whole function must be left out (no row could be had at all, or
 * every row is a hole), @func->why says why and where, and @func has no
 * rows.
 *
 * Return: 0, or -1 when out of memory.
 */
int sfgen_func_rows(const struct sfgen_obj *obj, const struct sfgen_fde *fde,
		    const struct sfgen_version *ver, struct sfgen_func *func)
{
	bool a64 = obj->machine == EM_AARCH64;
	struct sfgen_ra_row *ra = NULL;
	size_t nra = 0, ira = 0, cap = 0;
	enum sfgen_reason why = SFGEN_OK;
	uint64_t pc = fde->start, expr_bytes = 0;
	unsigned int i;
	bool oom = false;

	memset(func, 0, sizeof(*func));
	func->fde = fde;
	if (fde->why)
		why = fde->why;
	else if (!in_one_segment(obj, fde))
		why = SFGEN_NOT_TEXT;
	else if (fde->signal && !ver->signal)
		why = SFGEN_SIGNAL;
	else if (fde->end - fde->start > UINT32_MAX)
		why = SFGEN_LIMITS;
	else if (a64 && sfgen_ra_rows(fde, &ra, &nra))
		why = SFGEN_RA_STATE;

	while (!why && pc < fde->end) {
		Dwarf_Addr start, end;
		Dwarf_Frame *frame;
		uint64_t at, row_end;
		bool signal, mangled = false;
		int ra_reg;

		if (dwarf_cfi_addrframe(fde->cfi, pc, &frame)) {
			why = SFGEN_CFI_ERROR;
			break;
		}
		ra_reg = dwarf_frame_info(frame, &start, &end, &signal);
		row_end = end < fde->end ? end : fde->end;
		/*
		 * libdw's end of a row is where the next begins; its start is
		 * not always this row's (after DW_CFA_restore_state it is the
		 * remembered row's), but never before the FDE.
		 */
		if (start > pc || start < fde->start || end <= pc)
			why = SFGEN_CFI_ERROR;
		else if (signal && !ver->signal)
			why = SFGEN_SIGNAL;
		else if (a64 && (ira == nra || ra[ira].pc != pc))
			why = SFGEN_RA_STATE;
		else if (a64)
			mangled = ra[ira++].signed_ra;

		/* once, or at each address for a CFA that depends on it */
		for (at = pc; !why && at < row_end; at++) {
			struct sfgen_row row = { .pc = at, .mangled = mangled };
			bool per_pc = false;

			row.why = row_of(obj, ver, frame, ra_reg, at, &row,
					 &per_pc);
			/* bounded work: the row's length counts once */
			if (per_pc && at == pc) {
				expr_bytes += row_end - pc;
				if (expr_bytes > SFGEN_MAX_EXPR_BYTES) {
					row.why = SFGEN_CFA_EXPR;
					per_pc = false;
				}
			}
			if (add_row(func, &row, &cap))
				oom = true;
			else if (func->nrows > SFGEN_MAX_ROWS)
				why = SFGEN_LIMITS;
			if (!per_pc || oom)
				break;
		}
		free(frame);
		if (oom) {
			free(ra);
			return -1;
		}
		if (!why)
			pc = row_end;
	}
	if (!why && a64 && ira != nra)
		why = SFGEN_RA_STATE;
	free(ra);
	/* nothing but holes: the function is left out for the first */
	for (i = 0; !why && i < func->nrows && func->rows[i].why; i++)
		;
	if (!why && i == func->nrows) {
		why = func->nrows ? func->rows[0].why : SFGEN_CFI_ERROR;
		pc = fde->start;
	}
	if (why) {
		func->why = why;
		func->why_pc = pc;
		free(func->rows);
		func->rows = NULL;
		func->nrows = 0;
	}
	return 0;
}

/**
 * sfgen_free_func() - free the rows sfgen_func_rows() made
 * @func:	the function
 */
void sfgen_free_func(struct sfgen_func *func)
{
	free(func->rows);
	func->rows = NULL;
	func->nrows = 0;
}
