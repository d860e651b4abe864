/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sfw: a small SFrame V2/V3 section writer for the tests, independent of the
 * decoder (it does not include the kernel's format header).
 *
 * A section is described by struct sfw_sec; sfw_write() lays it out in the
 * order the GNU assembler and linker use (header, aux header, FDEs, FREs)
 * and fills in the offsets of every part, so that tests can corrupt them.
 */
#ifndef _SFW_H
#define _SFW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SFW_MAX_WORDS	15

/* Header values, as the format defines them */
#define SFW_ABI_AARCH64_LE	2
#define SFW_ABI_AMD64_LE	3
#define SFW_F_SORTED		0x1
#define SFW_F_FRAME_POINTER	0x2
#define SFW_F_PCREL		0x4

/* V3 FDE types (the info2 byte) */
#define SFW_FDE_DEFAULT		0
#define SFW_FDE_FLEX		1

/* Flex FDE control words */
#define SFW_CTRL(reg, deref, reg_p)	(((reg) << 3) | ((deref) << 1) | (reg_p))

struct sfw_fre {
	uint32_t	start;		/* offset in the function */
	bool		fp_base;	/* CFA base is FP rather than SP */
	bool		mangled;	/* AArch64 mangled-RA bit */
	uint8_t		nwords;
	int32_t		words[SFW_MAX_WORDS];
	int		word_size;	/* 0: smallest that fits; 1, 2, 4 */
	/* out, when FDEs do not share their FRE arrays */
	size_t		off;		/* section offset of the FRE */
};

struct sfw_fde {
	uint64_t	start;		/* absolute address of the function */
	uint32_t	size;
	bool		pcmask;
	uint8_t		rep_size;
	bool		key_b;
	bool		signal;		/* V3 */
	uint8_t		type;		/* V3: SFW_FDE_*, or any byte */
	unsigned int	nfres;
	struct sfw_fre	*fres;
	/* out */
	size_t		off;		/* section offset of the FDE (V3 index) */
	size_t		attr_off;	/* V3: section offset of the attributes */
	size_t		fres_off;	/* section offset of the first FRE */
	size_t		fres_end;	/* end of its FREs */
};

struct sfw_sec {
	uint8_t		version;
	uint8_t		flags;
	uint8_t		abi;
	int8_t		fixed_fp;
	int8_t		fixed_ra;
	uint8_t		auxhdr_len;
	uint64_t	addr;		/* where the section will be mapped */
	unsigned int	nfdes;
	struct sfw_fde	*fdes;
	size_t		gap;		/* bytes between the FDEs and the FREs */
	size_t		tail;		/* bytes after the FREs */
	/* out */
	size_t		hdr_len;	/* header + aux header */
	size_t		fdes_off;	/* section offset of the FDE array */
	size_t		fdes_end;	/* ... of its end */
	size_t		fres_off;	/* ... of the FRE sub-section */
	size_t		fres_end;	/* ... of its end */
	size_t		size;
};

/* A section at @addr with the FDEs @fdes: SORTED|PCREL, the ABI's fixed RA */
void sfw_sec_init(struct sfw_sec *s, uint8_t version, uint8_t abi,
		  uint64_t addr, struct sfw_fde *fdes, unsigned int nfdes);
/* A default FDE of @size bytes at @start, with the FREs @fres */
void sfw_fde_init(struct sfw_fde *f, uint64_t start, uint32_t size,
		  struct sfw_fre *fres, unsigned int nfres);
/* An FRE with the given start, base and data words */
struct sfw_fre sfw_fre(uint32_t start, bool fp_base, unsigned int n, ...);

/* Lay out and encode @s into @buf; returns the size, or 0 if it is too big. */
size_t sfw_write(struct sfw_sec *s, uint8_t *buf, size_t cap);
/* Store the @n low bytes of @v at @p, little-endian */
void sfw_put(uint8_t *p, uint64_t v, unsigned int n);

/* xorshift64: the same pseudo-random sequence from the same *@state */
uint64_t sfw_random(uint64_t *state);
/*
 * An AMD64 section of @n functions laid out from @text like a real
 * program's: random sizes (2 to 301 bytes, one in ten up to 20001), one in
 * four followed by a gap of up to 63 bytes.  Each function has two FREs:
 * CFA = SP + 8 at its first byte, then CFA = SP + 16 with FP saved at
 * CFA - 16.  Encodes it into @buf and sets *@end to the end of the text.
 * Returns the size, or 0 if it is too big.
 */
size_t sfw_random_section(struct sfw_sec *s, uint8_t version, uint64_t addr,
			  struct sfw_fde *fdes, unsigned int n, uint64_t text,
			  uint64_t *end, uint64_t *state, uint8_t *buf,
			  size_t cap);

#endif
