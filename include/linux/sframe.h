/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame user-space unwind tables: the decoder's interface.
 *
 * A section is a (text range, .sframe range) pair in a user address space.
 * sframe_section_init() validates the header once; sframe_find_rule() then
 * looks up the unwind rule of one frame.  Every byte of the section is
 * attacker-controlled and may change between two reads: the decoder checks
 * each value at the read that fetches it, and reads only inside the section.
 *
 * Lookups read user memory and may fault, so they run only in faultable
 * context (the deferred unwind on return to user space, or a system call).
 */
#ifndef _LINUX_SFRAME_H
#define _LINUX_SFRAME_H

#include <linux/types.h>

/**
 * struct sframe_section - a validated SFrame section, as the decoder uses it
 * @text_start:	first byte of the text range registered for the section
 *		(which may also describe text outside it)
 * @text_end:	end of that range (exclusive)
 * @sframe_start: user address of the .sframe section
 * @sframe_end:	end of the section (exclusive)
 * @sframe_addr: the address its function offsets are relative to, as if the
 *		section lay there: @sframe_start, or elsewhere for a section
 *		mapped apart from its object (a sidecar file)
 * @fdes_start:	user address of the FDE array (V3: the FDE index)
 * @fres_start:	user address of the FRE sub-section
 * @fres_end:	end of the FRE sub-section (exclusive)
 * @num_fdes:	number of FDEs (V3: index entries)
 * @version:	SFrame format version, 2 or 3
 * @flags:	header flags (SFRAME_F_*)
 * @abi_arch:	header ABI/arch identifier
 * @fixed_fp_offset: header's CFA-relative FP offset, 0 when tracked per FRE
 * @fixed_ra_offset: header's CFA-relative RA offset, 0 when tracked per FRE
 */
struct sframe_section {
	unsigned long	text_start;
	unsigned long	text_end;
	unsigned long	sframe_start;
	unsigned long	sframe_end;
	unsigned long	sframe_addr;
	unsigned long	fdes_start;
	unsigned long	fres_start;
	unsigned long	fres_end;
	u32		num_fdes;
	u8		version;
	u8		flags;
	u8		abi_arch;
	s8		fixed_fp_offset;
	s8		fixed_ra_offset;
};

/**
 * sframe_section_move - the section as it is once moved by @delta bytes
 * @sec:	a validated section, whose text and .sframe moved together
 * @delta:	new address minus old address, modulo 2^BITS_PER_LONG
 *
 * For a mapping that mremap() moves whole with its registration (the
 * vDSO): every address the decoder keeps moves by @delta.
 */
static inline void sframe_section_move(struct sframe_section *sec,
				       unsigned long delta)
{
	sec->text_start += delta;
	sec->text_end += delta;
	sec->sframe_start += delta;
	sec->sframe_end += delta;
	sec->sframe_addr += delta;
	sec->fdes_start += delta;
	sec->fres_start += delta;
	sec->fres_end += delta;
}

/*
 * How the caller's value of a register is recovered from a frame: which
 * value, plus the offset, and then the word at that address if deref.
 */
enum sframe_loc_kind {
	SFRAME_LOC_SAME,	/* unchanged: the callee did not save it */
	SFRAME_LOC_UNDEFINED,	/* no value: the RA of an outermost frame */
	SFRAME_LOC_CFA,		/* the CFA */
	SFRAME_LOC_SP,		/* the frame's stack pointer */
	SFRAME_LOC_FP,		/* the frame's frame pointer */
	SFRAME_LOC_REG,		/* register @reg: the topmost frame only */
};

/**
 * struct sframe_loc - where one register of the caller is found
 * @kind:	enum sframe_loc_kind
 * @reg:	for SFRAME_LOC_REG, the DWARF number of a register of the
 *		section's architecture other than the stack and frame
 *		pointers; 0 for the other kinds
 * @deref:	the value is the word at the computed address
 * @offset:	signed byte offset added to the base; for SFRAME_LOC_SAME and
 *		SFRAME_LOC_UNDEFINED, @deref and @offset are 0
 */
struct sframe_loc {
	u8	kind;
	u8	reg;
	bool	deref;
	s32	offset;
};

/* struct sframe_rule flags */
#define SFRAME_RULE_OUTERMOST	0x1	/* RA undefined: the walk stops here */
#define SFRAME_RULE_RA_MANGLED	0x2	/* RA is signed (arm64 PAC) */
#define SFRAME_RULE_PAUTH_KEY_B	0x4	/* ... with key B rather than key A */
#define SFRAME_RULE_SIGNAL	0x8	/* signal trampoline frame (V3) */
#define SFRAME_RULE_VOLATILE	0x10	/* from a JIT table: not to be cached */

/**
 * struct sframe_rule - how to unwind one frame
 * @cfa:	the canonical frame address: SFRAME_LOC_SP, SFRAME_LOC_FP or
 *		SFRAME_LOC_REG
 * @ra:		the return address: SFRAME_LOC_UNDEFINED if and only if
 *		SFRAME_RULE_OUTERMOST is set, else never SFRAME_LOC_SAME, and
 *		dereferenced unless SFRAME_LOC_REG (a return address is not a
 *		stack address)
 * @fp:		the caller's frame pointer, never SFRAME_LOC_UNDEFINED
 * @flags:	SFRAME_RULE_* flags
 *
 * The stack and frame pointers of the frame are SFRAME_LOC_SP and
 * SFRAME_LOC_FP, whatever their DWARF numbers on the section's architecture,
 * so that an unwinder needs none.  SFRAME_LOC_REG names any other register,
 * which only the topmost frame has (the interrupted user context): the
 * decoder returns it for the topmost frame only, and refuses the rule of
 * any other frame that needs it (see sframe_find_rule()).  The unwinder
 * need not check that again.  SFRAME_LOC_CFA is only used for @ra and @fp.
 */
