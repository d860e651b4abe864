// SPDX-License-Identifier: GPL-2.0
/*
 * A user stack through a signal frame, checked against ground truth.
 *
 * sg_spin() spins until a SIGALRM handler ran; the handler calls a chain
 * whose leaf makes a getppid system call, whose deferred user stack a perf
 * event asks for.  The handler returns to a signal trampoline (the
 * restorer, SA_RESTORER) that the test writes into a page of its own: a
 * nop, then rt_sigreturn, as the kernel's and the C library's are.  Its
 * SFrame section, written with the writer of the decoder's tests and
 * registered with codectl(2), is a V3 flexible FDE marked as a signal
 * frame whose rules read the interrupted stack pointer, program counter
 * and frame pointer from the signal frame's ucontext, at fixed offsets
 * from the stack pointer.  The stack must be, frame by frame:
 *
 *	sg_leaf		at the address after its system call
 *	sg_chain
 *	sg_handler
 *	the restorer	at its rt_sigreturn, the handler's return address
 *	sg_spin		at the exact address the signal interrupted (no
 *			"return address - 1" after a signal frame)
 *	sg_run
 *	sg_sample
 *	main
 *
 * sg_spin has saved its return address when the signal comes (it called
 * setitimer() first), so the signal frame's rules are all it needs.  A
 * function interrupted before it saved its return address (a leaf, a
 * prologue) keeps it in the link register of the signal frame on arm64,
 * which SFrame cannot name outside the topmost frame: such a frame is
 * unwound with its frame pointer.
 *
 * Without the restorer's registration the kernel can only try frame
 * pointers at the restorer, which do not give the interrupted address: the
 * same comparison must fail there.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "../kselftest.h"
#include "sframe_codectl.h"
#include "sframe_lib.h"
#include "sfw.h"

#ifndef SA_RESTORER
#define SA_RESTORER	0x04000000
#endif

#if defined(__x86_64__)
/* At the restorer, after the handler's ret: SP = &frame->uc */
#define SG_UC_BASE	0
#define SG_MC(f)	(offsetof(ucontext_t, uc_mcontext.gregs) + \
			 (f) * sizeof(greg_t))
#define SG_OFF_SP	SG_MC(REG_RSP)
#define SG_OFF_PC	SG_MC(REG_RIP)
#define SG_OFF_FP	SG_MC(REG_RBP)
#define SG_UC_PC(uc)	((uc)->uc_mcontext.gregs[REG_RIP])
/* The frame is { restorer, uc, info }: uc below info */
#define SG_UC_OK(off)	((off) < 0)
#define SG_DWARF_SP	7
#define SG_ABI		SFW_ABI_AMD64_LE
/* nop; mov $__NR_rt_sigreturn, %eax; syscall */
#define SG_TRAMP_LEN	8
#define SG_SIGRETURN	1	/* the restorer: past the nop */
static void sg_tramp(unsigned char *p)
{
	__u32 nr = __NR_rt_sigreturn;

	p[0] = 0x90;
	p[1] = 0xb8;
	memcpy(p + 2, &nr, 4);
	p[6] = 0x0f;
	p[7] = 0x05;
}
#elif defined(__aarch64__)
/* At the restorer, as at the handler's entry: SP = &frame->info */
#define SG_UC_BASE	sizeof(siginfo_t)
#define SG_MC(f)	(SG_UC_BASE + offsetof(ucontext_t, uc_mcontext.f))
#define SG_OFF_SP	SG_MC(sp)
#define SG_OFF_PC	SG_MC(pc)
#define SG_OFF_FP	SG_MC(regs[29])
#define SG_UC_PC(uc)	((uc)->uc_mcontext.pc)
/* The frame is { info, uc } */
#define SG_UC_OK(off)	((off) == (long)sizeof(siginfo_t))
#define SG_DWARF_SP	31
#define SG_ABI		SFW_ABI_AARCH64_LE
/* nop; mov x8, #__NR_rt_sigreturn; svc #0 */
#define SG_TRAMP_LEN	12
#define SG_SIGRETURN	4
static void sg_tramp(unsigned char *p)
{
	sfw_put(p, 0xd503201f, 4);
	sfw_put(p + 4, 0xd2800008 | __NR_rt_sigreturn << 5, 4);
	sfw_put(p + 8, 0xd4000001, 4);
}
#else
#error "the test is written for x86-64 and arm64"
#endif

/* Frames of the stack: the handler's three, the restorer, sg_spin's four */
#define SG_FRAMES	8
#define SG_TIMEOUT	20

struct sg_state {
	bool done;			/* __atomic: the handler sets it */
	unsigned long leaf_ip;		/* after the system call */
	unsigned long pc;		/* where the signal interrupted */
	long uc_off;			/* uc - info, as the kernel passed them */
	long ret;
};

