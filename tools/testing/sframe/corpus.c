// SPDX-License-Identifier: GPL-2.0
/*
 * Malformed-section corpus: cases generated systematically from valid
 * sections (every header field, truncation at every length, a fault at
 * every byte, every byte flipped, every value of the FDE and FRE info bytes,
 * counts, offsets, unsorted, overlapping and out-of-text FDEs, text ranges
 * that cut functions, FRE starts out of order or past the function, ...).
 * Each case checks the decoder's outcome, errno and reason, at setup and at
 * lookups all over the text:
 *
 * - against an explicit expectation where the category has a simple one
 *   (truncation at length L fails with the reason of the part L cuts);
 * - against ref_init() and ref_lookup() below: the decoder's contract
 *   written a second time, as a plain byte-level reference (section offsets
 *   instead of user addresses, no read-ahead, 128-bit arithmetic), down to
 *   the work each lookup charges to the walk's budget; lookup() also checks
 *   that exactly that budget is enough and one unit less is not;
 * - and, for the unmodified sections, against rules written by hand.
 *
 * Every fourth case is placed as the linker places a section; the others as
 * a sidecar file is, its bytes mapped far from the address its offsets are
 * relative to (sframe_addr), which is SEC_ADDR or, with the text and the
 * lookups, shifted by a delta: the reference computes with sframe_addr, and
 * the decoder must agree with it all the same.
 *
 * The reads of the decoder are confined to the section by the harness's
 * window, and the whole program runs under ASan and UBSan.
 *
 * corpus [--seeds DIR]: with --seeds, write the base sections as fuzz seeds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sfw.h"

#define SEC_ADDR	0x600000UL
#define TEXT		0x400000UL
/* Where a sidecar's bytes are mapped: 128 TiB - 8 GiB, far from the text */
#define SEC_MAP		0x7ffe00000000UL
#define MAX_IPS		128
#define MAX_LEN		4096

static unsigned long nr_cases, nr_lookups;

/* The reference: the decoder's contract over a byte buffer */
struct ref {
	const uint8_t	*b;
	uint64_t	len;		/* section bytes */
	uint64_t	addr;		/* where they are mapped */
	uint64_t	sframe_addr;	/* where the offsets put them */
	uint64_t	ts, te;		/* text range */
	uint64_t	hole_lo;	/* unmapped section offsets [lo, hi) */
	uint64_t	hole_hi;
	unsigned int	abi_mode;	/* test_set_abi() */
	/* from the header */
	unsigned int	version, flags, abi;
	int		fixed_fp, fixed_ra;
	uint64_t	fdes, fres, fres_end;	/* section offsets */
	uint32_t	nfdes;
};

static uint64_t le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static int sext(uint64_t v, unsigned int bytes)
{
	if (bytes == 1)
		return (int8_t)v;
	if (bytes == 2)
		return (int16_t)v;
	return (int32_t)v;
}

/* Bytes the lookup cannot do without: a fault there is -EFAULT */
static bool faults(const struct ref *r, uint64_t off, uint64_t n)
{
	return off < r->hole_hi && r->hole_lo < off + n;
}

/* Say why the reference refuses, and return its error */
static int ref_fail(const char **why, int err, const char *reason)
{
	*why = reason;
	return err;
}

static int ref_init(struct ref *r, const char **why)
{
	const uint8_t *h = r->b;
	uint64_t hdr, fdes_end, fre_len, min;
	unsigned int esz;

	*why = NULL;
	if (!r->len)
		return ref_fail(why, -EINVAL,
				"empty or wrapping .sframe range");
	if (r->te <= r->ts)
		return ref_fail(why, -EINVAL, "empty or wrapping text range");
	if (r->addr + r->len >= 1ULL << 63 || r->te >= 1ULL << 63)
		return ref_fail(why, -EINVAL,
				"range beyond the user address space");
	if (r->sframe_addr + r->len >= 1ULL << 63)
		return ref_fail(why, -EINVAL,
				"section address beyond the user address space");
	if (r->len < 28)
		return ref_fail(why, -ENOEXEC,
				"section shorter than its header");
	if (faults(r, 0, 28))
		return -EFAULT;
	if (le(h, 2) != 0xdee2)
		return ref_fail(why, -ENOEXEC, "bad magic");
	r->version = h[2];
	if (r->version != 2 && r->version != 3)
		return ref_fail(why, -ENOEXEC, "unsupported version");
	r->flags = h[3];
	if (r->flags & ~(r->version == 2 ? 7u : 5u))
		return ref_fail(why, -ENOEXEC, "unknown header flags");
	if (!(r->flags & 1))
		return ref_fail(why, -ENOEXEC, "FDEs not flagged as sorted");
	r->abi = h[4];
	if (r->abi_mode ? r->abi != r->abi_mode : r->abi != 2 && r->abi != 3)
		return ref_fail(why, -ENOEXEC, "unsupported ABI");
	r->fixed_fp = (int8_t)h[5];
	r->fixed_ra = (int8_t)h[6];
	/* AMD64 (3) has a fixed RA offset, the other ABIs none */
	if (r->abi == 3 ? !r->fixed_ra : r->fixed_ra)
		return ref_fail(why, -ENOEXEC,
				"bad fixed RA offset for the ABI");
	hdr = 28 + h[7];
	if (hdr > r->len)
		return ref_fail(why, -ENOEXEC,
				"auxiliary header past the section end");
	r->nfdes = le(h + 8, 4);
	esz = r->version == 2 ? 20 : 16;
	r->fdes = hdr + le(h + 20, 4);
	fdes_end = r->fdes + (uint64_t)r->nfdes * esz;
	if (fdes_end > r->len)
		return ref_fail(why, -ENOEXEC, "FDE sub-section out of bounds");
	fre_len = le(h + 16, 4);
	r->fres = hdr + le(h + 24, 4);
	r->fres_end = r->fres + fre_len;
	if (r->fres_end > r->len)
		return ref_fail(why, -ENOEXEC, "FRE sub-section out of bounds");
	if (r->fdes < r->fres_end && r->fres < fdes_end)
		return ref_fail(why, -ENOEXEC,
				"FDE and FRE sub-sections overlap");
	min = le(h + 12, 4) * 2 + (r->version == 3 ? r->nfdes * 5ull : 0);
	if (fre_len < min)
		return ref_fail(why, -ENOEXEC,
				"FRE sub-section too short for its counts");
	return 0;
}

struct ref_fde {
	__int128	start;
	uint64_t	size, fre_off, num_fres;
	unsigned int	info, info2, rep;
};

