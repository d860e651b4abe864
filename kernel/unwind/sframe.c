// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoder: find the unwind rule of a user-space frame.
 *
 * Every byte of a section comes from user memory: it is attacker-controlled
 * and may change between two reads.  So each value is checked at the read
 * that fetches it, and only that checked copy is used: a refill of the
 * read-ahead, or the fetch of an FRE's words after the scan, may copy bytes
 * again, but no value is taken from one copy and checked in another.  All
 * arithmetic is overflow-checked, every read goes through sframe_copy(),
 * which keeps it inside the section, and a lookup costs O(log FDEs) reads
 * plus the FREs of one function, at most SFRAME_MAX_FDE_FRES, all charged to
 * the work budget of the walk.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/sframe.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <asm/byteorder.h>

#include "sframe.h"

#define SFRAME_NO_REG		0xff

/*
 * What the decoder needs to know about an ABI: the only place that maps the
 * DWARF numbers of the stack and frame pointers to SFRAME_LOC_SP and
 * SFRAME_LOC_FP.
 */
struct sframe_abi {
	u8	sp;		/* DWARF number of the stack pointer */
	u8	fp;		/* ... of the frame pointer */
	u8	lr;		/* ... of the link register, or SFRAME_NO_REG */
	u8	max_reg;	/* highest register number a flex rule may use */
	bool	pauth;		/* the RA mangling bits have a meaning */
};

static const struct sframe_abi sframe_abi_amd64 = {
	.sp = SFRAME_DWARF_X86_64_RSP,
	.fp = SFRAME_DWARF_X86_64_RBP,
	.lr = SFRAME_NO_REG,
	.max_reg = SFRAME_DWARF_X86_64_MAX_GPR,
};

static const struct sframe_abi sframe_abi_aarch64 = {
	.sp = SFRAME_DWARF_ARM64_SP,
	.fp = SFRAME_DWARF_ARM64_FP,
	.lr = SFRAME_DWARF_ARM64_LR,
	.max_reg = SFRAME_DWARF_ARM64_SP,
	.pauth = true,
};

/* A function descriptor, decoded */
struct sframe_fde {
	unsigned long	start;
	u32		size;
	u32		fres_off;
	u32		num_fres;
	u32		fres_len;	/* a guess of the FRE bytes; 0: none */
	u8		info;
	u8		info2;
	u8		rep_size;
};

/* The matching FRE, decoded; words are zero-extended */
struct sframe_fre {
	u8	info;
	u8	nwords;
	u8	word_size;
	u32	words[SFRAME_FRE_MAX_WORDS];
};

/*
 * Read-ahead over the FRE sub-section, so that one copy covers the FREs of
 * most functions; it also holds the largest FRE (4 + 1 + 15 * 4 bytes).
 * The first copy of a lookup reads only as far as the FDE search guessed
 * the function's FREs to go (struct sframe_fde.fres_len), so as not to
 * touch cache lines that the lookup does not need.
 */
#define SFRAME_READAHEAD	80
static_assert(SFRAME_READAHEAD >= 4 + 1 + SFRAME_FRE_MAX_WORDS * 4);

struct sframe_reader {
	unsigned long	base;		/* user address of buf[0] */
	unsigned long	len;		/* bytes valid in buf */
	unsigned long	ahead;		/* bytes to read at the next refill */
	u8		buf[SFRAME_READAHEAD];
};

/*
 * The only access to section bytes: copy [addr, addr + len) to @dst once it
 * is known to lie inside the section.  A fault ends the copy early.
 * Returns the number of bytes copied, or -EBADMSG.
 */
static __always_inline long sframe_copy(const struct sframe_section *sec,
					void *dst, unsigned long addr,
					unsigned long len)
{
	unsigned long end;

	if (unlikely(addr < sec->sframe_start ||
		     check_add_overflow(addr, len, &end) ||
		     end > sec->sframe_end)) {
		sframe_reject("read outside the section");
		return -EBADMSG;
	}
	return len - copy_from_user(dst, (const void __user *)addr, len);
}

static __always_inline int sframe_read(const struct sframe_section *sec,
				       void *dst, unsigned long addr,
				       unsigned long len)
{
	long got = sframe_copy(sec, dst, addr, len);

	if (got < 0)
		return got;
	return (unsigned long)got == len ? 0 : -EFAULT;
}

/*
 * Refill the read-ahead buffer from @addr with r->ahead bytes, or @size if
 * more, or what is left of the FRE sub-section if less.  Inlined, so that
 * the reader stays in registers during the FRE scan.
 */
static __always_inline int sframe_refill(const struct sframe_section *sec,
					 struct sframe_reader *r,
					 unsigned long addr, unsigned long size)
{
	long got;

	if (addr < sec->fres_start || addr >= sec->fres_end ||
	    sec->fres_end - addr < size) {
		sframe_reject("read past the FRE sub-section");
		return -EBADMSG;
	}
	got = sframe_copy(sec, r->buf, addr,
			  min(max(r->ahead, size), sec->fres_end - addr));
	r->ahead = sizeof(r->buf);
	if (got < 0)
		return got;
	/*
	 * Only the bytes asked for must be readable, not the read-ahead; and
	 * copy_from_user() may stop short of a fault by more than that.
	 */
	if ((unsigned long)got < size) {
		int ret = sframe_read(sec, r->buf, addr, size);

		if (ret)
			return ret;
		got = size;
	}
	r->base = addr;
	r->len = got;
	return 0;
}

