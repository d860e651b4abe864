// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime of the registration of a program's SFrame section.
 *
 * The ELF loader registers the section of the executable; the registration
 * is copied by fork, is not inherited across exec (the new image starts
 * with its own), and dies with the mapping it describes: munmap, mremap or
 * mmap over its text or its .sframe.  A change of protection keeps it, even
 * one that removes PROT_EXEC, so that a W^X cycle (RX, RW, RX, as JITs and
 * ld.so applying text relocations do) keeps the registrations made at exec.
 * Each case is seen through the unwinder: with the registration
 * the stack of the known chain is the chain (truth), without it the kernel
 * falls back to frame pointers, which this program does not keep, and the
 * stack is what the frame pointer unwinder gives (fp).
 *
 * Changes that drop the registration are made in forked children, each
 * probing its own stack; the parent checks its own at the end.  The page
 * those children unmap or reprotect is sft_spare_page, a page of the text
 * that nothing executes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "sframe_lib.h"

#define PAGE		4096UL
#define TIMEOUT		30

static struct sft_symtab syms;
static struct sft_self self;

/* The spare page lies in the registered text, away from the chain. */
static bool check_spare(void)
{
	unsigned long start, end, spare = (unsigned long)sft_spare_page;

	if (!sft_self_text(&self, &syms, &start, &end))
		return false;
	ksft_print_msg("text %#lx-%#lx, spare page %#lx, .sframe %#lx-%#lx\n",
		       start, end, spare, self.sframe_start, self.sframe_end);
	if (spare % PAGE || spare < start || spare + PAGE > end) {
		ksft_print_msg("the spare page is not a page of the text segment\n");
		return false;
	}
	return true;
}

enum change {
	CHANGE_NONE,
	CHANGE_MPROTECT_WRITE,	/* text: add PROT_WRITE, keep PROT_EXEC */
	CHANGE_MUNMAP_OTHER,	/* munmap an unrelated anonymous page */
	CHANGE_SFRAME_WRITABLE,	/* .sframe: add PROT_WRITE */
	CHANGE_MPROTECT_NOEXEC,	/* text: remove PROT_EXEC */
	CHANGE_WX_CYCLE,	/* text: RX, then RW, then RX again */
	CHANGE_MUNMAP,		/* text: munmap */
	CHANGE_MREMAP,		/* text: move the page elsewhere */
	CHANGE_MMAP_SFRAME,	/* .sframe: mmap over it, same bytes */
};

static int change_mappings(enum change c)
{
	unsigned long spare = (unsigned long)sft_spare_page, start, len;
	void *p, *copy;

	switch (c) {
	case CHANGE_NONE:
		return 0;
	case CHANGE_MPROTECT_WRITE:
		return mprotect(sft_spare_page, PAGE,
				PROT_READ | PROT_WRITE | PROT_EXEC);
	case CHANGE_MUNMAP_OTHER:
		p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			return -1;
		return munmap(p, PAGE);
	case CHANGE_SFRAME_WRITABLE:
		if (!sft_self_sframe_pages(&self, &syms, &start, &len))
			return -1;
		return mprotect((void *)start, len, PROT_READ | PROT_WRITE);
	case CHANGE_MPROTECT_NOEXEC:
		return mprotect(sft_spare_page, PAGE, PROT_READ);
	case CHANGE_WX_CYCLE:
		if (mprotect(sft_spare_page, PAGE, PROT_READ | PROT_WRITE))
			return -1;
		return mprotect(sft_spare_page, PAGE, PROT_READ | PROT_EXEC);
	case CHANGE_MUNMAP:
		return munmap(sft_spare_page, PAGE);
	case CHANGE_MREMAP:
		p = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			return -1;
		p = mremap((void *)spare, PAGE, PAGE,
			   MREMAP_MAYMOVE | MREMAP_FIXED, p);
		return p == MAP_FAILED ? -1 : 0;
	case CHANGE_MMAP_SFRAME:
		if (!sft_self_sframe_pages(&self, &syms, &start, &len))
			return -1;
		copy = malloc(len);
		if (!copy)
			return -1;
		memcpy(copy, (void *)start, len);
		p = mmap((void *)start, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		memcpy(p, copy, len);
		free(copy);
		return mprotect(p, len, PROT_READ);
	}
	return -1;
}

static const char * const change_names[] = {
	[CHANGE_NONE] = "nothing",
	[CHANGE_MPROTECT_WRITE] = "mprotect(RWX) of a text page",
	[CHANGE_MUNMAP_OTHER] = "munmap of an unrelated page",
	[CHANGE_SFRAME_WRITABLE] = "mprotect(RW) of the .sframe pages",
	[CHANGE_MPROTECT_NOEXEC] = "mprotect(R) of a text page",
	[CHANGE_WX_CYCLE] = "mprotect(RW), then mprotect(RX) of a text page",
	[CHANGE_MUNMAP] = "munmap of a text page",
	[CHANGE_MREMAP] = "mremap of a text page",
	[CHANGE_MMAP_SFRAME] = "mmap over the .sframe pages (same bytes)",
};

/* The verdict of a child that made change @c, then probed itself. */
static int child_after(enum change c, int expect)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_perror("fork");
		return -1;
	}
	if (!pid) {
		if (change_mappings(c)) {
			ksft_print_msg("child: %s: %s\n", change_names[c],
				       strerror(errno));
			exit(SFT_BROKEN);
		}
		return -2;	/* main() probes, so that it is the caller */
	}
	ksft_print_msg("child %d: %s, expecting the %s stack\n", pid,
		       change_names[c], sft_verdict_name(expect));
	return sft_wait(pid, TIMEOUT, change_names[c]);
}