static int ref_fde(const struct ref *r, uint32_t i, struct ref_fde *f,
		   const char **why)
{
	uint64_t off = r->fdes + (uint64_t)i * (r->version == 2 ? 20 : 16);
	const uint8_t *p = r->b + off;
	__int128 base;

	if (faults(r, off, r->version == 2 ? 20 : 16))
		return -EFAULT;
	base = r->flags & 4 ? r->sframe_addr + off : r->sframe_addr;
	if (r->version == 2) {
		f->start = base + (int32_t)le(p, 4);
		f->num_fres = le(p + 12, 4);
		f->info = p[16];
		f->rep = p[17];
		f->info2 = 0;
	} else {
		f->start = base + (int64_t)le(p, 8);
	}
	f->size = le(p + (r->version == 2 ? 4 : 8), 4);
	f->fre_off = le(p + (r->version == 2 ? 8 : 12), 4);
	return 0;
}

static struct sframe_loc loc(uint8_t kind, uint8_t reg, bool deref, int off)
{
	struct sframe_loc l = { kind, reg, deref, off };

	return l;
}

/* DWARF numbers of an ABI's stack and frame pointers, and the last GPR */
struct ref_regs {
	unsigned int	sp, fp, max;
};

/*
 * A flex rule from a control word: the stack and frame pointers are
 * SFRAME_LOC_SP and SFRAME_LOC_FP, only other registers SFRAME_LOC_REG.
 */
static int ref_flex(unsigned int ctrl, int off, const struct ref_regs *regs,
		    struct sframe_loc *l, const char **why)
{
	unsigned int reg = ctrl >> 3;

	if (ctrl & 4)
		return ref_fail(why, -EOPNOTSUPP, "unknown flex control bits");
	if (!(ctrl & 1))
		*l = loc(SFRAME_LOC_CFA, 0, ctrl & 2, off);
	else if (reg > regs->max)
		return ref_fail(why, -EOPNOTSUPP, "unsupported flex register");
	else if (reg == regs->sp)
		*l = loc(SFRAME_LOC_SP, 0, ctrl & 2, off);
	else if (reg == regs->fp)
		*l = loc(SFRAME_LOC_FP, 0, ctrl & 2, off);
	else
		*l = loc(SFRAME_LOC_REG, reg, ctrl & 2, off);
	return 0;
}

/* The decoder's probe position: interpolation, see sframe_guess() */
static uint64_t ref_guess(uint64_t ip, uint64_t lo, uint64_t hi,
			  uint64_t lo_start, uint64_t hi_start)
{
	uint64_t span = hi_start - lo_start, pos = ip - lo_start;
	int bits = 64 - __builtin_clzll(span);
	int shift = bits > 32 ? bits - 32 : 0;

	return lo + (pos >> shift) * (hi - lo) / ((span >> shift) + 1);
}

/*
 * The decoder's search state, see struct sframe_bounds: entry lo - 1 ends at
 * lo_end, entry hi starts at hi_start, or the text range until an entry is
 * read on that side.
 */
struct ref_bounds {
	uint64_t	lo, hi, lo_end, hi_start;
};

#define LIMIT	((__int128)1 << 63)

/*
 * Entries [first, first + cnt) as sframe_check_block() takes them: 0 with
 * @f if the last one at or before ip covers it, -ENOENT for a gap, 1 to go
 * on, or the error of the first bad entry.  Each must lie below 2^63, after
 * the end of the entries before it and before the start of those after it:
 * an empty function may share its start with the next one.  Faults were
 * checked already.
 */
static int ref_block(const struct ref *r, uint64_t first, uint64_t cnt,
		     uint64_t ip, struct ref_bounds *b, struct ref_fde *f,
		     const char **why)
{
	/* Entries read on each side, or any function */
	__int128 lo_end = b->lo ? b->lo_end : 0;
	__int128 hi_start = b->hi < r->nfdes ? b->hi_start : LIMIT;
	struct ref tmp = *r;
	struct ref_fde p;
	bool found = false;
	uint64_t i;
	int ret;

	tmp.hole_lo = ~0ULL;
	tmp.hole_hi = ~0ULL;
	for (i = 0; i < cnt; i++) {
		ret = ref_fde(&tmp, first + i, &p, why);
		if (ret)
			return ret;
		if (p.start < 0 || p.start + p.size > LIMIT)
			return ref_fail(why, -EBADMSG,
					"FDE beyond the user address space");
		if (p.start < lo_end || p.start + p.size > hi_start)
			return ref_fail(why, -EBADMSG,
					"FDEs out of order or overlapping");
		if (p.start > ip) {
			b->hi = first + i;
			b->hi_start = p.start;
			break;
		}
		b->lo = first + i + 1;
		b->lo_end = p.start + p.size;
		lo_end = b->lo_end;
		*f = p;
		found = true;
	}
	if (found && ip < b->lo_end)
		return 0;
	return found && i < cnt ? -ENOENT : 1;
}

/*
 * The decoder's search: blocks of 8 around the guess; around the middle
 * after two steps that did not halve the range.  Then the
 * last entries, of which only those before hi must be readable.  Each entry
 * read costs a unit of *@cost, charged before the read.
 */
static int ref_search(const struct ref *r, uint64_t ip, struct ref_fde *f,
		      const char **why, uint64_t *cost)
{
	const unsigned int esz = r->version == 2 ? 20 : 16, blk = 8;
	struct ref_bounds b = { 0, r->nfdes, r->ts, r->te };
	unsigned int slow = 0;
	uint64_t first;
	int ret;

	while (b.hi - b.lo > blk) {
		uint64_t n = b.hi - b.lo;

		first = slow < 2 ? ref_guess(ip, b.lo, b.hi, b.lo_end,
					     b.hi_start) : b.lo + n / 2;
		if (first < b.lo + blk / 2)
			first = b.lo + blk / 2;
		if (first > b.hi - blk / 2)
			first = b.hi - blk / 2;
		first -= blk / 2;
		*cost += blk;
		if (faults(r, r->fdes + first * esz, blk * esz))
			return -EFAULT;
		ret = ref_block(r, first, blk, ip, &b, f, why);
		if (ret <= 0)
			return ret;
		slow = slow < 2 && b.hi - b.lo > n / 2 ? slow + 1 : 0;
	}
	if (b.lo == b.hi)
		return -ENOENT;
	*cost += b.hi - b.lo;
	if (faults(r, r->fdes + b.lo * esz, (b.hi - b.lo) * esz))
		return -EFAULT;
	ret = ref_block(r, b.lo, b.hi - b.lo, ip, &b, f, why);
	return ret > 0 ? -ENOENT : ret;
}

