// SPDX-License-Identifier: GPL-2.0
/*
 * The call chain workload of make bench-perf (not a test): a chain of
 * functions of the kinds unwinders tell apart -- recursion, callee-saved
 * registers, a 12 KiB frame, a variable-length array (a frame pointer
 * frame), eight arguments, an indirect call, a leaf without a frame --
 * each of which spins for a while before and after it calls the next, so
 * that a sampling profiler finds every level and both sides of every call.
 *
 *	sframe_perf_bench ROUNDS TRUTH
 *
 * runs the chain ROUNDS times from main() and writes TRUTH, the return
 * address of every level, one line per level, outermost first:
 *
 *	LEVEL FUNC RA
 *
 * where RA is the address the function at LEVEL returns to, in the function
 * at LEVEL - 1 (level 0 is main).  A sample whose innermost user frame is in
 * the function at level k is right when its next k frames are RA(k) down to
 * RA(1), whatever follows (the C library's start code).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SB_FN		__attribute__((noipa))
#define SB_RECURSE	4
#define SB_MAX_LEVELS	32

static struct {
	const char *func;
	unsigned long ra;
} levels[SB_MAX_LEVELS];
static int depth;

/* Spin for @n iterations, in the caller's own code. */
#if defined(__x86_64__)
#define SB_SPIN_LOOP	"1: dec %0\n\tjnz 1b"
#elif defined(__aarch64__)
#define SB_SPIN_LOOP	"1: subs %0, %0, #1\n\tb.ne 1b"
#endif
#define SB_SPIN(n)							\
do {									\
	unsigned long __n = (n);					\
									\
	asm volatile(SB_SPIN_LOOP : "+r" (__n) : : "cc");		\
} while (0)

/* Enter a level: note its name and return address. */
#define SB_ENTER()							\
do {									\
	depth++;							\
	levels[depth].func = __func__;					\
	levels[depth].ra = (unsigned long)__builtin_return_address(0);	\
} while (0)

#define SB_LEAVE()	(depth--)

/* Keep a value live across a call: no tail calls. */
#define SB_KEEP(x)	({ asm volatile("" : "+r" (x) : : "memory"); })

/* Iterations of the spin at each level, before and after its call. */
#define SB_WORK		20000

SB_FN long sb_leaf(long x)
{
	SB_ENTER();
	SB_SPIN(4 * SB_WORK);
	SB_LEAVE();
	return x + 1;
}

SB_FN long sb_indirect_target(long x)
{
	long r;

	SB_ENTER();
	SB_SPIN(SB_WORK);
	r = sb_leaf(x);
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r;
}

SB_FN long sb_indirect(long x)
{
	long (*fn)(long x) = sb_indirect_target;
	long r;

	SB_ENTER();
	asm volatile("" : "+r" (fn));
	SB_SPIN(SB_WORK);
	r = fn(x);
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r;
}

SB_FN long sb_args(long a, long b, long c, long d, long e, long f, long g,
		   long h)
{
	long r;

	SB_ENTER();
	SB_SPIN(SB_WORK);
	r = sb_indirect(a + b + c + d + e + f + g + h);
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r;
}

SB_FN long sb_vla(long len)
{
	char buf[len];
	long r;

	SB_ENTER();
	buf[0] = 0x5a;
	buf[len - 1] = 0x5a;
	asm volatile("" : : "r" (buf) : "memory");
	SB_SPIN(SB_WORK);
	r = sb_args(1, 2, 3, 4, 5, 6, 7, buf[len - 1]);
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r;
}

/* 12 KiB of locals: past what a default 8 KiB DWARF stack copy holds. */
SB_FN long sb_big(long x)
{
	char big[12 * 1024];
	long r;

	SB_ENTER();
	big[0] = x;
	big[sizeof(big) - 1] = x;
	asm volatile("" : : "r" (big) : "memory");
	SB_SPIN(SB_WORK);
	r = sb_vla(40 + (x & 8));
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r + big[0] + big[sizeof(big) - 1];
}

/* Six values live across the call: the callee-saved registers. */
SB_FN long sb_saved(long x)
{
	long a = x * 3, b = x ^ 5, c = x + 7, d = x * 11, e = x - 13;
	long f = x | 17, r;

	SB_ENTER();
	SB_KEEP(a);
	SB_KEEP(b);
	SB_KEEP(c);
	SB_KEEP(d);
	SB_KEEP(e);
	SB_KEEP(f);
	SB_SPIN(SB_WORK);
	r = sb_big(x);
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r + a + b + c + d + e + f;
}

SB_FN long sb_recurse(long n)
{
	long r;

	SB_ENTER();
	SB_SPIN(SB_WORK);
	if (n > 1)
		r = sb_recurse(n - 1);
	else
		r = sb_saved(n);
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r + n;
}

SB_FN long sb_entry(long x)
{
	long r;

	SB_ENTER();
	SB_SPIN(SB_WORK);
	r = sb_recurse(SB_RECURSE);
	SB_KEEP(r);
	SB_SPIN(SB_WORK);
	SB_LEAVE();
	return r + x;
}

/*
 * Touch 64 KiB of stack: the pages of sb_big's frame, which it does not
 * write, so that a sampled copy of the stack (--call-graph dwarf) can read
 * them.
 */
SB_FN void sb_touch_stack(void)
{
	char pages[64 * 1024];

	memset(pages, 0, sizeof(pages));
	asm volatile("" : : "r" (pages) : "memory");
}

int main(int argc, char **argv)
{
	long rounds, i, r = 0;
	FILE *f;
	int l;

	rounds = argc == 3 ? atol(argv[1]) : 0;
	if (rounds < 1) {
		fprintf(stderr, "usage: sframe_perf_bench ROUNDS TRUTH\n");
		return 1;
	}
	levels[0].func = "main";
	sb_touch_stack();
	for (i = 0; i < rounds; i++) {
		r += sb_entry(i);
		SB_KEEP(r);
	}
	f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	for (l = 1; l < SB_MAX_LEVELS && levels[l].func; l++)
		fprintf(f, "%d %s %#lx\n", l, levels[l].func, levels[l].ra);
	if (fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