static struct sg_state sg;
static struct sft_symtab syms;
static struct sft_perf ev = { .fd = -1 };
static unsigned char *page;		/* the restorer, then its section */
static size_t sec_len;
static long pagesz;

/* The system call, and the address after it */
static SFT_FN long sg_leaf(struct sg_state *g)
{
	unsigned long ip;
	long ret;

#if defined(__x86_64__)
	asm volatile("syscall\n"
		     "1:\tlea 1b(%%rip), %1"
		     : "=a" (ret), "=r" (ip)
		     : "0" ((long)__NR_getppid)
		     : "rcx", "r11", "memory");
#else
	register long x8 asm("x8") = __NR_getppid;
	register long x0 asm("x0");

	asm volatile("svc #0\n"
		     "1:\tadr %1, 1b"
		     : "=r" (x0), "=r" (ip)
		     : "r" (x8)
		     : "memory");
	ret = x0;
#endif
	g->leaf_ip = ip;
	return ret;
}

static SFT_FN long sg_chain(struct sg_state *g)
{
	long r = sg_leaf(g);

	SFT_KEEP(r);
	return r;
}

static SFT_FN void sg_handler(int sig, siginfo_t *info, void *ucv)
{
	ucontext_t *uc = ucv;
	long r;

	(void)sig;
	sg.pc = SG_UC_PC(uc);
	sg.uc_off = (char *)uc - (char *)info;
	r = sg_chain(&sg);
	SFT_KEEP(r);
	sg.ret = r;
	__atomic_store_n(&sg.done, true, __ATOMIC_RELAXED);
}

/* Non-leaf: its return address is saved when the signal comes. */
static SFT_FN long sg_spin(struct sg_state *g)
{
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };
	unsigned long n = 0;

	if (setitimer(ITIMER_REAL, &it, NULL))
		return -errno;
	while (!__atomic_load_n(&g->done, __ATOMIC_RELAXED)) {
		n++;
		SFT_KEEP(n);
	}
	return n;
}

static SFT_FN long sg_run(struct sg_state *g)
{
	long r = sg_spin(g);

	SFT_KEEP(r);
	return r;
}

/* The restorer's code and its section, in one mapping */
static int sg_setup(void)
{
	unsigned long tramp, sec;
	struct sfw_fre fre;
	struct sfw_fde fde;
	struct sfw_sec s;

	pagesz = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, 2 * pagesz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		ksft_perror("mmap");
		return -1;
	}
	tramp = (unsigned long)page;
	sec = tramp + pagesz;
	sg_tramp(page);
	__builtin___clear_cache((char *)page, (char *)page + SG_TRAMP_LEN);

	/* CFA = *(SP + sp), RA = *(SP + pc), FP = *(SP + fp) */
	fre = sfw_fre(0, false, 6,
		      SFW_CTRL(SG_DWARF_SP, 1, 1), (int)SG_OFF_SP,
		      SFW_CTRL(SG_DWARF_SP, 1, 1), (int)SG_OFF_PC,
		      SFW_CTRL(SG_DWARF_SP, 1, 1), (int)SG_OFF_FP);
	sfw_fde_init(&fde, tramp, SG_TRAMP_LEN, &fre, 1);
	fde.type = SFW_FDE_FLEX;
	fde.signal = true;
	sfw_sec_init(&s, 3, SG_ABI, sec, &fde, 1);
	sec_len = sfw_write(&s, page + pagesz, pagesz);
	if (!sec_len) {
		ksft_print_msg("the restorer's section does not fit\n");
		return -1;
	}
	if (mprotect(page, pagesz, PROT_READ | PROT_EXEC) ||
	    mprotect(page + pagesz, pagesz, PROT_READ)) {
		ksft_perror("mprotect");
		return -1;
	}
	ksft_print_msg("restorer at %#lx, SP-relative offsets: sp %zu, pc %zu, fp %zu\n",
		       tramp + SG_SIGRETURN, (size_t)SG_OFF_SP,
		       (size_t)SG_OFF_PC, (size_t)SG_OFF_FP);
	return 0;
}

static int sg_register(void)
{
	int ret = sft_codectl_register((unsigned long)page,
				       (unsigned long)page + pagesz,
				       (unsigned long)page + pagesz,
				       (unsigned long)page + pagesz + sec_len);

	if (ret)
		ksft_print_msg("codectl(REGISTER_SFRAME): %s\n", strerror(-ret));
	return ret;
}

