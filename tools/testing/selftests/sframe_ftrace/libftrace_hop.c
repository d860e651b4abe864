// SPDX-License-Identifier: GPL-2.0
/*
 * One step of a deep call chain for ftrace_deep: the library is copied to
 * several files, and each call goes on in the next file, so that the
 * frames of a stack alternate between them.  Built with frame pointers and
 * without sibling calls, so that every step is a frame.
 */
#include <sys/syscall.h>

/* The next step of each file, one after the other */
struct ftrace_hop {
	long (*fn)(unsigned int depth, const struct ftrace_hop *hops,
		   unsigned int n);
};

static long leaf(void)
{
	long ret;

#if defined(__x86_64__)
	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 asm("x8") = SYS_getppid;
	register long x0 asm("x0");

	asm volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	ret = x0;
#else
#error "no system call for this architecture"
#endif
	return ret;
}

long ftrace_hop(unsigned int depth, const struct ftrace_hop *hops,
		unsigned int n)
{
	long ret;

	if (!depth)
		return leaf();
	ret = hops[depth % n].fn(depth - 1, hops, n);
	/* Not a tail call */
	asm volatile("" : "+r"(ret));
	return ret + 1;
}
