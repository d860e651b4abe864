/* SPDX-License-Identifier: GPL-2.0 */
/* What libsframe's sframe.h needs from binutils' unshipped ansidecl.h. */
#include "../shim/linux/compiler_attributes.h"

#define ATTRIBUTE_PACKED	__packed
#define ATTRIBUTE_UNUSED	__maybe_unused
