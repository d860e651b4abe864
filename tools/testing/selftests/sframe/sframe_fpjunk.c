// SPDX-License-Identifier: GPL-2.0
/*
 * The user unwinder never reports what cannot be a return address.
 *
 * fj_junk_frame, in assembly without CFI and so without SFrame, saves %rbp
 * and points it at two words the test put on its own stack, {next frame
 * pointer, return address}, as if they were a frame record; then it makes
 * a getppid system call itself, or calls fj_leaf, an SFrame-described
 * function without a frame pointer, which makes it.  The kernel takes the
 * user stack of each system call (perf, deferred callchain): fj_leaf by its
 * SFrame, then fj_junk_frame by the frame pointer, whose "frame record"
 * says that the caller's return address is the planted word.
 *
 * A planted word that cannot be code -- 0, 3, just below mmap_min_addr,
 * data, the stack, a page just unmapped, a kernel address -- must end the
 * stack at fj_junk_frame, and not be reported.  One inside an executable
 * mapping, of the program or of libc, must be reported: the kernel cannot
 * tell it from a real return address.  No stack may hold an address that
 * is not in an executable mapping.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../kselftest.h"
#include "sframe_lib.h"

#define FJ_STR2(x)	#x
#define FJ_STR(x)	FJ_STR2(x)

/*
 * fj_junk_frame(record, via_leaf): %rdi is the fake frame record, %rsi
 * non-zero to make the system call in fj_leaf.
 */
asm(".pushsection .text.fj_junk_frame, \"ax\", @progbits\n"
	".globl fj_junk_frame\n"
	".type fj_junk_frame, @function\n"
	"fj_junk_frame:\n"
	"	push %rbp\n"
	"	mov %rdi, %rbp\n"
	"	test %rsi, %rsi\n"
	"	jz 1f\n"
	"	call fj_leaf\n"
	".globl fj_after_call\n"
	"fj_after_call:\n"
	"	jmp 2f\n"
	"1:	mov $" FJ_STR(SYS_getppid) ", %eax\n"
	"	syscall\n"
	".globl fj_after_syscall\n"
	"fj_after_syscall:\n"
	"2:	pop %rbp\n"
	"	ret\n"
	".size fj_junk_frame, . - fj_junk_frame\n"
	".popsection\n");

/* The address of a symbol of the assembly code */
#define FJ_ADDR(sym)							\
({									\
	unsigned long __a;						\
									\
	asm("lea " #sym "(%%rip), %0" : "=r" (__a));			\
	__a;								\
})

typedef void (*fj_junk_frame_t)(unsigned long *record, long via_leaf);

/* A leaf without a frame; SFrame says where its return address is. */
SFT_FN void fj_leaf(void)
{
	asm volatile("mov $" FJ_STR(SYS_getppid) ", %%eax\n\t"
		     "syscall\n"
		     ".globl fj_leaf_after_syscall\n"
		     "fj_leaf_after_syscall:"
		     : : : "rax", "rcx", "r11", "memory");
}

static unsigned long fj_data = 42;
static unsigned long min_addr;

/* The executable mappings, from /proc/self/maps */
static struct { unsigned long start, end; } exec_maps[64];
static unsigned int exec_nr;

static bool read_exec_maps(void)
{
	char line[512], perms[8];
	unsigned long lo, hi;
	FILE *f;

	exec_nr = 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 ||
		    perms[2] != 'x' || exec_nr == ARRAY_SIZE(exec_maps))
			continue;
		exec_maps[exec_nr].start = lo;
		exec_maps[exec_nr++].end = hi;
	}
	fclose(f);
	return exec_nr;
}

static bool is_code(unsigned long addr)
{
	unsigned int i;

	if (addr < min_addr)
		return false;
	for (i = 0; i < exec_nr; i++)
		if (addr >= exec_maps[i].start && addr < exec_maps[i].end)
			return true;
	return false;
}

struct fj_case {
	const char *name;
	unsigned long ra;	/* the planted return address */
	unsigned long fp;	/* the planted next frame pointer */
	bool code;		/* it can be code: must be reported */
};

static struct sft_perf perf;
static struct sft_symtab syms;

static void show(const struct sft_sample *s)
{
	char buf[128];
	unsigned int i;

	for (i = 0; i < s->nr && i < 8; i++) {
		sft_describe(&syms, buf, sizeof(buf), i, s->ips[i]);
		ksft_print_msg("    #%u %#llx %s%s\n", i,
			       (unsigned long long)s->ips[i], buf,
			       is_code(s->ips[i]) ? "" : "  <-- not code");
	}
}

