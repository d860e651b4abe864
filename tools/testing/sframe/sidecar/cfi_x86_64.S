/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-written CFI for sframe-gen's verdicts (check.sh, gen_vN_cfi_*):
 * each function is named <verdict>__<case>, the verdict sframe-gen -l must
 * give it, with '_' for '-'.  SFrame takes the caller's SP to be the CFA
 * (DWARF's default, val_offset(0)): a row with any other rule on the SP
 * leaves the function out (sp-rule), wherever the row is.
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

FUNC(sp_rule__val_offset)
	nop
	.cfi_val_offset %rsp, 16
	nop
	ret
END(sp_rule__val_offset)

FUNC(sp_rule__offset)
	nop
	.cfi_offset %rsp, -16
	nop
	ret
END(sp_rule__offset)

FUNC(sp_rule__register)
	nop
	.cfi_register %rsp, %rbx
	nop
	ret
END(sp_rule__register)

/* DW_CFA_expression rsp: DW_OP_breg7 8 */
FUNC(sp_rule__expression)
	nop
	.cfi_escape 0x10, 0x07, 0x02, 0x77, 0x08
	nop
	ret
END(sp_rule__expression)

/* DW_CFA_val_expression rsp: DW_OP_breg7 8 */
FUNC(sp_rule__val_expression)
	nop
	.cfi_escape 0x16, 0x07, 0x02, 0x77, 0x08
	nop
	ret
END(sp_rule__val_expression)

FUNC(sp_rule__same_value)
	nop
	.cfi_same_value %rsp
	nop
	ret
END(sp_rule__same_value)

FUNC(sp_rule__undefined)
	nop
	.cfi_undefined %rsp
	nop
	ret
END(sp_rule__undefined)

/* A stack switch in the middle of an ordinary function, then back */
FUNC(sp_rule__middle)
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
END(sp_rule__middle)
