/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The known call chain of the user stack unwinding tests.
 *
 * main() calls the chain through SFT_RUN_CHAIN(); the chain goes down some
 * 25 frames of 22 distinct functions, each of a kind that unwinders get
 * wrong in their own way, and ends in two leaf functions, one after the
 * other, that each make a getppid system call from inline assembly:
 *
 *	main
 *	st_entry               plain frame
 *	st_many_args           eight arguments, two of them on the stack
 *	st_callee_saved        saves every callee-saved register
 *	st_recurse x4          calls itself
 *	st_big_frame           40 KiB of locals: 4-byte SFrame data words
 *	st_wide                300 bytes of code before the frame changes
 *	                       (x86-64: pushes; arm64: the epilogue): 2-byte
 *	                       FRE offsets
 *	st_stack_args          called with arguments pushed on the stack
 *	                       (x86-64; in registers on arm64)
 *	st_huge                70000 bytes of code, as st_wide: 4-byte FREs
 *	st_stack_args2         called with arguments pushed on the stack
 *	st_vla                 variable-length array: a frame pointer frame
 *	st_alloca              alloca(): a frame pointer frame
 *	st_realign_caller      (see below)
 *	st_realign             64-byte aligned locals and a VLA: DRAP realignment
 *	st_indirect_caller     calls through a function pointer
 *	st_indirect_target
 *	st_ms_abi              Microsoft x64 ABI: saves xmm6-15, rsi and rdi
 *	                       (x86-64; on arm64 st_vregs, which saves d8-d15)
 *	st_cold                in .text.unlikely
 *	st_hot                 in .text.hot
 *	st_noreturn_call       its last instruction is a call: the return
 *	                       address lies past its end
 *	st_jump                noreturn: returns to main() by longjmp()
 *	st_leaf_parent
 *	st_leaf_bare           leaf, no stack frame: system call, sample 0
 *	st_leaf_framed         leaf, 512-byte frame: system call, sample 1
 *
 * On x86-64, SFrame V2 cannot describe a realigned frame: GNU as 2.44
 * emits no FDE for st_realign, and the kernel unwinds that frame by its
 * frame pointer, which gives the right return address and frame pointer of
 * the caller but not its stack pointer.  So in V2 builds st_realign_caller
 * keeps a frame pointer (it has a VLA) and is unwound from it; in V3
 * builds, where st_realign has a flex FDE, st_realign_caller is an
 * SP-based frame, so that only the flex FDE's rule gives the right stack.
 * GCC does not realign the stack on arm64: st_realign there is a frame
 * pointer frame whose aligned locals are addressed from another register,
 * and both versions describe it with a plain FDE.
 *
 * On arm64 the programs are built with -mbranch-protection: the return
 * addresses saved on the stack are signed (pac-ret), and the leaves, which
 * save none, have theirs in the link register at the system call (but in
 * the frame pointer build, where they keep a frame record).
 *
 * Every function records, as it runs, its name and its return address;
 * each leaf records the address after its system call and the stack and
 * frame pointers there.  That is the ground truth: the stack the kernel
 * unwinds at each system call must be exactly that.  Right after each leaf
 * returns, the chain also computes from the live stack what the kernel's
 * frame pointer unwinder would give there: the stack expected when no
 * SFrame section is registered.
 */
#ifndef SFRAME_CHAIN_H
#define SFRAME_CHAIN_H

#include <setjmp.h>
#include <stdbool.h>
#include <sys/syscall.h>

/* Samples per run of the chain: one per leaf. */
#define SFT_CHAIN_SAMPLES	2

/* Deeper than the chain goes. */
#define SFT_MAX_LEVELS		48

/* Frames the frame pointer simulation follows at most. */
#define SFT_FP_MAX		64

/* Executable mappings the frame pointer simulation can know of. */
#define SFT_EXEC_MAX		64

/* Bytes of stack each leaf copies at its system call, from SP up. */
#define SFT_STACK_COPY		2048

/* Distinct functions of the chain, main() not counted. */
#define SFT_CHAIN_FUNCS		23

/* Levels of recursion of st_recurse. */
#define SFT_RECURSE		4

/* Frames of each system call's stack: one leaf, the recursion, main. */
#define SFT_CHAIN_FRAMES	(SFT_CHAIN_FUNCS - 1 + SFT_RECURSE - 1 + 1)

/* Names of the chain's functions, in no particular order. */
extern const char * const sft_chain_funcs[SFT_CHAIN_FUNCS];

/* The expected stack at one system call, innermost frame first. */
struct sft_truth {
	unsigned int nr;			/* frames, main() the last */
	const char *func[SFT_MAX_LEVELS];
	unsigned long addr[SFT_MAX_LEVELS];	/* [0] after the syscall */
	unsigned long sp, fp;			/* at the system call */
	long ret;				/* what getppid returned */

	/* What the kernel's frame pointer unwinder gives there. */
	unsigned int fp_nr;
	bool fp_open;		/* stopped at memory outside the stack */
	unsigned long fp_ips[SFT_FP_MAX];
};

/* State of one run of the chain. */
struct sft_walk {
	unsigned long stack_end;	/* end of the [stack] mapping */
	long vla_len;			/* sizes the VLAs and alloca() use */
	int depth;			/* level of the running function */
	const char *name[SFT_MAX_LEVELS];
	unsigned long ra[SFT_MAX_LEVELS];	/* ra[n]: into level n - 1 */
	unsigned long top_ip, top_sp, top_fp;
	long top_ret;
	unsigned char stack_copy[SFT_STACK_COPY];
	unsigned int samples;		/* system calls made so far */
	struct sft_truth truth[SFT_CHAIN_SAMPLES];
	/*
	 * What can be a return address: an address at or above min_addr
	 * (mmap_min_addr) in one of the executable mappings, as the run
	 * starts.  The kernel's unwinders stop at anything else.
	 */
	unsigned long min_addr;
	unsigned int exec_nr;
	unsigned long exec[SFT_EXEC_MAX][2];	/* [start, end) */
	jmp_buf done;			/* st_jump returns here */
};

