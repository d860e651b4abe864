/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe-gen: SFrame sections generated from an object's DWARF CFI, and the
 * sidecar files that carry them.  See README.
 *
 * cfi.c reads the CFI: it lists the FDEs of .eh_frame and .debug_frame and
 * turns each into SFrame rows with libdw, or says why SFrame cannot express
 * it.  sidecar.c reads the object (build ID, executable segments) and
 * writes and reads sidecar files; sframe-gen.c is the command.  The tier-1
 * test (tools/testing/sframe/sidecar) uses the first two.
 */
#ifndef _SFRAME_GEN_H
#define _SFRAME_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include <elfutils/libdw.h>

/* Why a function is left out of the section, or SFGEN_OK. */
enum sfgen_reason {
	SFGEN_OK,
	SFGEN_CFA_EXPR,		/* CFA expression but SP + offset */
	SFGEN_CFA_REG,		/* CFA based on a register but SP and FP */
	SFGEN_RA_RULE,		/* RA neither at CFA + offset nor in LR */
	SFGEN_RA_OFFSET,	/* x86-64: RA saved elsewhere than CFA - 8 */
	SFGEN_FP_RULE,		/* FP neither unchanged nor at CFA + offset */
	SFGEN_FP_NO_RA,		/* arm64: FP saved while RA is in LR */
	SFGEN_SP_RULE,		/* SP other than the CFA (a stack switch) */
	SFGEN_SIGNAL,		/* signal frame, which V2 cannot mark */
	SFGEN_RA_STATE,		/* arm64: RA signing state not followed */
	SFGEN_CFI_ERROR,	/* libdw failed, or an encoding not understood */
	SFGEN_OVERLAP,		/* overlaps another FDE */
	SFGEN_NOT_TEXT,		/* not inside one executable segment */
	SFGEN_LIMITS,		/* beyond SFrame's sizes and offset ranges */
	SFGEN_NREASONS
};

/* Where the rows of a function say the caller's RA and FP are */
enum sfgen_ra { SFGEN_RA_SAVED, SFGEN_RA_IN_LR, SFGEN_RA_UNDEFINED };
enum sfgen_fp { SFGEN_FP_SAME, SFGEN_FP_SAVED, SFGEN_FP_AT_REG };

/**
 * struct sfgen_row - one SFrame row: the rule from @pc to the next row, or
 *	a hole there when SFrame cannot express the rule (@why)
 * @pc:		first address of the row
 * @cfa_off:	CFA = @cfa_reg + @cfa_off
 * @ra_off:	SFGEN_RA_SAVED: the RA is the word at CFA + @ra_off
 * @fp_off:	SFGEN_FP_SAVED: the FP is the word at CFA + @fp_off;
 *		SFGEN_FP_AT_REG: @fp_reg + @fp_off, or the word there
 * @cfa_reg:	DWARF number of the CFA's base register
 * @fp_reg:	SFGEN_FP_AT_REG: DWARF number of the FP's base register
 * @cfa_deref:	the CFA is the word at @cfa_reg + @cfa_off
 * @fp_deref:	SFGEN_FP_AT_REG: the FP is the word at @fp_reg + @fp_off
 * @ra:		enum sfgen_ra
 * @fp:		enum sfgen_fp
 * @mangled:	arm64: the RA is signed (pac-ret)
 * @why:	SFGEN_OK, or why there is no rule from @pc to the next row
 *
 * A CFA based on another register than SP and FP, a dereferenced CFA and
 * SFGEN_FP_AT_REG need a flexible FDE (SFrame V3): see sfgen_row_flex().
 */
struct sfgen_row {
	uint64_t	pc;
	int32_t		cfa_off;
	int32_t		ra_off;
	int32_t		fp_off;
	uint8_t		cfa_reg;
	uint8_t		fp_reg;
	bool		cfa_deref;
	bool		fp_deref;
	uint8_t		ra;
	uint8_t		fp;
	bool		mangled;
	uint8_t		why;
};

/**
 * struct sfgen_fde - one FDE of the object's CFI
 * @start:	first address it describes
 * @end:	end of its range (exclusive)
 * @cfi:	the CFI it was found in, for dwarf_cfi_addrframe()
 * @cie_insns:	its CIE's initial instructions, and then
 * @insns:	its own CFA instructions: on arm64, for the RA signing state
 *		that libdw does not track
 * @ncie_insns:	length of @cie_insns
 * @ninsns:	length of @insns
 * @caf:	the CIE's code alignment factor
 * @signal:	its CIE marks a signal frame ('S')
 * @key_b:	arm64: its CIE signs return addresses with key B ('B')
 * @debug_frame: it is from .debug_frame, not .eh_frame
 * @why:	SFGEN_OK, or why no rows can be had for it at all
 */
struct sfgen_fde {
	uint64_t	start;
	uint64_t	end;
	Dwarf_CFI	*cfi;
	const uint8_t	*cie_insns;
	const uint8_t	*insns;
	size_t		ncie_insns;
	size_t		ninsns;
	uint64_t	caf;
	bool		signal;
	bool		key_b;
	bool		debug_frame;
	uint8_t		why;
};

/**
 * struct sfgen_func - the SFrame rows of one FDE
 * @fde:	the FDE
 * @why:	SFGEN_OK when rows could be had for the function, else why it
 *		is left out whole
 * @why_pc:	the address where that was found
 * @nrows:	rows in @rows, consecutive equal rules (and holes of one
 *		reason) merged
 * @rows:	by address; the first starts at @fde->start.  Rows whose @why
 *		is set are holes: addresses left without a rule, for which
 *		the kernel falls back to frame pointers
 */