/*
 * The decoder's lookup, and in *@cost the units of work it charges to the
 * budget: the FDEs it reads, and the FREs, each charged before its read.
 */
static int ref_lookup(const struct ref *r, uint64_t ip, bool top,
		      struct sframe_rule *rule, const char **why,
		      uint64_t *cost)
{
	const bool x86 = r->abi == 3;
	const struct ref_regs regs = x86 ? (struct ref_regs){ 7, 6, 15 } :
					   (struct ref_regs){ 31, 29, 31 };
	uint64_t off, pc, prev = 0, match = 0;
	unsigned int ssz, info = 0, n, ws, i;
	struct ref_fde f = { 0 };
	uint64_t w[16];
	bool found;
	int ret;

	*why = NULL;
	*cost = 0;
	if (ip < r->ts || ip >= r->te)
		return -ENOENT;
	ret = ref_search(r, ip, &f, why, cost);
	if (ret)
		return ret;
	/* Only a function wholly inside the text range is covered */
	if (f.start < r->ts || f.start + f.size > r->te)
		return -ENOENT;

	off = r->fres + f.fre_off;
	if (r->version == 3) {
		if (off + 5 > r->fres_end)
			return ref_fail(why, -EBADMSG,
					"read past the FRE sub-section");
		if (faults(r, off, 5))
			return -EFAULT;
		f.num_fres = le(r->b + off, 2);
		f.info = r->b[off + 2];
		f.info2 = r->b[off + 3];
		f.rep = r->b[off + 4];
		off += 5;
	}
	if (f.num_fres > 0xffff)
		return ref_fail(why, -EBADMSG, "too many FREs in a function");
	if ((f.info & 0xf) > 2)
		return ref_fail(why, -EBADMSG, "bad FRE type");
	ssz = 1 << (f.info & 0xf);
	pc = ip - (uint64_t)f.start;
	if (f.info & 0x10) {
		if (!f.rep)
			return ref_fail(why, -EBADMSG,
					"PCMASK FDE with rep_size 0");
		pc %= f.rep;
	}
	if ((f.info2 & 0x1f) > 1)
		return ref_fail(why, -EOPNOTSUPP, "unknown FDE type");

	found = false;
	for (i = 0; i < f.num_fres; i++) {
		uint64_t start, fi;

		++*cost;
		if (off + ssz + 1 > r->fres_end)
			return ref_fail(why, -EBADMSG,
					"read past the FRE sub-section");
		if (faults(r, off, ssz + 1))
			return -EFAULT;
		start = le(r->b + off, ssz);
		fi = r->b[off + ssz];
		if (((fi >> 5) & 3) == 3)
			return ref_fail(why, -EBADMSG, "bad data word size");
		n = (fi >> 1) & 0xf;
		ws = 1 << ((fi >> 5) & 3);
		if (off + ssz + 1 + n * ws > r->fres_end)
			return ref_fail(why, -EBADMSG,
					"read past the FRE sub-section");
		if (start < prev)
			return ref_fail(why, -EBADMSG,
					"FRE starts not in order");
		/* Only the last FRE may start at the end (gas's last row) */
		if (start > f.size || (start == f.size && i + 1 < f.num_fres))
			return ref_fail(why, -EBADMSG,
					"FRE start past the function");
		if (start > pc)
			break;
		prev = start;
		found = true;
		match = off;
		info = fi;
		off += ssz + 1 + n * ws;
	}
	if (!found)
		return -ENOENT;
	n = (info >> 1) & 0xf;
	ws = 1 << ((info >> 5) & 3);
	if (n && faults(r, match + ssz + 1, n * ws))
		return -EFAULT;
	for (i = 0; i < n; i++)
		w[i] = le(r->b + match + ssz + 1 + i * ws, ws);

	memset(rule, 0, sizeof(*rule));
	if (r->version == 3 && (f.info & 0x80))
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (!x86 && (info & 0x80))
		rule->flags |= SFRAME_RULE_RA_MANGLED |
			       (f.info & 0x20 ? SFRAME_RULE_PAUTH_KEY_B : 0);
	if (!n) {
		rule->flags |= SFRAME_RULE_OUTERMOST;
		rule->cfa = loc(SFRAME_LOC_SP, 0, false, 0);
		rule->ra = loc(SFRAME_LOC_UNDEFINED, 0, false, 0);
		rule->fp = loc(SFRAME_LOC_SAME, 0, false, 0);
		return 0;
	}
	/* What absent words mean */
	rule->ra = r->fixed_ra ? loc(SFRAME_LOC_CFA, 0, true, r->fixed_ra) :
				 loc(SFRAME_LOC_REG, 30, false, 0);
	rule->fp = r->fixed_fp ? loc(SFRAME_LOC_CFA, 0, true, r->fixed_fp) :
				 loc(SFRAME_LOC_SAME, 0, false, 0);
	if ((f.info2 & 0x1f) == 0) {
		i = 1;
		if (n > 1u + !r->fixed_ra + !r->fixed_fp)
			return ref_fail(why, -EBADMSG, "too many data words");
		rule->cfa = loc(info & 1 ? SFRAME_LOC_SP : SFRAME_LOC_FP, 0,
				false, sext(w[0], ws));
		if (!r->fixed_ra && n > i)
			rule->ra = loc(SFRAME_LOC_CFA, 0, true,
				       sext(w[i++], ws));
		if (!r->fixed_fp && n > i)
			rule->fp = loc(SFRAME_LOC_CFA, 0, true, sext(w[i], ws));
	} else {
		struct sframe_loc *dst[2] = { &rule->ra, &rule->fp };
		unsigned int k;

		if (n < 2)
			return ref_fail(why, -EBADMSG, "truncated flex rule");
		if (!(w[0] & 1))
			return ref_fail(why, -EBADMSG,
					"flex CFA rule not register-based");
		ret = ref_flex(w[0], sext(w[1], ws), &regs, &rule->cfa, why);
		if (ret)
			return ret;
		for (i = 2, k = 0; k < 2 && i < n; k++) {
			if (!w[i]) {
				i++;
				continue;
			}
			if (i + 1 >= n)
				return ref_fail(why, -EBADMSG,
						"truncated flex rule");
			ret = ref_flex(w[i], sext(w[i + 1], ws), &regs,
				       dst[k], why);
			if (ret)
				return ret;
			i += 2;
			/* CFA, SP or FP + n is a stack address */
			if (k == 0 && !rule->ra.deref &&
			    rule->ra.kind != SFRAME_LOC_REG)
				return ref_fail(why, -EOPNOTSUPP,
						"RA rule is a stack address");
		}
		if (i != n)
			return ref_fail(why, -EBADMSG, "too many data words");
	}
	if (!top) {
		const struct sframe_loc *l[3] = { &rule->cfa, &rule->ra,
						  &rule->fp };

		for (i = 0; i < 3; i++)
			if (l[i]->kind == SFRAME_LOC_REG)
				return ref_fail(why, -EOPNOTSUPP,
						"register rule in a non-topmost frame");
	}
	return 0;
}