/*
 * One system call under a fake frame record: the stack must be the real
 * frames, then the planted address if it can be code, and nothing that
 * cannot be.
 */
static bool run_case(const struct fj_case *c, bool via_leaf)
{
	unsigned long record[2] = { c->fp, c->ra };
	unsigned long real[2];
	struct sft_ring_stats st;
	struct sft_sample s[4];
	unsigned int nreal, i;
	bool ok = true;
	int n;

	if (via_leaf) {
		real[0] = FJ_ADDR(fj_leaf_after_syscall);
		real[1] = FJ_ADDR(fj_after_call);
		nreal = 2;
	} else {
		real[0] = FJ_ADDR(fj_after_syscall);
		nreal = 1;
	}
	if (sft_perf_enable(&perf))
		return false;
	((fj_junk_frame_t)FJ_ADDR(fj_junk_frame))(record, via_leaf);
	if (sft_perf_disable(&perf))
		return false;
	n = sft_perf_collect(&perf, s, ARRAY_SIZE(s), &st);
	if (n != 1 || !s[0].merged) {
		ksft_print_msg("%s: %d samples, %s deferred stack\n", c->name,
			       n, n > 0 && s[0].merged ? "a" : "no");
		return false;
	}
	for (i = 0; i < nreal; i++)
		ok &= s[0].nr > i && s[0].ips[i] == real[i];
	if (c->code)
		ok &= s[0].nr > nreal && s[0].ips[nreal] == c->ra;
	else
		ok &= s[0].nr == nreal;
	for (i = 0; i < s[0].nr; i++)
		ok &= is_code(s[0].ips[i]);
	if (!ok) {
		ksft_print_msg("%s%s: return address %#lx planted, the stack is:\n",
			       c->name, via_leaf ? " via fj_leaf" : "", c->ra);
		show(&s[0]);
	}
	return ok;
}

int main(void)
{
	unsigned long local = 0, unmapped;
	struct fj_case cases[9];
	unsigned int i, nc = 0;
	void *page;
	FILE *f;
	int tp;

	ksft_print_header();

	f = fopen("/proc/sys/vm/mmap_min_addr", "re");
	if (!f || fscanf(f, "%lu", &min_addr) != 1)
		ksft_exit_fail_msg("cannot read /proc/sys/vm/mmap_min_addr\n");
	fclose(f);
	if (sft_symtab_load_self(&syms))
		ksft_exit_fail_msg("cannot read this program's symbols\n");
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&perf, tp, true))
		ksft_exit_fail_msg("cannot sample getppid with deferred callchains\n");
	/* Mapped last: nothing maps that page again before the tests. */
	page = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || munmap(page, 4096))
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	unmapped = (unsigned long)page + 64;
	if (!read_exec_maps())
		ksft_exit_fail_msg("no executable mappings in /proc/self/maps\n");

	cases[nc++] = (struct fj_case){ "zero", 0, 0, false };
	cases[nc++] = (struct fj_case){ "three", 3, 0, false };
	cases[nc++] = (struct fj_case){ "below_mmap_min_addr",
		min_addr > 16 ? min_addr - 16 : 16, 0x4141414141414141UL,
		false };
	cases[nc++] = (struct fj_case){ "data", (unsigned long)&fj_data, 0,
		false };
	cases[nc++] = (struct fj_case){ "stack", (unsigned long)&local, 0,
		false };
	cases[nc++] = (struct fj_case){ "unmapped", unmapped, 0, false };
	cases[nc++] = (struct fj_case){ "kernel", 0xffffffff81000000UL, 0,
		false };
	/* Code, so reported; past it the walk may go on or not. */
	cases[nc++] = (struct fj_case){ "program_text",
		(unsigned long)fj_leaf + 1, 0x4141414141414141UL, true };
	cases[nc++] = (struct fj_case){ "libc_text", (unsigned long)getppid + 1,
		0, true };

	ksft_print_msg("mmap_min_addr %lu, %u executable mappings\n", min_addr,
		       exec_nr);

	ksft_set_plan(2 * nc);
	for (i = 0; i < nc; i++) {
		ksft_test_result(run_case(&cases[i], false), "fpjunk_%s\n",
				 cases[i].name);
		ksft_test_result(run_case(&cases[i], true), "fpjunk_%s_via_leaf\n",
				 cases[i].name);
	}
	sft_perf_close(&perf);
	sft_symtab_free(&syms);
	ksft_finished();
}
