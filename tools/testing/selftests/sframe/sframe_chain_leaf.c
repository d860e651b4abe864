// SPDX-License-Identifier: GPL-2.0
/*
 * The innermost part of the known call chain: two leaf functions that make
 * the sampled system call, their caller, and the snapshot of the ground
 * truth taken right after each leaf returns.  A translation unit of its own,
 * so that the linker merges the SFrame sections of two objects.
 */
#include <string.h>
#include <sys/syscall.h>

#include "sframe_chain.h"

/*
 * The system call, with the registers the kernel's unwinder starts from:
 * the user IP (the label after the syscall instruction), the stack and the
 * frame pointers.  Scratch registers for them, never the frame pointer,
 * which must stay what the function had.  Right after the system call, in
 * the same asm statement so that nothing can write to the stack in
 * between, the bottom of the stack is copied as it was during the call:
 * the leaf's own frame is gone by the time the frame pointer simulation
 * runs, and a frame pointer chain may start in it.
 */
#if defined(__x86_64__)
#define SFT_SYSCALL(w)							\
do {									\
	register unsigned long __ip asm("r8");				\
	register unsigned long __sp asm("r9");				\
	register unsigned long __fp asm("r10");				\
	struct sft_walk *__w = (w);					\
	unsigned char *__dst = __w->stack_copy;				\
	long __ret;							\
									\
	asm volatile("mov %%rbp, %[fp]\n\t"				\
		     "mov %%rsp, %[sp]\n\t"				\
		     "lea 1f(%%rip), %[ip]\n\t"				\
		     "syscall\n"					\
		     "1:\n\t"						\
		     "mov %%rsp, %%rsi\n\t"				\
		     "mov %[len], %%ecx\n\t"				\
		     "rep movsb"					\
		     : "=a" (__ret), [ip] "=&r" (__ip),			\
		       [sp] "=&r" (__sp), [fp] "=&r" (__fp),		\
		       "+D" (__dst)					\
		     : "0" ((long)__NR_getppid),			\
		       [len] "i" (SFT_STACK_COPY)			\
		     : "rcx", "rsi", "r11", "memory");			\
	__w->top_ip = __ip;						\
	__w->top_sp = __sp;						\
	__w->top_fp = __fp;						\
	__w->top_ret = __ret;						\
} while (0)

/* No pointer authentication */
static unsigned long strip_pac(unsigned long addr)
{
	return addr;
}
#elif defined(__aarch64__)
/* Caller-saved registers only: a leaf that saved any would have a frame. */
#define SFT_SYSCALL(w)							\
do {									\
	register long __x8 asm("x8") = __NR_getppid;			\
	register long __x0 asm("x0");					\
	unsigned long __ip, __sp, __fp, __src, __n, __t1, __t2;		\
	struct sft_walk *__w = (w);					\
	unsigned char *__dst = __w->stack_copy;				\
									\
	asm volatile("mov %[fp], x29\n\t"				\
		     "mov %[sp], sp\n\t"				\
		     "adr %[ip], 1f\n\t"				\
		     "svc #0\n"					\
		     "1:\n\t"						\
		     "mov %[src], sp\n\t"				\
		     "mov %[n], #%[len]\n"				\
		     "2:\n\t"						\
		     "ldp %[t1], %[t2], [%[src]], #16\n\t"		\
		     "stp %[t1], %[t2], [%[dst]], #16\n\t"		\
		     "subs %[n], %[n], #16\n\t"			\
		     "b.ne 2b"						\
		     : "=r" (__x0), [ip] "=&r" (__ip),			\
		       [sp] "=&r" (__sp), [fp] "=&r" (__fp),		\
		       [src] "=&r" (__src), [n] "=&r" (__n),		\
		       [t1] "=&r" (__t1), [t2] "=&r" (__t2),		\
		       [dst] "+&r" (__dst)				\
		     : "r" (__x8), [len] "i" (SFT_STACK_COPY)		\
		     : "cc", "memory");					\
	__w->top_ip = __ip;						\
	__w->top_sp = __sp;						\
	__w->top_fp = __fp;						\
	__w->top_ret = __x0;						\
} while (0)

/* A return address without its pointer authentication code: xpaclri */
static unsigned long strip_pac(unsigned long addr)
{
	register unsigned long lr asm("x30") = addr;

	asm("hint #7" : "+r" (lr));
	return lr;
}
#else
#error "the chain is written for x86-64 and arm64"
#endif

/*
 * No stack frame at all: the CFA is the stack pointer (+ 8 on x86-64)
 * throughout; on arm64 the return address stays in the link register.
 */
SFT_FN long st_leaf_bare(struct sft_walk *w)
{
	SFT_NOTE_LEAF(w);
	SFT_SYSCALL(w);
	return w->top_ret;
}

