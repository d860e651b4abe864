// SPDX-License-Identifier: GPL-2.0
/*
 * A user stack through a dlopen()ed library without frame pointers:
 *
 *	main -> cl_entry -> cl_middle -> cl_call -> cs_callback -> getppid
 *
 * (codectl_chain.h).  The test program and the library are built with
 * -fomit-frame-pointer -Wa,--gsframe.  The kernel registered the program's
 * SFrame section at exec; the library's is registered only by the rtld-audit
 * module sframe-audit.so, through codectl(2).
 *
 * A perf event on the getppid tracepoint asks for the deferred user
 * callchain, which the kernel unwinds on the way back to user space.  That
 * stack is compared, frame by frame -- function and exact address -- with
 * the chain the functions recorded as they ran.
 *
 * The program runs itself three times: under LD_AUDIT the stack must be the
 * chain; without it the library's frames can only be unwound by frame
 * pointer, which these frames do not have, and the stack must differ.  The
 * third run, under LD_AUDIT, first takes the text of the program (registered
 * at exec) and of the library (registered with codectl) through a W^X cycle
 * -- RX, RW, RX -- and PROT_READ, as JITs and ld.so applying text
 * relocations do: the registrations stay, and the stack is still the chain.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"
#include "codectl_chain.h"
#include "codectl_util.h"

/* Exit codes of a child */
#define CHILD_MATCH	0	/* the stack is the chain */
#define CHILD_MISMATCH	1	/* a complete run; the stack is not the chain */
#define CHILD_BROKEN	2	/* no stack to compare */
#define CHILD_STATE	3	/* the library's registration is not as expected */

#define FRAMES		5	/* the callback, three library functions, main */

/* The chain's last function: the system call the perf event samples. */
__attribute__((noipa)) long cs_callback(struct cl_walk *w)
{
	CL_NOTE(w);
	CL_GETPPID(w);
	return w->ret;
}

/*
 * dladdr()'s result, as dladdr(3) documents it: glibc's Dl_info, whose
 * CamelCase checkpatch --strict would flag.
 */
struct cs_dl_info {
	const char *dli_fname;
	void *dli_fbase;
	const char *dli_sname;
	void *dli_saddr;
};

static const char *sym_name(unsigned long addr, const char **file)
{
	struct cs_dl_info info;

	*file = "?";
	if (!dladdr((void *)addr, (void *)&info))
		return NULL;
	if (info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');

		*file = slash ? slash + 1 : info.dli_fname;
	}
	return info.dli_sname;
}

/* Compare the unwound stack with the chain; print both. */
static bool stack_is_chain(const struct cl_walk *w, const __u64 *ips,
			   unsigned int nr)
{
	const char *want[FRAMES];
	unsigned long want_ip[FRAMES];
	bool ok = true;
	int i;

	if (w->depth != FRAMES - 1) {
		ksft_print_msg("the chain ran %d functions, not %d\n", w->depth,
			       FRAMES - 1);
		return false;
	}
	/* Innermost first: the callback at its system call, then callers. */
	want[0] = w->name[FRAMES - 2];
	want_ip[0] = w->top_ip;
	for (i = 1; i < FRAMES; i++) {
		want[i] = i < FRAMES - 1 ? w->name[FRAMES - 2 - i] : "main";
		want_ip[i] = w->ra[FRAMES - 1 - i];
	}

	ksft_print_msg("%-3s %-14s %-18s %-34s %s\n", "#", "expected", "at",
		       "unwound", "");
	for (i = 0; i < FRAMES; i++) {
		const char *name = NULL, *file = "", *verdict = "";
		char got[64] = "(missing)";

		if ((unsigned int)i < nr) {
			/* A return address: the call is the byte before. */
			name = sym_name(ips[i] - (i ? 1 : 0), &file);
			snprintf(got, sizeof(got), "%s:%s @%#llx", file,
				 name ? name : "?",
				 (unsigned long long)ips[i]);
			if (!name || strcmp(name, want[i]))
				verdict = "<-- wrong function";
			else if (ips[i] != want_ip[i])
				verdict = "<-- wrong address";
		} else {
			verdict = "<-- missing";
		}
		if (*verdict)
			ok = false;
		ksft_print_msg("%-3d %-14s %#-18lx %-34s %s\n", i, want[i],
			       want_ip[i], got, verdict);
	}
	return ok;
}

/* The registration of the text at @text_start from @source, in @l */
static bool registered(unsigned long text_start, const char *source,
		       struct ct_line *l)
{
	int n = 0;

	if (ct_sframe_lines(text_start, l, &n, source) < 0)
		return false;
	if (n != 1) {
		ksft_print_msg("no registration by %s of the text at %#lx\n",
			       source, text_start);
		ct_sframe_dump();
		return false;
	}
	return true;
}

