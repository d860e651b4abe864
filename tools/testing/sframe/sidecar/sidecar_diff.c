// SPDX-License-Identifier: GPL-2.0
/*
 * sidecar-diff: SFrame sections against the CFI they should say again.  At
 * every address of an object's executable segments, the rule that the
 * kernel's decoder (kernel/unwind/sframe.c, on the harness's fake user
 * memory) finds in an SFrame section is compared with the rule libdw
 * computes from the object's own DWARF CFI:
 *
 *   sidecar-diff [-m N] [-c N] OBJECT SIDECAR <VERDICTS
 *	SIDECAR is sframe-gen's sidecar of OBJECT and VERDICTS its
 *	"sframe-gen -l" list of FDE verdicts.  Every address of a function it
 *	kept must have the CFI's rule; every function it left out must have
 *	no rule, and when it was left out for a rule SFrame cannot express,
 *	this program must find such a rule in it too.
 *   sidecar-diff -s OBJECT
 *	the object's own SFrame section (PT_GNU_SFRAME, made by gas and ld):
 *	prints every range where it and the CFI disagree, with the function
 *	or section it is in.
 *
 * -m N changes the decoder's rule of every Nth address that has one (CFA
 * offset + 8), and -c N flips a bit of every Nth byte of the section's FRE
 * sub-section: the tests that prove the comparison fails when it should.
 * The last line on stdout is a summary for check.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <linux/sframe.h>

#include "canon.h"
#include "sfelf.h"
#include "sframe-gen.h"
#include "test_mem.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* What the CFI says at an address */
enum oracle { OR_NONE, OR_RULE, OR_INEXPRESSIBLE };

/* The part of the CFI of one FDE the oracle keeps between addresses */
struct fde_state {
	const struct sfgen_fde	*fde;
	struct sfgen_ra_row	*ra;	/* arm64 signing state, NULL if unknown */
	size_t			nra;
	bool			ra_failed;
	uint64_t		row_end;	/* the cached row: [.., row_end) */
	enum oracle		kind;
	struct canon_rule	rule;
	char			text[96];
};

static unsigned int machine;
static bool have_signal;	/* the section's version can mark them (V3) */
static bool have_flex;		/* ... and has flexible FDEs (V3) */

static void canon_str(const struct canon_rule *r, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	char *p;

	if (!f) {
		snprintf(buf, len, "?");
		return;
	}
	canon_print(f, machine, 0, r);
	fclose(f);
	/* drop the address and the newline */
	p = strchr(buf, ' ');
	memmove(buf, p ? p + 1 : buf, strlen(p ? p + 1 : buf) + 1);
	p = strchr(buf, '\n');
	if (p)
		*p = '\0';
}

/*
 * A register's rule as a canonical location: unchanged, undefined, the word
 * at CFA + offset, the value CFA + offset, or another register's value;
 * false for a DWARF expression.
 */
/* Register @reg as the decoder reports it: SP and FP by their kinds */
static void reg_loc(struct canon_loc *l, unsigned int reg)
{
	bool x86 = machine == EM_X86_64;

	l->reg = reg;
	if (reg == (x86 ? CANON_X86_SP : CANON_A64_SP))
		l->kind = CANON_SP;
	else if (reg == (x86 ? CANON_X86_FP : CANON_A64_FP))
		l->kind = CANON_FP;
	else
		l->kind = CANON_REG;
}

