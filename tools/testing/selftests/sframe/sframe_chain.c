// SPDX-License-Identifier: GPL-2.0
/*
 * The known call chain of the user stack unwinding tests, from st_entry down
 * to st_jump; the leaves are in sframe_chain_leaf.c.  See sframe_chain.h for
 * what each function is there for.
 *
 * Each function records itself with SFT_NOTE() first, then calls the next
 * one and keeps the result alive after the call (SFT_KEEP), so that no call
 * is a tail call.  The build must check the code the compiler made: no
 * frame pointer where none is wanted, the pushes of st_wide and st_huge
 * after their padding, DRAP in st_realign.
 */
#include <alloca.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sframe_chain.h"

#ifndef SFT_SFRAME_VERSION
#error "build with -DSFT_SFRAME_VERSION=0 (frame pointers), 2 or 3"
#endif

#if defined(__x86_64__)
/* Code jumped over, that never runs: int3 */
#define SFT_SKIP(n)	"jmp 1f\n\t.skip " #n ", 0xcc\n1:"
#define ST_ABI_NAME	"st_ms_abi"
#elif defined(__aarch64__)
/* ... udf #0 */
#define SFT_SKIP(n)	"b 1f\n\t.skip " #n ", 0\n1:"
#define ST_ABI_NAME	"st_vregs"
#else
#error "the chain is written for x86-64 and arm64"
#endif

const char * const sft_chain_funcs[SFT_CHAIN_FUNCS] = {
	"st_entry", "st_many_args", "st_callee_saved", "st_recurse",
	"st_big_frame", "st_wide", "st_stack_args", "st_huge",
	"st_stack_args2", "st_vla", "st_alloca", "st_realign_caller",
	"st_realign", "st_indirect_caller", "st_indirect_target",
	ST_ABI_NAME, "st_cold", "st_hot", "st_noreturn_call", "st_jump",
	"st_leaf_parent", "st_leaf_bare", "st_leaf_framed",
};

/* Eight arguments: the last two go on the stack (pushed). */
SFT_FN void st_entry(struct sft_walk *w)
{
	long r;

	SFT_NOTE(w);
	r = st_many_args(w, 1, 2, 3, 4, 5, 6, 7);
	SFT_KEEP(r);
}

SFT_FN long st_many_args(struct sft_walk *w, long a, long b, long c, long d,
			 long e, long f, long g)
{
	long r;

	SFT_NOTE(w);
	r = st_callee_saved(w, a + b + c + d + e + f + g);
	SFT_KEEP(r);
	return r;
}

/* Six values live across the call: they need the callee-saved registers. */
SFT_FN long st_callee_saved(struct sft_walk *w, long x)
{
	long a = x * 3, b = x ^ 5, c = x + 7, d = x * 11, e = x - 13;
	long f = x | 17, r;

	SFT_NOTE(w);
	SFT_KEEP(a);
	SFT_KEEP(b);
	SFT_KEEP(c);
	SFT_KEEP(d);
	SFT_KEEP(e);
	SFT_KEEP(f);
	r = st_recurse(w, SFT_RECURSE);
	SFT_KEEP(r);
	return r + a + b + c + d + e + f;
}

SFT_FN long st_recurse(struct sft_walk *w, long n)
{
	long r;

	SFT_NOTE(w);
	if (n > 1)
		r = st_recurse(w, n - 1);
	else
		r = st_big_frame(w);
	SFT_KEEP(r);
	return r + n;
}

/* A frame above 32 KiB: SFrame needs 4-byte data words for its CFA. */
SFT_FN long st_big_frame(struct sft_walk *w)
{
	char big[40000];
	long r;

	SFT_NOTE(w);
	big[0] = 1;
	big[sizeof(big) - 1] = 2;
	SFT_ESCAPE(big);
	r = st_wide(w);
	SFT_KEEP(r);
	return r + big[0] + big[sizeof(big) - 1];
}

/*
 * 300 bytes of code, jumped over, then the pushes of a call with stack
 * arguments (x86-64) or the epilogue (arm64): the frame changes more than
 * 255 bytes into the function, so its FREs have 2-byte start offsets.
 */
SFT_FN long st_wide(struct sft_walk *w)
{
	long r;

	SFT_NOTE(w);
	asm volatile(SFT_SKIP(300) : : : "memory");
	r = st_stack_args(w, 1, 2, 3, 4, 5, 6, 7);
	SFT_KEEP(r);
	return r;
}

SFT_FN long st_stack_args(struct sft_walk *w, long a, long b, long c, long d,
			  long e, long f, long g)
{
	long r;

	SFT_NOTE(w);
	r = st_huge(w);
	SFT_KEEP(r);
	return r + a + b + c + d + e + f + g;
}

/* As st_wide, past 65535 bytes: 4-byte FRE start offsets. */
SFT_FN long st_huge(struct sft_walk *w)
{
	long r;

	SFT_NOTE(w);
	asm volatile(SFT_SKIP(70000) : : : "memory");
	r = st_stack_args2(w, 1, 2, 3, 4, 5, 6, 7);
	SFT_KEEP(r);
	return r;
}

SFT_FN long st_stack_args2(struct sft_walk *w, long a, long b, long c, long d,
			   long e, long f, long g)
{
	long r;

	SFT_NOTE(w);
	r = st_vla(w);
	SFT_KEEP(r);
	return r + a + b + c + d + e + f + g;
}

/* A variable-length array: the frame is addressed from the frame pointer. */
SFT_FN long st_vla(struct sft_walk *w)
{
	char buf[w->vla_len];
	long r;

	SFT_NOTE(w);
	memset(buf, 0x5a, sizeof(buf));
	SFT_ESCAPE(buf);
	r = st_alloca(w);
	SFT_KEEP(r);
	return r + buf[1];
}

