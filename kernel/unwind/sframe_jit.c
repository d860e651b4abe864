// SPDX-License-Identifier: GPL-2.0
/*
 * JIT unwind tables: the rule of a frame in code that a JIT emitted.
 *
 * A JIT registers a code area with CODECTL_REGISTER_JIT and a table in its
 * own memory, which it grows and retires entries of without system calls
 * (include/uapi/linux/codectl.h, Documentation/userspace-api/codectl.rst).
 * Each entry is one SFrame FRE for a range of the area, so that the rule
 * is decoded by the SFrame decoder's own code (sframe_decode_rule()) and
 * the unwinder applies it as any other, with the same checks.
 *
 * Everything in the tables is written by user space, at any time: each
 * value is checked at the read that fetches it, the reads stay inside the
 * table they belong to, and a lookup reads O(log entries) entries in each
 * of at most SFRAME_JIT_MAX_TABLES tables, charged to the walk's budget.
 * A table that breaks a rule (a count past its room, entries out of order
 * or overlapping, past the code area, a chain too long) describes no
 * frame: the lookup fails and the unwinder falls back to frame pointers
 * for that frame.  The registration is never marked bad: a JIT rewrites
 * its tables all the time, and a read that raced with a write is no
 * verdict on them.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/align.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sframe.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <asm/barrier.h>

#include "sframe.h"

/* The bytes of an entry the kernel reads: its fields and its FRE words */
#define SFRAME_JIT_READ_MAX	(sizeof(struct sframe_jit_entry) + \
				 SFRAME_FRE_MAX_WORDS * 4)

/* One table of a chain, checked: where its entries are, how many */
struct sframe_jit_view {
	unsigned long	entries;	/* user address of entry 0 */
	unsigned long	stride;
	u64		used;
	unsigned long	next;
};

/*
 * Take @units of the walk's budget; a lookup that would need more empties
 * it, as sframe.c does, so that the rest of the walk does no SFrame work.
 */
static int sframe_jit_charge(u32 *budget, u32 units)
{
	if (units > *budget) {
		*budget = 0;
		sframe_reject("work budget of the walk exhausted");
		return -E2BIG;
	}
	*budget -= units;
	return 0;
}

/* Copy @len bytes at @addr of user memory; -EFAULT unless all of them */
static int sframe_jit_read(void *dst, unsigned long addr, unsigned long len)
{
	return copy_from_user(dst, (const void __user *)addr, len) ? -EFAULT : 0;
}

static bool sframe_jit_stride_ok(u32 stride)
{
	return stride >= SFRAME_JIT_ENTRY_MIN &&
	       stride <= SFRAME_JIT_ENTRY_MAX && IS_ALIGNED(stride, 4);
}

/*
 * Read and check the header of the table at @addr, whose room ends at
 * @end, or at the end its header gives when @end is 0 (a chained table).
 */
static int sframe_jit_table(unsigned long addr, unsigned long end,
			    struct sframe_jit_view *v)
{
	struct sframe_jit_table h;
	u64 bytes;
	int ret;

	if (!addr || !IS_ALIGNED(addr, 8) ||
	    addr >= SFRAME_ADDR_LIMIT - sizeof(h)) {
		sframe_reject("JIT table address out of range");
		return -EBADMSG;
	}
	ret = sframe_jit_read(&h, addr, sizeof(h));
	if (ret)
		return ret;
	/*
	 * The count, then the entries: pairs with the JIT's store-release
	 * of @used (and of @next, which the previous table's read saw).
	 */
	smp_rmb();
	if (h.version != SFRAME_JIT_VERSION ||
	    !sframe_jit_stride_ok(h.entry_size)) {
		sframe_reject("bad JIT table header");
		return -EBADMSG;
	}
	if (h.used > h.reserved ||
	    check_mul_overflow(h.reserved, (u64)h.entry_size, &bytes) ||
	    check_add_overflow(bytes, (u64)sizeof(h), &bytes) ||
	    bytes > (end ? end - addr : SFRAME_ADDR_LIMIT - addr)) {
		sframe_reject("JIT table entries past its room");
		return -EBADMSG;
	}
	v->entries = addr + sizeof(h);
	v->stride = h.entry_size;
	v->used = h.used;
	v->next = h.next;
	return 0;
}

