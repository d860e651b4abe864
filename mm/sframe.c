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
 * codectl(2) and by the munmap, mremap and mprotect hooks, the copy at fork
 * and the teardown at exit -- hold mmap_lock for writing.  That orders them
 * against each other and against the VMA changes they follow, and it
 * protects mm->sframe_count and mm->sframe_reach.  The tree's own
 * spinlock, taken by the mtree_* calls, only serializes the tree's
 * internals.
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
 *
 * The only state a lookup writes is the entry's BAD bit, set when the
 * decoder finds the section corrupt: that section then stops being used,
 * and nothing else is touched.
 */
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

/**
 * struct sframe_entry - one registered (text range, .sframe range) pair
 * @sec:	the decoder's view of the section, validated at registration
 * @flags:	SFRAME_ENTRY_* bits
 * @info:	what consumers may know about the object, or NULL
 * @rcu:	frees the entry after the readers that may still see it
 */
struct sframe_entry {
	struct sframe_section	sec;
	unsigned long		flags;
	struct sframe_objinfo	*info;
	struct rcu_head		rcu;
};

/**
 * sframe_objinfo_put - drop a reference to an object's description
 * @info: the description, or NULL
 */
void sframe_objinfo_put(struct sframe_objinfo *info)
{
	if (info && refcount_dec_and_test(&info->refs)) {
		kfree(info->pathname);
		kfree(info->debug_link);
		kfree(info);
	}
}

static void sframe_entry_free(struct sframe_entry *e)
{
	sframe_objinfo_put(e->info);
	kfree_rcu(e, rcu);
}

/**
 * sframe_init_mm - set up an empty registry in a new mm
 * @mm: the mm
 */
void sframe_init_mm(struct mm_struct *mm)
{
	mt_init_flags(&mm->sframe_mt, MT_FLAGS_USE_RCU);
	mm->sframe_count = 0;
	mm->sframe_reach = 0;
}

/* The span from the lowest to the highest byte of an entry's two ranges */
static unsigned long sframe_entry_reach(const struct sframe_entry *e)
{
	return max(e->sec.text_end, e->sec.sframe_end) -
	       min(e->sec.text_start, e->sec.sframe_start);
}

static int sframe_insert(struct mm_struct *mm, struct sframe_entry *e)
{
	int ret;

	if (mm->sframe_count >= SFRAME_MAX_SECTIONS)
		return -ENOSPC;
	ret = mtree_insert_range(&mm->sframe_mt, e->sec.text_start,
				 e->sec.text_end - 1, e, GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	mm->sframe_count++;
	mm->sframe_reach = max(mm->sframe_reach, sframe_entry_reach(e));
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

/**
 * sframe_add_section - register the SFrame section of a text range
 * @mm:		current's mm
 * @sframe_start: user address of the .sframe section
 * @sframe_end:	end of the section (exclusive)
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
 * Return: 0, or -EINVAL for an empty or wrapping range, -ENOMEM for a range
 * that is not wholly mapped (or no memory), -EACCES for text that is not
 * executable or a section that is not readable, -EFAULT for a header that
 * cannot be read, -ENOEXEC for a header that is invalid here, -EEXIST when
 * the text overlaps a registered text range, -ENOSPC when the mm holds
 * SFRAME_MAX_SECTIONS already, -EINTR when killed while waiting for the lock.
 */
int sframe_add_section(struct mm_struct *mm, unsigned long sframe_start,
		       unsigned long sframe_end, unsigned long text_start,
		       unsigned long text_end, struct sframe_objinfo *info,
		       bool user)
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
	init_ret = sframe_section_init(&e->sec, sframe_start, sframe_end,
				       text_start, text_end);
	/* Complete before lockless lookups can see it */
	e->info = info;
	if (user)
		__set_bit(SFRAME_ENTRY_USER, &e->flags);

	if (mmap_write_lock_killable(mm)) {
		kfree(e);
		return -EINTR;
	}
	ret = sframe_check_ranges(mm, &range);
	if (!ret)
		ret = init_ret;
	if (!ret)
		ret = sframe_insert(mm, e);
	mmap_write_unlock(mm);
	if (ret)
		kfree(e);	/* the caller keeps its reference to @info */
	return ret;
}

static void sframe_erase(struct mm_struct *mm, struct sframe_entry *e)
{
	mtree_erase(&mm->sframe_mt, e->sec.text_start);
	/* The reach only grows, but an empty registry starts over. */
	if (!--mm->sframe_count)
		mm->sframe_reach = 0;
	sframe_entry_free(e);
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
		sframe_erase(mm, e);
		ret = 0;
	}
	mmap_write_unlock(mm);
	return ret;
}

