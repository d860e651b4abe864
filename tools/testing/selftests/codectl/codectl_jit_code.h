/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function that the JIT tests emit at run time (codectl_jit, and
 * ../sframe_perf's sframe_perf_jit), in x86-64 or AArch64 machine code,
 * without a frame pointer, and the CODECTL_REGISTER_JIT entries that
 * describe it: the rows an assembler would emit for it.  The function takes
 * one argument, w, a structure of the test's: it stores its own return
 * address in w, calls a function whose address w holds, with w, and
 * returns what that returned.
 */
#ifndef CODECTL_JIT_CODE_H
#define CODECTL_JIT_CODE_H

#include <string.h>
#include <sys/syscall.h>

#include "../../../include/tools/codectl_jit.h"

/*
 * The rows of the emitted function's unwind table: where each starts, and
 * its SFrame FRE words (1 byte each): the CFA's offset from SP, then on
 * arm64 the return address's from the CFA when it is saved (else it is in
 * the link register, for the topmost frame only).
 */
struct jt_row {
	unsigned char start;
	unsigned char nwords;
	signed char words[2];
};

#if defined(__x86_64__)
/*
 * Record the return address at @ra_off of w, call the function whose
 * address is at @fn_off of w, with w still in %rdi, return what it
 * returned.  No frame pointer; the stack stays
 * 16-byte aligned at the call.
 *
 *	 0: 48 83 ec 18		sub    $0x18,%rsp
 *	 4: 48 8b 44 24 18	mov    0x18(%rsp),%rax
 *	 9: 48 89 87 d32	mov    %rax,d32(%rdi)
 *	16: ff 97 d32		call   *d32(%rdi)
 *	22: 48 83 c4 18		add    $0x18,%rsp
 *	26: c3			ret
 *
 * CFA = SP + 8 before the sub and at the ret, SP + 32 in between; the
 * return address at CFA - 8, as the ABI fixes it.
 */
#define JIT_SIZE	27
#define JIT_CALL_END	22	/* where the call returns */

static const struct jt_row rows[] = {
	{ 0, 1, { 8 } }, { 4, 1, { 32 } }, { 26, 1, { 8 } },
};

static inline void jt_emit(unsigned char *p, unsigned int ra_off,
			   unsigned int fn_off)
{
	static const unsigned char head[] = {
		0x48, 0x83, 0xec, 0x18, 0x48, 0x8b, 0x44, 0x24, 0x18,
		0x48, 0x89, 0x87,
	};
	static const unsigned char tail[] = { 0x48, 0x83, 0xc4, 0x18, 0xc3 };
	unsigned int d;

	memcpy(p, head, sizeof(head));
	d = ra_off;
	memcpy(p + 12, &d, 4);
	p[16] = 0xff;
	p[17] = 0x97;
	d = fn_off;
	memcpy(p + 18, &d, 4);
	memcpy(p + 22, tail, sizeof(tail));
}
#elif defined(__aarch64__)
/*
 * The same in AArch64, w in x0 (the offsets multiples of 8, below 32 KiB).
 * No frame record: x29 is untouched.
 *
 *	 0: sub  sp, sp, #32
 *	 4: str  x30, [sp, #16]
 *	 8: str  x30, [x0, #ra_off]
 *	12: ldr  x16, [x0, #fn_off]
 *	16: blr  x16
 *	20: ldr  x30, [sp, #16]
 *	24: add  sp, sp, #32
 *	28: ret
 *
 * CFA = SP before the sub and at the ret, SP + 32 in between; the return
 * address in x30 but from 8 to 20, where it is at CFA - 16 (its saved
 * copy is what a frame below the topmost one has).
 */
#define JIT_SIZE	32
#define JIT_CALL_END	20

static const struct jt_row rows[] = {
	{ 0, 1, { 0 } }, { 4, 1, { 32 } }, { 8, 2, { 32, -16 } },
	{ 24, 1, { 32 } }, { 28, 1, { 0 } },
};

static inline void jt_emit(unsigned char *p, unsigned int ra_off,
			   unsigned int fn_off)
{
	const unsigned int insn[] = {
		0xd10083ff,				/* sub sp, sp, #32 */
		0xf9000bfe,				/* str x30, [sp, #16] */
		0xf900001e | (ra_off / 8) << 10,	/* str x30, [x0, #] */
		0xf9400010 | (fn_off / 8) << 10,	/* ldr x16, [x0, #] */
		0xd63f0200,				/* blr x16 */
		0xf9400bfe,				/* ldr x30, [sp, #16] */
		0x910083ff,				/* add sp, sp, #32 */
		0xd65f03c0,				/* ret */
	};

	memcpy(p, insn, sizeof(insn));
}
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define NROWS		ARRAY_SIZE(rows)

/* The size of row @k */
static inline unsigned int row_size(unsigned int k)
{
	return (k + 1 < NROWS ? rows[k + 1].start : JIT_SIZE) - rows[k].start;
}

/* The row that covers the call's return address minus one */
static inline unsigned int call_row(void)
{
	unsigned int k = 0;

	while (k + 1 < NROWS && rows[k + 1].start <= JIT_CALL_END - 1)
		k++;
	return k;
}

/* The FRE info byte of row @k: CFA from SP, 1-byte words */
static inline unsigned char row_info(unsigned int k)
{
	return CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, rows[k].nwords,
				CODECTL_JIT_WORD_1B);
}

/*
 * Append the entries of the function emitted at @off of the code area.
 * Return: the index of the first, or -1 if the table is full.
 */
static inline long jt_append_fn(struct codectl_jit_table *t, unsigned int off)
{
	long first = -1, i;
	unsigned int k;

	for (k = 0; k < NROWS; k++) {
		i = codectl_jit_append(t, off + rows[k].start, row_size(k),
				       row_info(k), CODECTL_JIT_TYPE_DEFAULT,
				       rows[k].words, rows[k].nwords);
		if (i < 0)
			return -1;
		if (!k)
			first = i;
	}
	return first;
}

/*
 * JT_GETPPID(ret, ip): getppid() made right here, in the chain's leaf,
 * with @ip the address after the system call, which the user stack's
 * first frame holds.  A macro: perf would show even an inline function as
 * a frame of its own (from the DWARF of its inlining).
 */
#if defined(__x86_64__)
#define JT_GETPPID(ret, ip)						\
	({								\
		asm volatile("syscall\n"				\
			     "1:\tlea 1b(%%rip), %1"			\
			     : "=a" (ret), "=r" (ip)			\
			     : "0" ((long)__NR_getppid)			\
			     : "rcx", "r11", "memory");			\
	})
#else
#define JT_GETPPID(ret, ip)						\
	do {								\
		register long x8_ asm("x8") = __NR_getppid;		\
		register long x0_ asm("x0");				\
									\
		asm volatile("svc #0\n"				\
			     "1:\tadr %1, 1b"				\
			     : "=r" (x0_), "=r" (ip)			\
			     : "r" (x8_)				\
			     : "memory");				\
		(ret) = x0_;						\
	} while (0)
#endif

#endif /* CODECTL_JIT_CODE_H */