SFT_FN long st_alloca(struct sft_walk *w)
{
	char *buf = alloca(w->vla_len + 8);
	long r;

	SFT_NOTE(w);
	memset(buf, 0xa5, w->vla_len + 8);
	SFT_ESCAPE(buf);
	r = st_realign_caller(w);
	SFT_KEEP(r);
	return r + buf[2];
}

#if SFT_SFRAME_VERSION == 3
/* SP-based: only st_realign's flex FDE gives this frame's stack pointer. */
SFT_FN long st_realign_caller(struct sft_walk *w)
{
	long r;

	SFT_NOTE(w);
	r = st_realign(w);
	SFT_KEEP(r);
	return r;
}
#else
/* A frame pointer frame: V2 has no rule for st_realign (see the header). */
SFT_FN long st_realign_caller(struct sft_walk *w)
{
	char buf[w->vla_len];
	long r;

	SFT_NOTE(w);
	memset(buf, 0x3c, sizeof(buf));
	SFT_ESCAPE(buf);
	r = st_realign(w);
	SFT_KEEP(r);
	return r + buf[3];
}
#endif

/*
 * Locals aligned beyond the ABI's 16 bytes, plus a VLA: on x86-64, GCC
 * realigns the stack through a DRAP register (lea 0x8(%rsp),%r10;
 * and $-64,%rsp; push -0x8(%r10); push %rbp; mov %rsp,%rbp; push %r10),
 * and the CFA is then *(%rbp - 8).  On arm64 it keeps a frame pointer and
 * aligns a pointer to the locals instead.
 */
SFT_FN long st_realign(struct sft_walk *w)
{
	[[gnu::aligned(64)]] char aligned[64];
	char buf[w->vla_len];
	long r;

	SFT_NOTE(w);
	memset(aligned, 0x11, sizeof(aligned));
	memset(buf, 0x22, sizeof(buf));
	SFT_ESCAPE(aligned);
	SFT_ESCAPE(buf);
	r = st_indirect_caller(w);
	SFT_KEEP(r);
	return r + aligned[5] + buf[4];
}

SFT_FN long st_indirect_caller(struct sft_walk *w)
{
	long (*fn)(struct sft_walk *w) = st_indirect_target;
	long r;

	SFT_NOTE(w);
	/* Hide the target: an indirect call. */
	asm volatile("" : "+r" (fn));
	r = fn(w);
	SFT_KEEP(r);
	return r;
}

SFT_FN long st_indirect_target(struct sft_walk *w)
{
	long r;

	SFT_NOTE(w);
#if defined(__x86_64__)
	r = st_ms_abi(w);
#else
	r = st_vregs(w);
#endif
	SFT_KEEP(r);
	return r;
}

#if defined(__x86_64__)
/*
 * The Microsoft x64 calling convention: %rsi, %rdi and %xmm6-15 are
 * callee-saved there, so calling a System V function saves them all.
 */
SFT_FN long __attribute__((ms_abi)) st_ms_abi(struct sft_walk *w)
#else
/* d8-d15 are callee-saved: clobbered here, they are saved around the call. */
SFT_FN long st_vregs(struct sft_walk *w)
#endif
{
	long r;

	SFT_NOTE(w);
#if defined(__aarch64__)
	asm volatile("" : : : "d8", "d9", "d10", "d11", "d12", "d13", "d14",
		     "d15");
#endif
	r = st_cold(w);
	SFT_KEEP(r);
	return r;
}

/* In .text.unlikely, away from its callers. */
SFT_FN long st_cold(struct sft_walk *w)
{
	long r;

	SFT_NOTE(w);
	r = st_hot(w);
	SFT_KEEP(r);
	return r;
}

/* In .text.hot. */
SFT_FN long st_hot(struct sft_walk *w)
{
	long r;

	SFT_NOTE(w);
	r = st_noreturn_call(w);
	SFT_KEEP(r);
	return r;
}

/*
 * The call is the last instruction: the return address is the end of the
 * function, so that the unwinder must look up the address before it.  The
 * locals give the function a frame, whose CFA rule differs from that of
 * whatever follows it.
 */
SFT_FN long st_noreturn_call(struct sft_walk *w)
{
	long pad[4];

	SFT_NOTE(w);
	pad[0] = (long)w;
	SFT_ESCAPE(pad);
	st_jump(w);
}

/* Runs the leaves, then returns to SFT_RUN_CHAIN() in main(). */
SFT_FN void st_jump(struct sft_walk *w)
{
	SFT_NOTE(w);
	st_leaf_parent(w);
	longjmp(w->done, 1);
}

/*
 * From /proc/self/maps: the end of the [stack] mapping and the executable
 * mappings; and mmap_min_addr.
 */
static int read_maps(struct sft_walk *w)
{
	char line[512], perms[8];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/sys/vm/mmap_min_addr", "r");
	if (!f)
		return -errno;
	if (fscanf(f, "%lu", &w->min_addr) != 1)
		ret = -EINVAL;
	fclose(f);
	if (ret == -EINVAL)
		return ret;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (perms[2] == 'x') {
			if (w->exec_nr == SFT_EXEC_MAX) {
				ret = -E2BIG;
				break;
			}
			w->exec[w->exec_nr][0] = lo;
			w->exec[w->exec_nr++][1] = hi;
		}
		if (strstr(line, "[stack]")) {
			w->stack_end = hi;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

int sft_chain_prepare(struct sft_walk *w, const char *caller)
{
	int ret;

	memset(w, 0, sizeof(*w));
	ret = read_maps(w);
	if (ret)
		return ret;
	w->vla_len = 40 + (w->stack_end & 8);
	w->name[0] = caller;
	return 0;
}
