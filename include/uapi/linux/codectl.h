/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * codectl(2): tell the kernel about code that user space maps itself.
 *
 * A dynamic loader registers the SFrame unwind table of each executable
 * range of every object it maps, so that the kernel can unwind user stacks
 * through them, and unregisters them when it unmaps the object.  See
 * Documentation/userspace-api/codectl.rst.
 */
#ifndef _UAPI_LINUX_CODECTL_H
#define _UAPI_LINUX_CODECTL_H

#include <linux/types.h>

/* codectl() options */
#define CODECTL_UNREGISTER		0	/* struct codectl_unregister */
#define CODECTL_REGISTER_SFRAME		1	/* struct codectl_sframe */
#define CODECTL_REGISTER_JIT		2	/* reserved: EOPNOTSUPP */

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

#endif /* _UAPI_LINUX_CODECTL_H */