static bool oracle_reg(Dwarf_Frame *frame, int regno, struct canon_loc *l)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return false;
	if (!nops) {
		l->kind = ops ? CANON_UNDEF : CANON_SAME;
		return true;
	}
	if (nops == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		reg_loc(l, ops[0].atom - DW_OP_reg0);
		return true;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx) {
		reg_loc(l, ops[0].number);
		return true;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (ops[1].atom >= DW_OP_breg0 && ops[1].atom <= DW_OP_breg31 &&
	    (nops == 2 || (nops == 3 && ops[2].atom == DW_OP_stack_value))) {
		/*
		 * DW_CFA_expression (the word at reg + off) or its val_ form,
		 * after the CFA that DWARF pushes first
		 */
		reg_loc(l, ops[1].atom - DW_OP_breg0);
		l->off = (int64_t)ops[1].number;
		l->deref = nops == 2;
		return true;
	}
	l->kind = CANON_CFA;
	l->deref = true;
	if (nops > 1 && ops[nops - 1].atom == DW_OP_stack_value) {
		l->deref = false;	/* val_offset: the value CFA + offset */
		nops--;
	}
	if (nops == 1)
		return true;
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		l->off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* The ra signing state at @pc, from the scan of the FDE's instructions */
static bool ra_signed(const struct fde_state *st, uint64_t pc)
{
	bool s = false;
	size_t i;

	for (i = 0; i < st->nra && st->ra[i].pc <= pc; i++)
		s = st->ra[i].signed_ra;
	return s;
}

/*
 * A DWARF expression evaluated as a machine would, with concrete values of
 * the stack pointer @sp and, on x86-64, of RIP (@pc); false for any other
 * register, for memory, and for operations the expressions of CFAs in the
 * tested objects do not use.
 */
static bool eval_expr(const Dwarf_Op *ops, size_t nops, uint64_t sp,
		      uint64_t pc, uint64_t *val)
{
	bool x86 = machine == EM_X86_64;
	uint64_t st[16], a, b;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < nops; i++) {
		uint8_t op = ops[i].atom;

		if (n == ARRAY_SIZE(st))
			return false;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			st[n++] = op - DW_OP_lit0;
			continue;
		}
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			unsigned int reg = op - DW_OP_breg0;

			if (reg == (x86 ? 7U : 31U))
				st[n++] = sp + ops[i].number;
			else if (x86 && reg == 16)
				st[n++] = pc + ops[i].number;
			else
				return false;
			continue;
		}
		switch (op) {
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			st[n++] = ops[i].number;
			continue;
		case DW_OP_plus_uconst:
			if (!n)
				return false;
			st[n - 1] += ops[i].number;
			continue;
		}
		if (n < 2)
			return false;
		b = st[--n];
		a = st[--n];
		switch (op) {
		case DW_OP_plus:
			a += b;
			break;
		case DW_OP_minus:
			a -= b;
			break;
		case DW_OP_and:
			a &= b;
			break;
		case DW_OP_or:
			a |= b;
			break;
		case DW_OP_shl:
			a = b < 64 ? a << b : 0;
			break;
		case DW_OP_shr:
			a = b < 64 ? a >> b : 0;
			break;
		case DW_OP_ge:
			a = (int64_t)a >= (int64_t)b;
			break;
		case DW_OP_gt:
			a = (int64_t)a > (int64_t)b;
			break;
		case DW_OP_le:
			a = (int64_t)a <= (int64_t)b;
			break;
		case DW_OP_lt:
			a = (int64_t)a < (int64_t)b;
			break;
		case DW_OP_eq:
			a = a == b;
			break;
		case DW_OP_ne:
			a = a != b;
			break;
		default:
			return false;
		}
		st[n++] = a;
	}
	if (n != 1)
		return false;
	*val = st[0];
	return true;
}

/*
 * The CFA as a canonical location: a register plus an offset, or the word
 * there; or, for an expression, SP plus what it gives with two stack
 * pointers minus each of them, when that is the same (*@per_pc then says
 * that the rule holds at @pc only).
 */
static bool oracle_cfa(Dwarf_Frame *frame, uint64_t pc, struct canon_loc *l,
		       bool *per_pc)
{
	const uint64_t sp1 = 0x7ffe00001000, sp2 = sp1 + 0x1238;
	uint64_t cfa1, cfa2;
	Dwarf_Op *ops;
	size_t nops;
	int reg;

	if (dwarf_frame_cfa(frame, &ops, &nops) || !nops)
		return false;
	if (nops > 2 || (nops == 2 && ops[1].atom != DW_OP_deref)) {
		if (!eval_expr(ops, nops, sp1, pc, &cfa1) ||
		    !eval_expr(ops, nops, sp2, pc, &cfa2) ||
		    cfa1 - sp1 != cfa2 - sp2)
			return false;
		l->kind = CANON_SP;
		l->off = (int64_t)(cfa1 - sp1);
		*per_pc = true;
		return true;
	}
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		l->off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		l->off = (int64_t)ops[0].number;
	} else {
		return false;
	}
	if (nops == 2)
		l->deref = true;
	reg_loc(l, reg);
	return true;
}

