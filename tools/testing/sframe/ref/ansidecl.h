/* SPDX-License-Identifier: GPL-2.0 */
/* What libsframe's sframe.h needs from binutils' unshipped ansidecl.h. */
#define ATTRIBUTE_PACKED	__attribute__((__packed__))
#define ATTRIBUTE_UNUSED	__attribute__((__unused__))