/* Is @l the same registration as @before? */
static bool same_line(const struct ct_line *l, const struct ct_line *before,
		      const char *after)
{
	if (l->text_end == before->text_end &&
	    l->sframe_start == before->sframe_start &&
	    l->sframe_end == before->sframe_end && !strcmp(l->state, "ok") &&
	    !strcmp(l->path, before->path))
		return true;
	ksft_print_msg("after %s: %lx-%lx %lx-%lx %s %s, was %lx-%lx %lx-%lx %s %s\n",
		       after, l->text_start, l->text_end, l->sframe_start,
		       l->sframe_end, l->state, l->path, before->text_start,
		       before->text_end, before->sframe_start,
		       before->sframe_end, before->state, before->path);
	return false;
}

/* [@start, @end) widened to whole pages: the start, the length */
static void page_range(unsigned long start, unsigned long end,
		       unsigned long *addr, unsigned long *len)
{
	unsigned long page = sysconf(_SC_PAGESIZE);

	*addr = start & ~(page - 1);
	*len = ((end + page - 1) & ~(page - 1)) - *addr;
}

/*
 * The W^X cycle of the program's text and the library's: RX, RW, RX, then
 * PROT_READ and back to RX to run.  Both registrations must stay as they
 * were.
 */
static bool wx_cycle(void *h, const struct ct_object *self)
{
	static const int cycle[] = {
		PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC, PROT_READ,
		PROT_READ | PROT_EXEC,
	};
	static const char * const what[] = {
		"RW", "RX again", "PROT_READ", "RX to run",
	};
	int (*seq)(void *addr, unsigned long len, const int *prots, int n);
	struct ct_line prog0, lib0, l;
	unsigned long addr, len;
	struct ct_object lib;
	unsigned int i;
	int ret;

	seq = (int (*)(void *, unsigned long, const int *, int))
		dlsym(h, "cl_mprotect_seq");
	if (!seq) {
		ksft_print_msg("dlsym(cl_mprotect_seq): %s\n", dlerror());
		return false;
	}
	if (ct_dl_object(h, &lib) ||
	    !registered(self->text_start[0], "exec", &prog0) ||
	    !registered(lib.text_start[0], "codectl", &lib0))
		return false;

	/* The library's text, from here: check after each step. */
	page_range(lib.text_start[0], lib.text_end[0], &addr, &len);
	for (i = 0; i < ARRAY_SIZE(cycle); i++) {
		if (mprotect((void *)addr, len, cycle[i])) {
			ksft_print_msg("mprotect(%s) of the library's text: %s\n",
				       what[i], strerror(errno));
			return false;
		}
		if (!registered(lib.text_start[0], "codectl", &l) ||
		    !same_line(&l, &lib0, what[i]))
			return false;
	}

	/* The program's own text, from the library: check at the end. */
	page_range(self->text_start[0], self->text_end[0], &addr, &len);
	ret = seq((void *)addr, len, cycle, ARRAY_SIZE(cycle));
	if (ret) {
		ksft_print_msg("mprotect() of the program's text: %s\n",
			       strerror(ret));
		return false;
	}
	if (!registered(self->text_start[0], "exec", &l) ||
	    !same_line(&l, &prog0, "RW, RX, PROT_READ, RX of the program"))
		return false;
	ksft_print_msg("%s\n",
		       "after RX, RW, RX, PROT_READ, RX: both registrations stay");
	return true;
}

/* Is the library registered by codectl, as @audit says it must be? */
static bool lib_state(void *h, bool audit)
{
	struct ct_object obj;
	struct ct_line l;
	int n = 0;

	if (ct_dl_object(h, &obj))
		return false;
	if (!obj.sframe_start) {
		ksft_print_msg("%s has no PT_GNU_SFRAME: it must be built with -Wa,--gsframe\n",
			       CT_LIB_SO);
		return false;
	}
	if (ct_sframe_lines(obj.text_start[0], &l, &n, "codectl") < 0)
		return false;
	if (audit && n != 1) {
		ksft_print_msg("under LD_AUDIT the library is not registered\n");
		ct_sframe_dump();
		return false;
	}
	if (!audit && n) {
		ksft_print_msg("without LD_AUDIT the library is registered\n");
		ct_sframe_dump();
		return false;
	}
	return true;
}

