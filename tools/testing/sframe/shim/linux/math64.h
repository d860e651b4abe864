/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/math64.h>: what the decoder uses. */
#ifndef _SFRAME_SHIM_LINUX_MATH64_H
#define _SFRAME_SHIM_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif
