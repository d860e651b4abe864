/* SPDX-License-Identifier: GPL-2.0 */
/* An outermost frame, as a C library has it */
	.text
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	mov	x0, #1
	bl	framed
	b	.
	.cfi_endproc
	.size	_start, .-_start
