// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a struct fuzz_hdr (common.h: text range, lookup
 * addresses, topmost, accepted ABI, an unmapped hole), then the section.
 * The decoder runs under ASan and UBSan with the harness's window on the
 * section, so a read outside it aborts; on top of that, every result must
 * keep the contract:
 * - the error codes and reject reasons are the documented ones;
 * - a rule is well-formed: the CFA is based on SP, FP or another register,
 *   SFRAME_LOC_REG never names SP or FP and only comes in the topmost
 *   frame, an outermost frame has an undefined RA and only it does, flags
 *   are known, PAC flags only on AArch64;
 * - topmost only widens: the non-topmost lookup gives the topmost result,
 *   or -EOPNOTSUPP exactly when the topmost rule has an SFRAME_LOC_REG;
 * - lookups are deterministic, and cost O(log FDEs) reads for the FDEs;
 * - the work budget: a lookup charges at most a block of FDEs a read and
 *   one unit an FRE; with exactly the work it took it gives the same result,
 *   with one unit less -E2BIG, and either way it leaves nothing;
 * - with FUZZ_DELTA, the section's offsets are relative to an address other
 *   than its own (sframe_addr, a sidecar's): the lookups give what the same
 *   bytes give at their own address with the text and the lookups moved
 *   back by the delta, unless an FDE lies beyond the user address space in
 *   one of the two placements, which then fails as corrupt;
 * - with FUZZ_JIT, the bytes are the room of a JIT registration's first
 *   table (sframe_jit.c), set up as on x86-64 or, with the AArch64 ABI
 *   bits, as on arm64: the same contract, every rule marked volatile, and
 *   at most CODECTL_JIT_MAX_TABLES tables of O(log entries) reads each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/codectl.h>

#include "common.h"
#include "sfw.h"

/* The bytes are JIT tables: lookups go to sframe_jit_find_rule() */
static bool jit;
/* A JIT lookup's reads: each table's header, its search, one entry */
#define JIT_MAX_READS	(CODECTL_JIT_MAX_TABLES * (1 + 64 + 5))

#define ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__, __LINE__, \
			#cond);						\
		abort();						\
	}								\
} while (0)

static bool loc_ok(const struct sframe_loc *l, bool top, unsigned int sp,
		   unsigned int fp, unsigned int max_reg)
{
	switch (l->kind) {
	case SFRAME_LOC_SAME:
	case SFRAME_LOC_UNDEFINED:
		return !l->reg && !l->deref && !l->offset;
	case SFRAME_LOC_CFA:
	case SFRAME_LOC_SP:
	case SFRAME_LOC_FP:
		return !l->reg;
	case SFRAME_LOC_REG:
		/* Another register than SP and FP: the topmost frame only */
		return top && l->reg <= max_reg && l->reg != sp && l->reg != fp;
	}
	return false;
}

static void check_rule(const struct sframe_section *sec,
		       const struct sframe_rule *rule, bool top)
{
	struct sframe_rule copy = *rule, *r = &copy;

	/* JIT rules, and only they, are not to be cached */
	ASSERT(!!(r->flags & SFRAME_RULE_VOLATILE) == jit);
	r->flags &= ~SFRAME_RULE_VOLATILE;
	const bool x86 = sec->abi_arch == SFW_ABI_AMD64_LE;
	const unsigned int sp = x86 ? X86_RSP : A64_SP;
	const unsigned int fp = x86 ? X86_RBP : A64_FP;
	const unsigned int max_reg = x86 ? 15 : 31;

	ASSERT(r->cfa.kind == SFRAME_LOC_SP || r->cfa.kind == SFRAME_LOC_FP ||
	       r->cfa.kind == SFRAME_LOC_REG);
	ASSERT(loc_ok(&r->cfa, top, sp, fp, max_reg));
	ASSERT(loc_ok(&r->ra, top, sp, fp, max_reg));
	ASSERT(loc_ok(&r->fp, top, sp, fp, max_reg));
	ASSERT(!(r->flags & ~0xfu));
	ASSERT(!(r->flags & SFRAME_RULE_PAUTH_KEY_B) ||
	       (r->flags & SFRAME_RULE_RA_MANGLED));
	ASSERT(!x86 || !(r->flags & SFRAME_RULE_RA_MANGLED));
	ASSERT(sec->version == 3 || !(r->flags & SFRAME_RULE_SIGNAL));
	if (r->flags & SFRAME_RULE_OUTERMOST) {
		ASSERT(r->ra.kind == SFRAME_LOC_UNDEFINED);
	} else {
		ASSERT(r->ra.kind != SFRAME_LOC_SAME &&
		       r->ra.kind != SFRAME_LOC_UNDEFINED);
		/* A return address is never a stack address */
		ASSERT(r->ra.deref || r->ra.kind == SFRAME_LOC_REG);
		ASSERT(r->fp.kind != SFRAME_LOC_UNDEFINED);
	}
}