/*
 * Make @size bytes at @addr in the FRE sub-section available at *@p,
 * refilling the read-ahead buffer if needed.  The buffer only ever holds
 * bytes of the FRE sub-section.
 */
static __always_inline int sframe_fetch(const struct sframe_section *sec,
					struct sframe_reader *r,
					unsigned long addr, unsigned long size,
					const u8 **p)
{
	int ret;

	if (addr < r->base || addr - r->base > r->len ||
	    r->len - (addr - r->base) < size) {
		ret = sframe_refill(sec, r, addr, size);
		if (ret)
			return ret;
	}
	*p = r->buf + (addr - r->base);
	return 0;
}

/**
 * sframe_section_init() - validate the header of an SFrame section
 * @sec:	filled with the validated section on success
 * @sframe_start: user address of the .sframe section
 * @sframe_end:	end of the section (exclusive)
 * @sframe_addr: the address the section's function offsets are relative
 *		to: @sframe_start for a section the linker placed, or where
 *		the section would lie in the object's address space for one
 *		mapped elsewhere (a sidecar file)
 * @text_start:	start of the text the section describes
 * @text_end:	end of that text (exclusive)
 *
 * Reads and checks the header once, in constant time: version, flags, ABI
 * (only the running architecture's), and that the FDE and FRE sub-sections
 * lie inside the section, do not overlap and are big enough for their
 * counts.  The FDEs and FREs themselves are checked at each lookup, as the
 * section may change at any time.  The bytes are read at @sframe_start; a
 * function start is computed as if they lay at @sframe_addr (V2 without
 * SFRAME_F_FDE_FUNC_START_PCREL: @sframe_addr plus the offset; with it, and
 * V3: the address the offset's field would have there, plus the offset).
 * Context: may fault (reads user memory).
 *
 * Return: 0 on success; -EINVAL for an empty or wrapping range, or one that
 * ends above 2^63, where no user address lies, or a @sframe_addr where the
 * section would do so; -EFAULT if the header cannot be read; -ENOEXEC for
 * an invalid or unsupported header.
 */
int sframe_section_init(struct sframe_section *sec,
			unsigned long sframe_start, unsigned long sframe_end,
			unsigned long sframe_addr, unsigned long text_start,
			unsigned long text_end)
{
	struct sframe_section s = {};
	struct sframe_header h;
	u64 size, hdr_len, fdes_off, fdes_end, fres_off, fres_end, min_len;
	unsigned int fde_size, all_flags;
	u32 num_fdes, num_fres, fre_len;
	bool bad_ra;
	int ret;

	if (sframe_end <= sframe_start) {
		sframe_reject("empty or wrapping .sframe range");
		return -EINVAL;
	}
	if (text_end <= text_start) {
		sframe_reject("empty or wrapping text range");
		return -EINVAL;
	}
	if (sframe_end >= SFRAME_ADDR_LIMIT || text_end >= SFRAME_ADDR_LIMIT) {
		sframe_reject("range beyond the user address space");
		return -EINVAL;
	}
	size = sframe_end - sframe_start;
	/* Both below 2^63: the sum cannot wrap. */
	if (sframe_addr >= SFRAME_ADDR_LIMIT ||
	    sframe_addr + size >= SFRAME_ADDR_LIMIT) {
		sframe_reject("section address beyond the user address space");
		return -EINVAL;
	}
	if (size < sizeof(h)) {
		sframe_reject("section shorter than its header");
		return -ENOEXEC;
	}

	s.sframe_start = sframe_start;
	s.sframe_end = sframe_end;
	s.sframe_addr = sframe_addr;
	s.text_start = text_start;
	s.text_end = text_end;
	ret = sframe_read(&s, &h, sframe_start, sizeof(h));
	if (ret)
		return ret;

	if (le16_to_cpu(h.magic) != SFRAME_MAGIC) {
		sframe_reject("bad magic");
		return -ENOEXEC;
	}
	switch (h.version) {
	case SFRAME_VERSION_2:
		all_flags = SFRAME_V2_F_ALL;
		fde_size = sizeof(struct sframe_fde_v2);
		break;
	case SFRAME_VERSION_3:
		all_flags = SFRAME_V3_F_ALL;
		fde_size = sizeof(struct sframe_fde_v3);
		break;
	default:
		sframe_reject("unsupported version");
		return -ENOEXEC;
	}
	if (h.flags & ~all_flags) {
		sframe_reject("unknown header flags");
		return -ENOEXEC;
	}
	/* A lookup is a binary search: it needs sorted FDEs. */
	if (!(h.flags & SFRAME_F_FDE_SORTED)) {
		sframe_reject("FDEs not flagged as sorted");
		return -ENOEXEC;
	}
	if (!sframe_abi_supported(h.abi_arch)) {
		sframe_reject("unsupported ABI");
		return -ENOEXEC;
	}
	/* The RA is at a fixed CFA offset on x86-64, per FRE on arm64. */
	switch (h.abi_arch) {
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		bad_ra = h.cfa_fixed_ra_offset == 0;
		break;
	case SFRAME_ABI_AARCH64_ENDIAN_LITTLE:
		bad_ra = h.cfa_fixed_ra_offset != 0;
		break;
	default:
		sframe_reject("unsupported ABI");
		return -ENOEXEC;
	}
	if (bad_ra) {
		sframe_reject("bad fixed RA offset for the ABI");
		return -ENOEXEC;
	}

	/* All in u64: the sums of u32 fields below cannot overflow. */
	hdr_len = sizeof(h) + h.auxhdr_len;
	if (hdr_len > size) {
		sframe_reject("auxiliary header past the section end");
		return -ENOEXEC;
	}
	num_fdes = le32_to_cpu(h.num_fdes);
	num_fres = le32_to_cpu(h.num_fres);
	fre_len = le32_to_cpu(h.fre_len);
	fdes_off = hdr_len + le32_to_cpu(h.fdes_off);
	fdes_end = fdes_off + (u64)num_fdes * fde_size;
	if (fdes_end > size) {
		sframe_reject("FDE sub-section out of bounds");
		return -ENOEXEC;
	}
	fres_off = hdr_len + le32_to_cpu(h.fres_off);
	fres_end = fres_off + fre_len;
	if (fres_end > size) {
		sframe_reject("FRE sub-section out of bounds");
		return -ENOEXEC;
	}
	if (fdes_off < fres_end && fres_off < fdes_end) {
		sframe_reject("FDE and FRE sub-sections overlap");
		return -ENOEXEC;
	}
	/* An FRE takes 2 bytes at least; a V3 FDE has 5 more in the FREs. */
	min_len = (u64)num_fres * 2;
	if (h.version == SFRAME_VERSION_3)
		min_len += (u64)num_fdes * sizeof(struct sframe_fde_v3_attr);
	if (fre_len < min_len) {
		sframe_reject("FRE sub-section too short for its counts");
		return -ENOEXEC;
	}

	s.fdes_start = sframe_start + fdes_off;
	s.fres_start = sframe_start + fres_off;
	s.fres_end = sframe_start + fres_end;
	s.num_fdes = num_fdes;
	s.version = h.version;
	s.flags = h.flags;
	s.abi_arch = h.abi_arch;
	s.fixed_fp_offset = h.cfa_fixed_fp_offset;
	s.fixed_ra_offset = h.cfa_fixed_ra_offset;
	*sec = s;
	return 0;
}

