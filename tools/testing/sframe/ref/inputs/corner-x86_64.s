/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 functions whose CFI exercises the corners of SFrame: DRAP, a CFA in
 * another register, the RA in a register, an outermost frame, a signal
 * frame, 2- and 4-byte FRE start addresses and data words.  Assembled with
 * --gsframe by GNU as 2.44 (SFrame V2) and 2.46+ (V3); README says what each
 * version emits for each function.  Only decoded, never run.
 */

	.text

# Stack realignment through a DRAP register, as GCC emits it: CFA = r10 in
# the prologue, then CFA = *(rbp - 8) and the saved rbp at *(rbp + 0).
	.globl	drap_fn
	.type	drap_fn, @function
drap_fn:
	.cfi_startproc
	lea	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	and	$-64, %rsp
	pushq	-8(%r10)
	push	%rbp
	# DW_CFA_expression rbp: DW_OP_breg6 0
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
	mov	%rsp, %rbp
	push	%r10
	# DW_CFA_def_cfa_expression: DW_OP_breg6 -8; DW_OP_deref
	.cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
	sub	$96, %rsp
	call	leaf_fn
	add	$96, %rsp
	pop	%r10
	.cfi_def_cfa %r10, 0
	pop	%rbp
	.cfi_restore %rbp
	lea	-8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	drap_fn, .-drap_fn

# The CFA tracked in a callee-saved register other than rsp/rbp.
	.globl	cfa_r12_fn
	.type	cfa_r12_fn, @function
cfa_r12_fn:
	.cfi_startproc
	push	%r12
	.cfi_def_cfa_offset 16
	.cfi_offset %r12, -16
	mov	%rsp, %r12
	.cfi_def_cfa_register %r12
	sub	$64, %rsp
	call	leaf_fn
	mov	%r12, %rsp
	.cfi_def_cfa_register %rsp
	pop	%r12
	.cfi_restore %r12
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	cfa_r12_fn, .-cfa_r12_fn

# The return address popped into r11 and returned through it.
	.globl	ra_reg_fn
	.type	ra_reg_fn, @function
ra_reg_fn:
	.cfi_startproc
	pop	%r11
	.cfi_def_cfa_offset 0
	.cfi_register %rip, %r11
	nop
	nop
	jmp	*%r11
	.cfi_endproc
	.size	ra_reg_fn, .-ra_reg_fn

# An entry point: no caller, the walk stops here.
	.globl	outer_fn
	.type	outer_fn, @function
outer_fn:
	.cfi_startproc
	.cfi_undefined %rip
	xor	%ebp, %ebp
	mov	%rdx, %r9
	push	%rax
	.cfi_adjust_cfa_offset 8
	call	leaf_fn
	pop	%rax
	.cfi_adjust_cfa_offset -8
	hlt
	.cfi_endproc
	.size	outer_fn, .-outer_fn

# A signal trampoline: the CFA and the saved registers are in the signal
# frame the kernel pushed (offsets as in struct rt_sigframe).
	.globl	sig_fn
	.type	sig_fn, @function
	nop
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa %rsp, 160
	.cfi_offset %rip, 168
	.cfi_offset %rbp, 120
sig_fn:
	mov	$15, %eax
	syscall
	.cfi_endproc
	.size	sig_fn, .-sig_fn

# A signal trampoline whose frame fits the default rules (RA at CFA - 8).
	.globl	sig_simple_fn
	.type	sig_simple_fn, @function
	nop
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa %rsp, 160
	.cfi_offset %rbp, 120
sig_simple_fn:
	mov	$15, %eax
	syscall
	.cfi_endproc
	.size	sig_simple_fn, .-sig_simple_fn

# A classic frame-pointer function.
	.globl	rbp_fn
	.type	rbp_fn, @function
rbp_fn:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	call	leaf_fn
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	rbp_fn, .-rbp_fn

	.globl	leaf_fn
	.type	leaf_fn, @function
leaf_fn:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	leaf_fn, .-leaf_fn

# Large stack frames: 2- and 4-byte data words.
	.globl	bigframe_fn
	.type	bigframe_fn, @function
bigframe_fn:
	.cfi_startproc
	sub	$5000, %rsp
	.cfi_adjust_cfa_offset 5000
	call	leaf_fn
	sub	$200000, %rsp
	.cfi_adjust_cfa_offset 200000
	call	leaf_fn
	add	$205000, %rsp
	.cfi_adjust_cfa_offset -205000
	ret
	.cfi_endproc
	.size	bigframe_fn, .-bigframe_fn

# Many rows over more than 255 bytes: 2-byte FRE start addresses.
	.globl	addr2_fn
	.type	addr2_fn, @function
addr2_fn:
	.cfi_startproc
	.rept	40
	push	%rbx
	.cfi_adjust_cfa_offset 8
	call	leaf_fn
	.endr
	.rept	40
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	call	leaf_fn
	.endr
	ret
	.cfi_endproc
	.size	addr2_fn, .-addr2_fn

# More than 64 KiB: 4-byte FRE start addresses.
	.globl	addr4_fn
	.type	addr4_fn, @function
addr4_fn:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	.skip	70000, 0x90
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.skip	1000, 0x90
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	pop	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	addr4_fn, .-addr4_fn

# The frame pointer saved as a value rather than in a slot.
	.globl	fp_val_fn
	.type	fp_val_fn, @function
fp_val_fn:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	lea	-16(%rsp), %rbp
	.cfi_val_offset %rbp, -32
	nop
	pop	%rbp
	.cfi_restore %rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	fp_val_fn, .-fp_val_fn
