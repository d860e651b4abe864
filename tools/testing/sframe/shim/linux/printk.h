/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/printk.h>: debug messages are compiled out. */
#ifndef _SFRAME_SHIM_LINUX_PRINTK_H
#define _SFRAME_SHIM_LINUX_PRINTK_H

#include <stdio.h>

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
/* Still type-check the format, as the kernel does. */
#define pr_debug(fmt, ...) do {						\
	if (0)								\
		printf(pr_fmt(fmt), ##__VA_ARGS__);			\
} while (0)

#endif
