/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/string.h>. */
#ifndef _SFRAME_SHIM_LINUX_STRING_H
#define _SFRAME_SHIM_LINUX_STRING_H
#include <string.h>
#endif