struct sframe_rule {
	struct sframe_loc	cfa;
	struct sframe_loc	ra;
	struct sframe_loc	fp;
	u32			flags;
};

/*
 * The work one stack walk may make the decoder do, in FDEs and FREs read:
 * the budget that the lookups of a walk share (see sframe_find_rule()).  A
 * lookup in the 9,400 functions of perf built by gcc -O2 reads 40 of them
 * on average and 166 at most, so a walk of the deferred unwinder's 510
 * frames takes about 21,000, a twelfth of the budget.  A hostile section
 * can make one lookup read the 65,535 FREs of a function, and a few
 * hundred FDEs in its search: the budget bounds a walk to the work of four
 * such lookups, where 510 of them would scan 3 * 10^7 FREs.
 */
#define SFRAME_WALK_BUDGET	(4U * 65536)

int sframe_section_init(struct sframe_section *sec,
			unsigned long sframe_start, unsigned long sframe_end,
			unsigned long sframe_addr, unsigned long text_start,
			unsigned long text_end);
int sframe_find_rule(const struct sframe_section *sec, unsigned long ip,
		     bool topmost, struct sframe_rule *rule, u32 *budget);
int sframe_jit_init(struct sframe_section *sec, unsigned long table_start,
		    unsigned long table_end, unsigned long text_start,
		    unsigned long text_end);
int sframe_jit_find_rule(const struct sframe_section *sec, unsigned long ip,
			 bool topmost, struct sframe_rule *rule, u32 *budget);

/*
 * The per-mm registry (mm/sframe.c): the sections the unwinder uses, filled
 * by the ELF loader and by codectl(2).
 */

struct mm_struct;
struct seq_operations;
struct vm_special_mapping;

/* How many sections one mm may register: bounds memory and munmap work. */
#define SFRAME_MAX_SECTIONS	1024

#ifdef CONFIG_UNWIND_USER_SFRAME

#include <linux/buildid.h>
#include <linux/refcount.h>

/* The longest build ID a registration carries, as the kernel's own. */
#define SFRAME_BUILD_ID_MAX	BUILD_ID_SIZE_MAX

/**
 * struct sframe_objinfo - how a registration names its object
 * @refs:	references: the registrations of the object's text ranges,
 *		and their copies in children made by fork
 * @build_id_len: length of @build_id, 0 when unknown
 * @build_id:	the object's build ID
 * @pathname:	the object's path name, or NULL
 *
 * What the registering process says of its object: a claim, not a fact.
 */
struct sframe_objinfo {
	refcount_t	refs;
	u32		build_id_len;
	u8		build_id[SFRAME_BUILD_ID_MAX];
	char		*pathname;
};

void sframe_init_mm(struct mm_struct *mm);
int sframe_dup_mm(struct mm_struct *mm, struct mm_struct *oldmm);
void sframe_free_mm(struct mm_struct *mm);
void sframe_unmap_range(struct mm_struct *mm, unsigned long start,
			unsigned long end);
int sframe_add_section(struct mm_struct *mm, unsigned long sframe_start,
		       unsigned long sframe_end, unsigned long sframe_addr,
		       unsigned long text_start, unsigned long text_end,
		       struct sframe_objinfo *info, bool user);
int sframe_add_special_section(struct mm_struct *mm,
			       const struct vm_special_mapping *sm,
			       unsigned long sframe_start,
			       unsigned long sframe_end,
			       unsigned long text_start, unsigned long text_end);
int sframe_add_jit(struct mm_struct *mm, unsigned long table_start,
		   unsigned long table_end, unsigned long text_start,
		   unsigned long text_end);
int sframe_remove_section(struct mm_struct *mm, unsigned long text_start);
void sframe_move_range(struct mm_struct *mm, unsigned long old_start,
		       unsigned long old_end, unsigned long new_start);
void sframe_objinfo_put(struct sframe_objinfo *info);
/**
 * struct sframe_gap - a range of addresses that no section covers
 * @start:	its first address
 * @end:	its end (exclusive)
 *
 * sframe_find() gives it on a miss, so that a walk through code without
 * SFrame (a program built without it, the libraries it uses) does not
 * look each of its frames up again.
 */
struct sframe_gap {
	unsigned long	start;
	unsigned long	end;
};

int sframe_find(unsigned long ip, bool topmost, struct sframe_rule *rule,
		u32 *budget, struct sframe_gap *gap);
bool current_has_sframe(void);
u64 sframe_registry_gen(void);

/**
 * struct sframe_proc_iter - the state of a /proc/<pid>/sframe reader
 * @mm:		the address space shown, pinned by the open file
 * @locked:	its mmap_lock is held, between ->start() and ->stop()
 */
struct sframe_proc_iter {
	struct mm_struct	*mm;
	bool			locked;
};

extern const struct seq_operations sframe_proc_seq_ops;

#else /* !CONFIG_UNWIND_USER_SFRAME */

static inline void sframe_init_mm(struct mm_struct *mm) { }
static inline int sframe_dup_mm(struct mm_struct *mm, struct mm_struct *oldmm)
{
	return 0;
}

static inline void sframe_free_mm(struct mm_struct *mm) { }
static inline void sframe_unmap_range(struct mm_struct *mm, unsigned long start,
				      unsigned long end) { }
static inline void sframe_move_range(struct mm_struct *mm,
				     unsigned long old_start,
				     unsigned long old_end,
				     unsigned long new_start) { }
static inline bool current_has_sframe(void) { return false; }

#endif /* CONFIG_UNWIND_USER_SFRAME */

#endif /* _LINUX_SFRAME_H */