struct sfgen_func {
	const struct sfgen_fde *fde;
	uint8_t		why;
	uint64_t	why_pc;
	unsigned int	nrows;
	struct sfgen_row *rows;
};

#define SFGEN_MAX_SEGS	16
/* A sidecar file larger than this is none: libLLVM's is 12 MiB. */
#define SFGEN_SIDECAR_MAX	(1024ULL * 1024 * 1024)

struct sfgen_seg {
	uint64_t	vaddr;
	uint64_t	memsz;
};

/**
 * struct sfgen_obj - an object and its CFI
 * @path:	file name, for messages
 * @fd:		open file
 * @elf:	libelf handle
 * @dwarf:	libdw handle for .debug_frame, or NULL
 * @eh_cfi:	.eh_frame CFI, or NULL
 * @machine:	EM_X86_64 or EM_AARCH64
 * @type:	ET_EXEC or ET_DYN
 * @build_id:	the NT_GNU_BUILD_ID note's descriptor
 * @build_id_len: its length, 0 when the object has none
 * @nsegs:	executable PT_LOAD segments, by address
 * @segs:	their p_vaddr and p_memsz
 * @load_end:	end of the highest PT_LOAD
 * @sframe_addr: the address of the sidecar's section in the object's own
 *		address space: @load_end rounded up to the largest of the
 *		page size and the PT_LOADs' p_align
 * @has_sframe:	the object has PT_GNU_SFRAME or a .sframe section already
 * @eh_frame_size: size of its .eh_frame and .eh_frame_hdr sections, and
 * @code_size:	of its executable sections, for the figures
 * @nfdes:	FDEs in @fdes
 * @fdes:	every FDE of .eh_frame, then those of .debug_frame that no
 *		.eh_frame FDE overlaps, sorted by start
 */
struct sfgen_obj {
	const char	*path;
	int		fd;
	Elf		*elf;
	Dwarf		*dwarf;
	Dwarf_CFI	*eh_cfi;
	unsigned int	machine;
	unsigned int	type;
	uint8_t		build_id[64];
	size_t		build_id_len;
	unsigned int	nsegs;
	struct sfgen_seg segs[SFGEN_MAX_SEGS];
	uint64_t	load_end;
	uint64_t	sframe_addr;
	bool		has_sframe;
	uint64_t	eh_frame_size;
	uint64_t	code_size;
	size_t		nfdes;
	struct sfgen_fde *fdes;
};

/* DWARF register numbers of the rules SFrame has */
#define SFGEN_X86_FP	6
#define SFGEN_X86_SP	7
#define SFGEN_X86_RA	16
#define SFGEN_X86_MAX_GPR 15	/* r15 */
#define SFGEN_A64_FP	29
#define SFGEN_A64_LR	30
#define SFGEN_A64_SP	31
/* arm64: the return address signing state (pac-ret), a pseudo-register */
#define SFGEN_A64_RA_SIGN_STATE	34

/* sidecar.c */
int sfgen_open(struct sfgen_obj *obj, const char *path, char *err,
	       size_t errlen);
void sfgen_close(struct sfgen_obj *obj);
int sfgen_sidecar_path(const struct sfgen_obj *obj, const char *prefix,
		       char *buf, size_t len);
int sfgen_write_sidecar(const struct sfgen_obj *obj, const char *path,
			const void *sframe, size_t sframe_len);

/**
 * struct sfgen_sidecar - what a sidecar file says
 * @map:	the whole file, read into memory
 * @size:	its size
 * @build_id:	the build ID note's descriptor, in @map
 * @build_id_len: its length
 * @nsegs:	the text note's segments
 * @segs:	their p_vaddr and p_memsz
 * @sframe:	the .sframe section, in @map
 * @sframe_len:	its size
 * @sframe_addr: its sh_addr
 */
struct sfgen_sidecar {
	void		*map;
	size_t		size;
	const uint8_t	*build_id;
	size_t		build_id_len;
	unsigned int	nsegs;
	struct sfgen_seg segs[SFGEN_MAX_SEGS];
	const uint8_t	*sframe;
	size_t		sframe_len;
	uint64_t	sframe_addr;
};

int sfgen_read_sidecar(struct sfgen_sidecar *sc, const char *path,
		       unsigned int machine, char *err, size_t errlen);
void sfgen_free_sidecar(struct sfgen_sidecar *sc);
bool sfgen_sidecar_matches(const struct sfgen_sidecar *sc,
			   const struct sfgen_obj *obj);

/* cfi.c */
extern const char *const sfgen_reason_name[SFGEN_NREASONS];
int sfgen_read_fdes(struct sfgen_obj *obj);
/**
 * struct sfgen_version - what the SFrame version being written can hold
 * @signal:	signal frames (V3)
 * @flex:	flexible FDEs: a CFA or FP based on any register, or loaded
 *		from memory (V3)
 */
struct sfgen_version {
	bool	signal;
	bool	flex;
};

int sfgen_func_rows(const struct sfgen_obj *obj, const struct sfgen_fde *fde,
		    const struct sfgen_version *ver, struct sfgen_func *func);
bool sfgen_row_flex(const struct sfgen_obj *obj, const struct sfgen_row *row);
void sfgen_free_func(struct sfgen_func *func);

/**
 * struct sfgen_ra_row - the arm64 RA signing state from @pc on
 * @pc:		a location of the FDE's rows
 * @signed_ra:	the return address is signed (pac-ret) there
 */
struct sfgen_ra_row {
	uint64_t	pc;
	bool		signed_ra;
};

int sfgen_ra_rows(const struct sfgen_fde *fde, struct sfgen_ra_row **rows,
		  size_t *nrows);

#endif /* _SFRAME_GEN_H */