static bool ranges_overlap(unsigned long a_start, unsigned long a_end,
			   unsigned long b_start, unsigned long b_end)
{
	return a_start < b_end && b_start < a_end;
}

/**
 * sframe_unmap_range - drop the registrations an address range change breaks
 * @mm:		the address space; mmap_lock held for writing
 * @start:	start of the range that is unmapped or remapped
 * @end:	its end (exclusive)
 * @text_only:	only the text changed (mprotect removing exec), not the data
 *
 * Called by munmap, mremap and mmap over existing mappings (through the
 * common munmap completion), and by mprotect when it removes PROT_EXEC.
 * A registration whose text -- or, unless @text_only, whose .sframe --
 * intersects the range describes memory that is no longer what was
 * registered, so it goes.
 *
 * Only the entries whose text lies within mm->sframe_reach of the range
 * are looked at: the tree finds them by text range, and a .sframe range
 * that intersects the range belongs to such an entry.  For objects mapped
 * whole, the reach is the size of the largest one; an entry whose .sframe
 * lies far from its text (codectl allows it) widens it, at worst to all
 * entries, SFRAME_MAX_SECTIONS at most.
 */
void sframe_unmap_range(struct mm_struct *mm, unsigned long start,
			unsigned long end, bool text_only)
{
	unsigned long reach = text_only ? 0 : mm->sframe_reach;
	unsigned long index, last;
	struct sframe_entry *e;

	if (likely(mtree_empty(&mm->sframe_mt)) || start >= end)
		return;
	mmap_assert_write_locked(mm);

	index = start > reach ? start - reach : 0;
	last = end - 1 < ULONG_MAX - reach ? end - 1 + reach : ULONG_MAX;
	mt_for_each(&mm->sframe_mt, e, index, last) {
		if (ranges_overlap(start, end, e->sec.text_start,
				   e->sec.text_end) ||
		    (!text_only &&
		     ranges_overlap(start, end, e->sec.sframe_start,
				    e->sec.sframe_end)))
			sframe_erase(mm, e);
	}
}

/**
 * sframe_dup_mm - give a child at fork the registrations of its parent
 * @mm:		the child's new mm; mmap_lock held for writing
 * @oldmm:	the parent's mm; mmap_lock held for writing
 *
 * Called by dup_mmap() once the VMAs are copied.  A registration whose
 * memory the child did not inherit (MADV_DONTFORK) is not copied.
 *
 * Return: 0 or -ENOMEM; on error the child's partial registry is freed with
 * the rest of its mm.
 */
int sframe_dup_mm(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct sframe_entry *old, *e;
	unsigned long index = 0;
	int ret;

	mt_for_each(&oldmm->sframe_mt, old, index, ULONG_MAX) {
		if (sframe_check_ranges(mm, &old->sec))
			continue;
		e = kzalloc_obj(*e, GFP_KERNEL_ACCOUNT);
		if (!e)
			return -ENOMEM;
		/* Lookups in the parent may set BAD meanwhile */
		e->sec = old->sec;
		e->flags = READ_ONCE(old->flags);
		e->info = old->info;
		ret = sframe_insert(mm, e);
		if (ret) {
			kfree(e);
			return ret;
		}
		if (e->info)
			refcount_inc(&e->info->refs);
	}
	return 0;
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
	mtree_destroy(&mm->sframe_mt);
}

