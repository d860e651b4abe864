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

/*
 * The window, and the fast path: when one mapping holds the whole window,
 * win_buf points to the window's first byte in it.
 */
struct test_mem_fast {
	unsigned long	win_start;
	unsigned long	win_len;
	const unsigned char *win_buf;
	unsigned long	reads;		/* copy_from_user() calls */
};

extern struct test_mem_fast test_mem_fast;

void __noreturn test_mem_window_violation(unsigned long addr, unsigned long n);
unsigned long test_mem_copy_slow(void *to, unsigned long from,
				 unsigned long n);

static inline unsigned long copy_from_user(void *to, const void __user *from,
					   unsigned long n)
{
	struct test_mem_fast *f = &test_mem_fast;
	unsigned long off = (unsigned long)from - f->win_start;

	f->reads++;
	if (off > f->win_len || n > f->win_len - off)
		test_mem_window_violation((unsigned long)from, n);
	if (f->win_buf) {
		memcpy(to, f->win_buf + off, n);
		return 0;
	}
	return test_mem_copy_slow(to, (unsigned long)from, n);
}

#endif