/* The rule needs a register that only the topmost frame has */
static bool rule_has_reg(const struct sframe_rule *r)
{
	return r->cfa.kind == SFRAME_LOC_REG || r->ra.kind == SFRAME_LOC_REG ||
	       r->fp.kind == SFRAME_LOC_REG;
}

static int find_rule(const struct sframe_section *sec, unsigned long ip,
		     bool top, struct sframe_rule *rule, uint32_t *budget)
{
	if (jit)
		return sframe_jit_find_rule(sec, ip, top, rule, budget);
	return sframe_find_rule(sec, ip, top, rule, budget);
}

static int fuzz_lookup(const struct sframe_section *sec, unsigned long ip,
		       bool top, struct sframe_rule *rule)
{
	unsigned long reads = test_mem_reads(), max = 4;
	uint32_t n, budget = PLENTY, cost;
	struct sframe_rule again;
	int ret, ret2;

	test_reject_clear();
	ret = find_rule(sec, ip, top, rule, &budget);
	ASSERT(ret == 0 || ret == -ENOENT || ret == -EFAULT ||
	       ret == -EBADMSG || ret == -EOPNOTSUPP);
	/* Errors that are not about the section say nothing */
	if (ret == 0 || ret == -ENOENT || ret == -EFAULT)
		ASSERT(!test_last_reject());
	else
		ASSERT(test_last_reject());
	if (!ret)
		check_rule(sec, rule, top);
	reads = test_mem_reads() - reads;
	cost = PLENTY - budget;
	if (jit) {
		/* A unit a table, a probe, and five for the entry used */
		ASSERT(reads <= JIT_MAX_READS && cost <= JIT_MAX_READS);
	} else {
		/* The FDE probes, plus what one function's FREs may take */
		for (n = sec->num_fdes; n; n >>= 1)
			max++;
		if (sec->fres_end > sec->fres_start)
			max += (sec->fres_end - sec->fres_start) / 64;
		ASSERT(reads <= max);
		/* A block of FDEs a read, and what one function may have */
		ASSERT(cost <= 8 * reads + 0xffff);
	}

	budget = cost;
	ret2 = find_rule(sec, ip, top, &again, &budget);
	ASSERT(ret2 == ret && !budget);
	ASSERT(ret || rule_eq(rule, &again));
	if (cost) {
		budget = cost - 1;
		test_reject_clear();
		ret2 = find_rule(sec, ip, top, &again, &budget);
		ASSERT(ret2 == -E2BIG && !budget &&
		       str_eq(test_last_reject(), OVER_BUDGET));
	}
	return ret;
}

#define BEYOND	"FDE beyond the user address space"

/* @addr - @d is an address below 2^63, and so is @addr */
static bool no_wrap(unsigned long addr, long d)
{
	return addr < 1UL << 63 &&
	       (d > 0 ? addr >= (unsigned long)d :
			addr < (1UL << 63) + (unsigned long)d);
}

/*
 * The lookup of @ip in @sec, whose offsets are relative to sframe_addr, and
 * of @ip - @d in @base, the same bytes with the text @d lower and the
 * offsets relative to the section's own address, agree but where one of
 * them meets an FDE beyond the user address space.
 */
static void fuzz_delta_lookup(const struct sframe_section *sec,
			      const struct sframe_section *base,
			      unsigned long ip, long d, bool top)
{
	struct sframe_rule r1, r2;
	uint32_t b1 = PLENTY, b2 = PLENTY;
	const char *why1, *why2;
	int ret1, ret2;

	test_reject_clear();
	ret1 = sframe_find_rule(sec, ip, top, &r1, &b1);
	why1 = test_last_reject();
	test_reject_clear();
	ret2 = sframe_find_rule(base, ip - d, top, &r2, &b2);
	why2 = test_last_reject();
	if ((ret1 == -EBADMSG && str_eq(why1, BEYOND)) ||
	    (ret2 == -EBADMSG && str_eq(why2, BEYOND)))
		return;
	ASSERT(ret1 == ret2 && str_eq(why1, why2) && b1 == b2);
	ASSERT(ret1 || rule_eq(&r1, &r2));
}

/*
 * Set up a JIT registration of the @len bytes at @a, as x86-64 does, or as
 * arm64 does with the AArch64 ABI bits; 0 when it was accepted.
 */
