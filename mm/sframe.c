// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm registry of SFrame sections.
 *
 * Each entry describes one (text range, .sframe range) pair of the address
 * space and is stored in mm->sframe_mt under its text range, so that the
 * unwinder finds the section of an instruction pointer with one maple tree
 * walk.  Text ranges never overlap; several entries may share one .sframe
 * range (an object with several executable segments).
 *
 * Locking
 * -------
 * Writers -- registration by the ELF loader and codectl(2), removal by
 * codectl(2) and by the munmap and mremap hook, the copy at fork and the
 * teardown at exit -- hold mmap_lock for writing.  That orders them against
 * each other and against the VMA changes they follow, and it protects
 * mm->sframe_count, the bounds mm->sframe_reach (and how many entries
 * have it), mm->sframe_lo and mm->sframe_hi, and mm->sframe_gen.  So the
 * tree has no lock of its own: mmap_lock is its external lock, as for
 * mm->mm_mt.
 *
 * Readers are the unwinder, which runs in task_work of current (faultable,
 * on the way back to user space), and /proc/<pid>/sframe.  The unwinder
 * holds no mm lock: it looks an entry up under rcu_read_lock() and copies
 * the decoder's descriptor out before it reads any user memory, because
 * reading user memory may fault, and a fault takes mmap_lock.  So a lookup
 * never sleeps holding anything a writer needs, and a writer never waits
 * for a lookup: removed entries are freed after an RCU grace period.  A
 * lookup that races with a removal may still read the old section through
 * its copy; the decoder treats those bytes like any other user input.
 * An entry and what it points to (its struct sframe_objinfo) are freed
 * after a grace period, so a reader under rcu_read_lock() may use both.
 *
 * The only state a lookup writes is the entry's BAD bit, set when the
 * decoder finds the section corrupt: that section then stops being used,
 * and nothing else is touched.  The verdict names the entry by its
 * generation, so a stale verdict never hits a newer registration of the
 * same addresses.
 *
 * Generations
 * -----------
 * Every change of a registry, an insertion or a removal, takes a new value,
 * which no registry of any mm had before, from its CPU's block of one
 * counter shared by all mms, and stores it in mm->sframe_gen once the
 * tree changed.  So a generation names one state of one registry: a
 * cache of what lookups found (the unwinder keeps one per CPU, see
 * kernel/unwind/user.c) is valid while sframe_registry_gen() still
 * returns the generation it was filled under, and never mistakes the
 * registry of a new mm, after exec, for the old one.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/sframe.h>
#include <linux/slab.h>

/* Bits of sframe_entry::flags */
#define SFRAME_ENTRY_BAD	0	/* the decoder found it corrupt */
#define SFRAME_ENTRY_USER	1	/* registered by codectl(2) */
#define SFRAME_ENTRY_JIT	2	/* a JIT table, not an SFrame section */

/**
 * struct sframe_entry - one registered (text range, .sframe range) pair
 * @sec:	the decoder's view of the section, validated at registration
 * @flags:	SFRAME_ENTRY_* bits
 * @gen:	the registry's generation that inserted it (mm->sframe_gen)
 * @info:	how the registration names its object, or NULL
 * @rcu:	frees the entry after the readers that may still see it
 */
struct sframe_entry {
	struct sframe_section	sec;
	unsigned long		flags;
	u64			gen;
	struct sframe_objinfo	*info;
	struct rcu_head		rcu;
};

/*
 * Generations are handed out by each CPU from a block of its own, taken
 * from one counter shared by all mms: a fork or an exec, which change
 * registries, does not write a cache line that all CPUs share.  The
 * values are unique, never 0, and not ordered: only equality tells.
 */
#define SFRAME_GEN_BLOCK	BIT_ULL(20)

struct sframe_gen_block {
	u64	next;
	u64	end;
};

static DEFINE_PER_CPU(struct sframe_gen_block, sframe_gen_block);
/* The last generation handed to a CPU's block */
static atomic64_t sframe_last_gen = ATOMIC64_INIT(0);

static u64 sframe_next_gen(void)
{
	struct sframe_gen_block *b = get_cpu_ptr(&sframe_gen_block);
	u64 gen;

	if (b->next == b->end) {
		b->end = atomic64_add_return(SFRAME_GEN_BLOCK,
					     &sframe_last_gen) + 1;
		b->next = b->end - SFRAME_GEN_BLOCK;
	}
	gen = b->next++;
	put_cpu_ptr(&sframe_gen_block);
	return gen;
}