/* The sections the cases derive from */
struct base {
	const char	*name;
	struct sfw_sec	s;
	struct sfw_fde	fdes[8];
	struct sfw_fre	fres[8][6];
	uint64_t	ts, te;
	/* Hand-written rules: the FRE rule of @fres[i][j] */
	struct sframe_rule rules[8][6];
	bool		outermost[8][6];
	uint8_t		buf[MAX_LEN];
	size_t		len;
};

static struct base bases[8];
static unsigned int nr_bases;

static struct base *new_base(const char *name, unsigned int version,
			     unsigned int abi, uint64_t ts, uint64_t te)
{
	struct base *b = &bases[nr_bases++];

	memset(b, 0, sizeof(*b));
	b->name = name;
	sfw_sec_init(&b->s, version, abi, SEC_ADDR, b->fdes, 0);
	b->ts = ts;
	b->te = te;
	return b;
}

static struct sfw_fde *add_fde(struct base *b, uint64_t start, uint32_t size)
{
	struct sfw_fde *f = &b->fdes[b->s.nfdes];

	sfw_fde_init(f, start, size, b->fres[b->s.nfdes], 0);
	b->s.nfdes++;
	return f;
}

static void add_fre(struct base *b, struct sfw_fre fre, struct sframe_rule r)
{
	struct sfw_fde *f = &b->fdes[b->s.nfdes - 1];

	b->rules[b->s.nfdes - 1][f->nfres] = r;
	f->fres[f->nfres++] = fre;
}

static void make_bases(void)
{
	struct sframe_rule a64_lr = mkrule(LOC_SP(false, 0),
					   LOC_REG(A64_LR, false, 0),
					   LOC_SAME, 0);
	struct sframe_rule r;
	struct sfw_fre fre;
	struct sfw_fde *f;
	struct base *b;
	unsigned int i;

	/* x86-64 V3: FP-based CFA, outermost row, 2-byte words */
	b = new_base("x86-v3", 3, SFW_ABI_AMD64_LE, TEXT, TEXT + 0x80);
	add_fde(b, TEXT, 0x20);
	add_fre(b, sfw_fre(0, false, 1, 8), x86_rule(false, 8, false, 0));
	add_fre(b, sfw_fre(1, false, 2, 16, -16),
		x86_rule(false, 16, true, -16));
	add_fre(b, sfw_fre(4, true, 2, 16, -16), x86_rule(true, 16, true, -16));
	add_fde(b, TEXT + 0x30, 0x10);
	add_fre(b, sfw_fre(0, false, 1, 8), x86_rule(false, 8, false, 0));
	add_fre(b, sfw_fre(3, false, 0), outermost_rule(0));
	add_fde(b, TEXT + 0x50, 0x30);
	add_fre(b, sfw_fre(0, false, 1, 8), x86_rule(false, 8, false, 0));
	add_fre(b, sfw_fre(0x10, false, 1, 0x1000),
		x86_rule(false, 0x1000, false, 0));

	/* x86-64 V2 without PCREL, an aux header, a PCMASK PLT */
	b = new_base("x86-v2", 2, SFW_ABI_AMD64_LE, TEXT, TEXT + 0x80);
	b->s.flags = SFW_F_SORTED;
	b->s.auxhdr_len = 4;
	add_fde(b, TEXT, 0x20);
	add_fre(b, sfw_fre(0, false, 1, 8), x86_rule(false, 8, false, 0));
	add_fre(b, sfw_fre(1, false, 2, 16, -16),
		x86_rule(false, 16, true, -16));
	add_fre(b, sfw_fre(4, true, 2, 16, -16), x86_rule(true, 16, true, -16));
	add_fde(b, TEXT + 0x30, 0x10);
	add_fre(b, sfw_fre(0, false, 1, 8), x86_rule(false, 8, false, 0));
	add_fre(b, sfw_fre(3, false, 0), outermost_rule(0));
	f = add_fde(b, TEXT + 0x50, 0x30);
	f->pcmask = true;
	f->rep_size = 16;
	add_fre(b, sfw_fre(0, false, 1, 8), x86_rule(false, 8, false, 0));
	add_fre(b, sfw_fre(11, false, 1, 16), x86_rule(false, 16, false, 0));

	/* AArch64 V3: RA in LR, PAC with key B, a saved frame record */
	b = new_base("a64-v3", 3, SFW_ABI_AARCH64_LE, TEXT, TEXT + 0x50);
	f = add_fde(b, TEXT, 0x40);
	f->key_b = true;
	add_fre(b, sfw_fre(0, false, 1, 0), a64_lr);
	fre = sfw_fre(4, false, 1, 0);
	fre.mangled = true;
	r = a64_lr;
	r.flags = SFRAME_RULE_RA_MANGLED | SFRAME_RULE_PAUTH_KEY_B;
	add_fre(b, fre, r);
	fre = sfw_fre(8, false, 3, 64, -56, -64);
	fre.mangled = true;
	r = mkrule(LOC_SP(false, 64), LOC_CFA(true, -56),
		   LOC_CFA(true, -64),
		   SFRAME_RULE_RA_MANGLED | SFRAME_RULE_PAUTH_KEY_B);
	add_fre(b, fre, r);
	r = mkrule(LOC_FP(false, 64), LOC_CFA(true, -56),
		   LOC_CFA(true, -64), 0);
	add_fre(b, sfw_fre(0x30, true, 3, 64, -56, -64), r);
	add_fde(b, TEXT + 0x40, 0x8);
	add_fre(b, sfw_fre(0, false, 1, 0), a64_lr);

	/* AArch64 V2 with PCREL: RA-only rows */
	b = new_base("a64-v2", 2, SFW_ABI_AARCH64_LE, TEXT, TEXT + 0x30);
	add_fde(b, TEXT, 0x20);
	add_fre(b, sfw_fre(0, false, 1, 0), a64_lr);
	add_fre(b, sfw_fre(8, false, 3, 32, -8, -16),
		mkrule(LOC_SP(false, 32), LOC_CFA(true, -8),
		       LOC_CFA(true, -16), 0));
	add_fde(b, TEXT + 0x20, 0x10);
	add_fre(b, sfw_fre(0, true, 2, 16, -8),
		mkrule(LOC_FP(false, 16), LOC_CFA(true, -8),
		       LOC_SAME, 0));

	/* x86-64 V3 flex: DRAP rows */
	b = new_base("x86-flex", 3, SFW_ABI_AMD64_LE, TEXT, TEXT + 0x40);
	f = add_fde(b, TEXT, 0x40);
	f->type = SFW_FDE_FLEX;
	add_fre(b, sfw_fre(0, false, 2, SFW_CTRL(7, 0, 1), 8),
		x86_rule(false, 8, false, 0));
	add_fre(b, sfw_fre(5, false, 2, SFW_CTRL(10, 0, 1), 0),
		mkrule(LOC_REG(10, false, 0), LOC_CFA(true, -8), LOC_SAME, 0));
	add_fre(b, sfw_fre(0x1e, false, 5, SFW_CTRL(6, 1, 1), -8, 0,
			   SFW_CTRL(6, 1, 1), 0),
		mkrule(LOC_FP(true, -8), LOC_CFA(true, -8),
		       LOC_FP(true, 0), 0));

	/* Seven functions, for the binary search */
	for (i = 2; i <= 3; i++) {
		unsigned int k;

		b = new_base(i == 2 ? "x86-7-v2" : "x86-7-v3", i,
			     SFW_ABI_AMD64_LE, TEXT, TEXT + 0x100);
		for (k = 0; k < 7; k++) {
			add_fde(b, TEXT + 0x20 * k + (k & 1) * 8, 0x10 + k);
			add_fre(b, sfw_fre(0, false, 1, 8),
				x86_rule(false, 8, false, 0));
			add_fre(b, sfw_fre(1 + k, false, 2, 16 + 8 * k, -16),
				x86_rule(false, 16 + 8 * k, true, -16));
		}
	}

	for (b = bases; b < bases + nr_bases; b++) {
		b->len = sfw_write(&b->s, b->buf, sizeof(b->buf));
		if (!b->len)
			abort();
	}
}

