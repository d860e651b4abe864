/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/limits.h>. */
#ifndef _SFRAME_SHIM_LINUX_LIMITS_H
#define _SFRAME_SHIM_LINUX_LIMITS_H
#include_next <linux/limits.h>
#include <limits.h>
#include <stdint.h>

#define U32_MAX		UINT32_MAX
#endif