/*
 * The child of a fork() probes from main(): child_after() returns -2 in the
 * child, which must go on with SFT_PROBE_HERE().
 */
#define CHILD_CHECK(c, expect, ...)					\
do {									\
	int __expect = (expect);					\
	int __v = child_after((c), __expect);				\
									\
	if (__v == -2)							\
		SFT_PROBE_HERE(__expect);				\
	ksft_test_result(__v == __expect, __VA_ARGS__);			\
} while (0)

/*
 * Exec stage 2, run without address space randomization: this program,
 * registered at a known bias, checks its own stack, then execs the copy
 * without PT_GNU_SFRAME, which loads at the same bias.  A registration left
 * over from the old image would then describe the new text exactly.
 */
static int exec_stage2(const char *copy)
{
	char bias[32];

	snprintf(bias, sizeof(bias), "%lx", syms.bias);
	ksft_print_msg("stage 2 (pid %d): at bias %s, exec %s\n", getpid(), bias,
		       copy);
	fflush(stdout);
	execl(copy, copy, "--probe", "fp", bias, NULL);
	ksft_print_msg("exec %s: %s\n", copy, strerror(errno));
	return SFT_BROKEN;
}

static int exec_ptnull_same_bias(void)
{
	struct elf64_phdr *ph;
	char copy[128];
	int ret;
	pid_t pid;

	if (!self.has_sframe)
		return -1;
	ph = sft_elf_find_phdr(&self.elf, PT_GNU_SFRAME);
	ph->p_type = PT_NULL;
	sft_tmp_copy(copy, sizeof(copy), "lifetime-ptnull");
	ret = sft_elf_save(&self.elf, copy);
	ph->p_type = PT_GNU_SFRAME;
	if (ret)
		return -1;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_perror("fork");
		unlink(copy);
		return -1;
	}
	if (!pid) {
		if (personality(ADDR_NO_RANDOMIZE) < 0) {
			ksft_perror("personality(ADDR_NO_RANDOMIZE)");
			exit(SFT_BROKEN);
		}
		execl("/proc/self/exe", "sframe-stage2", "--exec-stage2", copy,
		      NULL);
		ksft_print_msg("exec /proc/self/exe: %s\n", strerror(errno));
		exit(SFT_BROKEN);
	}
	ret = sft_wait(pid, TIMEOUT, "exec stage 2");
	unlink(copy);
	return ret;
}

static int exec_sibling(void)
{
	char dir[200], path[256];

	if (sft_exe_dir(dir, sizeof(dir)))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir,
		 SFT_SFRAME_VERSION == 3 ? "sframe_v3_stack" :
		 "sframe_v2_stack");
	ksft_print_msg("exec %s, another SFrame program\n", path);
	return sft_run_probe(path, SFT_TRUTH, NULL, TIMEOUT);
}