/*
 * The fields of the FDE at @raw that the search reads.  The start is an
 * offset from the section, or from the FDE with FUNC_START_PCREL, as they
 * would lie at the section's sframe_addr; see SFRAME_ADDR_LIMIT for why it
 * is added as an unsigned long.
 */
static __always_inline unsigned long sframe_fde_off(const void *raw, bool v2)
{
	const struct sframe_fde_v2 *e2 = raw;
	const struct sframe_fde_v3 *e3 = raw;

	if (v2)
		return (long)(s32)le32_to_cpu(e2->func_start);
	return le64_to_cpu(e3->func_start);
}

static __always_inline u32 sframe_fde_size(const void *raw, bool v2)
{
	const struct sframe_fde_v2 *e2 = raw;
	const struct sframe_fde_v3 *e3 = raw;

	return le32_to_cpu(v2 ? e2->func_size : e3->func_size);
}

static __always_inline u32 sframe_fde_fres_off(const void *raw, bool v2)
{
	const struct sframe_fde_v2 *e2 = raw;
	const struct sframe_fde_v3 *e3 = raw;

	return le32_to_cpu(v2 ? e2->fres_off : e3->fres_off);
}

/*
 * Decode the rest of the FDE whose start and size sframe_check_block()
 * checked (a V3 index entry: the rest is with the FREs).
 */
static __always_inline void sframe_decode_fde(const void *raw, bool v2,
					      unsigned long start, u32 size,
					      struct sframe_fde *fde)
{
	fde->start = start;
	fde->size = size;
	if (v2) {
		const struct sframe_fde_v2 *e = raw;

		fde->num_fres = le32_to_cpu(e->num_fres);
		fde->info = e->info;
		fde->info2 = SFRAME_FDE_TYPE_DEFAULT;
		fde->rep_size = e->rep_size;
	}
	/* V3: the rest is read with the FREs, by sframe_find_fre() */
	fde->fres_off = sframe_fde_fres_off(raw, v2);
}

/*
 * The search reads blocks of this many FDEs with one copy: an interpolated
 * guess usually lands within a few entries of the answer, and when memory is
 * cold a block (two or three cache lines, fetched in parallel) costs about
 * what one entry does.
 */
#define SFRAME_FDE_BLOCK	8

/*
 * What the search knows: the entries before lo start at or before ip, those
 * from hi on after it, and lo_end <= ip < hi_start: where entry lo - 1 ends
 * (the search goes past it only if it does not cover ip) and entry hi
 * starts, or the text range until the search has read an entry on that
 * side.  The text range is only a guess: a section is registered once for
 * each executable segment of its object, so its FDEs may describe text on
 * either side of the range.
 */
struct sframe_bounds {
	u32		lo, hi;
	unsigned long	lo_end, hi_start;
};

/*
 * Where to probe in [lo, hi): interpolated from the addresses around ip, as
 * FDEs are spread over the text fairly evenly.  In u64 without overflow:
 * the shift keeps both factors below 2^32.
 */
static __always_inline u32 sframe_guess(unsigned long ip,
					const struct sframe_bounds *b)
{
	u64 span = b->hi_start - b->lo_end, pos = ip - b->lo_end;
	unsigned int shift = fls64(span) > 32 ? fls64(span) - 32 : 0;

	return b->lo + div64_u64((pos >> shift) * (b->hi - b->lo),
				 (span >> shift) + 1);
}

/* The lookup would exceed the walk's budget (see sframe_charge()) */
static noinline int sframe_over_budget(void)
{
	sframe_reject("work budget of the walk exhausted");
	return -E2BIG;
}

