/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-written CFI for sframe-gen's verdicts (check.sh, gen_vN_cfi_*):
 * each function is named <verdict>__<case>, the verdict sframe-gen -l must
 * give it, with '_' for '-', or <verdict>__v3_<verdict>__<case> when SFrame
 * V3 (flexible FDEs) gives another than V2.  "partial": the rows SFrame
 * cannot express are holes, the others are kept.  SFrame takes the
 * caller's SP to be the CFA (DWARF's default, val_offset(0)): a row with
 * any other rule on the SP is a hole (sp-rule), and the function is left
 * out when every row is one.
 */
#define FUNC(name)			\
	.globl name;			\
	.type name, @function;		\
	.p2align 4;			\
name:					\
	.cfi_startproc

#define END(name)			\
	.cfi_endproc;			\
	.size name, . - name

	.text

/* A frame-pointer function: the default SP rule throughout */
FUNC(ok__default)
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	pop	%rbp
	.cfi_def_cfa %rsp, 8
	ret
END(ok__default)

/* The default, said explicitly */
FUNC(ok__sp_val_offset_0)
	nop
	.cfi_val_offset %rsp, 0
	nop
	ret
END(ok__sp_val_offset_0)

/* The outermost frame: no caller, no SP needed */
FUNC(ok__outermost)
	.cfi_undefined %rip
	.cfi_register %rsp, %rbx
	nop
	hlt
END(ok__outermost)

FUNC(partial__sp_val_offset)
	nop
	.cfi_val_offset %rsp, 16
	nop
	ret
END(partial__sp_val_offset)

FUNC(partial__sp_offset)
	nop
	.cfi_offset %rsp, -16
	nop
	ret
END(partial__sp_offset)

FUNC(partial__sp_register)
	nop
	.cfi_register %rsp, %rbx
	nop
	ret
END(partial__sp_register)

/* DW_CFA_expression rsp: DW_OP_breg7 8 */
FUNC(partial__sp_expression)
	nop
	.cfi_escape 0x10, 0x07, 0x02, 0x77, 0x08
	nop
	ret
END(partial__sp_expression)

/* DW_CFA_val_expression rsp: DW_OP_breg7 8 */
FUNC(partial__sp_val_expression)
	nop
	.cfi_escape 0x16, 0x07, 0x02, 0x77, 0x08
	nop
	ret
END(partial__sp_val_expression)

FUNC(partial__sp_same_value)
	nop
	.cfi_same_value %rsp
	nop
	ret
END(partial__sp_same_value)

FUNC(partial__sp_undefined)
	nop
	.cfi_undefined %rsp
	nop
	ret
END(partial__sp_undefined)

/* A stack switch in the middle of an ordinary function, then back */
FUNC(partial__sp_middle)
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	.cfi_remember_state
	mov	%rsp, %rbx
	.cfi_register %rsp, %rbx
	nop
	mov	%rbx, %rsp
	.cfi_restore_state
	pop	%rbp
	.cfi_def_cfa_offset 8
	ret
END(partial__sp_middle)

/* The SP's rule from the first row on: every row is a hole */
FUNC(sp_rule__whole)
	.cfi_val_offset %rsp, 16
	nop
	ret
END(sp_rule__whole)

/*
 * GCC's stack realignment through a DRAP register (-mstackrealign, or an
 * over-aligned local): the CFA in r10, then the word at rbp - 8, and the
 * FP saved at rbp + 0 (DW_CFA_expression).  V2 has none of these rules.
 */
FUNC(partial__v3_ok__drap)
	lea	0x8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	and	$-32, %rsp
	pushq	-0x8(%r10)
	push	%rbp
	mov	%rsp, %rbp
	/* DW_CFA_expression rbp: DW_OP_breg6 0 */
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
	push	%r10
	/* DW_CFA_def_cfa_expression: DW_OP_breg6 -8; DW_OP_deref */
	.cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
	call	1f
1:	nop
	pop	%r10
	.cfi_def_cfa %r10, 0
	pop	%rbp
	.cfi_restore %rbp
	lea	-0x8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
END(partial__v3_ok__drap)

/*
 * glibc's lazy-binding trampoline (_dl_runtime_resolve_xsave): the stack
 * realigned with the CFA in rbx, around a call
 */
FUNC(partial__v3_ok__rbx_realign)
	.cfi_adjust_cfa_offset 16
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbx, 0
	mov	%rsp, %rbx
	.cfi_def_cfa_register %rbx
	and	$-64, %rsp
	call	1f
1:	nop
	mov	%rbx, %rsp
	.cfi_def_cfa_register %rsp
	mov	(%rsp), %rbx
	.cfi_restore %rbx
	add	$24, %rsp
	.cfi_adjust_cfa_offset -24
	ret
END(partial__v3_ok__rbx_realign)

/*
 * -fstack-clash-protection's probe loop for a frame over a page: the CFA in
 * r11 while the loop moves the SP, then on the SP again
 */
FUNC(partial__v3_ok__probe_loop)
	lea	-0x9000(%rsp), %r11
	.cfi_def_cfa %r11, 0x9008
1:	sub	$0x1000, %rsp
	orq	$0, (%rsp)
	cmp	%r11, %rsp
	jne	1b
	.cfi_def_cfa_register %rsp
	sub	$0x700, %rsp
	.cfi_def_cfa_offset 0x9708
	call	1f
1:	nop
	add	$0x9700, %rsp
	.cfi_def_cfa_offset 8
	ret
END(partial__v3_ok__probe_loop)

/* The FP kept in another register for a while */
FUNC(partial__v3_ok__fp_in_register)
	mov	%rbp, %rbx
	.cfi_register %rbp, %rbx
	nop
	mov	%rbx, %rbp
	.cfi_restore %rbp
	ret
END(partial__v3_ok__fp_in_register)

/* A CFA no SFrame rule can hold, in the middle: that row alone is a hole */
FUNC(partial__cfa_deref_plus)
	nop
	/* DW_CFA_def_cfa_expression: DW_OP_breg7 8; DW_OP_deref; DW_OP_plus_uconst 8 */
	.cfi_escape 0x0f, 0x05, 0x77, 0x08, 0x06, 0x23, 0x08
	nop
	.cfi_def_cfa %rsp, 8
	ret
END(partial__cfa_deref_plus)

/* ... from the first row to the last: the function is left out */
FUNC(cfa_expression__whole)
	/* DW_CFA_def_cfa_expression: DW_OP_breg7 8; DW_OP_deref; DW_OP_plus_uconst 8 */
	.cfi_escape 0x0f, 0x05, 0x77, 0x08, 0x06, 0x23, 0x08
	nop
	ret
END(cfa_expression__whole)