int main(int argc, char **argv)
{
	static struct sft_run run;
	int ret, v;

	SFT_PROBE_MAIN(argc, argv);

	if (sft_symtab_load_self(&syms) || sft_self_load(&self, &syms))
		ksft_exit_fail_msg("cannot read this program's ELF image\n");

	if (argc == 3 && !strcmp(argv[1], "--exec-stage2")) {
		/* Registered here, and its stack is the chain? */
		ret = sft_run_open(&run);
		if (!ret)
			ret = SFT_RECORD_CHAIN(&run);
		v = ret ? SFT_BROKEN :
		    sft_run_verdict(&run, &syms, SFT_TRUTH, false);
		sft_run_close(&run);
		if (v != SFT_TRUTH) {
			ksft_print_msg("stage 2: own stack is %s, not the chain\n",
				       sft_verdict_name(v));
			return SFT_BROKEN;
		}
		return exec_stage2(argv[2]);
	}

	ksft_print_header();
	ksft_set_plan(14);

	ret = sft_run_open(&run);
	if (!ret)
		ret = SFT_RECORD_CHAIN(&run);
	v = ret ? SFT_BROKEN : sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	ksft_test_result(v == SFT_TRUTH && check_spare(),
			 "start: the stack is the chain; a spare text page\n");

	CHILD_CHECK(CHANGE_NONE, SFT_TRUTH,
		    "fork: the child's stack is the chain\n");

	ksft_test_result(exec_sibling() == SFT_TRUTH,
			 "exec: another SFrame program gets its own registration\n");
	ksft_test_result(exec_ptnull_same_bias() == SFT_FP,
			 "exec: the copy without PT_GNU_SFRAME, loaded where this program was, gets none\n");

	CHILD_CHECK(CHANGE_MPROTECT_WRITE, SFT_TRUTH,
		    "mprotect adding PROT_WRITE to a text page keeps the registration\n");
	CHILD_CHECK(CHANGE_MUNMAP_OTHER, SFT_TRUTH,
		    "munmap of an unrelated page keeps the registration\n");
	CHILD_CHECK(CHANGE_SFRAME_WRITABLE, SFT_TRUTH,
		    "mprotect making the .sframe pages writable keeps the registration\n");
	CHILD_CHECK(CHANGE_MPROTECT_NOEXEC, SFT_TRUTH,
		    "mprotect removing PROT_EXEC from a text page keeps the registration\n");
	CHILD_CHECK(CHANGE_WX_CYCLE, SFT_TRUTH,
		    "a W^X cycle of a text page (RX, RW, RX) keeps the registration\n");
	CHILD_CHECK(CHANGE_MUNMAP, SFT_FP,
		    "munmap of a text page drops the registration\n");
	CHILD_CHECK(CHANGE_MREMAP, SFT_FP,
		    "mremap of a text page drops the registration\n");
	CHILD_CHECK(CHANGE_MMAP_SFRAME, SFT_FP,
		    "mmap over the .sframe pages, even with the same bytes, drops the registration\n");

	ret = SFT_RECORD_CHAIN(&run);
	v = ret ? SFT_BROKEN : sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	ksft_test_result(v == SFT_TRUTH,
			 "end: the children's changes left this process's registration alone\n");

	/*
	 * This task has unwound the chain through SFrame: the rules of its
	 * return addresses are in the CPU's cache.  A removal must make the
	 * next walk of the same task see the registration gone.
	 */
	fflush(stdout);
	if (change_mappings(CHANGE_MUNMAP)) {
		ksft_perror("munmap of the spare page");
		v = SFT_BROKEN;
	} else {
		ret = SFT_RECORD_CHAIN(&run);
		v = ret ? SFT_BROKEN :
		    sft_run_verdict(&run, &syms, SFT_FP, false);
	}
	ksft_test_result(v == SFT_FP,
			 "munmap of a text page after walks drops the registration for the next walk of the same task\n");
	sft_run_close(&run);

	sft_self_free(&self);
	sft_symtab_free(&syms);
	ksft_finished();
}