/*
 * Prepare @w for a run of the chain called from @caller.  Return: 0, or a
 * negative errno when the stack or the executable mappings cannot be read
 * from /proc/self/maps, or mmap_min_addr from /proc/sys/vm.
 */
int sft_chain_prepare(struct sft_walk *w, const char *caller);

/*
 * The chain's entry.  It never returns: st_jump longjmp()s to @w->done.  It
 * is not declared noreturn, for the compiler not to move the call into a
 * cold part of the caller (main.cold).
 */
void st_entry(struct sft_walk *w);

/*
 * Run the chain from the calling function, which must be the one whose name
 * is expected as the outermost checked frame (main).  A macro, so that the
 * caller's frame is the one below st_entry.  Evaluates to 0 after the run,
 * or to a negative errno if the run could not be prepared.
 */
#define SFT_RUN_CHAIN(w)						\
({									\
	struct sft_walk *__w = (w);					\
	int __ret = sft_chain_prepare(__w, __func__);			\
									\
	if (!__ret && !setjmp(__w->done))				\
		st_entry(__w);						\
	__ret;								\
})

/*
 * GCC's noipa: no inlining, no cloning under a suffixed name, no
 * assumptions across calls, so that every function is a real frame under
 * its own name.
 */
#define SFT_FN		__attribute__((noipa))

/* Record the running function's level, name and return address @ret. */
#define SFT_NOTE_RA(w, ret)						\
({									\
	struct sft_walk *__nw = (w);					\
	int __lvl = ++__nw->depth;					\
									\
	__nw->name[__lvl] = __func__;					\
	__nw->ra[__lvl] = (ret);					\
	__lvl;								\
})

#define SFT_NOTE(w)							\
	SFT_NOTE_RA(w, (unsigned long)__builtin_return_address(0))

/*
 * The same in the two leaves.  On arm64, __builtin_return_address() strips
 * the link register's pointer authentication code in the link register
 * itself, so that GCC saves it on the stack first: the leaves would not
 * keep their return address in the link register, the case they are there
 * for.  They take it as it is; the snapshot strips it.
 */
#if defined(__aarch64__)
#define SFT_NOTE_LEAF(w)						\
({									\
	unsigned long __lr;						\
									\
	asm volatile("mov %0, x30" : "=r" (__lr));			\
	SFT_NOTE_RA(w, __lr);						\
})
#else
#define SFT_NOTE_LEAF(w)	SFT_NOTE(w)
#endif

/* Keep a value live after a call: the call is not a tail call. */
#define SFT_KEEP(x)	({ asm volatile("" : "+r" (x) : : "memory"); })

/*
 * getppid(), made by the system call instruction itself, inline: the
 * function that calls this is the topmost frame of the user stack that
 * the kernel sees at the system call, with no C library function above it.
 */
static inline __attribute__((always_inline)) long sft_getppid(void)
{
#if defined(__x86_64__)
	long ret;

	asm volatile("syscall" : "=a" (ret) : "0" ((long)__NR_getppid)
		     : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 asm("x8") = __NR_getppid;
	register long x0 asm("x0");

	asm volatile("svc #0" : "=r" (x0) : "r" (x8) : "memory");
	return x0;
#else
#error "sft_getppid() needs this architecture's system call instruction"
#endif
}

/* Make the compiler believe that the memory at @p is used. */
#define SFT_ESCAPE(p)	({ asm volatile("" : : "r" (p) : "memory"); })

/* The functions of the chain (sframe_chain.c, sframe_chain_leaf.c). */
long st_many_args(struct sft_walk *w, long a, long b, long c, long d,
		  long e, long f, long g);
long st_callee_saved(struct sft_walk *w, long x);
long st_recurse(struct sft_walk *w, long n);
long st_big_frame(struct sft_walk *w);
long st_wide(struct sft_walk *w);
long st_stack_args(struct sft_walk *w, long a, long b, long c, long d,
		   long e, long f, long g);
long st_huge(struct sft_walk *w);
long st_stack_args2(struct sft_walk *w, long a, long b, long c, long d,
		    long e, long f, long g);
long st_vla(struct sft_walk *w);
long st_alloca(struct sft_walk *w);
long st_realign_caller(struct sft_walk *w);
long st_realign(struct sft_walk *w);
long st_indirect_caller(struct sft_walk *w);
long st_indirect_target(struct sft_walk *w);
#if defined(__x86_64__)
long __attribute__((ms_abi)) st_ms_abi(struct sft_walk *w);
#else
long st_vregs(struct sft_walk *w);
#endif
[[gnu::cold]] long st_cold(struct sft_walk *w);
[[gnu::hot]] long st_hot(struct sft_walk *w);
long st_noreturn_call(struct sft_walk *w);
[[gnu::noreturn]] void st_jump(struct sft_walk *w);
void st_leaf_parent(struct sft_walk *w);
long st_leaf_bare(struct sft_walk *w);
long st_leaf_framed(struct sft_walk *w);

/* Internal: called by st_leaf_parent after each leaf. */
void sft_chain_snapshot(struct sft_walk *w, int leaf_level);

#endif /* SFRAME_CHAIN_H */