/* Every address where a rule may change, and around the text */
static unsigned int collect_ips(const struct base *b, uint64_t *ips)
{
	unsigned int n = 0, i, j;

	ips[n++] = b->ts - 1;
	ips[n++] = b->ts;
	ips[n++] = b->te - 1;
	ips[n++] = b->te;
	for (i = 0; i < b->s.nfdes; i++) {
		const struct sfw_fde *f = &b->fdes[i];

		ips[n++] = f->start - 1;
		ips[n++] = f->start + f->size - 1;
		ips[n++] = f->start + f->size;
		for (j = 0; j < f->nfres && n + 2 <= MAX_IPS; j++) {
			ips[n++] = f->start + f->fres[j].start;
			ips[n++] = f->start + f->fres[j].start + 1;
		}
	}
	return n;
}

/* A case: a section, its setup expectation if known, and lookups */
struct mcase {
	const struct base *b;		/* NULL: a large section */
	const char	*name;
	const uint64_t	*ips;		/* else collect_ips(b) */
	unsigned int	nips;
	const uint8_t	*bytes;
	uint64_t	len;
	uint64_t	ts, te;
	uint64_t	hole_lo, hole_hi;
	unsigned int	abi_mode;
	bool		exp_known;	/* check init against exp_* too */
	int		exp_ret;
	const char	*exp_why;
};

/*
 * Where a case's bytes are mapped, and the delta that moves the address
 * their offsets are relative to (sframe_addr) from SEC_ADDR, with the text
 * and the lookups: as the linker places a section, then as sidecars.
 */
static const struct placement {
	uint64_t	map;
	int64_t		delta;
} placements[] = {
	{ SEC_ADDR, 0 },
	{ SEC_MAP, 0 },
	{ SEC_MAP, 0x7ff00003 },		/* near 2 GiB up, odd */
	{ SEC_ADDR + 0x10000, -0x3fff1 },	/* down, odd */
};

static void run_case(const char *cat, unsigned long idx,
		     const struct mcase *c)
{
	const struct placement *pl =
		&placements[nr_cases % ARRAY_SIZE(placements)];
	const uint64_t map = pl->map, d = pl->delta;
	struct ref r = {
		.b = c->bytes, .len = c->len, .addr = map,
		.sframe_addr = SEC_ADDR + d, .ts = c->ts + d, .te = c->te + d,
		.hole_lo = c->hole_lo, .hole_hi = c->hole_hi,
		.abi_mode = c->abi_mode,
	};
	struct sframe_rule got, want;
	struct sframe_section sec;
	uint64_t ips[MAX_IPS], exp_cost;
	const char *why, *reason;
	uint32_t cost;
	unsigned int n, i, top;
	char b1[160], b2[160];
	int ret, exp;

	nr_cases++;
	test_mem_reset();
	test_set_abi(c->abi_mode);
	if (c->hole_lo > 0)
		test_mem_map(map, c->bytes,
			     c->hole_lo < c->len ? c->hole_lo : c->len);
	if (c->hole_hi < c->len)
		test_mem_map(map + c->hole_hi, c->bytes + c->hole_hi,
			     c->len - c->hole_hi);
	test_mem_set_window(map, map + c->len);

	exp = ref_init(&r, &why);
	if (c->exp_known)
		CHECK(exp == c->exp_ret && str_eq(why, c->exp_why),
		      "%s %lu (%s): the reference says %s \"%s\", the case %s \"%s\"",
		      cat, idx, c->name, err_str(exp), why ?: "",
		      err_str(c->exp_ret), c->exp_why ?: "");
	ret = sframe_section_init(&sec, map, map + c->len, r.sframe_addr,
				  r.ts, r.te);
	CHECK(ret == exp && str_eq(test_last_reject(), why),
	      "%s %lu (%s): setup %s \"%s\", want %s \"%s\"", cat, idx,
	      c->name, err_str(ret), test_last_reject() ?: "",
	      err_str(exp), why ?: "");
	if (ret || exp)
		return;

	n = c->ips ? c->nips : collect_ips(c->b, ips);
	if (c->ips)
		memcpy(ips, c->ips, n * sizeof(*ips));
	for (i = 0; i < n; i++)
		ips[i] += d;
	for (i = 0; i < n; i++) {
		for (top = 0; top < 2; top++) {
			nr_lookups++;
			exp = ref_lookup(&r, ips[i], top, &want, &why,
					 &exp_cost);
			memset(&got, 0x5a, sizeof(got));
			ret = lookup(&sec, ips[i], top, &got, &reason, &cost,
				     c->name);
			CHECK(ret == exp && str_eq(reason, why) &&
			      (ret || rule_eq(&got, &want)) &&
			      cost == exp_cost,
			      "%s %lu (%s): ip %+ld%s: %s \"%s\" %s (cost %u), want %s \"%s\" %s (cost %lu)",
			      cat, idx, c->name, (long)(ips[i] - r.ts),
			      top ? " top" : "", err_str(ret), reason ?: "",
			      ret ? "" : rule_str(&got, b1, sizeof(b1)), cost,
			      err_str(exp), why ?: "",
			      exp ? "" : rule_str(&want, b2, sizeof(b2)),
			      (unsigned long)exp_cost);
		}
	}
}