/* A location based on a register that a flexible FDE's rule can name */
static bool flex_loc(const struct canon_loc *l)
{
	if (l->kind == CANON_SP || l->kind == CANON_FP)
		return true;
	return l->kind == CANON_REG &&
	       l->reg <= (machine == EM_X86_64 ? 15U : 31U);
}

/*
 * The CFI's rule at @pc in the canonical notation, straight from libdw's
 * expressions: OR_INEXPRESSIBLE when the notation has no form for it (a
 * DWARF expression), or with @strict when an SFrame row of sframe-gen's
 * cannot hold it.
 */
static enum oracle oracle_at(struct fde_state *st, uint64_t pc, bool strict)
{
	bool x86 = machine == EM_X86_64;
	struct canon_rule *c = &st->rule;
	bool signal, ok, per_pc = false, sp_cfa = false;
	struct canon_loc sp;
	Dwarf_Addr start, end;
	Dwarf_Frame *frame;
	int ra;

	memset(c, 0, sizeof(*c));
	st->row_end = pc + 1;
	if (dwarf_cfi_addrframe(st->fde->cfi, pc, &frame))
		return OR_INEXPRESSIBLE;
	ra = dwarf_frame_info(frame, &start, &end, &signal);
	if (end > pc)
		st->row_end = end < st->fde->end ? end : st->fde->end;
	c->signal = signal || st->fde->signal;
	ok = ra == (x86 ? 16 : 30) && oracle_reg(frame, ra, &c->ra);
	if (ok && c->ra.kind != CANON_UNDEF)
		ok = oracle_cfa(frame, pc, &c->cfa, &per_pc) &&
		     oracle_reg(frame, x86 ? 6 : 29, &c->fp);
	/* the caller's SP: SFrame's is the CFA, DWARF's default */
	memset(&sp, 0, sizeof(sp));
	if (ok && oracle_reg(frame, x86 ? 7 : 31, &sp))
		sp_cfa = sp.kind == CANON_CFA && !sp.deref && !sp.off;
	free(frame);
	if (per_pc)
		st->row_end = pc + 1;
	if (!ok)
		return OR_INEXPRESSIBLE;
	if (c->ra.kind == CANON_UNDEF)
		return c->signal && strict && !have_signal ? OR_INEXPRESSIBLE : OR_RULE;
	if (!x86 && c->ra.kind == CANON_SAME) {
		/* arm64: the return address is still in the link register */
		c->ra.kind = CANON_REG;
		c->ra.reg = 30;
	}
	if (!x86) {
		if (st->ra_failed)
			return OR_INEXPRESSIBLE;
		c->mangled = ra_signed(st, pc);
		c->keyb = c->mangled && st->fde->key_b;
	}
	if (!strict)
		return OR_RULE;

	/* what sframe-gen's rows hold: see struct sfgen_row */
	if (c->signal && !have_signal)
		return OR_INEXPRESSIBLE;
	if (!flex_loc(&c->cfa) ||
	    (!have_flex && (c->cfa.kind == CANON_REG || c->cfa.deref)))
		return OR_INEXPRESSIBLE;
	if (c->ra.kind == CANON_CFA) {
		if (!c->ra.deref || (x86 && c->ra.off != -8))
			return OR_INEXPRESSIBLE;
	} else if (x86 || c->ra.kind != CANON_REG || c->ra.reg != 30 ||
		   c->ra.deref || c->ra.off) {
		return OR_INEXPRESSIBLE;
	}
	if (c->fp.kind == CANON_CFA) {
		/* and arm64 default rows keep the FP after the RA only */
		if (!c->fp.deref || (c->ra.kind == CANON_REG && !have_flex))
			return OR_INEXPRESSIBLE;
	} else if (c->fp.kind != CANON_SAME &&
		   (!have_flex || !flex_loc(&c->fp))) {
		return OR_INEXPRESSIBLE;
	}
	if (!sp_cfa)
		return OR_INEXPRESSIBLE;
	return OR_RULE;
}

