/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/compiler_attributes.h>: the kernel's names
 * for the attributes that the decoder and the harness use.  Where glibc's
 * <sys/cdefs.h> has a name for an attribute, the kernel's name is defined
 * as that one.  <sys/cdefs.h> also defines __always_inline as the kernel
 * does (inline and always_inline), and replaces any earlier definition, so
 * it is taken from there.
 *
 * Included by shim/harness.h, and directly by the sources built without
 * the shims: ref/ansidecl.h and ref/inputs/prog.c.
 */
#ifndef _SFRAME_SHIM_LINUX_COMPILER_ATTRIBUTES_H
#define _SFRAME_SHIM_LINUX_COMPILER_ATTRIBUTES_H

#include <sys/cdefs.h>

#ifndef __packed
#define __packed		__attribute__((__packed__))
#endif
#ifndef __noreturn
#define __noreturn		__attribute__((__noreturn__))
#endif
#ifndef __printf
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#endif
#ifndef __must_check
#define __must_check		__attribute__((__warn_unused_result__))
#endif
#ifndef noinline
#define noinline		__attribute_noinline__
#endif
#ifndef __cold
#define __cold			__COLD
#endif
#ifndef __maybe_unused
#define __maybe_unused		__attribute_maybe_unused__
#endif

#endif /* _SFRAME_SHIM_LINUX_COMPILER_ATTRIBUTES_H */