static struct mcase base_case(const struct base *b, const uint8_t *bytes)
{
	struct mcase c = {
		.b = b, .name = b->name, .bytes = bytes, .len = b->len,
		.ts = b->ts, .te = b->te, .hole_lo = ~0ULL, .hole_hi = ~0ULL,
	};

	return c;
}

/* Work copy of a base's bytes, to corrupt */
static uint8_t work[MAX_LEN];

static struct mcase work_case(const struct base *b)
{
	memcpy(work, b->buf, b->len);
	return base_case(b, work);
}

/* The unmodified bases, against the hand-written rules */
static void cat_base(void)
{
	const struct base *b;
	unsigned int j, k, top;
	struct sframe_section sec;
	struct sframe_rule got;
	struct mcase c;

	for (b = bases; b < bases + nr_bases; b++) {
		c = base_case(b, b->buf);
		run_case("base", b - bases, &c);
		if (setup(&sec, b->buf, b->len, SEC_ADDR, b->ts, b->te))
			continue;
		for (j = 0; j < b->s.nfdes; j++) {
			const struct sfw_fde *f = &b->fdes[j];

			for (k = 0; k < f->nfres; k++) {
				uint64_t ip = f->start + f->fres[k].start;
				const struct sframe_rule *want = &b->rules[j][k];
				uint32_t budget = PLENTY;
				char b1[160], b2[160];
				int ret;

				top = want->cfa.kind == SFRAME_LOC_REG ||
				      want->ra.kind == SFRAME_LOC_REG ||
				      want->fp.kind == SFRAME_LOC_REG;
				ret = sframe_find_rule(&sec, ip, top, &got,
						       &budget);
				CHECK(!ret && rule_eq(&got, want),
				      "base %s: FDE %u FRE %u: %s %s, want %s",
				      b->name, j, k, err_str(ret),
				      rule_str(&got, b1, sizeof(b1)),
				      rule_str(want, b2, sizeof(b2)));
			}
		}
	}
}

/* Truncation at every length: the part that the length cuts decides */
static void cat_length(void)
{
	const struct base *b;
	uint64_t l;

	for (b = bases; b < bases + nr_bases; b++) {
		const struct sfw_sec *s = &b->s;

		for (l = 0; l <= b->len; l++) {
			struct mcase c = base_case(b, b->buf);

			c.len = l;
			c.exp_known = true;
			c.exp_ret = -ENOEXEC;
			if (!l)
				c.exp_ret = -EINVAL,
				c.exp_why = "empty or wrapping .sframe range";
			else if (l < 28)
				c.exp_why = "section shorter than its header";
			else if (l < s->hdr_len)
				c.exp_why = "auxiliary header past the section end";
			else if (l < s->fdes_end)
				c.exp_why = "FDE sub-section out of bounds";
			else if (l < s->fres_end)
				c.exp_why = "FRE sub-section out of bounds";
			else
				c.exp_ret = 0;
			run_case("length", l, &c);
		}
	}
}

/* The FRE sub-section shortened in the header, byte by byte */
static void cat_fre_len(void)
{
	const struct base *b;
	uint64_t l, orig;

	for (b = bases; b < bases + nr_bases; b++) {
		const struct sfw_sec *s = &b->s;
		uint64_t nfres = 0, min, k;

		for (k = 0; k < s->nfdes; k++)
			nfres += b->fdes[k].nfres;
		min = 2 * nfres + (s->version == 3 ? 5 * s->nfdes : 0);
		orig = s->fres_end - s->fres_off;
		for (l = 0; l <= orig + 2; l++) {
			struct mcase c = work_case(b);

			sfw_put(work + 16, l, 4);
			c.exp_known = true;
			c.exp_ret = -ENOEXEC;
			if (l > orig)
				c.exp_why = "FRE sub-section out of bounds";
			else if (l < min)
				c.exp_why = "FRE sub-section too short for its counts";
			else
				c.exp_ret = 0;
			run_case("fre_len", l, &c);
		}
	}
}

/* A fault at every byte, then from every byte to the end */
static void cat_holes(void)
{
	const struct base *b;
	uint64_t p;

	for (b = bases; b < bases + nr_bases; b++) {
		for (p = 0; p < b->len; p++) {
			struct mcase c = base_case(b, b->buf);

			c.hole_lo = p;
			c.hole_hi = p + 1;
			c.exp_known = true;
			c.exp_ret = p < 28 ? -EFAULT : 0;
			run_case("hole", p, &c);
			c.hole_hi = b->len;
			run_case("hole_to_end", p, &c);
		}
	}
}

/* Every byte flipped, all bits and the lowest */
static void cat_flips(void)
{
	const struct base *b;
	uint64_t p;

	for (b = bases; b < bases + nr_bases; b++) {
		for (p = 0; p < b->len; p++) {
			struct mcase c = work_case(b);

			work[p] ^= 0xff;
			run_case("flip_ff", p, &c);
			work[p] ^= 0xfe;
			run_case("flip_01", p, &c);
		}
	}
}

