// SPDX-License-Identifier: GPL-2.0
/*
 * The known call chain of the user stack unwinding tests.  Each function is
 * a real frame: not inlined, not cloned under another name, and not left
 * through a tail call, whatever the optimization level.
 */
#include "stack_chain.h"

/*
 * GCC's noipa: no inlining, no cloning under a suffixed name, no
 * assumptions across calls.  The glibc macro covers clang.
 */
#ifdef __clang__
#define CHAIN_FN	__attribute_noinline__
#else
#define CHAIN_FN	__attribute__((noipa))
#endif

const char * const sft_chain_func[SFT_CHAIN_DEPTH] = {
	"sframe_chain_8", "sframe_chain_7", "sframe_chain_6", "sframe_chain_5",
	"sframe_chain_4", "sframe_chain_3", "sframe_chain_2", "sframe_chain_1",
};

unsigned long sft_chain_addr[SFT_CHAIN_DEPTH + 1];

CHAIN_FN long sframe_chain_8(long nr, long arg)
{
	unsigned long after;
	long ret;

	sft_chain_addr[1] = (unsigned long)__builtin_return_address(0);

	/* The label is the user IP the kernel sees during the call. */
#if defined(__x86_64__)
	asm volatile("lea 1f(%%rip), %1\n\t"
		     "syscall\n"
		     "1:"
		     : "=a" (ret), "=&r" (after)
		     : "0" (nr), "D" (arg)
		     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	{
		register long x8 asm("x8") = nr;
		register long x0 asm("x0") = arg;

		asm volatile("adr %1, 1f\n\t"
			     "svc #0\n"
			     "1:"
			     : "+r" (x0), "=&r" (after)
			     : "r" (x8)
			     : "memory");
		ret = x0;
	}
#else
#error "no system call sequence for this architecture"
#endif
	sft_chain_addr[0] = after;
	return ret;
}

/*
 * Level n records its return address and calls level n + 1.  The empty asm
 * after the call consumes the result, so the call is not a tail call and
 * the frame stays on the stack.
 */
#define CHAIN_LEVEL(n, next)						\
CHAIN_FN long sframe_chain_##n(long nr, long arg)			\
{									\
	long ret;							\
									\
	sft_chain_addr[SFT_CHAIN_DEPTH + 1 - (n)] =			\
		(unsigned long)__builtin_return_address(0);		\
	ret = sframe_chain_##next(nr, arg);				\
	asm volatile("" : "+r" (ret) : : "memory");			\
	return ret;							\
}

CHAIN_LEVEL(7, 8)
CHAIN_LEVEL(6, 7)
CHAIN_LEVEL(5, 6)
CHAIN_LEVEL(4, 5)
CHAIN_LEVEL(3, 4)
CHAIN_LEVEL(2, 3)
CHAIN_LEVEL(1, 2)
