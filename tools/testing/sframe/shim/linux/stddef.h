/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/stddef.h>. */
#ifndef _SFRAME_SHIM_LINUX_STDDEF_H
#define _SFRAME_SHIM_LINUX_STDDEF_H

#include_next <linux/stddef.h>
#include <stddef.h>

#endif