/*
 * Take @units of work from the walk's budget.  A lookup that would need more
 * empties it, so that the next lookups of the walk fail before any read.
 */
static __always_inline int sframe_charge(u32 *budget, u32 units)
{
	if (unlikely(units > *budget)) {
		*budget = 0;
		return sframe_over_budget();
	}
	*budget -= units;
	return 0;
}

/* Why an FDE that failed the quick check of sframe_check_block() is bad */
static noinline int sframe_bad_fde(unsigned long start, u32 size)
{
	if (start > SFRAME_ADDR_LIMIT || size > SFRAME_ADDR_LIMIT - start)
		sframe_reject("FDE beyond the user address space");
	else
		sframe_reject("FDEs out of order or overlapping");
	return -EBADMSG;
}

/*
 * Check the @count entries read into @buf from index @first (user address
 * @addr), which lie in [b->lo, b->hi), and narrow @b to the entries after
 * the last one that starts at or before @ip and before the first one that
 * starts after it.  FDEs are sorted and do not overlap: every entry looked
 * at must lie after the entries before it and before those after it, as
 * far as the search has read them, and below SFRAME_ADDR_LIMIT.  Returns 0
 * with @fde filled if that last entry covers @ip and lies in the text
 * range, -ENOENT if it does not and the next one starts after @ip (a gap:
 * no entry can cover @ip) or if it lies partly outside the text, 1 if the
 * answer lies outside the block.
 */
static __always_inline int sframe_check_block(const struct sframe_section *sec,
					      const u8 *buf, bool v2,
					      unsigned long addr, u32 first,
					      u32 count, unsigned long ip,
					      struct sframe_bounds *b,
					      struct sframe_fde *fde)
{
	unsigned int esize = v2 ? sizeof(struct sframe_fde_v2) :
				  sizeof(struct sframe_fde_v3);
	bool pcrel = sec->flags & SFRAME_F_FDE_FUNC_START_PCREL;
	/* Where the entry or the section would lie at sframe_addr */
	unsigned long base = sec->sframe_addr +
			     (pcrel ? addr - sec->sframe_start : 0);
	unsigned long lo_end = 0, hi_start = SFRAME_ADDR_LIMIT;
	const u8 *cand = NULL;
	u32 i, size;

	/* The bounds of any function until an entry is read on that side */
	if (b->lo)
		lo_end = b->lo_end;
	if (b->hi < sec->num_fdes)
		hi_start = b->hi_start;
	/* In locals: the compiler cannot tell that @buf does not alias @b */
	for (i = 0; i < count; i++, buf += esize) {
		unsigned long start = base + sframe_fde_off(buf, v2);

		/*
		 * lo_end <= start <= start + size <= hi_start, in two tests.
		 * An empty function may share its start with the next one:
		 * gcc emits one for a function whose body is unreachable.
		 */
		size = sframe_fde_size(buf, v2);
		if (unlikely(start - lo_end > hi_start - lo_end ||
			     size > hi_start - start))
			return sframe_bad_fde(start, size);
		if (start > ip) {
			b->hi = first + i;
			b->hi_start = start;
			break;
		}
		lo_end = start + size;
		cand = buf;
		if (pcrel)
			base += esize;
	}
	if (!cand)
		return 1;
	/* cand is entry i - 1 */
	b->lo = first + i;
	b->lo_end = lo_end;
	if (ip < lo_end) {
		size = sframe_fde_size(cand, v2);
		/* Only a function wholly inside the text range covers ip */
		if (lo_end - size < sec->text_start || lo_end > sec->text_end)
			return -ENOENT;
		sframe_decode_fde(cand, v2, lo_end - size, size, fde);
		/*
		 * The FREs of the next FDE usually follow: the bytes to read
		 * ahead.  A wrong guess costs a read or two, no more.
		 */
		if (i < count)
			fde->fres_len = sframe_fde_fres_off(buf, v2) -
					fde->fres_off;
		return 0;
	}
	/* A gap, unless the block ended before an entry past ip was seen */
	return i < count ? -ENOENT : 1;
}

/*
 * Read the @count entries from index @first, charged to the walk's
 * *@budget, and check them against @b
 */
static __always_inline int sframe_probe(const struct sframe_section *sec,
					u8 *buf, bool v2, u32 first, u32 count,
					unsigned long ip, struct sframe_bounds *b,
					struct sframe_fde *fde, u32 *budget)
{
	unsigned int esize = v2 ? sizeof(struct sframe_fde_v2) :
				  sizeof(struct sframe_fde_v3);
	unsigned long addr = sec->fdes_start + (unsigned long)first * esize;
	int ret;

	ret = sframe_charge(budget, count);
	if (ret)
		return ret;
	ret = sframe_read(sec, buf, addr, count * esize);
	if (ret)
		return ret;
	return sframe_check_block(sec, buf, v2, addr, first, count, ip, b, fde);
}

/*
 * Where a step probes: the interpolated guess, or the middle after two
 * steps in a row that did not halve the range.
 */
static __always_inline u32 sframe_pick(unsigned long ip,
				       const struct sframe_bounds *b,
				       unsigned int slow)
{
	return slow < 2 ? sframe_guess(ip, b) : b->lo + (b->hi - b->lo) / 2;
}

/* Count the steps in a row that left more than half of the range @n */
static __always_inline unsigned int sframe_slow(unsigned int slow,
						const struct sframe_bounds *b,
						u32 n)
{
	return slow < 2 && b->hi - b->lo > n / 2 ? slow + 1 : 0;
}

