// SPDX-License-Identifier: GPL-2.0
/*
 * libcodectl_chain.so: the library part of the codectl stack test's call
 * chain (codectl_chain.h), built without frame pointers and with an SFrame
 * section.  Each function uses a callee-saved register for a value of its
 * own, so that the frame pointer register holds no frame pointer: a frame
 * pointer walk through these frames goes astray.  It also has the helper
 * with which the stack test changes the protection of its own text.
 */
#include <errno.h>
#include <sys/cdefs.h>	/* __always_inline */
#include <sys/mman.h>

#include "codectl_chain.h"

#define CL_FN	__attribute__((noipa, visibility("default")))

/*
 * Put a non-pointer in the frame pointer register across a call, as code
 * built with -fomit-frame-pointer may.  Inlined into the caller, so that the
 * caller saves and restores the register.
 */
static __always_inline void cl_scramble_fp(long v)
{
#if defined(__x86_64__)
	asm volatile("mov %0, %%rbp" : : "r" (v) : "rbp");
#elif defined(__aarch64__)
	asm volatile("mov x29, %0" : : "r" (v) : "x29");
#else
	(void)v;
#endif
}

CL_FN long cl_call(struct cl_walk *w)
{
	long r;

	CL_NOTE(w);
	cl_scramble_fp(0x5a5a5a5a5aL);
	r = w->callback(w);
	CL_KEEP(r);
	return r + 1;
}

CL_FN long cl_middle(struct cl_walk *w)
{
	long r;

	CL_NOTE(w);
	r = cl_call(w);
	CL_KEEP(r);
	return r + 1;
}

CL_FN long cl_entry(struct cl_walk *w)
{
	long r;

	CL_NOTE(w);
	r = cl_middle(w);
	CL_KEEP(r);
	return r + 1;
}

/* Runs here, in the library: the caller's text may not be executable. */
CL_FN int cl_mprotect_seq(void *addr, unsigned long len, const int *prots,
			  int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (mprotect(addr, len, prots[i]))
			return errno;
	return 0;
}