/* Every value of each one-byte header field */
static void cat_header_bytes(void)
{
	static const struct {
		const char *name;
		unsigned int off;
	} fields[] = {
		{ "version", 2 }, { "flags", 3 }, { "abi", 4 },
		{ "fixed_fp", 5 }, { "fixed_ra", 6 }, { "auxhdr_len", 7 },
	};
	const struct base *b;
	unsigned int f, v;

	for (b = bases; b < bases + nr_bases; b++) {
		for (f = 0; f < ARRAY_SIZE(fields); f++) {
			for (v = 0; v < 256; v++) {
				struct mcase c = work_case(b);

				if (v == b->buf[fields[f].off])
					continue;
				work[fields[f].off] = v;
				switch (fields[f].off) {
				case 2:
					c.exp_known = v < 2 || v > 3;
					c.exp_ret = -ENOEXEC;
					c.exp_why = "unsupported version";
					break;
				case 3:
					c.exp_known = true;
					c.exp_ret = -ENOEXEC;
					if (v & ~(b->s.version == 2 ? 7 : 5))
						c.exp_why = "unknown header flags";
					else if (!(v & 1))
						c.exp_why = "FDEs not flagged as sorted";
					else
						c.exp_known = false;
					break;
				case 4:
					c.exp_known = true;
					c.exp_ret = -ENOEXEC;
					c.exp_why = v == 2 || v == 3 ?
						"bad fixed RA offset for the ABI" :
						"unsupported ABI";
					break;
				case 7:
					/* Everything moves by d; no slack at the end */
					c.exp_known = b->s.auxhdr_len < v;
					c.exp_ret = -ENOEXEC;
					if (b->len < 28 + v)
						c.exp_why = "auxiliary header past the section end";
					else if (b->s.fdes_end + v -
						 b->s.auxhdr_len > b->len)
						c.exp_why = "FDE sub-section out of bounds";
					else
						c.exp_why = "FRE sub-section out of bounds";
					break;
				}
				run_case(fields[f].name, v, &c);
			}
		}
		/* Magic */
		for (v = 0; v < 0x10000; v += 0x101) {
			struct mcase c = work_case(b);

			if ((v ^ 0x3c00) == 0xdee2)
				continue;
			sfw_put(work, v ^ 0x3c00, 2);
			c.exp_known = true;
			c.exp_ret = -ENOEXEC;
			c.exp_why = "bad magic";
			run_case("magic", v, &c);
		}
		/* Each accepted ABI when only the other one is */
		for (v = 2; v <= 3; v++) {
			struct mcase c = base_case(b, b->buf);

			c.abi_mode = v;
			c.exp_known = v != b->s.abi;
			c.exp_ret = -ENOEXEC;
			c.exp_why = "unsupported ABI";
			run_case("kernel_abi", v, &c);
		}
	}
}

/* Counts and offsets of the header */
static void cat_header_words(void)
{
	static const int64_t deltas[] = {
		-0x80000000LL, -65536, -21, -20, -17, -16, -5, -2, -1,
		1, 2, 5, 16, 17, 20, 21, 65536, 0x7fffffff,
	};
	static const uint64_t values[] = {
		0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	};
	static const char *const names[] = {
		"num_fdes", "num_fres", "fre_len", "fdes_off", "fres_off",
	};
	const struct base *b;
	unsigned int f, k;

	for (b = bases; b < bases + nr_bases; b++) {
		for (f = 0; f < 5; f++) {
			unsigned int off = 8 + 4 * f;
			uint32_t orig = le(b->buf + off, 4);

			for (k = 0; k < ARRAY_SIZE(deltas); k++) {
				struct mcase c = work_case(b);

				sfw_put(work + off, orig + deltas[k], 4);
				run_case(names[f], k, &c);
			}
			for (k = 0; k < ARRAY_SIZE(values); k++) {
				struct mcase c = work_case(b);

				sfw_put(work + off, values[k], 4);
				run_case(names[f], 100 + k, &c);
			}
		}
	}
}

/* Every value of the FDE's and every FRE's info bytes and FRE starts */
static void cat_info_bytes(void)
{
	const struct base *b;
	unsigned int j, k, v;

	for (b = bases; b < bases + nr_bases; b++) {
		const struct sfw_sec *s = &b->s;

		for (j = 0; j < s->nfdes; j++) {
			const struct sfw_fde *f = &b->fdes[j];
			uint64_t info = s->version == 2 ? f->off + 16 :
							  f->attr_off + 2;

			for (v = 0; v < 256; v++) {
				struct mcase c = work_case(b);

				work[info] = v;
				run_case("fde_info", v, &c);
				if (s->version == 2) {
					/* rep_size, with PCMASK */
					work[info] = b->buf[info] | 0x10;
					work[info + 1] = v;
					run_case("fde_rep", v, &c);
				} else {
					work[info] = b->buf[info];
					work[info + 1] = v;
					run_case("fde_info2", v, &c);
					work[info + 1] = b->buf[info + 1];
					work[info] |= 0x10;
					work[info + 2] = v;
					run_case("fde_rep", v, &c);
				}
			}
			for (k = 0; k < f->nfres; k++) {
				const struct sfw_fre *r = &f->fres[k];

				/* FRE starts are 1 byte in these bases */
				for (v = 0; v < 256; v++) {
					struct mcase c = work_case(b);

					work[r->off + 1] = v;
					run_case("fre_info", v, &c);
					memcpy(work, b->buf, b->len);
					work[r->off] = v;
					run_case("fre_start", v, &c);
				}
			}
		}
	}
}

/* FDE fields, over a range of values */
static void cat_fde_fields(void)
{
	static const int64_t deltas[] = {
		INT64_MIN, -0x80000000LL, -0x101, -0x100, -0x31, -0x30, -0x21,
		-0x20, -0x11, -0x10, -9, -8, -1, 1, 8, 9, 0x10, 0x11, 0x20,
		0x21, 0x30, 0x31, 0x100, 0x7fffffff, INT64_MAX,
	};
	const struct base *b;
	unsigned int j, k, fld;

	for (b = bases; b < bases + nr_bases; b++) {
		const struct sfw_sec *s = &b->s;
		const bool v2 = s->version == 2;

		for (j = 0; j < s->nfdes; j++) {
			const struct sfw_fde *f = &b->fdes[j];
			/* start, size, FRE offset, and V2's FRE count */
			const unsigned int offs[4] = {
				0, v2 ? 4 : 8, v2 ? 8 : 12, 12,
			};
			const unsigned int sizes[4] = { v2 ? 4 : 8, 4, 4, 4 };

			for (fld = 0; fld < (v2 ? 4u : 3u); fld++) {
				uint64_t at = f->off + offs[fld];
				uint64_t orig = le(b->buf + at, sizes[fld]);

				for (k = 0; k < ARRAY_SIZE(deltas); k++) {
					struct mcase c = work_case(b);

					sfw_put(work + at, orig + deltas[k],
						sizes[fld]);
					run_case(fld == 0 ? "fde_start" :
						 fld == 1 ? "fde_size" :
						 fld == 2 ? "fde_fre_off" :
							    "fde_num_fres", k, &c);
				}
			}
			if (!v2) {
				/* The V3 FRE count, in the attributes */
				for (k = 0; k < 0x10000; k += 0xfff) {
					struct mcase c = work_case(b);

					sfw_put(work + f->attr_off, k, 2);
					run_case("fde_num_fres", k, &c);
				}
			}
		}
	}
}

