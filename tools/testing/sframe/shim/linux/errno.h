/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/errno.h>: the UAPI numbers, as libc's. */
#ifndef _SFRAME_SHIM_LINUX_ERRNO_H
#define _SFRAME_SHIM_LINUX_ERRNO_H
#include_next <linux/errno.h>
#endif