/* The start of entry @i, which the caller checked exists */
static int sframe_jit_entry_off(const struct sframe_jit_view *v, u64 i,
				u32 *off)
{
	return sframe_jit_read(off, v->entries + i * v->stride, sizeof(*off));
}

/*
 * Entry @i is the last that starts at or before @off: check it against the
 * area and its neighbours, read its words, check that it was not rewritten
 * meanwhile, and decode it.  Returns -ENOENT for a retired entry, or one
 * that ends before @off (or that changed under the search).
 */
static int sframe_jit_use(const struct sframe_section *sec,
			  const struct sframe_jit_view *v, u64 i, u32 off,
			  bool topmost, struct sframe_rule *rule, u32 *budget)
{
	u8 buf[SFRAME_JIT_READ_MAX];
	struct sframe_jit_entry e, n;
	unsigned long addr = v->entries + i * v->stride;
	unsigned int len;
	u16 state;
	int ret;

	ret = sframe_jit_charge(budget, 5);
	if (ret)
		return ret;
	/*
	 * A seqcount: the state, the entry, the state again.  The JIT
	 * rewrites an entry only while it is retired, and counts each
	 * rewrite in the state, so that an entry read whole between two
	 * equal live states is one version of it.
	 */
	ret = sframe_jit_read(&state, addr + offsetof(struct sframe_jit_entry,
						      state), sizeof(state));
	if (ret)
		return ret;
	if (!(state & SFRAME_JIT_LIVE))
		return -ENOENT;
	/* The state, then the entry: pairs with the JIT's release fence */
	smp_rmb();
	len = min_t(unsigned long, v->stride, sizeof(buf));
	ret = sframe_jit_read(buf, addr, len);
	if (ret)
		return ret;
	memcpy(&e, buf, sizeof(e));
	if (e.state != state)
		return -ENOENT;
	/* Not empty, inside the area, a known type */
	if (!e.size || (u64)e.off + e.size > sec->text_end - sec->text_start) {
		sframe_reject("JIT entry out of place");
		return -EBADMSG;
	}
	if (e.type & ~SFRAME_JIT_TYPE_MASK) {
		sframe_reject("unknown JIT entry type");
		return -EOPNOTSUPP;
	}
	/* @off may lie after it, where the JIT described no code here */
	if (off < e.off || off - e.off >= e.size)
		return -ENOENT;
	/* Its neighbours do not overlap it */
	if (i > 0) {
		ret = sframe_jit_read(&n, addr - v->stride, sizeof(n));
		if (ret)
			return ret;
		if (n.off > e.off || e.off - n.off < n.size) {
			sframe_reject("JIT entries out of order or overlapping");
			return -EBADMSG;
		}
	}
	if (i + 1 < v->used) {
		ret = sframe_jit_read(&n, addr + v->stride, sizeof(n));
		if (ret)
			return ret;
		if (n.off < (u64)e.off + e.size) {
			sframe_reject("JIT entries out of order or overlapping");
			return -EBADMSG;
		}
	}
	if (SFRAME_FRE_INFO_WORD_SIZE(e.info) > SFRAME_FRE_WORD_4B ||
	    sizeof(e) + (SFRAME_FRE_INFO_NWORDS(e.info) <<
			 SFRAME_FRE_INFO_WORD_SIZE(e.info)) > len) {
		sframe_reject("JIT entry words past its stride");
		return -EBADMSG;
	}
	/* The entry as read is one version of it */
	smp_rmb();
	ret = sframe_jit_read(&state, addr + offsetof(struct sframe_jit_entry,
						      state), sizeof(state));
	if (ret)
		return ret;
	if (state != e.state)
		return -ENOENT;
	ret = sframe_decode_rule(sec, 0, e.type, e.info, buf + sizeof(e),
				 topmost, rule);
	if (!ret)
		rule->flags |= SFRAME_RULE_VOLATILE;
	return ret;
}