/*
 * Find the FDE whose function contains @ip.  Each step reads a block of
 * entries around an interpolated guess, or around the middle after two steps
 * that did not halve the range, so that the number of steps stays O(log
 * FDEs).  Inlined once per version, for constant entry sizes in the hot
 * loop.
 */
static __always_inline int sframe_search(const struct sframe_section *sec,
					 unsigned long ip, bool v2,
					 struct sframe_fde *fde, u32 *budget)
{
	u8 buf[SFRAME_FDE_BLOCK * sizeof(struct sframe_fde_v2)];
	struct sframe_bounds b = {
		.hi = sec->num_fdes,
		.lo_end = sec->text_start,
		.hi_start = sec->text_end,
	};
	unsigned int slow = 0;
	u32 first, n;
	int ret;

	/* The block around the guess, inside [lo, hi) */
	while ((n = b.hi - b.lo) > SFRAME_FDE_BLOCK) {
		first = clamp(sframe_pick(ip, &b, slow),
			      b.lo + SFRAME_FDE_BLOCK / 2,
			      b.hi - SFRAME_FDE_BLOCK / 2) - SFRAME_FDE_BLOCK / 2;
		ret = sframe_probe(sec, buf, v2, first, SFRAME_FDE_BLOCK, ip,
				   &b, fde, budget);
		if (ret <= 0)
			return ret;
		slow = sframe_slow(slow, &b, n);
	}
	if (b.lo == b.hi)
		return -ENOENT;

	/* The last few entries */
	ret = sframe_probe(sec, buf, v2, b.lo, b.hi - b.lo, ip, &b, fde,
			   budget);
	return ret > 0 ? -ENOENT : ret;
}

static int sframe_find_fde(const struct sframe_section *sec, unsigned long ip,
			   struct sframe_fde *fde, u32 *budget)
{
	if (sec->version == SFRAME_VERSION_2)
		return sframe_search(sec, ip, true, fde, budget);
	return sframe_search(sec, ip, false, fde, budget);
}

/* An unsigned little-endian FRE field of @size (1, 2 or 4) bytes */
static __always_inline u32 sframe_get_le(const u8 *p, unsigned int size)
{
	if (size == 1)
		return *p;
	if (size == 2)
		return get_unaligned_le16(p);
	return get_unaligned_le32(p);
}

/*
 * Whether FRE @n, whose start failed the quick check of sframe_scan(), is
 * bad.  Only the last FRE may start at the end of the function: gas emits
 * such a row for CFI directives after the last instruction.  It describes
 * no address of the function, and the scan stops there as at any FRE past
 * the address.
 */
static noinline int sframe_check_fre_start(const struct sframe_fde *fde,
					   u32 n, unsigned long start,
					   unsigned long prev)
{
	if (start < prev) {
		sframe_reject("FRE starts not in order");
		return -EBADMSG;
	}
	if (start != fde->size || n != fde->num_fres - 1) {
		sframe_reject("FRE start past the function");
		return -EBADMSG;
	}
	return 0;
}

/*
 * Scan the FREs of @fde from @addr, at or past the start of the read-ahead
 * buffer, for the last one that starts at or before @pc (below the function
 * size), and decode it.  Each FRE read is charged to the walk's *@budget.
 * Inlined once per FRE start size.
 */
static __always_inline int sframe_scan(const struct sframe_section *sec,
				       struct sframe_reader *r,
				       const struct sframe_fde *fde,
				       unsigned long addr, unsigned long pc,
				       unsigned int addr_size,
				       struct sframe_fre *fre, u32 *budget)
{
	unsigned long match = 0, size, prev = 0;
	unsigned int word_size, i;
	const u8 *p;
	u32 n;
	int ret;

	for (n = 0; n < fde->num_fres; n++) {
		unsigned long start;
		u8 info;

		ret = sframe_charge(budget, 1);
		if (ret)
			return ret;
		/* addr is past the bytes read so far by at most one FRE */
		if (addr - r->base + addr_size + 1 > r->len) {
			ret = sframe_refill(sec, r, addr, addr_size + 1);
			if (ret)
				return ret;
		}
		p = r->buf + (addr - r->base);
		start = sframe_get_le(p, addr_size);
		info = p[addr_size];

		if (SFRAME_FRE_INFO_WORD_SIZE(info) > SFRAME_FRE_WORD_4B) {
			sframe_reject("bad data word size");
			return -EBADMSG;
		}
		size = addr_size + 1 + (SFRAME_FRE_INFO_NWORDS(info) <<
					SFRAME_FRE_INFO_WORD_SIZE(info));
		if (sec->fres_end - addr < size) {
			sframe_reject("read past the FRE sub-section");
			return -EBADMSG;
		}
		/* prev <= start < the function size, in one test */
		if (unlikely(start - prev >= fde->size - prev)) {
			ret = sframe_check_fre_start(fde, n, start, prev);
			if (ret)
				return ret;
		}
		if (start > pc)
			break;
		prev = start;
		match = addr;
		fre->info = info;
		addr += size;
	}
	/* FRE n is the first past pc: FRE n - 1, if any, is the match. */
	if (!n)
		return -ENOENT;

	fre->nwords = SFRAME_FRE_INFO_NWORDS(fre->info);
	if (!fre->nwords)
		return 0;
	word_size = 1U << SFRAME_FRE_INFO_WORD_SIZE(fre->info);
	fre->word_size = word_size;
	ret = sframe_fetch(sec, r, match + addr_size + 1,
			   fre->nwords * word_size, &p);
	if (ret)
		return ret;
	for (i = 0; i < fre->nwords; i++, p += word_size)
		fre->words[i] = sframe_get_le(p, word_size);
	return 0;
}

