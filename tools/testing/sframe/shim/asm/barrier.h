/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <asm/barrier.h>.  The harness runs the decoder in
 * one thread, so the read barriers only have to keep the compiler from
 * merging the reads they separate (the JIT entry's state, read twice).
 */
#ifndef _SFRAME_SHIM_ASM_BARRIER_H
#define _SFRAME_SHIM_ASM_BARRIER_H

/* An acquire fence: at least what a read barrier orders, for the compiler */
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)

#endif
