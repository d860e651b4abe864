/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A known call chain for the user stack unwinding tests:
 *
 *	main() -> sframe_chain_1() -> ... -> sframe_chain_8() -> system call
 *
 * stack_chain.c has no build-flag dependencies: each test variant compiles
 * it with its own unwind information (frame pointers, SFrame, ...).
 */
#ifndef SFRAME_STACK_CHAIN_H
#define SFRAME_STACK_CHAIN_H

#define SFT_CHAIN_DEPTH	8

/*
 * Names of the chain's functions, innermost first: sft_chain_func[0] is
 * "sframe_chain_8", the one that makes the system call.
 */
extern const char * const sft_chain_func[SFT_CHAIN_DEPTH];

/*
 * Ground truth the chain records while it runs, innermost first, so that
 * it lines up with an unwound stack:
 * [0] the address right after the system call instruction (the user IP
 *     the kernel sees), in sframe_chain_8;
 * [i] for 1 <= i < SFT_CHAIN_DEPTH, the return address into
 *     sft_chain_func[i];
 * [SFT_CHAIN_DEPTH] the return address into the caller of sframe_chain_1.
 */
extern unsigned long sft_chain_addr[SFT_CHAIN_DEPTH + 1];

/*
 * Call down the chain and make system call @nr with the single argument
 * @arg from the innermost function.  Returns what the system call returned
 * (a negative errno on failure).  The caller must call it directly for the
 * caller to be the next frame.
 */
long sframe_chain_1(long nr, long arg);

/* The deeper levels: each calls the next one down. */
long sframe_chain_2(long nr, long arg);
long sframe_chain_3(long nr, long arg);
long sframe_chain_4(long nr, long arg);
long sframe_chain_5(long nr, long arg);
long sframe_chain_6(long nr, long arg);
long sframe_chain_7(long nr, long arg);
long sframe_chain_8(long nr, long arg);

#endif /* SFRAME_STACK_CHAIN_H */