/* Look @off up in one table: the last entry that starts at or before it */
static int sframe_jit_search(const struct sframe_section *sec,
			     const struct sframe_jit_view *v, u32 off,
			     bool topmost, struct sframe_rule *rule,
			     u32 *budget)
{
	u64 lo = 0, hi = v->used, mid;
	u32 start;
	int ret;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		ret = sframe_jit_charge(budget, 1);
		if (!ret)
			ret = sframe_jit_entry_off(v, mid, &start);
		if (ret)
			return ret;
		if (start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	return sframe_jit_use(sec, v, lo - 1, off, topmost, rule, budget);
}

/**
 * sframe_jit_init() - check the first table of a JIT registration
 * @sec:	filled with the registration as the lookups use it
 * @table_start: user address of the first table
 * @table_end:	end of the room reserved for it (exclusive)
 * @text_start:	start of the code area
 * @text_end:	end of the code area (exclusive)
 *
 * Reads the header once: the version, the entry size, and that the
 * entries it has room for fit in the room registered.  Its entries are
 * checked at each lookup.  Context: may fault (reads user memory).
 *
 * Return: 0; -EINVAL for an empty, wrapping or misaligned range, one above
 * 2^63 or a code area of more than 4 GiB; -EFAULT if the header cannot be
 * read; -ENOEXEC for a header that is invalid; -EOPNOTSUPP on an
 * architecture without an SFrame ABI.
 */
int sframe_jit_init(struct sframe_section *sec, unsigned long table_start,
		    unsigned long table_end, unsigned long text_start,
		    unsigned long text_end)
{
	struct sframe_section s = {};
	struct sframe_jit_view v;
	int ret;

	if (text_end <= text_start || table_end <= table_start ||
	    text_end >= SFRAME_ADDR_LIMIT ||
	    table_end >= SFRAME_ADDR_LIMIT ||
	    text_end - text_start > BIT_ULL(32) || !IS_ALIGNED(table_start, 8))
		return -EINVAL;
#if defined(CONFIG_X86_64)
	s.abi_arch = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	s.fixed_ra_offset = -8;		/* the call pushed it below the CFA */
#elif defined(CONFIG_ARM64) && !defined(CONFIG_CPU_BIG_ENDIAN)
	s.abi_arch = SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
#else
	return -EOPNOTSUPP;
#endif
	if (table_end - table_start < sizeof(struct sframe_jit_table))
		return -ENOEXEC;
	/* The checks of every lookup, once now: their verdict is -ENOEXEC */
	ret = sframe_jit_table(table_start, table_end, &v);
	if (ret)
		return ret == -EBADMSG ? -ENOEXEC : ret;

	s.text_start = text_start;
	s.text_end = text_end;
	s.sframe_start = table_start;
	s.sframe_end = table_end;
	s.sframe_addr = table_start;
	*sec = s;
	return 0;
}

/**
 * sframe_jit_find_rule() - look up the rule of a frame in JIT code
 * @sec:	a registration set up by sframe_jit_init()
 * @ip:		the address to look up, as for sframe_find_rule()
 * @topmost:	the frame is the topmost one
 * @rule:	filled with the rule on success, SFRAME_RULE_VOLATILE set:
 *		the JIT may retire it at any time, so it is not to be kept
 * @budget:	the work the walk may still do, as for sframe_find_rule()
 *
 * Searches the tables of the chain in order; the first live entry that
 * covers @ip gives the rule.  A retired entry does not: the search goes on
 * in the next tables, where the JIT may have described new code.
 * Context: may fault (reads user memory).
 *
 * Return: 0; -ENOENT when no live entry covers @ip; -EFAULT when a read
 * faulted; -EBADMSG for a table that breaks the rules; -EOPNOTSUPP for a
 * rule the decoder refuses here; -E2BIG when over the budget.
 */
int sframe_jit_find_rule(const struct sframe_section *sec, unsigned long ip,
			 bool topmost, struct sframe_rule *rule, u32 *budget)
{
	unsigned long addr = sec->sframe_start, end = sec->sframe_end;
	struct sframe_jit_view v;
	u32 left = *budget;
	unsigned int n;
	int ret = -ENOENT;

	if (ip < sec->text_start || ip >= sec->text_end)
		return -ENOENT;
	for (n = 0; addr; n++) {
		if (n == SFRAME_JIT_MAX_TABLES) {
			sframe_reject("JIT table chain too long");
			ret = -EBADMSG;
			break;
		}
		ret = sframe_jit_charge(&left, 1);
		if (!ret)
			ret = sframe_jit_table(addr, end, &v);
		if (!ret)
			ret = sframe_jit_search(sec, &v, ip - sec->text_start,
						topmost, rule, &left);
		if (ret != -ENOENT)
			break;
		addr = v.next;
		end = 0;
	}
	*budget = left;
	return ret;
}
