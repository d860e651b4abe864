/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/unaligned.h>: what the decoder uses. */
#ifndef _SFRAME_SHIM_LINUX_UNALIGNED_H
#define _SFRAME_SHIM_LINUX_UNALIGNED_H

#include <string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

static inline u16 get_unaligned_le16(const void *p)
{
	__le16 v;

	memcpy(&v, p, sizeof(v));
	return le16_to_cpu(v);
}

static inline u32 get_unaligned_le32(const void *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static inline u64 get_unaligned_le64(const void *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

#endif
