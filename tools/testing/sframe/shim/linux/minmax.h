/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/minmax.h>: what the decoder uses. */
#ifndef _SFRAME_SHIM_LINUX_MINMAX_H
#define _SFRAME_SHIM_LINUX_MINMAX_H

#define min_t(type, x, y) ({			\
	type __x = (x), __y = (y);		\
	__x < __y ? __x : __y; })
#define min(x, y) ({				\
	typeof(x) __a = (x);			\
	typeof(y) __b = (y);			\
	__a < __b ? __a : __b; })
#define max(x, y) ({				\
	typeof(x) __a = (x);			\
	typeof(y) __b = (y);			\
	__a > __b ? __a : __b; })
#define max_t(type, x, y) ({			\
	type __x = (x), __y = (y);		\
	__x > __y ? __x : __y; })

#define clamp(val, lo, hi)	min(max(val, lo), hi)

/* The kernel's picks a 32- or 64-bit version; the decoder's values fit */
#define in_range(val, start, len)	((val) - (start) < (len))

#endif