/* The decoder found @sec corrupt: stop using it, and say so once. */
static void sframe_mark_bad(struct mm_struct *mm,
			    const struct sframe_section *sec, int err)
{
	struct sframe_entry *e;

	rcu_read_lock();
	e = mtree_load(&mm->sframe_mt, sec->text_start);
	if (e && e->sec.text_start == sec->text_start &&
	    e->sec.sframe_start == sec->sframe_start &&
	    !test_and_set_bit(SFRAME_ENTRY_BAD, &e->flags))
		pr_warn_ratelimited("%s[%d]: corrupt .sframe at 0x%lx-0x%lx for text 0x%lx-0x%lx (%d), falling back to frame pointers\n",
				    current->comm, task_pid_nr(current),
				    sec->sframe_start, sec->sframe_end,
				    sec->text_start, sec->text_end, err);
	rcu_read_unlock();
}

/**
 * sframe_find - look up the unwind rule of a frame of current
 * @ip:		the address to look up: the frame's instruction pointer, or for
 *		a frame below the topmost one its return address minus one
 * @topmost:	the frame is the one user space was interrupted in
 * @rule:	filled with the rule on success
 *
 * Runs in faultable context: the decoder reads current's user memory.
 *
 * Return: 0, -ENOENT when no usable section covers @ip, or the decoder's
 * error for this frame (-EFAULT, -EBADMSG, -EOPNOTSUPP).  A section found
 * corrupt is not used again.
 */
int sframe_find(unsigned long ip, bool topmost, struct sframe_rule *rule)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section sec;
	struct sframe_entry *e;
	int ret;

	might_fault();
	if (!mm)
		return -ENOENT;

	rcu_read_lock();
	e = mtree_load(&mm->sframe_mt, ip);
	if (!e || test_bit(SFRAME_ENTRY_BAD, &e->flags)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	sec = e->sec;
	rcu_read_unlock();

	ret = sframe_find_rule(&sec, ip, topmost, rule);
	if (ret == -EBADMSG)
		sframe_mark_bad(mm, &sec, ret);
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

	return mm && !mtree_empty(&mm->sframe_mt);
}

#ifdef CONFIG_PROC_FS
static void sframe_show_entry(struct seq_file *m, struct mm_struct *mm,
			      const struct sframe_entry *e)
{
	const struct sframe_objinfo *info = e->info;
	struct vm_area_struct *vma;

	seq_printf(m, "%08lx-%08lx %08lx-%08lx v%u %s %s",
		   e->sec.text_start, e->sec.text_end,
		   e->sec.sframe_start, e->sec.sframe_end, e->sec.version,
		   test_bit(SFRAME_ENTRY_USER, &e->flags) ? "codectl" : "exec",
		   test_bit(SFRAME_ENTRY_BAD, &e->flags) ? "bad" : "ok");
	if (info && info->build_id_len)
		seq_printf(m, " build-id=%*phN", info->build_id_len,
			   info->build_id);
	if (info && info->pathname) {
		seq_puts(m, " ");
		seq_escape(m, info->pathname, " \t\n\\");
		seq_putc(m, '\n');
		return;
	}
	/* Without a name from user space, name the file the text maps. */
	vma = vma_lookup(mm, e->sec.text_start);
	if (vma && vma->vm_file) {
		seq_puts(m, " ");
		seq_file_path(m, vma->vm_file, " \t\n\\");
	}
	seq_putc(m, '\n');
}

/**
 * sframe_proc_show - show the SFrame registrations of an address space
 * @m:		the seq_file of /proc/<pid>/sframe
 * @mm:		the address space; the caller holds a reference to its users
 *
 * One line per registration: text range, section range, SFrame version,
 * who registered it (exec or codectl), whether the unwinder still uses it
 * ("ok") or found it corrupt ("bad"), the build ID if known, and the
 * object's path.  Access was checked when the file was opened, as for
 * /proc/<pid>/maps.
 *
 * Return: 0, or -EINTR when killed while waiting for mmap_lock.
 */
int sframe_proc_show(struct seq_file *m, struct mm_struct *mm)
{
	struct sframe_entry *e;
	unsigned long index = 0;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	mt_for_each(&mm->sframe_mt, e, index, ULONG_MAX)
		sframe_show_entry(m, mm, e);
	mmap_read_unlock(mm);
	return 0;
}
#endif /* CONFIG_PROC_FS */
