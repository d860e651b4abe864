/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/types.h>: the UAPI types plus u8..s64. */
#ifndef _SFRAME_SHIM_LINUX_TYPES_H
#define _SFRAME_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>	/* __u8 .. __le64 from the UAPI headers */
#include <stdbool.h>
#include <stddef.h>

typedef __u8	u8;
typedef __u16	u16;
typedef __u32	u32;
typedef __u64	u64;
typedef __s8	s8;
typedef __s16	s16;
typedef __s32	s32;
typedef __s64	s64;

#endif