static int child(bool audit, bool wx)
{
	static struct sft_sample samples[SFT_RUN_MAX_SAMPLES];
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	struct sft_ring_stats stats;
	long (*entry)(struct cl_walk *w);
	struct cl_walk w = { .callback = cs_callback };
	struct ct_object self;
	struct sft_perf ev;
	int tp, n, exec_n = 0;
	long r;
	void *h;

	if (ct_self_object(&self) || !self.sframe_start) {
		ksft_print_msg("%s\n",
			       "the test program has no SFrame section: it must be built with -Wa,--gsframe");
		return CHILD_BROKEN;
	}
	ct_sframe_lines(self.text_start[0], NULL, &exec_n, "exec");
	if (exec_n != 1) {
		ksft_print_msg("the kernel did not register the program's SFrame at exec\n");
		ct_sframe_dump();
		return CHILD_BROKEN;
	}
	if (ct_exe_dir(dir, sizeof(dir)))
		return CHILD_BROKEN;
	snprintf(lib, sizeof(lib), "%s/%s", dir, CT_LIB_SO);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		ksft_print_msg("dlopen(%s): %s\n", lib, dlerror());
		return CHILD_BROKEN;
	}
	entry = (long (*)(struct cl_walk *))dlsym(h, "cl_entry");
	if (!entry) {
		ksft_print_msg("dlsym(cl_entry): %s\n", dlerror());
		return CHILD_BROKEN;
	}
	if (!lib_state(h, audit))
		return CHILD_STATE;
	if (wx && !wx_cycle(h, &self))
		return CHILD_STATE;

	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&ev, tp, true))
		return CHILD_BROKEN;
	if (sft_perf_enable(&ev)) {
		sft_perf_close(&ev);
		return CHILD_BROKEN;
	}
	r = entry(&w);
	sft_perf_disable(&ev);
	n = sft_perf_collect(&ev, samples, SFT_RUN_MAX_SAMPLES, &stats);
	sft_perf_close(&ev);

	if (r != w.ret + 3 || w.ret != getppid()) {
		ksft_print_msg("the chain returned %ld, its getppid %ld\n", r,
			       w.ret);
		return CHILD_BROKEN;
	}
	if (n != 1 || stats.lost || stats.deferred != 1) {
		ksft_print_msg("%d samples, %u deferred stacks, %u lost\n",
			       n, stats.deferred, stats.lost);
		ksft_print_msg("want one sample and its deferred stack\n");
		return CHILD_BROKEN;
	}
	if (!samples[0].deferred || !samples[0].merged ||
	    samples[0].tid != (__u32)gettid() || !samples[0].nr) {
		ksft_print_msg("the sample has no deferred user stack of this thread\n");
		return CHILD_BROKEN;
	}
	ksft_print_msg("%s LD_AUDIT: %u frames unwound\n",
		       audit ? "under" : "without", samples[0].nr);
	return stack_is_chain(&w, samples[0].ips, samples[0].nr) ?
	       CHILD_MATCH : CHILD_MISMATCH;
}

static const char *verdict(int ret)
{
	switch (ret) {
	case CHILD_MATCH:
		return "the chain";
	case CHILD_MISMATCH:
		return "not the chain";
	case CHILD_BROKEN:
		return "no stack to compare";
	case CHILD_STATE:
		return "wrong registration";
	default:
		return "the child failed";
	}
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], audit[PATH_MAX + 64];
	int ret, tp;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return child(strcmp(argv[2], "plain"), !strcmp(argv[2], "wx"));

	ksft_print_header();
	ksft_set_plan(3);
	if (ct_exe_dir(dir, sizeof(dir)))
		ksft_exit_fail_msg("cannot find the test's directory\n");
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_hold_tracepoint(tp) < 0)
		ksft_exit_fail_msg("the getppid tracepoint does not work\n");
	snprintf(audit, sizeof(audit), "LD_AUDIT=%s/%s", dir, CT_AUDIT_SO);
	if (access(audit + strlen("LD_AUDIT="), R_OK))
		ksft_exit_fail_msg("%s: %s\n", audit + strlen("LD_AUDIT="),
				   strerror(errno));

	{
		char *const args[] = { argv[0], "--child", "audit", NULL };

		ret = ct_run_self(args, audit, 120, NULL);
		ksft_test_result(ret == CHILD_MATCH,
				 "under LD_AUDIT the user stack is the chain through the library (%s)\n",
				 verdict(ret));
	}
	{
		char *const args[] = { argv[0], "--child", "plain", NULL };

		ret = ct_run_self(args, NULL, 120, NULL);
		ksft_test_result(ret == CHILD_MISMATCH,
				 "without it, frame pointers for the library: not the chain (%s)\n",
				 verdict(ret));
	}
	{
		char *const args[] = { argv[0], "--child", "wx", NULL };

		ret = ct_run_self(args, audit, 120, NULL);
		ksft_test_result(ret == CHILD_MATCH,
				 "after RX, RW, RX and PROT_READ of the program's and the library's text, the stack is still the chain (%s)\n",
				 verdict(ret));
	}
	ksft_finished();
}