/*
 * Reordered, duplicate, overlapping FDEs; narrower text, as when a section
 * is registered once for each executable segment of its object
 */
static void cat_fde_order(void)
{
	const struct base *b;
	unsigned int j, k;

	for (b = bases; b < bases + nr_bases; b++) {
		const struct sfw_sec *s = &b->s;
		const unsigned int esz = s->version == 2 ? 20 : 16;
		struct mcase c;

		for (j = 0; j + 1 < s->nfdes; j++) {
			uint8_t tmp[20];
			int64_t v1, v2;

			/* Swap entries j and j + 1, fixing the PCREL starts */
			c = work_case(b);
			memcpy(tmp, work + b->fdes[j].off, esz);
			memcpy(work + b->fdes[j].off,
			       work + b->fdes[j + 1].off, esz);
			memcpy(work + b->fdes[j + 1].off, tmp, esz);
			if (s->flags & SFW_F_PCREL) {
				unsigned int sz = esz == 20 ? 4 : 8;

				v1 = le(work + b->fdes[j].off, sz);
				v2 = le(work + b->fdes[j + 1].off, sz);
				sfw_put(work + b->fdes[j].off, v1 + esz, sz);
				sfw_put(work + b->fdes[j + 1].off, v2 - esz,
					sz);
			}
			run_case("fde_swap", j, &c);

			/* Entry j + 1 starts where j starts */
			c = work_case(b);
			v1 = le(work + b->fdes[j + 1].off, esz == 20 ? 4 : 8);
			sfw_put(work + b->fdes[j + 1].off,
				v1 - (b->fdes[j + 1].start - b->fdes[j].start),
				esz == 20 ? 4 : 8);
			run_case("fde_dup", j, &c);
			/* ... with entry j empty, as gcc makes them */
			sfw_put(work + b->fdes[j].off + (esz == 20 ? 4 : 8), 0,
				4);
			run_case("fde_empty_dup", j, &c);

			/* Entry j grows over j + 1 */
			c = work_case(b);
			sfw_put(work + b->fdes[j].off + (esz == 20 ? 4 : 8),
				b->fdes[j + 1].start - b->fdes[j].start + 4, 4);
			run_case("fde_overlap", j, &c);
		}
		/* The text range cut at every FDE boundary, from both ends */
		for (j = 0; j < s->nfdes; j++) {
			const struct sfw_fde *f = &b->fdes[j];
			const uint64_t cuts[4] = {
				f->start, f->start + 1, f->start + f->size - 1,
				f->start + f->size,
			};

			for (k = 0; k < 4; k++) {
				c = base_case(b, b->buf);
				c.ts = cuts[k];
				run_case("text_start", j * 4 + k, &c);
				c = base_case(b, b->buf);
				c.te = cuts[k];
				run_case("text_end", j * 4 + k, &c);
			}
		}
	}
}

/*
 * Large sections (140,000 FDEs, where the search takes the most steps): a
 * random layout per version, and cases with one corruption each
 * (a random byte of an FDE, an FDE's start anywhere in the text, a fault
 * over an FDE, a random byte of its FREs), looked up around the corrupted
 * FDE and at random PCs.
 */
#define LARGE_FDES	140000
#define LARGE_CASES	400

static void cat_large(void)
{
	static struct sfw_fde fdes[LARGE_FDES];
	static uint8_t bytes[1 << 22], large_work[1 << 22];
	uint64_t x = 0x2545f4914f6cdd1dULL, ips[MAX_IPS], te, r;
	unsigned int v, k, i, e, esz;
	const struct sfw_fde *f;
	struct sfw_sec s;
	size_t len, j;

	for (v = 2; v <= 3; v++) {
		esz = v == 2 ? 20 : 16;
		len = sfw_random_section(&s, v, SEC_ADDR, fdes, LARGE_FDES,
					 TEXT, &te, &x, bytes, sizeof(bytes));
		CHECK(len, "large: %u FDEs do not fit", LARGE_FDES);
		if (!len)
			continue;
		for (k = 0; k < LARGE_CASES; k++) {
			struct mcase c = {
				.name = v == 2 ? "large-v2" : "large-v3",
				.ips = ips, .nips = MAX_IPS,
				.bytes = large_work, .len = len,
				.ts = TEXT, .te = te,
				.hole_lo = ~0ULL, .hole_hi = ~0ULL,
			};

			e = sfw_random(&x) % LARGE_FDES;
			f = &fdes[e];
			r = sfw_random(&x);
			memcpy(large_work, bytes, len);
			switch (k % 4) {
			case 0:		/* k == 0: none */
				if (k)
					large_work[f->off + r % esz] = r >> 8;
				break;
			case 1:		/* PCREL start */
				sfw_put(large_work + f->off,
					TEXT + r % (te - TEXT) - SEC_ADDR -
					f->off, esz == 20 ? 4 : 8);
				break;
			case 2:
				c.hole_lo = f->off;
				c.hole_hi = f->off + esz;
				break;
			case 3:		/* V3: the attributes too */
				j = v == 3 ? f->attr_off : f->fres_off;
				large_work[j + r % (f->fres_end - j)] = r >> 8;
				break;
			}
			i = 0;
			for (j = e >= 4 ? e - 4 : 0;
			     j < LARGE_FDES && i + 3 <= MAX_IPS / 2; j++) {
				ips[i++] = fdes[j].start;
				ips[i++] = fdes[j].start + 1;
				ips[i++] = fdes[j].start + fdes[j].size;
			}
			while (i < MAX_IPS)
				ips[i++] = TEXT + sfw_random(&x) % (te - TEXT);
			run_case("large", k, &c);
		}
	}
}

int main(int argc, char **argv)
{
	const struct base *b;
	char name[64];

	make_bases();
	if (argc == 3 && !strcmp(argv[1], "--seeds")) {
		for (b = bases; b < bases + nr_bases; b++) {
			snprintf(name, sizeof(name), "corpus-%s", b->name);
			write_seed(argv[2], name, b->buf, b->len, SEC_ADDR,
				   b->ts, b->te, b->ts, false, 0);
		}
	}

	cat_base();
	cat_length();
	cat_fre_len();
	cat_holes();
	cat_flips();
	cat_header_bytes();
	cat_header_words();
	cat_info_bytes();
	cat_fde_fields();
	cat_fde_order();
	cat_large();
	printf("# %lu cases, %lu lookups\n", nr_cases, nr_lookups);
	return finish("malformed_corpus");
}
