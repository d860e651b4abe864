/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/uaccess.h>: copy_from_user() over the fake
 * user memory of test_mem.c.  It aborts if a read leaves the window set with
 * test_mem_set_window(), and copies the readable prefix of the range as the
 * kernel does when a fault stops the copy.
 */
#ifndef _SFRAME_SHIM_LINUX_UACCESS_H
#define _SFRAME_SHIM_LINUX_UACCESS_H

#include <string.h>
#include <linux/types.h>

/* The window, and the mapping that served the last read: the fast path. */
struct test_mem_fast {
	unsigned long	win_start;
	unsigned long	win_end;
	unsigned long	uaddr;
	unsigned long	len;
	const unsigned char *buf;
	unsigned long	reads;		/* copy_from_user() calls */
};
extern struct test_mem_fast test_mem_fast;

void test_mem_window_violation(unsigned long addr, unsigned long n)
	__attribute__((__noreturn__));
unsigned long test_mem_copy_slow(void *to, unsigned long from,
				 unsigned long n);

static inline unsigned long copy_from_user(void *to, const void __user *from,
					   unsigned long n)
{
	struct test_mem_fast *f = &test_mem_fast;
	unsigned long addr = (unsigned long)from;

	f->reads++;
	if (addr < f->win_start || addr > f->win_end ||
	    n > f->win_end - addr)
		test_mem_window_violation(addr, n);
	if (addr >= f->uaddr && addr - f->uaddr <= f->len &&
	    n <= f->len - (addr - f->uaddr)) {
		memcpy(to, f->buf + (addr - f->uaddr), n);
		return 0;
	}
	return test_mem_copy_slow(to, addr, n);
}

#endif
