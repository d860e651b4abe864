/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AArch64 functions whose CFI exercises the corners of SFrame: rows where
 * the RA is still in LR, frame records, return-address signing with keys A
 * and B, an outermost frame, a signal frame, a CFA in another register, 2-
 * and 4-byte FRE start addresses and data words.  Assembled with --gsframe
 * by GNU as 2.44 (SFrame V2) and 2.46+ (V3); README says what each version
 * emits for each function.  Only decoded, never run.
 */

	.text

// A leaf: no frame, the RA stays in LR.
	.globl	leaf_fn
	.type	leaf_fn, %function
leaf_fn:
	.cfi_startproc
	add	x0, x0, #1
	ret
	.cfi_endproc
	.size	leaf_fn, .-leaf_fn

// A frame record: LR-only rows in the prologue, then RA and FP on the stack.
	.globl	frame_fn
	.type	frame_fn, %function
frame_fn:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	.cfi_def_cfa_register 29
	bl	leaf_fn
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
	.size	frame_fn, .-frame_fn

// Return-address signing with key A.
	.globl	pac_a_fn
	.type	pac_a_fn, %function
pac_a_fn:
	.cfi_startproc
	hint	25			// paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	leaf_fn
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	29			// autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	pac_a_fn, .-pac_a_fn

// Return-address signing with key B.
	.globl	pac_b_fn
	.type	pac_b_fn, %function
pac_b_fn:
	.cfi_startproc
	.cfi_b_key_frame
	hint	27			// pacibsp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	bl	leaf_fn
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	31			// autibsp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	pac_b_fn, .-pac_b_fn

// An entry point: no caller, the walk stops here.
	.globl	outer_fn
	.type	outer_fn, %function
outer_fn:
	.cfi_startproc
	.cfi_undefined 30
	mov	x29, #0
	bl	leaf_fn
	brk	#0
	.cfi_endproc
	.size	outer_fn, .-outer_fn

// A signal trampoline (offsets as in the arm64 rt_sigframe).
	.globl	sig_fn
	.type	sig_fn, %function
	nop
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa 31, 304
	.cfi_offset 29, 232
	.cfi_offset 30, 240
sig_fn:
	mov	x8, #139
	svc	#0
	.cfi_endproc
	.size	sig_fn, .-sig_fn

// The CFA tracked in x19.
	.globl	cfa_x19_fn
	.type	cfa_x19_fn, %function
cfa_x19_fn:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	str	x19, [sp, #16]
	.cfi_offset 19, -16
	mov	x19, sp
	.cfi_def_cfa_register 19
	bl	leaf_fn
	mov	sp, x19
	.cfi_def_cfa_register 31
	ldr	x19, [sp, #16]
	.cfi_restore 19
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	cfa_x19_fn, .-cfa_x19_fn

// Large stack frames: 2- and 4-byte data words.
	.globl	bigframe_fn
	.type	bigframe_fn, %function
bigframe_fn:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sub	sp, sp, #4096
	.cfi_adjust_cfa_offset 4096
	bl	leaf_fn
	sub	sp, sp, #(48 << 12)
	.cfi_adjust_cfa_offset (48 << 12)
	bl	leaf_fn
	add	sp, sp, #(48 << 12)
	.cfi_adjust_cfa_offset -(48 << 12)
	add	sp, sp, #4096
	.cfi_adjust_cfa_offset -4096
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	bigframe_fn, .-bigframe_fn

// Many rows over more than 255 bytes: 2-byte FRE start addresses.
	.globl	addr2_fn
	.type	addr2_fn, %function
addr2_fn:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	.rept	40
	sub	sp, sp, #16
	.cfi_adjust_cfa_offset 16
	bl	leaf_fn
	.endr
	.rept	40
	add	sp, sp, #16
	.cfi_adjust_cfa_offset -16
	bl	leaf_fn
	.endr
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	addr2_fn, .-addr2_fn

// More than 64 KiB: 4-byte FRE start addresses.
	.globl	addr4_fn
	.type	addr4_fn, %function
addr4_fn:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	.rept	17500
	nop
	.endr
	sub	sp, sp, #16
	.cfi_adjust_cfa_offset 16
	.rept	100
	nop
	.endr
	add	sp, sp, #16
	.cfi_adjust_cfa_offset -16
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	addr4_fn, .-addr4_fn