/* Publish generation @gen once the tree changed; mmap_lock held, written */
static void sframe_set_gen(struct mm_struct *mm, u64 gen)
{
	/* Pairs with sframe_registry_gen(): a reader of @gen sees the change */
	smp_store_release(&mm->sframe_gen, gen);
}

/**
 * sframe_objinfo_put - drop a reference to an object's description
 * @info: the description, or NULL
 */
void sframe_objinfo_put(struct sframe_objinfo *info)
{
	if (info && refcount_dec_and_test(&info->refs)) {
		kfree(info->pathname);
		kfree(info);
	}
}

static void sframe_entry_free_rcu(struct rcu_head *rcu)
{
	struct sframe_entry *e = container_of(rcu, struct sframe_entry, rcu);

	sframe_objinfo_put(e->info);
	kfree(e);
}

/* Free an entry no longer in the tree, after the readers that may see it */
static void sframe_entry_free(struct sframe_entry *e)
{
	call_rcu(&e->rcu, sframe_entry_free_rcu);
}

/**
 * sframe_init_mm - set up an empty registry in a new mm
 * @mm: the mm
 */
void sframe_init_mm(struct mm_struct *mm)
{
	mt_init_flags(&mm->sframe_mt, MT_FLAGS_USE_RCU | MT_FLAGS_LOCK_EXTERN);
	mt_set_external_lock(&mm->sframe_mt, &mm->mmap_lock);
	mm->sframe_count = 0;
	mm->sframe_reach = 0;
	mm->sframe_reach_count = 0;
	mm->sframe_lo = 0;
	mm->sframe_hi = 0;
	mm->sframe_gen = 0;
}

/* The lowest byte of an entry's two ranges, and the end of the highest */
static unsigned long sframe_entry_lo(const struct sframe_entry *e)
{
	return min(e->sec.text_start, e->sec.sframe_start);
}

static unsigned long sframe_entry_hi(const struct sframe_entry *e)
{
	return max(e->sec.text_end, e->sec.sframe_end);
}

/* The span from the lowest to the highest byte of an entry's two ranges */
static unsigned long sframe_entry_reach(const struct sframe_entry *e)
{
	return sframe_entry_hi(e) - sframe_entry_lo(e);
}

/*
 * Widen the registry's bounds to an entry; mmap_lock held for writing.
 * mm->sframe_lo and mm->sframe_hi bound the bytes of every entry's two
 * ranges; mm->sframe_reach is the largest entry's reach, exactly, and
 * mm->sframe_reach_count the number of entries that have it.
 */
static void sframe_widen_bounds(struct mm_struct *mm,
				const struct sframe_entry *e)
{
	unsigned long reach = sframe_entry_reach(e);

	if (!mm->sframe_hi) {
		mm->sframe_lo = sframe_entry_lo(e);
		mm->sframe_hi = sframe_entry_hi(e);
	} else {
		mm->sframe_lo = min(mm->sframe_lo, sframe_entry_lo(e));
		mm->sframe_hi = max(mm->sframe_hi, sframe_entry_hi(e));
	}
	if (reach > mm->sframe_reach) {
		mm->sframe_reach = reach;
		mm->sframe_reach_count = 1;
	} else if (reach == mm->sframe_reach) {
		mm->sframe_reach_count++;
	}
}

/* Insert a complete entry; mmap_lock held for writing */
static int sframe_insert(struct mm_struct *mm, struct sframe_entry *e)
{
	MA_STATE(mas, &mm->sframe_mt, e->sec.text_start, e->sec.text_end - 1);
	int ret;

	if (mm->sframe_count >= SFRAME_MAX_SECTIONS)
		return -ENOSPC;
	if (mas_find(&mas, e->sec.text_end - 1))
		return -EEXIST;
	e->gen = sframe_next_gen();
	mas_set_range(&mas, e->sec.text_start, e->sec.text_end - 1);
	ret = mas_store_gfp(&mas, e, GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	sframe_set_gen(mm, e->gen);
	/* current_has_sframe() reads it without the lock */
	WRITE_ONCE(mm->sframe_count, mm->sframe_count + 1);
	sframe_widen_bounds(mm, e);
	return 0;
}

/*
 * Is [start, end) wholly mapped by VMAs that all have @flags?  -ENOMEM for a
 * hole, as mprotect() and madvise() say; -EACCES for a VMA without @flags.
 */
static int sframe_check_mapped(struct mm_struct *mm, unsigned long start,
			       unsigned long end, vm_flags_t flags)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;

	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_start > start)
			return -ENOMEM;
		if ((vma->vm_flags & flags) != flags)
			return -EACCES;
		start = vma->vm_end;
		if (start >= end)
			return 0;
	}
	return -ENOMEM;
}

