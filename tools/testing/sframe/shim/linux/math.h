/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/math.h>: what the decoder uses. */
#ifndef _SFRAME_SHIM_LINUX_MATH_H
#define _SFRAME_SHIM_LINUX_MATH_H

/* @y is a power of two */
#define round_down(x, y) ({			\
	__typeof__(x) __x = (x);		\
	__x & ~(__typeof__(x))((y) - 1); })

#endif