/*
 * Find the FRE of @fde that covers @ip: the last one that starts at or
 * before it.  FREs are scanned in order, bounded by the FDE's count, the
 * end of the FRE sub-section and the walk's *@budget, and stop at the first
 * one past @ip.
 */
static int sframe_find_fre(const struct sframe_section *sec,
			   struct sframe_fde *fde, unsigned long ip,
			   struct sframe_fre *fre, u32 *budget)
{
	struct sframe_reader r;
	unsigned long addr, pc;
	int ret;

	/* addr is below 2^63 + 2^32: no overflow */
	addr = sec->fres_start + fde->fres_off;
	r.ahead = fde->fres_len && fde->fres_len < sizeof(r.buf) ?
		  fde->fres_len : sizeof(r.buf);
	if (sec->version == SFRAME_VERSION_3) {
		const struct sframe_fde_v3_attr *attr;

		ret = sframe_refill(sec, &r, addr, sizeof(*attr));
		if (ret)
			return ret;
		attr = (const struct sframe_fde_v3_attr *)r.buf;
		fde->num_fres = le16_to_cpu(attr->num_fres);
		fde->info = attr->info;
		fde->info2 = attr->info2;
		fde->rep_size = attr->rep_size;
		addr += sizeof(*attr);
	} else {
		/* Nothing read ahead yet: the scan's first FRE refills. */
		r.base = addr;
		r.len = 0;
	}
	/*
	 * The scan is linear: bound it by what V3 can encode, or a V2 section
	 * of zeroes costs seconds a lookup.
	 */
	if (fde->num_fres > SFRAME_MAX_FDE_FRES) {
		sframe_reject("too many FREs in a function");
		return -EBADMSG;
	}

	if ((fde->info & SFRAME_FDE_INFO_FRE_TYPE) > SFRAME_FRE_TYPE_ADDR4) {
		sframe_reject("bad FRE type");
		return -EBADMSG;
	}
	pc = ip - fde->start;
	if (fde->info & SFRAME_FDE_INFO_PCMASK) {
		if (!fde->rep_size) {
			sframe_reject("PCMASK FDE with rep_size 0");
			return -EBADMSG;
		}
		pc %= fde->rep_size;
	}
	if (SFRAME_V3_FDE_TYPE(fde->info2) > SFRAME_FDE_TYPE_FLEX) {
		sframe_reject("unknown FDE type");
		return -EOPNOTSUPP;
	}

	switch (fde->info & SFRAME_FDE_INFO_FRE_TYPE) {
	case SFRAME_FRE_TYPE_ADDR1:
		return sframe_scan(sec, &r, fde, addr, pc, 1, fre, budget);
	case SFRAME_FRE_TYPE_ADDR2:
		return sframe_scan(sec, &r, fde, addr, pc, 2, fre, budget);
	default:
		return sframe_scan(sec, &r, fde, addr, pc, 4, fre, budget);
	}
}

/* Data word @i of @fre as a signed offset */
static s32 sframe_offset(const struct sframe_fre *fre, unsigned int i)
{
	return sign_extend32(fre->words[i], fre->word_size * 8 - 1);
}

static void sframe_set(struct sframe_loc *loc, u8 kind, u8 reg, bool deref,
		       s32 offset)
{
	loc->kind = kind;
	loc->reg = reg;
	loc->deref = deref;
	loc->offset = offset;
}

/* The RA when no data word gives it: at a fixed offset, or still in LR */
static void sframe_default_ra(const struct sframe_section *sec,
			      const struct sframe_abi *abi,
			      struct sframe_rule *rule)
{
	/* sframe_section_init() made sure that one of the two exists. */
	if (sec->fixed_ra_offset)
		sframe_set(&rule->ra, SFRAME_LOC_CFA, 0, true,
			   sec->fixed_ra_offset);
	else
		sframe_set(&rule->ra, SFRAME_LOC_REG, abi->lr, false, 0);
}

static void sframe_default_fp(const struct sframe_section *sec,
			      struct sframe_rule *rule)
{
	if (sec->fixed_fp_offset)
		sframe_set(&rule->fp, SFRAME_LOC_CFA, 0, true,
			   sec->fixed_fp_offset);
	else
		sframe_set(&rule->fp, SFRAME_LOC_SAME, 0, false, 0);
}

/*
 * Default FDE: CFA = SP or FP + word 0, then the RA offset from the CFA if
 * the ABI tracks it per FRE (arm64), then the FP offset if the FP was saved.
 */
static int sframe_default_rule(const struct sframe_section *sec,
			       const struct sframe_abi *abi,
			       const struct sframe_fre *fre,
			       struct sframe_rule *rule)
{
	bool ra_tracked = !sec->fixed_ra_offset;
	bool fp_tracked = !sec->fixed_fp_offset;
	unsigned int i = 1;
	u8 base;

