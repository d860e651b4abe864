/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/align.h>. */
#ifndef _SFRAME_SHIM_LINUX_ALIGN_H
#define _SFRAME_SHIM_LINUX_ALIGN_H

#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)

#endif
