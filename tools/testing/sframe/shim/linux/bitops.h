/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/bitops.h>: what the decoder uses. */
#ifndef _SFRAME_SHIM_LINUX_BITOPS_H
#define _SFRAME_SHIM_LINUX_BITOPS_H

#include <linux/types.h>

/* The position of the most significant bit set, 1-based; 0 for 0 */
#define BIT(nr)		(1UL << (nr))

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline s32 sign_extend32(u32 value, int index)
{
	u8 shift = 31 - index;

	return (s32)(value << shift) >> shift;
}

#endif
