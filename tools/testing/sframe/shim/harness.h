/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included into every file built with SFRAME_SHIM_CFLAGS, as kernel
 * builds force-include compiler_types.h: the annotations that the kernel has
 * everywhere (the attributes from <linux/compiler_attributes.h>, as there),
 * and the harness's versions of the decoder's two hooks.
 */
#ifndef _SFRAME_SHIM_HARNESS_H
#define _SFRAME_SHIM_HARNESS_H

#include <linux/compiler_attributes.h>

#ifndef __user
#define __user
#endif
#ifndef __force
#define __force
#endif
#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

/* Record why the decoder refused something: see test_last_reject(). */
void test_record_reject(const char *why);
/* Whether the decoder accepts sections of this ABI: see test_set_abi(). */
int test_abi_supported(unsigned int abi);

#define sframe_reject(why)		test_record_reject(why)
#define sframe_abi_supported(abi)	test_abi_supported(abi)

#endif /* _SFRAME_SHIM_HARNESS_H */
