/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_ARM64_UNWIND_USER_H
#define _ASM_ARM64_UNWIND_USER_H

#ifdef CONFIG_UNWIND_USER

#include <asm/compiler.h>
#include <asm/ptrace.h>

/*
 * Only AArch64 tasks are unwound.  AArch32 code keeps its frame records in
 * two layouts that the frame pointer alone does not tell apart (ARM code:
 * {fp, sp, lr, pc} ending at r11; Thumb code: {r7, lr} at r7), and SFrame
 * has no AArch32 ABI: a compat task gets no user stack rather than a wrong
 * one.
 */
static inline int unwind_user_word_size(struct pt_regs *regs)
{
	return compat_user_mode(regs) ? 0 : sizeof(u64);
}

/*
 * A return address that pac-ret signed, whatever the key: the PAC bits are
 * cleared as everywhere else the kernel reports user addresses.  An address
 * without a PAC is returned unchanged.
 */
static inline unsigned long unwind_user_strip_ra(unsigned long ra)
{
	return ptrauth_strip_user_insn_pac(ra);
}

#define unwind_user_strip_ra unwind_user_strip_ra

#endif /* CONFIG_UNWIND_USER */

#ifdef CONFIG_HAVE_UNWIND_USER_FP

/*
 * An AArch64 frame record: the caller's x29 and the return address (x30),
 * at x29.  The record is at the bottom of the frame, below the locals and
 * the other saved registers, so the end of the record is a lower bound of
 * the caller's stack pointer, not its value.  In a function that has not
 * stored its record (a leaf, a prologue), x29 is still the caller's and
 * the return address is in the link register: frame pointers then skip the
 * caller, and only SFrame, which says where the return address is, finds
 * it.
 */
#define ARCH_INIT_USER_FP_FRAME(ws)			\
	.cfa_off	=  2 * (ws),			\
	.ra_off		= -1 * (ws),			\
	.fp_off		= -2 * (ws),			\
	.use_fp		= true,				\
	.sp_unknown	= true,

#endif /* CONFIG_HAVE_UNWIND_USER_FP */

#ifdef CONFIG_HAVE_UNWIND_USER_SFRAME

/*
 * A register of the interrupted user context by its DWARF number in the
 * AArch64 DWARF ABI, x0-x30, for the SFrame rules of the topmost frame:
 * the return address still in the link register (x30) in leaf functions
 * and prologues.  The decoder never asks for SP (31) or FP (29) here.
 */
static inline int unwind_user_get_reg(struct pt_regs *regs, unsigned int reg,
				      unsigned long *val)
{
	if (reg > 30)
		return -EINVAL;
	*val = regs->regs[reg];
	return 0;
}

#endif /* CONFIG_HAVE_UNWIND_USER_SFRAME */

#endif /* _ASM_ARM64_UNWIND_USER_H */
