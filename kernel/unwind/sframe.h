/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame on-disk format, versions 2 and 3, little-endian sections.
 *
 * A section is a 28-byte header, an optional auxiliary header, an array of
 * function descriptor entries (FDEs, sorted by function start) and a
 * sub-section of variable-length frame row entries (FREs).  The offsets of
 * both sub-sections count from the end of the auxiliary header.  Everything
 * is unaligned little-endian data.
 */
#ifndef _KERNEL_UNWIND_SFRAME_H
#define _KERNEL_UNWIND_SFRAME_H

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/printk.h>
#include <linux/types.h>

#define SFRAME_MAGIC			0xdee2
#define SFRAME_VERSION_2		2
#define SFRAME_VERSION_3		3

/* Header flags */
#define SFRAME_F_FDE_SORTED		0x1
#define SFRAME_F_FRAME_POINTER		0x2	/* V2 only, never set, no meaning */
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4	/* start is relative to its field */
#define SFRAME_V2_F_ALL			(SFRAME_F_FDE_SORTED | SFRAME_F_FRAME_POINTER | \
					 SFRAME_F_FDE_FUNC_START_PCREL)
#define SFRAME_V3_F_ALL			(SFRAME_F_FDE_SORTED | \
					 SFRAME_F_FDE_FUNC_START_PCREL)

/* Header ABI/arch identifiers */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG	1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE 2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE	3
#define SFRAME_ABI_S390X_ENDIAN_BIG	4

/**
 * struct sframe_header - the section header
 * @magic:	SFRAME_MAGIC; a byte-swapped value means the wrong endianness
 * @version:	SFRAME_VERSION_2 or SFRAME_VERSION_3
 * @flags:	SFRAME_F_*
 * @abi_arch:	SFRAME_ABI_*
 * @cfa_fixed_fp_offset: CFA-relative offset of the saved FP, 0 if per FRE
 * @cfa_fixed_ra_offset: CFA-relative offset of the saved RA, 0 if per FRE
 * @auxhdr_len:	bytes of auxiliary header following this header
 * @num_fdes:	number of FDEs
 * @num_fres:	number of FREs of all functions
 * @fre_len:	bytes in the FRE sub-section
 * @fdes_off:	offset of the FDE array from the end of the auxiliary header
 * @fres_off:	offset of the FRE sub-section, from the same base
 */
struct sframe_header {
	__le16	magic;
	u8	version;
	u8	flags;
	u8	abi_arch;
	s8	cfa_fixed_fp_offset;
	s8	cfa_fixed_ra_offset;
	u8	auxhdr_len;
	__le32	num_fdes;
	__le32	num_fres;
	__le32	fre_len;
	__le32	fdes_off;
	__le32	fres_off;
} __packed;
static_assert(sizeof(struct sframe_header) == 28);

/**
 * struct sframe_fde_v2 - a V2 function descriptor entry
 * @func_start:	s32 offset of the function start, from the start of the
 *		section, or from this field with SFRAME_F_FDE_FUNC_START_PCREL
 * @func_size:	function size in bytes
 * @fres_off:	offset of the function's first FRE in the FRE sub-section
 * @num_fres:	number of FREs of the function
 * @info:	SFRAME_FDE_INFO_*
 * @rep_size:	block size of a SFRAME_FDE_INFO_PCMASK function
 * @padding:	unused
 */
struct sframe_fde_v2 {
	__le32	func_start;
	__le32	func_size;
	__le32	fres_off;
	__le32	num_fres;
	u8	info;
	u8	rep_size;
	__le16	padding;
} __packed;
static_assert(sizeof(struct sframe_fde_v2) == 20);

/**
 * struct sframe_fde_v3 - a V3 function index entry
 * @func_start:	s64 offset of the function start, based as in V2
 * @func_size:	function size in bytes
 * @fres_off:	offset of the function's struct sframe_fde_v3_attr in the FRE
 *		sub-section; the function's FREs follow that record
 */
struct sframe_fde_v3 {
	__le64	func_start;
	__le32	func_size;
	__le32	fres_off;
} __packed;
static_assert(sizeof(struct sframe_fde_v3) == 16);

/**
 * struct sframe_fde_v3_attr - the rest of a V3 FDE, stored in the FREs
 * @num_fres:	number of FREs of the function
 * @info:	SFRAME_FDE_INFO_*, plus SFRAME_V3_FDE_INFO_SIGNAL
 * @info2:	SFRAME_V3_FDE_TYPE() selects the FDE type
 * @rep_size:	block size of a SFRAME_FDE_INFO_PCMASK function
 */
struct sframe_fde_v3_attr {
	__le16	num_fres;
	u8	info;
	u8	info2;
	u8	rep_size;
} __packed;
static_assert(sizeof(struct sframe_fde_v3_attr) == 5);

/* FDE info: FRE type in bits 0-3 */
#define SFRAME_FDE_INFO_FRE_TYPE	0x0f
#define SFRAME_FRE_TYPE_ADDR1		0	/* u8 FRE start offsets */
#define SFRAME_FRE_TYPE_ADDR2		1	/* u16 */
#define SFRAME_FRE_TYPE_ADDR4		2	/* u32 */
/* Match FREs against (ip - start) % rep_size rather than ip - start */
#define SFRAME_FDE_INFO_PCMASK		0x10
/* AArch64: return addresses are signed with key B rather than key A */
#define SFRAME_FDE_INFO_PAUTH_KEY_B	0x20
/* V3: the function is a signal trampoline */
#define SFRAME_V3_FDE_INFO_SIGNAL	0x80

