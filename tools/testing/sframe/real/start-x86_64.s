/* SPDX-License-Identifier: GPL-2.0 */
/* An outermost frame and a signal trampoline, as a C library has them */
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xor	%ebp, %ebp
	mov	$64, %edi
	call	drap
	call	framed
	hlt
	.cfi_endproc
	.size	_start, .-_start

	.globl	sigtramp
	.type	sigtramp, @function
sigtramp:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa rsp, 160
	.cfi_offset rip, 8
	mov	$15, %eax
	syscall
	.cfi_endproc
	.size	sigtramp, .-sigtramp