	if (fre->nwords > 1 + ra_tracked + fp_tracked) {
		sframe_reject("too many data words");
		return -EBADMSG;
	}
	base = (fre->info & SFRAME_FRE_INFO_BASE_SP) ? SFRAME_LOC_SP :
						       SFRAME_LOC_FP;
	sframe_set(&rule->cfa, base, 0, false, sframe_offset(fre, 0));
	if (ra_tracked && fre->nwords > i)
		sframe_set(&rule->ra, SFRAME_LOC_CFA, 0, true,
			   sframe_offset(fre, i++));
	else
		sframe_default_ra(sec, abi, rule);
	if (fp_tracked && fre->nwords > i)
		sframe_set(&rule->fp, SFRAME_LOC_CFA, 0, true,
			   sframe_offset(fre, i));
	else
		sframe_default_fp(sec, rule);
	return 0;
}

/*
 * Decode the flex rule whose control word is @ctrl.  A rule based on the
 * stack or frame pointer becomes SFRAME_LOC_SP or SFRAME_LOC_FP, so that
 * SFRAME_LOC_REG is left for the registers that only the topmost frame has.
 */
static int sframe_flex_loc(const struct sframe_abi *abi, u32 ctrl,
			   s32 offset, struct sframe_loc *loc)
{
	bool deref = ctrl & SFRAME_FLEX_DEREF_P;
	u32 reg = SFRAME_FLEX_REGNUM(ctrl);

	if (ctrl & SFRAME_FLEX_RESERVED) {
		sframe_reject("unknown flex control bits");
		return -EOPNOTSUPP;
	}
	if (!(ctrl & SFRAME_FLEX_REG_P)) {
		sframe_set(loc, SFRAME_LOC_CFA, 0, deref, offset);
		return 0;
	}
	if (reg > abi->max_reg) {
		sframe_reject("unsupported flex register");
		return -EOPNOTSUPP;
	}
	if (reg == abi->sp)
		sframe_set(loc, SFRAME_LOC_SP, 0, deref, offset);
	else if (reg == abi->fp)
		sframe_set(loc, SFRAME_LOC_FP, 0, deref, offset);
	else
		sframe_set(loc, SFRAME_LOC_REG, reg, deref, offset);
	return 0;
}

/*
 * Decode the optional flex rule at word *@i and step past it.  Returns 1 when
 * it is absent or a padding word, 0 when decoded, or an error.
 */
static int sframe_flex_next(const struct sframe_abi *abi,
			    const struct sframe_fre *fre, unsigned int *i,
			    struct sframe_loc *loc)
{
	u32 ctrl;
	int ret;

	if (*i >= fre->nwords)
		return 1;
	ctrl = fre->words[*i];
	if (!ctrl) {
		(*i)++;
		return 1;
	}
	if (*i + 1 >= fre->nwords) {
		sframe_reject("truncated flex rule");
		return -EBADMSG;
	}
	ret = sframe_flex_loc(abi, ctrl, sframe_offset(fre, *i + 1), loc);
	*i += 2;
	return ret;
}

/* Flex FDE: (control, offset) rules for the CFA, then RA and FP if any */
static int sframe_flex_rule(const struct sframe_section *sec,
			    const struct sframe_abi *abi,
			    const struct sframe_fre *fre,
			    struct sframe_rule *rule)
{
	unsigned int i = 2;
	int ret;

	if (fre->nwords < 2) {
		sframe_reject("truncated flex rule");
		return -EBADMSG;
	}
	/* A CFA relative to itself means nothing. */
	if (!(fre->words[0] & SFRAME_FLEX_REG_P)) {
		sframe_reject("flex CFA rule not register-based");
		return -EBADMSG;
	}
	ret = sframe_flex_loc(abi, fre->words[0], sframe_offset(fre, 1),
			      &rule->cfa);
	if (ret)
		return ret;

	ret = sframe_flex_next(abi, fre, &i, &rule->ra);
	if (ret < 0)
		return ret;
	if (ret) {
		sframe_default_ra(sec, abi, rule);
	} else if (!rule->ra.deref && rule->ra.kind != SFRAME_LOC_REG) {
		/* An RA that is a stack address (CFA, SP, FP + n) is no rule */
		sframe_reject("RA rule is a stack address");
		return -EOPNOTSUPP;
	}

	ret = sframe_flex_next(abi, fre, &i, &rule->fp);
	if (ret < 0)
		return ret;
	if (ret)
		sframe_default_fp(sec, rule);

	if (i != fre->nwords) {
		sframe_reject("too many data words");
		return -EBADMSG;
	}
	return 0;
}

/*
 * The rule that FRE @fre of @fde says, for a frame that is the topmost one
 * or not: the one place that turns FRE words into a struct sframe_rule,
 * for sections and for JIT tables alike.
 */
