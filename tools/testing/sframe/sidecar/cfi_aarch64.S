/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-written CFI for sframe-gen's verdicts (check.sh, gen_vN_cfi_*):
 * each function is named <verdict>__<case>, the verdict sframe-gen -l must
 * give it, with '_' for '-', or <verdict>__v3_<verdict>__<case> when SFrame
 * V3 (flexible FDEs) gives another than V2.  "partial": the rows SFrame
 * cannot express are holes, the others are kept.  SFrame takes the
 * caller's SP to be the CFA (sp-rule otherwise); the return address
 * signing state (RA_SIGN_STATE,
 * DWARF register 34) may only be toggled by DW_CFA_AARCH64_negate_ra_state
 * (ra-state otherwise: sframe-gen follows no other rule on it).
 */
#define FUNC(name)			\
	.globl name;			\
	.type name, %function;		\
	.p2align 4;			\
name:					\
	.cfi_startproc

#define END(name)			\
	.cfi_endproc;			\
	.size name, . - name

	.text

FUNC(ok__default)
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
END(ok__default)

/* pac-ret: the toggles the scan follows */
FUNC(ok__pac_ret)
	hint	#25			/* paciasp */
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#29			/* autiasp */
	.cfi_negate_ra_state
	ret
END(ok__pac_ret)

FUNC(ok__sp_val_offset_0)
	nop
	.cfi_val_offset sp, 0
	nop
	ret
END(ok__sp_val_offset_0)

FUNC(partial__sp_val_offset)
	nop
	.cfi_val_offset sp, 16
	nop
	ret
END(partial__sp_val_offset)

FUNC(partial__sp_register)
	nop
	.cfi_register sp, x9
	nop
	ret
END(partial__sp_register)

FUNC(partial__sp_offset)
	nop
	.cfi_offset sp, -16
	nop
	ret
END(partial__sp_offset)

/* DW_CFA_val_expression sp: DW_OP_breg31 16 */
FUNC(partial__sp_val_expression)
	nop
	.cfi_escape 0x16, 31, 0x02, 0x8f, 0x10
	nop
	ret
END(partial__sp_val_expression)

/* DW_CFA_val_expression RA_SIGN_STATE: DW_OP_lit1, signed */
FUNC(ra_state__val_expression)
	hint	#25
	.cfi_escape 0x16, 34, 0x01, 0x31
	nop
	hint	#29
	.cfi_escape 0x16, 34, 0x01, 0x30
	ret
END(ra_state__val_expression)

FUNC(ra_state__undefined)
	nop
	.cfi_undefined 34
	nop
	ret
END(ra_state__undefined)

FUNC(ra_state__same_value)
	nop
	.cfi_same_value 34
	nop
	ret
END(ra_state__same_value)

FUNC(ra_state__offset)
	nop
	.cfi_offset 34, -16
	nop
	ret
END(ra_state__offset)

FUNC(ra_state__val_offset)
	nop
	.cfi_val_offset 34, 0
	nop
	ret
END(ra_state__val_offset)

FUNC(ra_state__register)
	nop
	.cfi_register 34, x9
	nop
	ret
END(ra_state__register)

/* After a toggle: restore gives back the CIE's state, not followed */
FUNC(ra_state__restore)
	hint	#25
	.cfi_negate_ra_state
	nop
	.cfi_restore 34
	hint	#29
	ret
END(ra_state__restore)

/*
 * -fstack-clash-protection's probe loop: the CFA in x9 while the loop moves
 * the SP, then on the SP again
 */
FUNC(partial__v3_ok__probe_loop)
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sub	x9, sp, #0x9000
	.cfi_def_cfa x9, 0x9010
1:	sub	sp, sp, #0x1000
	str	xzr, [sp]
	cmp	sp, x9
	b.ne	1b
	.cfi_def_cfa_register sp
	add	sp, sp, #0x9000
	.cfi_def_cfa_offset 16
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
END(partial__v3_ok__probe_loop)

/* The FP saved while the RA is still in LR: a flexible FDE's row */
FUNC(partial__v3_ok__fp_without_ra)
	str	x29, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	ldr	x29, [sp], #16
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
END(partial__v3_ok__fp_without_ra)
