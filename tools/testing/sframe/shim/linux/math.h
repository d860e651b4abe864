/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/math.h>: what the decoder uses. */
#ifndef _SFRAME_SHIM_LINUX_MATH_H
#define _SFRAME_SHIM_LINUX_MATH_H

#define __round_mask(x, y)	((__typeof__(x))((y) - 1))
#define round_down(x, y)	((x) & ~__round_mask(x, y))

#endif
