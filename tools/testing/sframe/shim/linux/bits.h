/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/bits.h>: what the decoder uses. */
#ifndef _SFRAME_SHIM_LINUX_BITS_H
#define _SFRAME_SHIM_LINUX_BITS_H

#include <linux/bitops.h>

#define BIT_ULL(nr)	(1ULL << (nr))

#endif