/* 512 bytes of locals, past the red zone: a sub $N, SP frame. */
SFT_FN long st_leaf_framed(struct sft_walk *w)
{
	char pad[512];

	SFT_NOTE_LEAF(w);
	pad[0] = 1;
	pad[sizeof(pad) - 1] = 2;
	SFT_ESCAPE(pad);
	SFT_SYSCALL(w);
	return w->top_ret + pad[0] + pad[sizeof(pad) - 1];
}

/*
 * A frame pointer frame (it has a VLA): without SFrame, the frame pointer
 * unwinder does not stop at the leaves but finds a chain of frame pointer
 * frames, plausible and wrong, for the tests to recognize.
 */
SFT_FN void st_leaf_parent(struct sft_walk *w)
{
	char buf[w->vla_len];
	int lvl = SFT_NOTE(w);
	long r;

	memset(buf, 0x77, sizeof(buf));
	SFT_ESCAPE(buf);

	r = st_leaf_bare(w);
	SFT_KEEP(r);
	sft_chain_snapshot(w, lvl + 1);

	w->depth = lvl;
	r = st_leaf_framed(w);
	SFT_KEEP(r);
	sft_chain_snapshot(w, lvl + 1);
}

/*
 * A word of the stack as it was during the system call: from the copy the
 * leaf made, or from the live stack where nothing wrote since.  False when
 * neither is known.
 */
static bool read_word(const struct sft_walk *w, unsigned long addr,
		      unsigned long lo, unsigned long *v)
{
	if (addr >= w->top_sp && addr - w->top_sp <= SFT_STACK_COPY - 8) {
		memcpy(v, w->stack_copy + (addr - w->top_sp), sizeof(*v));
		return true;
	}
	if (addr >= lo && addr <= w->stack_end - 8) {
		memcpy(v, (const void *)addr, sizeof(*v));
		return true;
	}
	return false;
}

/* Can @addr be a return address: see struct sft_walk. */
static bool code_addr(const struct sft_walk *w, unsigned long addr)
{
	unsigned int i;

	if (addr < w->min_addr)
		return false;
	for (i = 0; i < w->exec_nr; i++)
		if (addr >= w->exec[i][0] && addr < w->exec[i][1])
			return true;
	return false;
}

/*
 * What the kernel's frame pointer unwinder (kernel/unwind/user.c) gives
 * from the registers of the system call: the CFA is the frame pointer + 16,
 * the return address is below it, the caller's frame pointer below that
 * (x86-64: %rbp; arm64: the frame record at x29, whose return address loses
 * its pointer authentication code); it stops when the frame pointer is
 * below the stack pointer, when the CFA does not move up or is not 8-byte
 * aligned, when the return address cannot be code (below mmap_min_addr or
 * outside the executable mappings), or when the memory cannot be read.
 * Memory the simulation does not know (outside the stack, or overwritten
 * since: see read_word()) ends the walk "open": the kernel may have gone
 * on.
 */
static void fp_simulate(const struct sft_walk *w, struct sft_truth *t,
			unsigned long lo)
{
	unsigned long sp = t->sp, fp = t->fp;

	t->fp_nr = 0;
	t->fp_open = false;
	t->fp_ips[t->fp_nr++] = t->addr[0];
	for (;;) {
		unsigned long cfa, ra, next;

		if (t->fp_nr == SFT_FP_MAX) {
			t->fp_open = true;
			break;
		}
		if (fp < sp)
			break;
		cfa = fp + 16;
		if (cfa <= sp || (cfa & 7))
			break;
		if (!read_word(w, cfa - 8, lo, &ra)) {
			t->fp_open = true;
			break;
		}
		ra = strip_pac(ra);
		if (!code_addr(w, ra))
			break;
		if (!read_word(w, cfa - 16, lo, &next)) {
			t->fp_open = true;
			break;
		}
		t->fp_ips[t->fp_nr++] = ra;
		fp = next;
		sp = cfa;
	}
}

/*
 * Called by st_leaf_parent right after the leaf at @leaf_level returned:
 * turn the recorded names and addresses into the expected stack of that
 * system call, innermost first, and simulate the frame pointer unwinder on
 * the stack, which is unchanged from the system call above this function's
 * own frame, and in the copy the leaf made of its bottom.
 */
void sft_chain_snapshot(struct sft_walk *w, int leaf_level)
{
	unsigned long intact = (unsigned long)__builtin_dwarf_cfa();
	struct sft_truth *t;
	int i;

	if (w->samples >= SFT_CHAIN_SAMPLES)
		return;
	t = &w->truth[w->samples++];
	t->nr = leaf_level + 1;
	t->func[0] = w->name[leaf_level];
	t->addr[0] = w->top_ip;
	for (i = 1; i <= leaf_level; i++) {
		t->func[i] = w->name[leaf_level - i];
		t->addr[i] = strip_pac(w->ra[leaf_level - i + 1]);
	}
	t->sp = w->top_sp;
	t->fp = w->top_fp;
	t->ret = w->top_ret;
	fp_simulate(w, t, intact);
}
