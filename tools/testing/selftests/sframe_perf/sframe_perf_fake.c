// SPDX-License-Identifier: GPL-2.0
/*
 * Preloaded into perf (LD_PRELOAD) to make this kernel look like one that
 * cannot give SFrame stacks, for the tests of perf's refusals:
 *
 *	SFP_FAKE=no-sframe	codectl(2) is an unknown system call, as on
 *				a kernel without CONFIG_UNWIND_USER_SFRAME
 *	SFP_FAKE=no-defer	perf_event_open() refuses defer_callchain
 *				with EINVAL, as a kernel without deferred
 *				callchains does
 *
 * Nothing else changes: every other call goes to the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#ifndef __NR_codectl
#error "__NR_codectl: build against the uapi headers of a kernel with codectl(2)"
#endif

static bool faking(const char *what)
{
	const char *fake = getenv("SFP_FAKE");

	return fake && !strcmp(fake, what);
}

long syscall(long nr, ...)
{
	static long (*next)(long nr, ...);
	long a[6];
	va_list ap;
	int i;

	/* The C library's syscall() reads six arguments whatever nr is. */
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	/* A number no kernel has: the kernel's own error for it */
	if (nr == __NR_codectl && faking("no-sframe"))
		nr = -1;
	if (nr == SYS_perf_event_open && faking("no-defer") &&
	    ((struct perf_event_attr *)a[0])->defer_callchain) {
		errno = EINVAL;
		return -1;
	}
	if (!next)
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