/* The raw system call: the C library may put in a restorer of its own. */
static int sg_sigaction(void)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		__u64 mask;
	} ka = {
		.handler = sg_handler,
		.flags = SA_SIGINFO | SA_RESTORER,
		.restorer = page + SG_SIGRETURN,
	};

	if (syscall(__NR_rt_sigaction, SIGALRM, &ka, NULL, sizeof(ka.mask))) {
		ksft_perror("rt_sigaction");
		return -1;
	}
	return 0;
}

/*
 * One run: the signal, the handler's system call, its deferred stack in
 * @s.  Return: true when the sample and its deferred stack arrived.
 */
static SFT_FN bool sg_sample(struct sft_sample *s)
{
	static struct sft_sample samples[4];
	struct sft_ring_stats st;
	long r;
	int n;

	memset(&sg, 0, sizeof(sg));
	if (sft_perf_enable(&ev))
		return false;
	alarm(SG_TIMEOUT);
	r = sg_run(&sg);
	alarm(0);
	if (sft_perf_disable(&ev))
		return false;
	n = sft_perf_collect(&ev, samples, ARRAY_SIZE(samples), &st);
	if (r < 0 || !sg.done || sg.ret != getppid() || n != 1 ||
	    st.deferred != 1 || st.lost || !samples[0].merged) {
		ksft_print_msg("sg_run %ld, handler %s, getppid %ld\n", r,
			       sg.done ? "ran" : "did not run", sg.ret);
		ksft_print_msg("%d samples, %u deferred records, %u lost\n", n,
			       st.deferred, st.lost);
		return false;
	}
	if (!SG_UC_OK(sg.uc_off)) {
		ksft_print_msg("the handler got uc - info = %ld: the section's offsets are wrong\n",
			       sg.uc_off);
		return false;
	}
	*s = samples[0];
	return true;
}

/* The stack is the chain through the signal frame, every frame exact */
static bool sg_matches(const struct sft_sample *s, bool quiet)
{
	const struct sft_frame handler[] = {
		{ "sg_leaf", sg.leaf_ip }, { "sg_chain", 0 },
		{ "sg_handler", 0 },
	};
	const struct sft_frame interrupted[] = {
		{ "sg_spin", sg.pc }, { "sg_run", 0 }, { "sg_sample", 0 },
		{ "main", 0 },
	};
	unsigned long restorer = (unsigned long)page + SG_SIGRETURN;

	if (s->nr < SG_FRAMES) {
		unsigned int i;

		if (quiet)
			return false;
		ksft_print_msg("%u frames, %d expected; the restorer at %#lx:\n",
			       s->nr, SG_FRAMES, restorer);
		for (i = 0; i < s->nr && i < 16; i++) {
			char where[96];

			sft_describe(&syms, where, sizeof(where), i, s->ips[i]);
			ksft_print_msg("  %u %#llx %s\n", i,
				       (unsigned long long)s->ips[i], where);
		}
		return false;
	}
	if (!sft_stack_matches(&syms, handler, 3, s->ips, s->nr))
		return false;
	if (s->ips[3] != restorer) {
		ksft_print_msg("frame 3 at %#llx, not the restorer at %#lx\n",
			       (unsigned long long)s->ips[3], restorer);
		return false;
	}
	/* From the interrupted frame on: its IP is exact, as a topmost one */
	return sft_stack_matches(&syms, interrupted, ARRAY_SIZE(interrupted),
				 s->ips + 4, s->nr - 4);
}

int main(int argc, char **argv)
{
	struct sft_sample s;
	bool ok, sampled;
	int tp;

	SFT_PROBE_MAIN(argc, argv);

	ksft_print_header();
	ksft_set_plan(3);
	ksft_print_msg("%s: a signal handler's stack, through a restorer with a V3 signal FDE\n",
		       argv[0]);
	if (sft_symtab_load_self(&syms))
		ksft_exit_fail_msg("cannot read this program's symbols\n");
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&ev, tp, true) || sg_setup() ||
	    sg_sigaction())
		ksft_exit_fail_msg("cannot set up the test\n");

	ok = !sg_register();
	ksft_test_result(ok, "setup: the restorer's section registered\n");

	sampled = ok && sg_sample(&s);
	ksft_test_result(sampled && sg_matches(&s, false),
			 "signal: the handler, the restorer, the interrupted function at its exact address, its callers\n");

	/* The comparison can fail: no registration, no way through */
	ok = !sft_codectl_unregister((unsigned long)page) && sg_sample(&s);
	if (ok)
		ok = !sg_matches(&s, true);
	if (ok)
		ksft_print_msg("%s\n",
			       "as expected, the comparison FAILS without the restorer's section");
	ksft_test_result(ok,
			 "sensitivity: without the restorer's section the stack is not the chain\n");

	sft_perf_close(&ev);
	sft_symtab_free(&syms);
	ksft_finished();
}
