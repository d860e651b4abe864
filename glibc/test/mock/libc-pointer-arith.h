/* SPDX-License-Identifier: GPL-2.0 */
/* glibc's internal <libc-pointer-arith.h>: the two macros dl-sframe.c uses */
#ifndef SFT_POINTER_ARITH_H
#define SFT_POINTER_ARITH_H
#define ALIGN_DOWN(base, size)	((base) & -((__typeof__(base))(size)))
#define ALIGN_UP(base, size)	ALIGN_DOWN((base) + (size) - 1, (size))
#endif