/* The text must be executable and the section readable, where they are. */
static int sframe_check_ranges(struct mm_struct *mm,
			       const struct sframe_section *sec)
{
	int ret;

	ret = sframe_check_mapped(mm, sec->text_start, sec->text_end, VM_EXEC);
	if (!ret)
		ret = sframe_check_mapped(mm, sec->sframe_start,
					  sec->sframe_end, VM_READ);
	return ret;
}

/* Does one VMA of special mapping @sm map all of @sec?  mmap_lock held */
static bool sframe_in_special(struct mm_struct *mm,
			      const struct vm_special_mapping *sm,
			      const struct sframe_section *sec)
{
	struct vm_area_struct *vma = vma_lookup(mm, sec->text_start);

	return vma && vma_is_special_mapping(vma, sm) &&
	       sec->text_end <= vma->vm_end &&
	       sec->sframe_start >= vma->vm_start &&
	       sec->sframe_end <= vma->vm_end;
}

static int __sframe_add_section(struct mm_struct *mm,
				unsigned long sframe_start,
				unsigned long sframe_end,
				unsigned long sframe_addr,
				unsigned long text_start, unsigned long text_end,
				struct sframe_objinfo *info, bool user,
				const struct vm_special_mapping *sm, bool jit)
{
	struct sframe_section range = {
		.text_start = text_start, .text_end = text_end,
		.sframe_start = sframe_start, .sframe_end = sframe_end,
	};
	struct sframe_entry *e;
	int ret, init_ret;

	if (text_start >= text_end || sframe_start >= sframe_end)
		return -EINVAL;

	e = kzalloc_obj(*e, GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	if (jit)
		init_ret = sframe_jit_init(&e->sec, sframe_start, sframe_end,
					   text_start, text_end);
	else
		init_ret = sframe_section_init(&e->sec, sframe_start,
					       sframe_end, sframe_addr,
					       text_start, text_end);
	/* Complete before lockless lookups can see it */
	e->info = info;
	if (user)
		__set_bit(SFRAME_ENTRY_USER, &e->flags);
	if (jit)
		__set_bit(SFRAME_ENTRY_JIT, &e->flags);

	if (mmap_write_lock_killable(mm)) {
		kfree(e);
		return -EINTR;
	}
	ret = sframe_check_ranges(mm, &range);
	if (!ret && sm && !sframe_in_special(mm, sm, &range))
		ret = -ENOENT;
	if (!ret)
		ret = init_ret;
	if (!ret)
		ret = sframe_insert(mm, e);
	mmap_write_unlock(mm);
	if (ret)
		kfree(e);	/* the caller keeps its reference to @info */
	return ret;
}

/**
 * sframe_add_section - register the SFrame section of a text range
 * @mm:		current's mm
 * @sframe_start: user address of the .sframe section
 * @sframe_end:	end of the section (exclusive)
 * @sframe_addr: the address its function offsets are relative to:
 *		@sframe_start, or for a section mapped apart from its object (a
 *		sidecar file), where it would lie in the object's address space
 * @text_start:	start of the text it describes
 * @text_end:	end of the text (exclusive)
 * @info:	optional description of the object; on success the entry takes
 *		over the caller's reference
 * @user:	the registration comes from user space (codectl), not from exec
 *
 * Checks that the text is mapped executable and the section readable,
 * validates the section header for this architecture and inserts the entry.
 * Takes mmap_lock once, for writing; the header is read before, without
 * it, since reading user memory may fault.  A bad range is reported
 * before anything about the bytes it holds.
 *
 * Return: 0, or -EINVAL for an empty or wrapping range, or a @sframe_addr
 * where the section would end beyond the user address space, -ENOMEM for a
 * range that is not wholly mapped (or no memory), -EACCES for text that is
 * not executable or a section that is not readable, -EFAULT for a header
 * that cannot be read, -ENOEXEC for a header that is invalid here, -EEXIST
 * when the text overlaps a registered text range, -ENOSPC when the mm holds
 * SFRAME_MAX_SECTIONS already, -EINTR when killed while waiting for the lock.
 */
int sframe_add_section(struct mm_struct *mm, unsigned long sframe_start,
		       unsigned long sframe_end, unsigned long sframe_addr,
		       unsigned long text_start, unsigned long text_end,
		       struct sframe_objinfo *info, bool user)
{
	return __sframe_add_section(mm, sframe_start, sframe_end, sframe_addr,
				    text_start, text_end, info, user, NULL,
				    false);
}

/**
 * sframe_add_jit - register the unwind table of a JIT's code area
 * @mm:		current's mm
 * @table_start: user address of the first table of the chain
 * @table_end:	end of the room reserved for it (exclusive)
 * @text_start:	start of the code area
 * @text_end:	end of the code area (exclusive)
 *
 * As sframe_add_section(), for a table in the format of struct
 * codectl_jit_table: the code area must be mapped executable and the table
 * readable, and the registration lives as long as both are mapped.  Its
 * first table's header is checked here, everything else at each lookup.
 *
 * Return: as sframe_add_section(); -EINVAL also for a table that is not
 * 8-byte aligned or a code area of more than 4 GiB, -ENOEXEC for a table
 * header that is invalid.
 */
int sframe_add_jit(struct mm_struct *mm, unsigned long table_start,
		   unsigned long table_end, unsigned long text_start,
		   unsigned long text_end)
{
	return __sframe_add_section(mm, table_start, table_end, table_start,
				    text_start, text_end, NULL, true, NULL,
				    true);
}

/**
 * sframe_add_special_section - register the SFrame section of a special
 *	mapping of the kernel's own (the vDSO)
 * @mm:		current's mm
 * @sm:		the special mapping that holds the text and the section
 * @sframe_start: user address of the .sframe section
 * @sframe_end:	end of the section (exclusive)
 * @text_start:	start of the mapping's text, where the caller mapped @sm
 * @text_end:	end of the text (exclusive)
 *
 * For the caller that just mapped @sm, and dropped mmap_lock to let the
 * header be read.  Meanwhile another thread may have unmapped it and
 * mapped something else there (arch_prctl(ARCH_MAP_VDSO_64) runs in a
 * multithreaded process): so the entry goes in, under the lock, only if
 * one VMA of @sm still maps the text and the section.  The header was
 * read before the lock was taken, and may be the bytes of a mapping that
 * came and went in between, written by the process itself; like the
 * section's other bytes, which any lookup reads again, the decoder takes
 * them as hostile input, and only within the mapping of @sm.
 *
 * Return: as sframe_add_section(), and -ENOENT when @sm no longer maps
 * the text and the section.
 */
int sframe_add_special_section(struct mm_struct *mm,
			       const struct vm_special_mapping *sm,
			       unsigned long sframe_start,
			       unsigned long sframe_end,
			       unsigned long text_start, unsigned long text_end)
{
	return __sframe_add_section(mm, sframe_start, sframe_end, sframe_start,
				    text_start, text_end, NULL, false, sm,
				    false);
}

/* What the bounds need once entries were erased (sframe_shrink_bounds()) */
#define SFRAME_SHRINK_ENDS	1	/* mm->sframe_lo or mm->sframe_hi */
#define SFRAME_SHRINK_REACH	2	/* mm->sframe_reach: all of them */

/*
 * Erase an entry; mmap_lock held for writing.  Return: what the bounds
 * need after it, for the caller to pass to sframe_shrink_bounds() once it
 * is done erasing: SFRAME_SHRINK_REACH when it was the last entry of the
 * largest reach, SFRAME_SHRINK_ENDS when it was at mm->sframe_lo or
 * mm->sframe_hi, else 0.
 */
static unsigned int sframe_erase(struct mm_struct *mm, struct sframe_entry *e)
{
	MA_STATE(mas, &mm->sframe_mt, e->sec.text_start, e->sec.text_start);
	unsigned int shrink = 0;

	if (sframe_entry_reach(e) == mm->sframe_reach &&
	    !--mm->sframe_reach_count)
		shrink |= SFRAME_SHRINK_REACH;
	if (sframe_entry_lo(e) <= mm->sframe_lo ||
	    sframe_entry_hi(e) >= mm->sframe_hi)
		shrink |= SFRAME_SHRINK_ENDS;
	mas_erase(&mas);
	sframe_set_gen(mm, sframe_next_gen());
	WRITE_ONCE(mm->sframe_count, mm->sframe_count - 1);
	sframe_entry_free(e);
	return shrink;
}

/*
 * Entries that set the registry's bounds went: make them those of the
 * entries left, so that one section mapped far from its object, once
 * gone, does not make every later munmap() look at every entry.  The
 * reach takes a pass over the registry (SFRAME_MAX_SECTIONS entries at
 * most), only when the last entry of the largest reach goes: the largest
 * object, or a section far from its text.  The ends take the first and
 * the last entry: an entry's ranges lie within the reach of its text,
 * and the tree is ordered by text.  So the loader's usual unmapping of
 * the newest, lowest object costs no pass.  mmap_lock held for writing.
 */
static void sframe_shrink_bounds(struct mm_struct *mm, unsigned int shrink)
{
	MA_STATE(mas, &mm->sframe_mt, 0, 0);
	struct sframe_entry *first, *last, *e;
	unsigned long reach;

	if (!shrink)
		return;
	first = mas_find(&mas, ULONG_MAX);
	/* Made again from every entry left, none at all for an empty one */
	if (!first || (shrink & SFRAME_SHRINK_REACH)) {
		mm->sframe_reach = 0;
		mm->sframe_reach_count = 0;
		mm->sframe_lo = 0;
		mm->sframe_hi = 0;
		mas_set(&mas, 0);
		mas_for_each(&mas, e, ULONG_MAX)
			sframe_widen_bounds(mm, e);
		return;
	}
	mas_set(&mas, ULONG_MAX);
	last = mas_find_rev(&mas, 0);
	reach = mm->sframe_reach;
	mm->sframe_lo = max(mm->sframe_lo, first->sec.text_start > reach ?
					   first->sec.text_start - reach : 0);
	mm->sframe_hi = min(mm->sframe_hi,
			    last->sec.text_end < ULONG_MAX - reach ?
			    last->sec.text_end + reach : ULONG_MAX);
}

/**
 * sframe_remove_section - unregister the section of a text range
 * @mm:		current's mm
 * @text_start:	the start of the text range it was registered with
 *
 * Return: 0, -ENOENT when no registration starts at @text_start, or -EINTR
 * when killed while waiting for mmap_lock.
 */
int sframe_remove_section(struct mm_struct *mm, unsigned long text_start)
{
	struct sframe_entry *e;
	int ret = -ENOENT;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	e = mtree_load(&mm->sframe_mt, text_start);
	if (e && e->sec.text_start == text_start) {
		sframe_shrink_bounds(mm, sframe_erase(mm, e));
		ret = 0;
	}
	mmap_write_unlock(mm);
	return ret;
}

/**
 * sframe_move_range - make the registrations of a moved mapping follow it
 * @mm:		the address space; mmap_lock held for writing
 * @old_start:	where the mapping was
 * @old_end:	its end (exclusive)
 * @new_start:	where mremap() moved it
 *
 * For the mremap() hook of a mapping whose section the kernel registered
 * itself (the vDSO), called once the pages moved and before the old range
 * is unmapped.  The registrations whose text and .sframe both lie in the
 * old range move with it, under new generations; the others die with the
 * old range, in sframe_unmap_range().  A registration that cannot be
 * moved, for want of memory, is dropped: its frames are then unwound by
 * frame pointer.  The header is not read again: the bytes are the ones
 * that were checked, at their new address.
 */
void sframe_move_range(struct mm_struct *mm, unsigned long old_start,
		       unsigned long old_end, unsigned long new_start)
{
	unsigned long index = old_start;
	struct sframe_entry *e, *n;
	unsigned int shrink = 0;

	/* Nearly free for what no entry is near, the vDSO's too. */
	if (old_start >= old_end || old_start >= mm->sframe_hi ||
	    old_end <= mm->sframe_lo)
		return;
	mmap_assert_write_locked(mm);

	/* mremap() moves to a range apart: the walk never meets a moved one. */
	mt_for_each(&mm->sframe_mt, e, index, old_end - 1) {
		if (e->sec.text_start < old_start || e->sec.text_end > old_end ||
		    e->sec.sframe_start < old_start ||
		    e->sec.sframe_end > old_end)
			continue;
		n = kzalloc_obj(*n, GFP_KERNEL_ACCOUNT);
		if (n) {
			n->sec = e->sec;
			sframe_section_move(&n->sec, new_start - old_start);
			n->flags = READ_ONCE(e->flags);
			n->info = e->info;
			if (n->info)
				refcount_inc(&n->info->refs);
		}
		shrink |= sframe_erase(mm, e);
		if (n && sframe_insert(mm, n)) {
			sframe_objinfo_put(n->info);
			kfree(n);
		}
	}
	sframe_shrink_bounds(mm, shrink);
}

static bool ranges_overlap(unsigned long a_start, unsigned long a_end,
			   unsigned long b_start, unsigned long b_end)
{
	return a_start < b_end && b_start < a_end;
}

/**
 * sframe_unmap_range - drop the registrations an unmapped range breaks
 * @mm:		the address space; mmap_lock held for writing
 * @start:	start of the range that is unmapped or moved away
 * @end:	its end (exclusive)
 *
 * Called by munmap, mremap and mmap over existing mappings (through the
 * common munmap completion), and at fork for what the child does not
 * inherit.  A registration whose text or .sframe intersects the range
 * describes memory that is no longer what was registered, so it goes.
 * A change of protection keeps it: the bytes stay where they were, and
 * a W^X cycle (RX, RW, RX) of a JIT or of ld.so applying text relocations
 * must not lose it.
 *
 * Only the entries whose text lies within mm->sframe_reach of the range
 * are looked at: the tree finds them by text range, and a .sframe range
 * that intersects the range belongs to such an entry.  For objects mapped
 * whole, the reach is the size of the largest one; an entry whose .sframe
 * lies far from its text (codectl allows it) widens it, at worst to all
 * entries, SFRAME_MAX_SECTIONS at most, for as long as it is registered
 * (the reach shrinks again when it goes).  A sidecar file, a section that
 * user space maps apart from its object, is such an entry unless it is
 * mapped next to the object, as the loader side is expected to do; its
 * sframe_addr, where the section would lie in the object, is no memory
 * and plays no part here.
 */
void sframe_unmap_range(struct mm_struct *mm, unsigned long start,
			unsigned long end)
{
	unsigned long reach = mm->sframe_reach;
	unsigned long index, last;
	struct sframe_entry *e;
	unsigned int shrink = 0;

	/*
	 * Nearly free for a range below or above every entry: most of those
	 * that are unmapped, in a registry that has only the vDSO's.
	 */
	if (start >= end || start >= mm->sframe_hi || end <= mm->sframe_lo)
		return;
	mmap_assert_write_locked(mm);

	index = start > reach ? start - reach : 0;
	last = end - 1 < ULONG_MAX - reach ? end - 1 + reach : ULONG_MAX;
	mt_for_each(&mm->sframe_mt, e, index, last) {
		if (ranges_overlap(start, end, e->sec.text_start,
				   e->sec.text_end) ||
		    ranges_overlap(start, end, e->sec.sframe_start,
				   e->sec.sframe_end))
			shrink |= sframe_erase(mm, e);
	}
	sframe_shrink_bounds(mm, shrink);
}

/**
 * sframe_dup_mm - give a child at fork the registrations of its parent
 * @mm:		the child's new mm; mmap_lock held for writing
 * @oldmm:	the parent's mm; mmap_lock held for writing
 *
 * Called by dup_mmap() before it copies the VMAs; for each VMA that the
 * child does not inherit (MADV_DONTFORK), dup_mmap() then drops the
 * registrations of its memory with sframe_unmap_range(), nearly free when
 * no registration is near.  The child's tree is a copy of the parent's
 * made by __mt_dup(), node by node, whose entries are then replaced by
 * the child's copies, allocated beforehand: a replacement needs no memory
 * and cannot fail, so the child never keeps an entry of the parent's.
 * Inserting the entries one by one instead took most of the time of a
 * fork with 1024 registrations.
 *
 * Return: 0 or -ENOMEM; on error the child's registry is empty.
 */
int sframe_dup_mm(struct mm_struct *mm, struct mm_struct *oldmm)
{
	MA_STATE(mas, &mm->sframe_mt, 0, 0);
	/* The vDSO's alone, in most processes: no array to allocate */
	struct sframe_entry *few[2] = {}, **copies = few, *old, *e;
	unsigned int i, n = oldmm->sframe_count;
	int ret = -ENOMEM;
	u64 gen;

	if (!n)
		return 0;
	/* The tree cannot change under the lock: its copy has n entries. */
	if (n > ARRAY_SIZE(few)) {
		copies = kcalloc(n, sizeof(*copies), GFP_KERNEL);
		if (!copies)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		copies[i] = kzalloc_obj(*copies[i], GFP_KERNEL_ACCOUNT);
		if (!copies[i])
			goto out;
	}
	ret = __mt_dup(&oldmm->sframe_mt, &mm->sframe_mt, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto out;

	/* One generation for the whole copy: its ranges are disjoint. */
	gen = sframe_next_gen();
	i = 0;
	mas_for_each(&mas, old, ULONG_MAX) {
		e = copies[i];
		copies[i++] = NULL;
		/* Lookups in the parent may set BAD meanwhile */
		e->sec = old->sec;
		e->flags = READ_ONCE(old->flags);
		e->info = old->info;
		if (e->info)
			refcount_inc(&e->info->refs);
		e->gen = gen;
		/* The same range: stored in place, no allocation */
		mas_store(&mas, e);
	}
	sframe_set_gen(mm, gen);
	/* current_has_sframe() reads it without the lock */
	WRITE_ONCE(mm->sframe_count, n);
	mm->sframe_reach = oldmm->sframe_reach;
	mm->sframe_reach_count = oldmm->sframe_reach_count;
	mm->sframe_lo = oldmm->sframe_lo;
	mm->sframe_hi = oldmm->sframe_hi;
out:
	for (i = 0; i < n; i++)
		kfree(copies[i]);
	if (copies != few)
		kfree(copies);
	return ret;
}

/**
 * sframe_free_mm - free the registry of an mm that is torn down
 * @mm: the mm; its last user is gone
 */
void sframe_free_mm(struct mm_struct *mm)
{
	struct sframe_entry *e;
	unsigned long index = 0;

	mt_for_each(&mm->sframe_mt, e, index, ULONG_MAX)
		sframe_entry_free(e);
	__mt_destroy(&mm->sframe_mt);
}

/*
 * The decoder found the section of entry @gen, which covers @ip, corrupt:
 * stop using it.  /proc/<pid>/sframe shows it as "bad"; the message is a
 * debug one, as any process can make as many as it likes.
 */
static void sframe_mark_bad(struct mm_struct *mm, unsigned long ip, u64 gen)
{
	struct sframe_entry *e;

	rcu_read_lock();
	e = mtree_load(&mm->sframe_mt, ip);
	if (e && e->gen == gen && !test_and_set_bit(SFRAME_ENTRY_BAD, &e->flags))
		pr_debug("%s[%d]: corrupt .sframe at 0x%lx-0x%lx for text 0x%lx-0x%lx\n",
			 current->comm, task_pid_nr(current),
			 e->sec.sframe_start, e->sec.sframe_end,
			 e->sec.text_start, e->sec.text_end);
	rcu_read_unlock();
}

/**
 * sframe_find - look up the unwind rule of a frame of current
 * @ip:		the address to look up: the frame's instruction pointer, or for
 *		a frame below the topmost one its return address minus one
 * @topmost:	the frame is the one user space was interrupted in
 * @rule:	filled with the rule on success
 * @budget:	the work the walk may still do, see sframe_find_rule()
 * @gap:	set, when no section covers @ip, to a range around @ip that no
 *		section covers (as far as one node of the tree shows); else
 *		left alone
 *
 * Runs in faultable context: the decoder reads current's user memory.
 * A caller that skips the lookups in @gap for the rest of its walk misses
 * a section registered meanwhile, as if it had come just after the walk.
 *
 * Return: 0, -ENOENT when no usable section covers @ip, or the decoder's
 * error for this frame (-EFAULT, -EBADMSG, -EOPNOTSUPP, -E2BIG).  A
 * section found corrupt is not used again.
 */
int sframe_find(unsigned long ip, bool topmost, struct sframe_rule *rule,
		u32 *budget, struct sframe_gap *gap)
{
	MA_STATE(mas, NULL, ip, ip);
	struct mm_struct *mm = current->mm;
	struct sframe_section sec;
	struct sframe_entry *e;
	bool jit;
	u64 gen;
	int ret;

	might_fault();
	if (!mm)
		return -ENOENT;

	mas.tree = &mm->sframe_mt;
	rcu_read_lock();
	e = mas_walk(&mas);
	if (!e) {
		/* On a miss mas_walk() leaves the empty range it found in mas. */
		gap->start = mas.index;
		gap->end = mas.last == ULONG_MAX ? ULONG_MAX : mas.last + 1;
	}
	if (!e || test_bit(SFRAME_ENTRY_BAD, &e->flags)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	sec = e->sec;
	gen = e->gen;
	jit = test_bit(SFRAME_ENTRY_JIT, &e->flags);
	rcu_read_unlock();

	/* A JIT rewrites its table at will: a bad read is no verdict on it. */
	if (jit)
		return sframe_jit_find_rule(&sec, ip, topmost, rule, budget);
	ret = sframe_find_rule(&sec, ip, topmost, rule, budget);
	if (ret == -EBADMSG)
		sframe_mark_bad(mm, ip, gen);
	return ret;
}

/**
 * current_has_sframe - does current's mm have any SFrame section registered
 *
 * Return: true when the unwinder should try SFrame for current.
 */
bool current_has_sframe(void)
{
	struct mm_struct *mm = current->mm;

	/*
	 * A hint, read without the lock: a registration racing with the walk
	 * may or may not be seen, as if it came just before or after.
	 */
	return mm && READ_ONCE(mm->sframe_count);
}

/**
 * sframe_registry_gen - the generation of current's registry
 *
 * Read before a lookup whose result is cached under it: a cache filled
 * under a generation is valid as long as this returns the same value.
 *
 * Return: the generation, or 0 when current has no mm (0 names no state
 * of any registry that has had a section).
 */
u64 sframe_registry_gen(void)
{
	struct mm_struct *mm = current->mm;

	/* Pairs with sframe_set_gen(): the lookup sees the tree as of it. */
	return mm ? smp_load_acquire(&mm->sframe_gen) : 0;
}

#ifdef CONFIG_PROC_FS
static void sframe_show_entry(struct seq_file *m, struct mm_struct *mm,
			      const struct sframe_entry *e)
{
	const struct sframe_objinfo *info = e->info;
	struct vm_area_struct *vma;
	const char *name;

	seq_printf(m, "%08lx-%08lx %08lx-%08lx ",
		   e->sec.text_start, e->sec.text_end,
		   e->sec.sframe_start, e->sec.sframe_end);
	/* A JIT's table has no SFrame version: the line says "jit" */
	if (test_bit(SFRAME_ENTRY_JIT, &e->flags))
		seq_puts(m, "jit");
	else
		seq_printf(m, "v%u", e->sec.version);
	seq_printf(m, " %s %s",
		   test_bit(SFRAME_ENTRY_USER, &e->flags) ? "codectl" : "exec",
		   test_bit(SFRAME_ENTRY_BAD, &e->flags) ? "bad" : "ok");
	/* A section mapped apart from its object: a sidecar */
	if (e->sec.sframe_addr != e->sec.sframe_start)
		seq_printf(m, " sframe-addr=%08lx", e->sec.sframe_addr);
	if (info && info->build_id_len)
		seq_printf(m, " build-id=%*phN", info->build_id_len,
			   info->build_id);
	if (info && info->pathname) {
		seq_puts(m, " ");
		seq_escape(m, info->pathname, " \t\n\\");
		seq_putc(m, '\n');
		return;
	}
	/*
	 * Without a name from user space, name the file the text maps, or
	 * the special mapping ([vdso]).
	 */
	vma = vma_lookup(mm, e->sec.text_start);
	if (vma && vma->vm_file) {
		seq_puts(m, " ");
		seq_file_path(m, vma->vm_file, " \t\n\\");
	} else if (vma && vma->vm_ops && vma->vm_ops->name) {
		name = vma->vm_ops->name(vma);
		if (name) {
			seq_puts(m, " ");
			seq_escape(m, name, " \t\n\\");
		}
	}
	seq_putc(m, '\n');
}

/*
 * /proc/<pid>/sframe is read in chunks under mmap_lock, as maps is: the
 * position is the text address to show next, so that a reader that drops
 * the lock between chunks resumes where it was.
 */
static void *sframe_proc_start(struct seq_file *m, loff_t *pos)
{
	struct sframe_proc_iter *it = m->private;
	unsigned long index = *pos;

	if (!it->mm || !mmget_not_zero(it->mm))
		return NULL;
	if (mmap_read_lock_killable(it->mm)) {
		mmput(it->mm);
		return ERR_PTR(-EINTR);
	}
	it->locked = true;
	return mt_find(&it->mm->sframe_mt, &index, ULONG_MAX);
}

static void *sframe_proc_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct sframe_proc_iter *it = m->private;
	const struct sframe_entry *e = v;
	unsigned long index = e->sec.text_end;

	*pos = index;
	return mt_find(&it->mm->sframe_mt, &index, ULONG_MAX);
}

static void sframe_proc_stop(struct seq_file *m, void *v)
{
	struct sframe_proc_iter *it = m->private;

	if (it->locked) {
		it->locked = false;
		mmap_read_unlock(it->mm);
		mmput(it->mm);
	}
}

static int sframe_proc_show(struct seq_file *m, void *v)
{
	struct sframe_proc_iter *it = m->private;

	sframe_show_entry(m, it->mm, v);
	return 0;
}

/*
 * One line per registration: text range, section range, SFrame version,
 * who registered it (exec or codectl), whether the unwinder still uses it
 * ("ok") or found it corrupt ("bad"), the address the section's offsets
 * are relative to if it is not where the section lies (a sidecar), the
 * build ID if known, and the object's path.  Access was checked when the
 * file was opened, as for /proc/<pid>/maps.
 */
const struct seq_operations sframe_proc_seq_ops = {
	.start	= sframe_proc_start,
	.next	= sframe_proc_next,
	.stop	= sframe_proc_stop,
	.show	= sframe_proc_show,
};
#endif /* CONFIG_PROC_FS */