static __always_inline int
sframe_rule_from_fre(const struct sframe_section *sec,
		     const struct sframe_fde *fde, const struct sframe_fre *fre,
		     bool topmost, struct sframe_rule *rule)
{
	const struct sframe_abi *abi;
	int ret;

	abi = sec->abi_arch == SFRAME_ABI_AMD64_ENDIAN_LITTLE ?
	      &sframe_abi_amd64 : &sframe_abi_aarch64;
	/* Every path below sets the three locations */
	rule->flags = 0;
	if (sec->version == SFRAME_VERSION_3 &&
	    (fde->info & SFRAME_V3_FDE_INFO_SIGNAL))
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (abi->pauth && (fre->info & SFRAME_FRE_INFO_RA_MANGLED)) {
		rule->flags |= SFRAME_RULE_RA_MANGLED;
		if (fde->info & SFRAME_FDE_INFO_PAUTH_KEY_B)
			rule->flags |= SFRAME_RULE_PAUTH_KEY_B;
	}

	/* No data words: the RA is undefined, this is the outermost frame. */
	if (!fre->nwords) {
		rule->flags |= SFRAME_RULE_OUTERMOST;
		sframe_set(&rule->cfa, SFRAME_LOC_SP, 0, false, 0);
		sframe_set(&rule->ra, SFRAME_LOC_UNDEFINED, 0, false, 0);
		sframe_set(&rule->fp, SFRAME_LOC_SAME, 0, false, 0);
		return 0;
	}

	if (SFRAME_V3_FDE_TYPE(fde->info2) == SFRAME_FDE_TYPE_FLEX)
		ret = sframe_flex_rule(sec, abi, fre, rule);
	else
		ret = sframe_default_rule(sec, abi, fre, rule);
	if (ret)
		return ret;

	/* Only SP and FP are known in frames other than the topmost one. */
	if (!topmost &&
	    (rule->cfa.kind == SFRAME_LOC_REG ||
	     rule->ra.kind == SFRAME_LOC_REG ||
	     rule->fp.kind == SFRAME_LOC_REG)) {
		sframe_reject("register rule in a non-topmost frame");
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * sframe_decode_rule() - the rule of one FRE given apart from a section
 * @sec:	the registration it belongs to: its ABI, fixed offsets, version
 * @fde_info:	the SFrame FDE info byte (FRE type bits ignored)
 * @fde_info2:	the SFrame V3 FDE info2 byte (the FDE type)
 * @fre_info:	the FRE info byte
 * @data:	the FRE's data words, as many as @fre_info says, all readable
 * @topmost:	the frame is the topmost one
 * @rule:	filled with the rule on success
 *
 * For JIT tables, whose entries are single FREs: the rule is decoded as
 * sframe_find_rule() decodes the FRE it finds, with the same checks.
 *
 * Return: 0, -EBADMSG for a malformed FRE, -EOPNOTSUPP for a rule that
 * the decoder refuses (see sframe_find_rule()).
 */
int sframe_decode_rule(const struct sframe_section *sec, u8 fde_info,
		       u8 fde_info2, u8 fre_info, const u8 *data, bool topmost,
		       struct sframe_rule *rule)
{
	struct sframe_fde fde = { .info = fde_info, .info2 = fde_info2 };
	struct sframe_fre fre = { .info = fre_info };
	unsigned int i, word_size;

	if (SFRAME_FRE_INFO_WORD_SIZE(fre_info) > SFRAME_FRE_WORD_4B) {
		sframe_reject("bad data word size");
		return -EBADMSG;
	}
	if (SFRAME_V3_FDE_TYPE(fde_info2) > SFRAME_FDE_TYPE_FLEX) {
		sframe_reject("unknown FDE type");
		return -EOPNOTSUPP;
	}
	fre.nwords = SFRAME_FRE_INFO_NWORDS(fre_info);
	word_size = 1U << SFRAME_FRE_INFO_WORD_SIZE(fre_info);
	fre.word_size = word_size;
	for (i = 0; i < fre.nwords; i++, data += word_size)
		fre.words[i] = sframe_get_le(data, word_size);
	return sframe_rule_from_fre(sec, &fde, &fre, topmost, rule);
}

/**
 * sframe_find_rule() - look up how to unwind the frame at an address
 * @sec:	a section set up by sframe_section_init()
 * @ip:		the address to look up: the frame's instruction pointer; for a
 *		frame that is not the topmost one, the caller passes its
 *		return address minus one
 * @topmost:	the frame is the topmost one, whose registers are all known
 * @rule:	filled with the rule on success
 * @budget:	the work the walk may still make the decoder do, in FDEs and
 *		FREs read; the lookup takes what it reads from it
 *
 * A search over the FDEs and a scan of one function's FREs; each value read
 * is checked as it is read.  Only an FDE that lies wholly inside the text
 * range covers an address: the section may describe other text too, as an
 * object registers it once for each executable segment.
 *
 * This is the one place that decides which registers a frame has.  Rules
 * based on the stack and frame pointers come as SFRAME_LOC_SP and
 * SFRAME_LOC_FP, and SFRAME_LOC_REG (a DWARF number) only names another
 * register, which only the topmost frame has: for a frame that is not the
 * topmost one, a rule that needs such a register is refused with
 * -EOPNOTSUPP, so that the caller never sees SFRAME_LOC_REG there.
 *
 * The lookups of one walk share a budget, started at SFRAME_WALK_BUDGET,
 * which bounds the work of the walk whatever the sections hold.  Context:
 * may fault (reads user memory).
 *
 * Return: 0 if a rule was found; -ENOENT if nothing covers @ip; -EFAULT if
 * reading the section faulted; -EBADMSG if the section is corrupt;
 * -EOPNOTSUPP for a valid rule that the decoder refuses to apply here;
 * -E2BIG if the lookup would need more than *@budget, which it then sets
 * to 0, so that the next lookups of the walk fail at once.
 */
int sframe_find_rule(const struct sframe_section *sec, unsigned long ip,
		     bool topmost, struct sframe_rule *rule, u32 *budget)
{
	struct sframe_fde fde = { };
	struct sframe_fre fre;
	u32 left = *budget;	/* a local, which the copies cannot alias */
	int ret;

	if (ip < sec->text_start || ip >= sec->text_end)
		return -ENOENT;
	ret = sframe_find_fde(sec, ip, &fde, &left);
	if (!ret)
		ret = sframe_find_fre(sec, &fde, ip, &fre, &left);
	*budget = left;
	if (ret)
		return ret;

	return sframe_rule_from_fre(sec, &fde, &fre, topmost, rule);
}
