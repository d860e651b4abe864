/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call chain of the codectl stack test, through a dlopen()ed library.
 *
 *	main                   (the test program)
 *	cl_entry               (libcodectl_chain.so)
 *	cl_middle              (libcodectl_chain.so)
 *	cl_call                (libcodectl_chain.so)
 *	the callback           (the test program): a getppid system call
 *
 * The library is built with -fomit-frame-pointer -Wa,--gsframe: only its
 * SFrame section, registered by codectl(2), lets the kernel unwind its
 * frames.  Every function records its name and return address as it runs:
 * the stack the kernel must report at the system call.
 */
#ifndef CODECTL_CHAIN_H
#define CODECTL_CHAIN_H

#define CL_MAX_DEPTH	8

struct cl_walk {
	int depth;			/* functions entered so far */
	const char *name[CL_MAX_DEPTH];
	unsigned long ra[CL_MAX_DEPTH];	/* ra[i]: into the caller of name[i] */
	long (*callback)(struct cl_walk *w);
	unsigned long top_ip;		/* right after the system call */
	long ret;			/* what it returned */
};

/* Record the running function's name and return address. */
#define CL_NOTE(w)							\
do {									\
	struct cl_walk *__w = (w);					\
									\
	if (__w->depth < CL_MAX_DEPTH) {				\
		__w->name[__w->depth] = __func__;			\
		__w->ra[__w->depth] =					\
			(unsigned long)__builtin_return_address(0);	\
	}								\
	__w->depth++;							\
} while (0)

/* Keep a value live after a call, so that the call is not a tail call. */
#define CL_KEEP(x)	({ asm volatile("" : "+r" (x) : : "memory"); })

/*
 * The chain's system call, getppid, made with the instruction itself so
 * that the address right after it, where the kernel's stack must start,
 * is known: it goes to @w->top_ip, the call's result to @w->ret.  Another
 * architecture needs its own instruction here.
 */
#if defined(__x86_64__)
#define CL_GETPPID(w)							\
do {									\
	struct cl_walk *__w = (w);					\
	unsigned long __ip;						\
	long __ret;							\
									\
	asm volatile("syscall\n"					\
		     "1:\tlea 1b(%%rip), %1"				\
		     : "=a" (__ret), "=r" (__ip)			\
		     : "0" ((long)__NR_getppid)				\
		     : "rcx", "r11", "memory");				\
	__w->top_ip = __ip;						\
	__w->ret = __ret;						\
} while (0)
#elif defined(__aarch64__)
#define CL_GETPPID(w)							\
do {									\
	struct cl_walk *__w = (w);					\
	register long __x8 asm("x8") = __NR_getppid;			\
	register long __x0 asm("x0");					\
	unsigned long __ip;						\
									\
	asm volatile("svc #0\n"						\
		     "1:\tadr %1, 1b"					\
		     : "=r" (__x0), "=r" (__ip)				\
		     : "r" (__x8)					\
		     : "memory");					\
	__w->top_ip = __ip;						\
	__w->ret = __x0;						\
} while (0)
#endif

/* The library's functions; the dlopen test looks up cl_entry only. */
long cl_entry(struct cl_walk *w);
long cl_middle(struct cl_walk *w);
long cl_call(struct cl_walk *w);

/*
 * Give [@addr, @addr + @len) each protection of @prots[0..@n) in turn: for
 * the stack test's W^X cycle of its own text, whose code cannot run while
 * it is not executable.  Returns 0, or the errno of the mprotect() that
 * failed.
 */
int cl_mprotect_seq(void *addr, unsigned long len, const int *prots, int n);

#endif /* CODECTL_CHAIN_H */