static int fuzz_jit_init(struct sframe_section *sec, const struct fuzz_hdr *h,
			 unsigned long a, size_t len, unsigned long ts,
			 unsigned long te)
{
	int ret;

	/* A chain may lead anywhere: its reads are bounded by count */
	test_mem_set_window(0, ~0UL);
	test_reject_clear();
	ret = sframe_jit_init(sec, a, a + len, ts, te);
	ASSERT(ret == 0 || ret == -EINVAL || ret == -EFAULT ||
	       ret == -ENOEXEC);
	/* Only a header it refused says why */
	ASSERT(!test_last_reject() || ret == -ENOEXEC);
	if (!len || te <= ts || te - ts > 1UL << 32)
		ASSERT(ret == -EINVAL);
	if (ret)
		return ret;
	ASSERT(sec->sframe_start == a && sec->sframe_end == a + len &&
	       sec->text_start == ts && sec->text_end == te &&
	       sec->abi_arch == SFW_ABI_AMD64_LE);
	if (((h->mode >> FUZZ_ABI_SHIFT) & 3) == 2) {
		sec->abi_arch = SFW_ABI_AARCH64_LE;
		sec->fixed_ra_offset = 0;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned long a = FUZZ_SEC_ADDR;
	struct sframe_rule top_rule, rule;
	struct sframe_section sec, base;
	unsigned long ts, te, ip, lo, hi, sa;
	bool cmp_base = false;
	struct fuzz_hdr h;
	unsigned int k;
	size_t len;
	long d = 0;
	int ret, ret2;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	data += sizeof(h);
	len = size - sizeof(h);

	test_mem_reset();
	switch ((h.mode >> FUZZ_ABI_SHIFT) & 3) {
	case 1:
		test_set_abi(SFW_ABI_AMD64_LE);
		break;
	case 2:
		test_set_abi(SFW_ABI_AARCH64_LE);
		break;
	case 3:
		test_set_abi(0xff);
		break;
	}
	lo = len;
	hi = len;
	if (h.mode & FUZZ_HOLE) {
		lo = h.hole_off < len ? h.hole_off : len;
		hi = lo + h.hole_len < len ? lo + h.hole_len : len;
	}
	if (lo)
		test_mem_map(a, data, lo);
	if (hi < len)
		test_mem_map(a + hi, data + hi, len - hi);
	test_mem_set_window(a, a + len);

	ts = a + (unsigned long)h.text_rel;
	te = ts + h.text_size;
	jit = h.mode & FUZZ_JIT;
	if (jit) {
		if (fuzz_jit_init(&sec, &h, a, len, ts, te))
			return 0;
		goto lookups;
	}
	if (h.mode & FUZZ_DELTA)
		d = fuzz_delta(h.delta);
	sa = a + d;
	ret = sframe_section_init(&sec, a, a + len, sa, ts, te);
	ASSERT(ret == 0 || ret == -EINVAL || ret == -ENOEXEC ||
	       ret == -EFAULT);
	ASSERT((ret == 0 || ret == -EFAULT) == !test_last_reject());
	if (!len || te <= ts)
		ASSERT(ret == -EINVAL);
	if (((h.mode >> FUZZ_ABI_SHIFT) & 3) == 3)
		ASSERT(ret);
	if (ret)
		return 0;
	ASSERT(sec.sframe_start == a && sec.sframe_end == a + len &&
	       sec.sframe_addr == sa);
	/*
	 * The same bytes at their own address, the text moved back: where
	 * no address wraps, that is the same layout.
	 */
	if (d && no_wrap(ts, d) && no_wrap(te, d))
		cmp_base = !sframe_section_init(&base, a, a + len, a, ts - d,
						te - d);
	ASSERT(sec.fdes_start >= a + 28 && sec.fres_start >= a + 28);
	ASSERT(sec.fres_start <= sec.fres_end && sec.fres_end <= a + len);
	ASSERT(sec.fdes_start + (unsigned long)sec.num_fdes *
	       (sec.version == 2 ? 20 : 16) <= a + len);

lookups:
	ip = ts + h.ip_off;
	for (k = 0; k <= (h.nr_ips & 15); k++, ip += h.stride) {
		ret = fuzz_lookup(&sec, ip, true, &top_rule);
		ret2 = fuzz_lookup(&sec, ip, false, &rule);
		/* Topmost only widens what is allowed */
		if (ret)
			ASSERT(ret2 == ret);
		else if (rule_has_reg(&top_rule))
			ASSERT(ret2 == -EOPNOTSUPP);
		else
			ASSERT(!ret2 && rule_eq(&rule, &top_rule));
		if (ip < ts || ip >= te)
			ASSERT(ret == -ENOENT);
		if (cmp_base && no_wrap(ip, d)) {
			fuzz_delta_lookup(&sec, &base, ip, d, true);
			fuzz_delta_lookup(&sec, &base, ip, d, false);
		}
	}
	return 0;
}