/*
 * Where the section is mapped: not where its offsets put it (@addr, the
 * sidecar's sh_addr or the object's own section address) but 64 TiB
 * higher, as a loader maps a sidecar file wherever mmap() puts it and tells
 * the kernel sframe_addr = @addr.
 */
#define SECTION_MAP_OFFSET	0x400000000000ULL	/* 64 TiB */

/* The SFrame section under test, in fake user memory */
struct section {
	struct sframe_section	sec[SFGEN_MAX_SEGS];
	uint64_t		addr;	/* where its offsets put it */
	uint64_t		map;	/* where its bytes are */
	size_t			len;
	uint8_t			*bytes;
};

static int map_section(struct section *s, const struct sfgen_obj *obj,
		       const uint8_t *bytes, size_t len, uint64_t addr,
		       unsigned int corrupt, unsigned long *ncorrupt)
{
	unsigned int i;
	int rc;

	s->bytes = malloc(len);
	if (!s->bytes)
		return -1;
	memcpy(s->bytes, bytes, len);
	s->addr = addr;
	s->map = addr + SECTION_MAP_OFFSET;
	s->len = len;
	if (corrupt && len >= 28) {
		uint32_t fre_len, fres_off;
		size_t at;

		memcpy(&fre_len, s->bytes + 16, 4);
		memcpy(&fres_off, s->bytes + 24, 4);
		at = 28 + s->bytes[7] + (size_t)fres_off;
		for (; at < len && fre_len; at += corrupt,
		     fre_len = fre_len > corrupt ? fre_len - corrupt : 0) {
			s->bytes[at] ^= 0x08;
			(*ncorrupt)++;
		}
	}
	test_mem_reset();
	if (test_mem_map(s->map, s->bytes, len))
		return -1;
	test_mem_set_window(s->map, s->map + len);
	for (i = 0; i < obj->nsegs; i++) {
		rc = sframe_section_init(&s->sec[i], s->map, s->map + len,
					 addr, obj->segs[i].vaddr,
					 obj->segs[i].vaddr + obj->segs[i].memsz);
		if (rc) {
			fprintf(stderr, "%s: sframe_section_init: %d (%s)\n",
				obj->path, rc, test_last_reject() ?: "?");
			return -1;
		}
	}
	return 0;
}

/* The decoder's rule at @pc as text, or "none"; -1 on an unexpected error */
static int decoder_at(const struct sframe_section *sec, uint64_t pc,
		      unsigned long mutate, unsigned long *nfound,
		      unsigned long *nmutated, char *buf, size_t len)
{
	static struct sframe_rule last;
	static unsigned long nmutable;
	static char last_text[96];
	static bool have_last;
	struct sframe_rule rule;
	u32 budget = SFRAME_WALK_BUDGET;
	struct canon_rule c;
	int rc;

	memset(&rule, 0, sizeof(rule));
	rc = sframe_find_rule(sec, pc, true, &rule, &budget);
	if (rc) {
		snprintf(buf, len, "none");
		return rc == -ENOENT ? 0 : -1;
	}
	(*nfound)++;
	/* an outermost rule prints no CFA: changing it would change nothing */
	if (mutate && !(rule.flags & SFRAME_RULE_OUTERMOST) &&
	    ++nmutable % mutate == 0) {
		canon_from_rule(&c, &rule);
		c.cfa.off += 8;
		canon_str(&c, buf, len);
		(*nmutated)++;
		return 1;
	}
	/* consecutive addresses mostly share a rule: print it once */
	if (!have_last || memcmp(&rule, &last, sizeof(rule))) {
		canon_from_rule(&c, &rule);
		canon_str(&c, last_text, sizeof(last_text));
		last = rule;
		have_last = true;
	}
	snprintf(buf, len, "%s", last_text);
	return 1;
}