/* V3 FDE types, in info2 */
#define SFRAME_V3_FDE_TYPE(info2)	((info2) & 0x1f)
#define SFRAME_FDE_TYPE_DEFAULT		0	/* data words as per the ABI */
#define SFRAME_FDE_TYPE_FLEX		1	/* (control, offset) pairs */

/*
 * An FRE is its start offset in the function (size per FRE type), one info
 * byte, and N data words of S bytes each.
 */
#define SFRAME_FRE_INFO_BASE_SP		0x01	/* CFA base: SP (else FP) */
#define SFRAME_FRE_INFO_NWORDS(info)	(((info) >> 1) & 0xf)
#define SFRAME_FRE_INFO_WORD_SIZE(info)	(((info) >> 5) & 0x3)
#define SFRAME_FRE_WORD_1B		0
#define SFRAME_FRE_WORD_2B		1
#define SFRAME_FRE_WORD_4B		2
#define SFRAME_FRE_INFO_RA_MANGLED	0x80	/* AArch64: RA is PAC-signed */
#define SFRAME_FRE_MAX_WORDS		15
/* FREs of one function: V3 has 16 bits for the count, V2 32 */
#define SFRAME_MAX_FDE_FRES		0xffff

/*
 * Flex FDEs: the words are rules for the CFA, RA and FP, in that order.  A
 * rule is a control word and a signed offset: value = base + offset, read
 * from memory if deref, base = reg_p ? register regnum : CFA.  A control
 * word of 0 stands alone and means "no rule", as if the words were absent.
 */
#define SFRAME_FLEX_REG_P		0x1
#define SFRAME_FLEX_DEREF_P		0x2
#define SFRAME_FLEX_RESERVED		0x4
#define SFRAME_FLEX_REGNUM(ctrl)	((ctrl) >> 3)

/*
 * DWARF register numbers that rules use.  Only struct sframe_abi's
 * initializers in sframe.c read them: the decoder returns the stack and
 * frame pointers as SFRAME_LOC_SP and SFRAME_LOC_FP.
 */
#define SFRAME_DWARF_X86_64_RBP		6
#define SFRAME_DWARF_X86_64_RSP		7
#define SFRAME_DWARF_X86_64_MAX_GPR	15	/* r15 */
#define SFRAME_DWARF_ARM64_FP		29
#define SFRAME_DWARF_ARM64_LR		30
#define SFRAME_DWARF_ARM64_SP		31

/*
 * The ranges of a section (and of a JIT table) end below 2^63, as user addresses do on every
 * 64-bit architecture, and so does the section placed at its sframe_addr.
 * Then an address plus a size from the section cannot overflow, and a
 * function start, an address plus an offset that the decoder adds modulo
 * 2^64, lies below 2^63 only if the exact sum does.  That needs a 64-bit
 * unsigned long: UNWIND_USER_SFRAME depends on 64BIT.
 */
#define SFRAME_ADDR_LIMIT	BIT(63)

/*
 * Why a section or a lookup was refused.  A debug message in the kernel; the
 * userspace harness defines its own to check the reason of each rejection.
 */
#ifndef sframe_reject
#define sframe_reject(why)	pr_debug("%s\n", why)
#endif

/*
 * The only ABI accepted is the running kernel's.  The harness defines its own
 * to test every ABI the decoder knows.
 */
#ifndef sframe_abi_supported
#if defined(CONFIG_X86_64)
#define sframe_abi_supported(abi)	((abi) == SFRAME_ABI_AMD64_ENDIAN_LITTLE)
#elif defined(CONFIG_ARM64) && !defined(CONFIG_CPU_BIG_ENDIAN)
#define sframe_abi_supported(abi)	((abi) == SFRAME_ABI_AARCH64_ENDIAN_LITTLE)
#else
#define sframe_abi_supported(abi)	((void)(abi), false)
#endif
#endif

/*
 * JIT unwind tables (CODECTL_REGISTER_JIT), in the JIT's memory and byte
 * order: the kernel's view of struct codectl_jit_table and struct
 * codectl_jit_entry, which codectl.c checks against the uapi header.  An
 * entry is a single FRE with its FDE type: sframe_decode_rule() decodes it.
 */
#define SFRAME_JIT_VERSION		1
#define SFRAME_JIT_ENTRY_MIN		16
#define SFRAME_JIT_ENTRY_MAX		256
#define SFRAME_JIT_MAX_TABLES		16
#define SFRAME_JIT_LIVE			0x0001
#define SFRAME_JIT_TYPE_MASK		0x1f	/* the FDE type; no other bits */

struct sframe_jit_table {
	u32	version;
	u32	entry_size;
	u64	reserved;
	u64	used;
	u64	next;
};

static_assert(sizeof(struct sframe_jit_table) == 32);

struct sframe_jit_entry {
	u32	off;
	u32	size;
	u16	state;
	u8	info;
	u8	type;
};

static_assert(sizeof(struct sframe_jit_entry) == 12);

struct sframe_section;
struct sframe_rule;

int sframe_decode_rule(const struct sframe_section *sec, u8 fde_info,
		       u8 fde_info2, u8 fre_info, const u8 *data, bool topmost,
		       struct sframe_rule *rule);

#endif /* _KERNEL_UNWIND_SFRAME_H */
