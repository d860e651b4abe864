/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * codectl(2): tell the kernel about code that user space maps itself.
 *
 * A dynamic loader registers the SFrame unwind table of each executable
 * range of every object it maps, so that the kernel can unwind user stacks
 * through them, and unregisters them when it unmaps the object.  A JIT
 * registers the code area it emits code into with a table in its own
 * memory, which it grows without system calls.  See
 * Documentation/userspace-api/codectl.rst.
 */
#ifndef _UAPI_LINUX_CODECTL_H
#define _UAPI_LINUX_CODECTL_H

#include <linux/types.h>

/* codectl() options */
#define CODECTL_UNREGISTER		0	/* struct codectl_unregister */
#define CODECTL_REGISTER_SFRAME		1	/* struct codectl_sframe */
#define CODECTL_REGISTER_JIT		2	/* struct codectl_jit */

/**
 * struct codectl_sframe - one text range and the SFrame section describing it
 * @text_start:		first byte of the text range
 * @text_end:		end of the text range (exclusive)
 * @sframe_start:	first byte of the .sframe section, 4-byte aligned
 * @sframe_end:		end of the section (exclusive)
 * @pathname:		optional: pointer to the object's path, a NUL-terminated
 *			string of at most PATH_MAX bytes with the NUL, or 0
 * @build_id:		optional: pointer to the object's build ID, or 0
 * @build_id_len:	length of @build_id, at most CODECTL_BUILD_ID_MAX
 * @sframe_addr:	the address the section's function offsets are relative
 *			to, as if the section lay there; 0 means @sframe_start.
 *			For a section mapped apart from its object (a sidecar
 *			file), where it would lie in the object's address space
 *
 * An object with several executable ranges registers each of them, with the
 * same SFrame section.  Pointers are passed as __u64.  Fields added later go
 * at the end; the kernel accepts any size from CODECTL_SFRAME_SIZE_VER0 on.
 * The path and build ID are what the caller says of its object: tools show
 * them, but must not trust them to open files.
 */
struct codectl_sframe {
	__u64	text_start;
	__u64	text_end;
	__u64	sframe_start;
	__u64	sframe_end;
	__u64	pathname;
	__u64	build_id;
	__u64	build_id_len;
	__u64	sframe_addr;
};

#define CODECTL_SFRAME_SIZE_VER0	32	/* the four ranges */
#define CODECTL_SFRAME_SIZE_VER1	56	/* and the object's names */
#define CODECTL_SFRAME_SIZE_VER2	64	/* and sframe_addr */

/* The longest build ID: a SHA-1, as the kernel's own (BUILD_ID_SIZE_MAX) */
#define CODECTL_BUILD_ID_MAX		20

/**
 * struct codectl_unregister - the registration to remove
 * @text_start: the text_start it was registered with
 */
struct codectl_unregister {
	__u64	text_start;
};

#define CODECTL_UNREGISTER_SIZE_VER0	8

/**
 * struct codectl_jit - a JIT's code area and its unwind table
 * @text_start:	first byte of the code area
 * @text_end:	end of the code area (exclusive), at most 4 GiB past
 *		@text_start
 * @table:	the first table: a struct codectl_jit_table, 8-byte aligned
 * @table_size:	bytes reserved for it, from @table: the header and room for
 *		its @reserved entries
 *
 * The JIT appends entries to the table, and chains more tables to it,
 * without system calls.  The registration dies with the mapping of the
 * code area or of the first table, as a struct codectl_sframe one does.
 */
struct codectl_jit {
	__u64	text_start;
	__u64	text_end;
	__u64	table;
	__u64	table_size;
};

#define CODECTL_JIT_SIZE_VER0		32

/* struct codectl_jit_table::version */
#define CODECTL_JIT_VERSION		1

/**
 * struct codectl_jit_table - the header of a JIT unwind table
 * @version:	CODECTL_JIT_VERSION
 * @entry_size:	bytes from one entry to the next: a multiple of 4, from
 *		CODECTL_JIT_ENTRY_MIN to CODECTL_JIT_ENTRY_MAX
 * @reserved:	entries the table has room for, after the header
 * @used:	entries published, at most @reserved.  The JIT writes an entry
 *		in full, then stores the new count with release ordering; the
 *		kernel reads it with acquire ordering, and no entry past it
 * @next:	the next table of the chain, or 0; stored with release ordering
 *		once that table's header is written.  At most
 *		CODECTL_JIT_MAX_TABLES tables are searched, in chain order
 *
 * The entries follow the header, sorted by address, not overlapping.
 */
struct codectl_jit_table {
	__u32	version;
	__u32	entry_size;
	__u64	reserved;
	__u64	used;
	__u64	next;
};

#define CODECTL_JIT_ENTRY_MIN		16
#define CODECTL_JIT_ENTRY_MAX		256
#define CODECTL_JIT_MAX_TABLES		16

/**
 * struct codectl_jit_entry - the unwind rule of a range of JIT code
 * @off:	first byte of the range, from the code area's start
 * @size:	bytes in the range, not 0; the range ends inside the code area
 * @state:	CODECTL_JIT_LIVE when the entry is in use, clear when it is
 *		retired; the bits above it count the entry's rewrites
 *		(CODECTL_JIT_STATE_GEN)
 * @info:	the rule's SFrame FRE info byte: CODECTL_JIT_INFO()
 * @type:	the rule's SFrame FDE type: CODECTL_JIT_TYPE_DEFAULT or
 *		CODECTL_JIT_TYPE_FLEX
 * @data:	the SFrame FRE data words that @info announces, little-endian,
 *		within @entry_size; the bytes after them are the JIT's own
 *
 * The rule is an SFrame FRE, as GNU as would emit it for the range on the
 * caller's architecture.  A retired entry keeps its range: the table stays
 * sorted.
 */
struct codectl_jit_entry {
	__u32	off;
	__u32	size;
	__u16	state;
	__u8	info;
	__u8	type;
	__u8	data[];
};

#define CODECTL_JIT_LIVE		0x0001
#define CODECTL_JIT_STATE_GEN		0x0002	/* one rewrite */

/* The SFrame FRE info byte */
#define CODECTL_JIT_CFA_SP		0x01	/* CFA from SP (else FP) */
#define CODECTL_JIT_WORD_1B		0
#define CODECTL_JIT_WORD_2B		1
#define CODECTL_JIT_WORD_4B		2
#define CODECTL_JIT_RA_MANGLED		0x80	/* arm64: RA is PAC-signed */
#define CODECTL_JIT_INFO(base, nwords, word) \
	((base) | ((nwords) & 0xf) << 1 | ((word) & 0x3) << 5)

/* SFrame FDE types */
#define CODECTL_JIT_TYPE_DEFAULT	0	/* CFA, [RA,] [FP] offsets */
#define CODECTL_JIT_TYPE_FLEX		1	/* (control, offset) pairs */

/* Control words of flex rules */
#define CODECTL_JIT_FLEX_REG		0x1	/* base: register, else CFA */
#define CODECTL_JIT_FLEX_DEREF		0x2	/* value: the word there */
#define CODECTL_JIT_FLEX_REGNUM(n)	((n) << 3)	/* DWARF number */

#endif /* _UAPI_LINUX_CODECTL_H */