/* The name of what contains @pc: its function symbol, else its section */
static const char *where(const struct sfgen_obj *obj, uint64_t pc)
{
	static char buf[256];
	const char *best = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(obj->elf, &shstrndx))
		return "?";
	while ((scn = elf_nextscn(obj->elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if ((sh.sh_flags & SHF_ALLOC) && pc >= sh.sh_addr &&
		    pc < sh.sh_addr + sh.sh_size && sh.sh_type != SHT_NOBITS)
			best = elf_strptr(obj->elf, shstrndx, sh.sh_name);
		if (sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; d && i < n; i++) {
			GElf_Sym sym;

			if (gelf_getsym(d, i, &sym) &&
			    GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    pc >= sym.st_value && pc < sym.st_value + sym.st_size) {
				snprintf(buf, sizeof(buf), "%s",
					 elf_strptr(obj->elf, sh.sh_link,
						    sym.st_name) ?: "?");
				return buf;
			}
		}
	}
	return best ?: "?";
}

/* The addresses looked up: the executable sections, in their segments */
struct span {
	uint64_t	start;
	uint64_t	end;
	unsigned int	seg;
};

static struct span spans[256];
static unsigned int nspans;

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int find_spans(const struct sfgen_obj *obj)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	unsigned int i;

	while ((scn = elf_nextscn(obj->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		for (i = 0; i < obj->nsegs; i++) {
			const struct sfgen_seg *g = &obj->segs[i];

			if (sh.sh_addr < g->vaddr ||
			    sh.sh_addr + sh.sh_size > g->vaddr + g->memsz)
				continue;
			if (nspans == ARRAY_SIZE(spans))
				return -1;
			spans[nspans].start = sh.sh_addr;
			spans[nspans].end = sh.sh_addr + sh.sh_size;
			spans[nspans++].seg = i;
			break;
		}
		if (i == obj->nsegs)
			return -1;	/* code outside the executable segments */
	}
	qsort(spans, nspans, sizeof(spans[0]), cmp_span);
	return nspans ? 0 : -1;
}

/*
 * One verdict of "sframe-gen -l": "start end reason [pc]" of an FDE, then
 * for a function kept in part ("partial") its holes, "  start end reason".
 */
struct verdict {
	uint64_t	start;
	uint64_t	end;
	int		why;
	bool		partial;
	size_t		hole;	/* its first hole in the hole list */
	size_t		nholes;
};

struct hole {
	uint64_t	start;
	uint64_t	end;
	int		why;
};

static int reason_of(const char *name)
{
	int r;

	for (r = 0; r < SFGEN_NREASONS; r++)
		if (!strcmp(name, sfgen_reason_name[r]))
			return r;
	return -1;
}

/* Room for element @n of the array *@p of *@cap elements of @size bytes */
static int room_for(void *p, size_t *cap, size_t n, size_t size)
{
	void **arr = p, *grown;

	if (n < *cap)
		return 0;
	grown = realloc(*arr, (*cap ? 2 * *cap : 256) * size);
	if (!grown)
		return -1;
	*arr = grown;
	*cap = *cap ? 2 * *cap : 256;
	return 0;
}

static int read_verdicts(FILE *f, struct verdict **out, size_t *n,
			 struct hole **holes, size_t *nholes)
{
	struct verdict *v = NULL;
	struct hole *h = NULL;
	size_t cap = 0, hcap = 0;
	char line[256], name[64];
	unsigned long long s, e;

	*n = 0;
	*nholes = 0;
	while (fgets(line, sizeof(line), f)) {
		int r;

		if (sscanf(line, "%llx %llx %63s", &s, &e, name) != 3)
			return -1;
		if (line[0] == ' ') {
			/* a hole of the last FDE, which is "partial" */
			r = reason_of(name);
			if (r <= 0 || !*n || !v[*n - 1].partial || s >= e ||
			    s < v[*n - 1].start || e > v[*n - 1].end ||
			    (v[*n - 1].nholes && s < h[*nholes - 1].end))
				return -1;
			if (room_for(&h, &hcap, *nholes, sizeof(*h)))
				return -1;
			h[*nholes] = (struct hole){ s, e, r };
			(*nholes)++;
			v[*n - 1].nholes++;
			continue;
		}
		r = strcmp(name, "partial") ? reason_of(name) : SFGEN_OK;
		if (r < 0 || (*n && v[*n - 1].partial && !v[*n - 1].nholes))
			return -1;
		if (room_for(&v, &cap, *n, sizeof(*v)))
			return -1;
		v[*n] = (struct verdict){ s, e, r, !strcmp(name, "partial"),
					  *nholes, 0 };
		(*n)++;
	}
	if (*n && v[*n - 1].partial && !v[*n - 1].nholes)
		return -1;
	*out = v;
	*holes = h;
	return 0;
}

/* The reasons that are about a rule, which the oracle must see too */
static bool rule_reason(int why)
{
	switch (why) {
	case SFGEN_CFA_EXPR:
	case SFGEN_CFA_REG:
	case SFGEN_RA_RULE:
	case SFGEN_RA_OFFSET:
	case SFGEN_FP_RULE:
	case SFGEN_FP_NO_RA:
	case SFGEN_SP_RULE:
	case SFGEN_SIGNAL:
		return true;
	}
	return false;
}

struct counts {
	unsigned long	pcs;
	unsigned long	found;
	unsigned long	mismatches;
	unsigned long	errors;
	unsigned long	unexplained;
	unsigned long	mutated;
	unsigned long	corrupted;
	unsigned long	funcs;
	unsigned long	funcs_ok;
	unsigned long	funcs_part;
	unsigned long	bytes;
	unsigned long	bytes_ok;
	/* -s */
	unsigned long	agree;
	unsigned long	not_comparable;
	unsigned long	uncovered;
};

static void enter_fde(struct fde_state *st, const struct sfgen_fde *fde)
{
	free(st->ra);
	memset(st, 0, sizeof(*st));
	st->fde = fde;
	if (machine == EM_AARCH64)
		st->ra_failed = sfgen_ra_rows(fde, &st->ra, &st->nra) != 0;
}

static void report(struct counts *n, uint64_t pc, const char *what,
		   const char *expected, const char *got)
{
	if (n->mismatches++ < 20)
		fprintf(stderr, "%llx: %s: cfi %s, sframe %s\n",
			(unsigned long long)pc, what, expected, got);
}

/*
 * The end of FDE @f: one never entered lies outside the segments and must
 * have been left out as not text; one left out for a rule must have had a
 * rule the oracle could not express either.
 */
static void leave_fde(struct counts *n, const struct fde_state *st,
		      const struct sfgen_fde *f, const struct verdict *v,
		      bool saw_x)
{
	if (st->fde != f) {
		if (v->why == SFGEN_OK || rule_reason(v->why))
			report(n, v->start, "an FDE outside the text", "-",
			       sfgen_reason_name[v->why]);
		return;
	}
	if (rule_reason(v->why) && !saw_x && n->unexplained++ < 20)
		fprintf(stderr, "%llx: left out as %s, but every row is one SFrame has\n",
			(unsigned long long)v->start, sfgen_reason_name[v->why]);
}

/*
 * At @pc, in hole @h: the decoder found a rule (@rc) or none, and the CFI's
 * is @st's.  A hole has no rule, and one for a rule has none SFrame holds.
 */
static void check_hole(struct counts *n, uint64_t pc, const struct hole *h,
		       const struct fde_state *st, int rc, const char *got)
{
	if (rc)
		report(n, pc, "a hole", st->text, got);
	if (rule_reason(h->why) && st->kind == OR_RULE && n->unexplained++ < 20)
		fprintf(stderr, "%llx: a hole for %s, but SFrame has the rule %s\n",
			(unsigned long long)pc, sfgen_reason_name[h->why],
			st->text);
}

/* The generator's test: sframe-gen's section and its verdicts */
static int check_sidecar(struct sfgen_obj *obj, const char *path,
			 unsigned long mutate, unsigned int corrupt)
{
	struct fde_state st = { 0 };
	struct sfgen_sidecar sc;
	struct verdict *v;
	struct hole *holes;
	struct section s;
	struct counts n = { 0 };
	char err[256], got[96];
	size_t nv, nholes, j = 0, i, k, hk = 0;
	bool saw_x = false;

	if (sfgen_read_sidecar(&sc, path, obj->machine, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", path, err);
		return 2;
	}
	if (!sfgen_sidecar_matches(&sc, obj)) {
		fprintf(stderr, "%s: not the sidecar of %s\n", path, obj->path);
		return 2;
	}
	have_signal = sc.sframe_len > 2 && sc.sframe[2] >= 3;
	have_flex = have_signal;
	if (read_verdicts(stdin, &v, &nv, &holes, &nholes) ||
	    nv != obj->nfdes) {
		fprintf(stderr, "the verdicts are not sframe-gen -l's for %s\n",
			obj->path);
		return 2;
	}
	for (i = 0; i < nv; i++)
		if (v[i].start != obj->fdes[i].start ||
		    v[i].end != obj->fdes[i].end) {
			fprintf(stderr, "verdict %zu is not FDE %zu\n", i, i);
			return 2;
		}
	if (map_section(&s, obj, sc.sframe, sc.sframe_len, sc.sframe_addr,
			corrupt, &n.corrupted))
		return 2;

	for (i = 0; i < nv; i++) {
		uint64_t size = v[i].end - v[i].start;

		n.funcs++;
		n.bytes += size;
		if (v[i].why != SFGEN_OK)
			continue;
		for (k = v[i].hole; k < v[i].hole + v[i].nholes; k++)
			size -= holes[k].end - holes[k].start;
		n.bytes_ok += size;
		if (v[i].partial)
			n.funcs_part++;
		else
			n.funcs_ok++;
	}
	for (i = 0; i < nspans; i++) {
		const struct sframe_section *sec = &s.sec[spans[i].seg];
		uint64_t pc;

		for (pc = spans[i].start; pc < spans[i].end; pc++) {
			int rc;

			for (; j < nv && v[j].end <= pc; j++)
				leave_fde(&n, &st, &obj->fdes[j], &v[j], saw_x);
			n.pcs++;
			rc = decoder_at(sec, pc, mutate, &n.found,
					&n.mutated, got, sizeof(got));
			if (rc < 0) {
				if (n.errors++ < 20)
					fprintf(stderr, "%llx: decoder error (%s)\n",
						(unsigned long long)pc,
						test_last_reject() ?: "no reason");
				continue;
			}
			if (j == nv || pc < v[j].start) {
				if (rc)
					report(&n, pc, "outside the FDEs", "none", got);
				continue;
			}
			if (st.fde != &obj->fdes[j]) {
				enter_fde(&st, &obj->fdes[j]);
				saw_x = false;
				hk = v[j].hole;
			}
			if (pc >= st.row_end || !st.row_end) {
				st.kind = oracle_at(&st, pc, true);
				if (st.kind == OR_RULE)
					canon_str(&st.rule, st.text, sizeof(st.text));
				else
					snprintf(st.text, sizeof(st.text), "(no SFrame rule)");
			}
			if (st.kind != OR_RULE)
				saw_x = true;
			if (v[j].why != SFGEN_OK) {
				if (rc)
					report(&n, pc, "a function left out", st.text, got);
				continue;
			}
			while (hk < v[j].hole + v[j].nholes && holes[hk].end <= pc)
				hk++;
			if (hk < v[j].hole + v[j].nholes && pc >= holes[hk].start) {
				check_hole(&n, pc, &holes[hk], &st, rc, got);
				continue;
			}
			if (!rc || strcmp(st.text, got))
				report(&n, pc, where(obj, pc), st.text, got);
		}
	}
	for (; j < nv; j++)
		leave_fde(&n, &st, &obj->fdes[j], &v[j], saw_x);

	printf("functions %lu/%lu partial %lu bytes %lu/%lu pcs %lu found %lu ",
	       n.funcs_ok, n.funcs, n.funcs_part, n.bytes_ok, n.bytes, n.pcs,
	       n.found);
	printf("mismatches %lu errors %lu unexplained %lu mutated %lu corrupted %lu\n",
	       n.mismatches, n.errors, n.unexplained, n.mutated, n.corrupted);
	free(st.ra);
	free(v);
	free(holes);
	free(s.bytes);
	sfgen_free_sidecar(&sc);
	return n.mismatches || n.errors || n.unexplained ? 1 : 0;
}

/* A range of addresses with the same disagreement, printed when it ends */
struct range {
	uint64_t	start;
	uint64_t	end;
	char		where[128];
	char		cfi[96];
	char		sframe[96];
};

static void flush_range(struct range *r)
{
	if (r->end > r->start)
		printf("disagree %llx-%llx %s: cfi %s, sframe %s\n",
		       (unsigned long long)r->start,
		       (unsigned long long)r->end, r->where, r->cfi, r->sframe);
	r->start = 0;
	r->end = 0;
}

/* The toolchain's test: the object's own section against its CFI */
static int check_own(struct sfgen_obj *obj)
{
	struct fde_state st = { 0 };
	struct range r = { 0 };
	struct counts n = { 0 };
	struct section s;
	struct sfelf e;
	char got[96];
	size_t j = 0;
	unsigned int i;

	if (sfelf_open(&e, obj->path))
		return 2;
	have_signal = e.sframe_len > 2 && e.sframe[2] >= 3;
	have_flex = have_signal;
	if (map_section(&s, obj, e.sframe, e.sframe_len, e.sframe_vaddr, 0,
			&n.corrupted))
		return 2;
	for (i = 0; i < nspans; i++) {
		const struct sframe_section *sec = &s.sec[spans[i].seg];
		uint64_t pc;

		for (pc = spans[i].start; pc < spans[i].end; pc++) {
			const char *cfi = "none";
			int rc;

			while (j < obj->nfdes && obj->fdes[j].end <= pc)
				j++;
			n.pcs++;
			rc = decoder_at(sec, pc, 0, &n.found, &n.mutated,
					got, sizeof(got));
			if (rc < 0) {
				n.errors++;
				continue;
			}
			if (j < obj->nfdes && pc >= obj->fdes[j].start) {
				if (st.fde != &obj->fdes[j])
					enter_fde(&st, &obj->fdes[j]);
				if (pc >= st.row_end || !st.row_end) {
					st.kind = oracle_at(&st, pc, false);
					canon_str(&st.rule, st.text, sizeof(st.text));
				}
				cfi = st.kind == OR_RULE ? st.text : NULL;
			}
			if (!rc) {
				if (cfi && strcmp(cfi, "none"))
					n.uncovered++;
				continue;
			}
			if (!cfi) {
				n.not_comparable++;
				continue;
			}
			if (!strcmp(cfi, got)) {
				n.agree++;
				continue;
			}
			n.mismatches++;
			if (r.end == pc && !strcmp(r.cfi, cfi) &&
			    !strcmp(r.sframe, got) &&
			    !strcmp(r.where, where(obj, pc))) {
				r.end++;
				continue;
			}
			flush_range(&r);
			r.start = pc;
			r.end = pc + 1;
			snprintf(r.where, sizeof(r.where), "%s", where(obj, pc));
			snprintf(r.cfi, sizeof(r.cfi), "%s", cfi);
			snprintf(r.sframe, sizeof(r.sframe), "%s", got);
		}
	}
	flush_range(&r);
	printf("pcs %lu found %lu agree %lu disagree %lu ", n.pcs, n.found,
	       n.agree, n.mismatches);
	printf("not-comparable %lu uncovered %lu errors %lu\n",
	       n.not_comparable, n.uncovered, n.errors);
	free(st.ra);
	free(s.bytes);
	sfelf_close(&e);
	return n.errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long mutate = 0;
	unsigned int corrupt = 0;
	bool own = false;
	struct sfgen_obj obj;
	char err[256];
	int opt, rc;

	while ((opt = getopt(argc, argv, "m:c:s")) != -1) {
		switch (opt) {
		case 'm':
			mutate = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			corrupt = strtoul(optarg, NULL, 0);
			break;
		case 's':
			own = true;
			break;
		default:
			return 2;
		}
	}
	if (optind + (own ? 1 : 2) != argc) {
		fprintf(stderr, "usage: %s [-m N] [-c N] OBJECT SIDECAR <VERDICTS\n"
			"       %s -s OBJECT\n", argv[0], argv[0]);
		return 2;
	}
	elf_version(EV_CURRENT);
	if (sfgen_open(&obj, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[optind], err);
		return 2;
	}
	machine = obj.machine;
	if (find_spans(&obj)) {
		fprintf(stderr, "%s: no code, or code outside the executable segments\n",
			obj.path);
		return 2;
	}
	if (sfgen_read_fdes(&obj)) {
		fprintf(stderr, "%s: cannot read its CFI\n", obj.path);
		return 2;
	}
	rc = own ? check_own(&obj) :
		   check_sidecar(&obj, argv[optind + 1], mutate, corrupt);
	sfgen_close(&obj);
	return rc;
}
