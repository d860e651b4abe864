// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user stacks through perf, checked against ground truth.
 *
 * A perf event samples the syscalls/sys_enter_getppid tracepoint of this
 * thread with defer_callchain set: each sample carries only
 * PERF_CONTEXT_USER_DEFERRED and a cookie, and the kernel unwinds the user
 * stack on the way back to user space into a PERF_RECORD_CALLCHAIN_DEFERRED
 * with the same cookie.  main() runs the known chain (sframe_chain.h), whose
 * two leaves each make one getppid; each stack must be the chain, frame by
 * frame, at the exact addresses the chain recorded while running.
 *
 * The Makefile builds this program three times:
 *  - fp_deferred: frame pointers, no SFrame (SFT_SFRAME_VERSION=0): the
 *    frame pointer unwinder must give the chain, and so must the tests'
 *    simulation of it;
 *  - sframe_v2_stack: -fomit-frame-pointer, SFrame V2 from GNU as 2.44;
 *  - sframe_v3_stack: the same with SFrame V3 from GNU as 2.46 or later,
 *    linked -static.
 * The SFrame builds also check that the stack is not what the frame pointer
 * unwinder would give, and run a copy of themselves whose PT_GNU_SFRAME is
 * turned into PT_NULL: the kernel does not register its section, and the
 * stack it takes there must be the frame pointer one, not the chain.  That
 * shows that the comparison can fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "sframe_lib.h"

#define PROBE_TIMEOUT	30

static struct sft_symtab syms;
static struct sft_self self;
static struct sft_run run;

/* PT_GNU_SFRAME present, and of the version this variant was built for. */
static bool check_binary(void)
{
	if (!SFT_SFRAME_VERSION) {
		if (self.has_sframe)
			ksft_print_msg("the frame pointer build has PT_GNU_SFRAME\n");
		return !self.has_sframe;
	}
	if (!self.has_sframe) {
		ksft_print_msg("no PT_GNU_SFRAME: was it built with -Wa,--gsframe?\n");
		return false;
	}
	ksft_print_msg("PT_GNU_SFRAME: V%u, flags %#x, %u FDEs, %u FREs at %#lx\n",
		       self.sframe.version, self.sframe.flags,
		       self.sframe.num_fdes, self.sframe.num_fres,
		       self.sframe_start);
	if (self.sframe.version != SFT_SFRAME_VERSION) {
		ksft_print_msg("SFrame version %u, built for %d\n",
			       self.sframe.version, SFT_SFRAME_VERSION);
		return false;
	}
	return true;
}

/*
 * Every function of the chain has exactly one FDE, covering exactly it,
 * except st_realign on x86-64: GNU as 2.44 cannot describe it in V2 and
 * emits no FDE (so the kernel falls back to its frame pointer), and in V3
 * its FDE must be a flex FDE.  On arm64 it is a frame pointer frame, which
 * a plain FDE describes.
 */
#if defined(__x86_64__)
#define SFT_REALIGN_DRAP	1
#else
#define SFT_REALIGN_DRAP	0
#endif

static bool check_fdes(void)
{
	bool ok = true;
	unsigned int i;

	for (i = 0; i < SFT_CHAIN_FUNCS; i++) {
		const char *name = sft_chain_funcs[i];
		const struct sft_sym *s = sft_symtab_find(&syms, name);
		bool realign = SFT_REALIGN_DRAP && !strcmp(name, "st_realign");
		unsigned long start;
		struct sft_fde fde;
		int ret;

		if (!s) {
			ksft_print_msg("%s: no symbol\n", name);
			ok = false;
			continue;
		}
		start = s->start - syms.bias;
		ret = sft_sframe_find(&self.sframe, start, &fde);
		if (realign && SFT_SFRAME_VERSION == 2) {
			if (!ret) {
				ksft_print_msg("%s has an FDE in V2: the test's premise changed\n",
					       name);
				ok = false;
			}
			continue;
		}
		if (ret) {
			ksft_print_msg("%s at %#lx: no FDE\n", name, start);
			ok = false;
			continue;
		}
		if (fde.start != start || fde.size != s->size) {
			ksft_print_msg("%s: FDE %#llx+%u, symbol %#lx+%lu\n",
				       name, (unsigned long long)fde.start,
				       fde.size, start, s->size);
			ok = false;
		}
		if (fde.flex != (realign && SFT_SFRAME_VERSION == 3)) {
			ksft_print_msg("%s: %s FDE\n", name,
				       fde.flex ? "a flex" : "not a flex");
			ok = false;
		}
	}
	return ok;
}

#if defined(__aarch64__)
/*
 * The leaves keep their return address in the link register: at each
 * system call, the FRE has one data word, the CFA, and no saved RA.  The
 * stacks at the leaves then check the SFrame rule that reads the link
 * register, which only the topmost frame has.
 */
static bool check_leaves_lr(void)
{
	unsigned int i;
	bool ok = true;

	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		const struct sft_truth *t = &run.walk.truth[i];
		unsigned long addr = t->addr[0] - syms.bias;
		struct sft_fde fde;
		int info;

		info = sft_sframe_find(&self.sframe, addr, &fde) ? -ENOENT :
		       sft_sframe_fre_info(&self.sframe, &fde, addr);
		if (info < 0) {
			ksft_print_msg("%s at %#lx: no FRE: %s\n", t->func[0],
				       addr, strerror(-info));
			ok = false;
			continue;
		}
		ksft_print_msg("%s, at its system call: CFA based on %s, %u data words%s\n",
			       t->func[0], info & 1 ? "SP" : "FP",
			       SFT_FRE_NWORDS(info),
			       SFT_FRE_NWORDS(info) == 1 ?
			       ", the return address in the link register" : "");
		if (SFT_FRE_NWORDS(info) != 1)
			ok = false;
	}
	return ok;
}

#define LEAF_LR_TESTS	1
#else
#define LEAF_LR_TESTS	0
#endif

/* The recorded names are the functions at the recorded addresses. */
static bool check_truth(void)
{
	unsigned int i, j;
	bool ok = true;

	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		const struct sft_truth *t = &run.walk.truth[i];

		if (t->nr != SFT_CHAIN_FRAMES || strcmp(t->func[t->nr - 1], "main")) {
			ksft_print_msg("system call %u: %u frames down to %s, not %d\n",
				       i, t->nr, t->nr ? t->func[t->nr - 1] : "-",
				       SFT_CHAIN_FRAMES);
			ok = false;
			continue;
		}
		for (j = 0; j < t->nr; j++) {
			const struct sft_sym *s;

			s = sft_symtab_lookup(&syms,
					      j ? t->addr[j] - 1 : t->addr[j]);
			if (!s || strcmp(s->name, t->func[j])) {
				ksft_print_msg("frame %u: %s recorded, %s found at %#lx\n",
					       j, t->func[j],
					       s ? s->name : "nothing",
					       t->addr[j]);
				ok = false;
			}
		}
	}
	if (ok)
		ksft_print_msg("recorded: %u frames, %s .. %s\n",
			       run.walk.truth[0].nr, run.walk.truth[0].func[0],
			       run.walk.truth[0].func[run.walk.truth[0].nr - 1]);
	return ok;
}

/*
 * What the frame pointer unwinder gives here: the chain itself in the frame
 * pointer build (which checks the simulation against the kernel), never the
 * chain in the SFrame builds (else the SFrame checks prove nothing).
 */
static bool check_fp_simulation(void)
{
	const struct sft_truth *t = &run.walk.truth[0];
	bool same = t->fp_nr >= t->nr;
	unsigned int i;

	char names[512] = "";
	size_t len = 0;

	for (i = 0; same && i < t->nr; i++)
		same = t->fp_ips[i] == t->addr[i];
	for (i = 0; i < t->fp_nr && i < 8 && len < sizeof(names); i++) {
		const struct sft_sym *s;

		s = sft_symtab_lookup(&syms, i ? t->fp_ips[i] - 1 :
				      t->fp_ips[i]);
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				i ? " " : "", s ? s->name : "?");
	}
	ksft_print_msg("frame pointer unwinder, simulated: %u frames%s, %s\n",
		       t->fp_nr, t->fp_open ? " and more" : "",
		       same ? "the chain" : "not the chain");
	ksft_print_msg("frame pointer unwinder, simulated: %s%s\n", names,
		       t->fp_nr > 8 ? " ..." : "");
	return SFT_SFRAME_VERSION ? !same : same;
}

#if SFT_SFRAME_VERSION == 3
/*
 * Runs the chain from a function whose CFI says, past its first
 * instruction, that the return address is undefined: GNU as 2.46 and later
 * emit an FRE without data words there, which marks the outermost frame.
 * The kernel must stop the walk at this function.  It keeps a frame pointer
 * (it has a VLA): a kernel that took the FRE for an error and fell back to
 * the frame pointer would go on to main().
 */
SFT_FN int st_outermost(struct sft_run *r, long len)
{
	char buf[len];

#if defined(__x86_64__)
	asm volatile(".cfi_undefined %rip");
#else
	asm volatile(".cfi_undefined x30");
#endif
	memset(buf, 0x42, len);
	SFT_ESCAPE(buf);
	return SFT_RECORD_CHAIN(r);
}

static bool check_outermost(void)
{
	int ret, v, i;

	ret = st_outermost(&run, 24 + (getpid() & 8));
	v = ret ? SFT_BROKEN :
	    sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	if (v != SFT_TRUTH)
		return false;
	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		const struct sft_truth *t = &run.walk.truth[i];
		const struct sft_sample *s = &run.samples[i];

		if (s->nr != t->nr) {
			ksft_print_msg("system call %d: %u frames, %u down to %s\n",
				       i, s->nr, t->nr, t->func[t->nr - 1]);
			return false;
		}
	}
	ksft_print_msg("the stack ends at %s, frame %u\n",
		       run.walk.truth[0].func[run.walk.truth[0].nr - 1],
		       run.walk.truth[0].nr - 1);
	return true;
}
#endif

/* The copy without PT_GNU_SFRAME gets the frame pointer stack. */
static bool check_sensitivity(void)
{
	struct elf64_phdr *ph;
	char path[128];
	int v;

	ph = sft_elf_find_phdr(&self.elf, PT_GNU_SFRAME);
	ph->p_type = PT_NULL;
	sft_tmp_copy(path, sizeof(path), "ptnull");
	if (sft_elf_save(&self.elf, path)) {
		ph->p_type = PT_GNU_SFRAME;
		return false;
	}
	ph->p_type = PT_GNU_SFRAME;

	ksft_print_msg("running %s, this program with PT_GNU_SFRAME turned into PT_NULL\n",
		       path);
	v = sft_run_probe(path, SFT_FP, NULL, PROBE_TIMEOUT);
	unlink(path);
	if (v == SFT_FP)
		ksft_print_msg("as expected, the comparison FAILS there: frame pointer stack\n");
	return v == SFT_FP;
}

int main(int argc, char **argv)
{
	unsigned int plan = SFT_SFRAME_VERSION ?
			    9 + (SFT_SFRAME_VERSION == 3) + LEAF_LR_TESTS : 7;
	int ret, verdict;

	SFT_PROBE_MAIN(argc, argv);

	ksft_print_header();
	ksft_set_plan(plan);
	ksft_print_msg("%s: chain of %d functions, %s\n", argv[0],
		       SFT_CHAIN_FUNCS,
		       SFT_SFRAME_VERSION ? "no frame pointers, SFrame" :
		       "frame pointers, no SFrame");

	if (sft_symtab_load_self(&syms) || sft_self_load(&self, &syms))
		ksft_exit_fail_msg("cannot read this program's ELF image\n");

	ksft_test_result(check_binary(), "binary: %s\n",
			 SFT_SFRAME_VERSION ?
			 (SFT_SFRAME_VERSION == 2 ? "PT_GNU_SFRAME, SFrame V2" :
			  "PT_GNU_SFRAME, SFrame V3") :
			 "no PT_GNU_SFRAME");
	if (SFT_SFRAME_VERSION)
		ksft_test_result(self.has_sframe && check_fdes(),
				 "binary: an FDE for each chain function%s\n",
				 !SFT_REALIGN_DRAP ? "" :
				 SFT_SFRAME_VERSION == 2 ?
				 " but st_realign (V2 cannot describe it)" :
				 ", a flex FDE for st_realign");

	ret = sft_run_open(&run);
	if (!ret)
		ret = SFT_RECORD_CHAIN(&run);
	if (ret)
		ksft_print_msg("recording: %s\n", strerror(-ret));
	verdict = ret ? SFT_BROKEN :
		  sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	ksft_test_result(!ret && verdict != SFT_BROKEN,
			 "record: two getppid samples, each with its deferred user stack\n");
	ksft_test_result(!ret && check_truth(),
			 "truth: the recorded names are the symbols at the recorded addresses\n");
	ksft_test_result(verdict != SFT_BROKEN && run.verdict[0] == SFT_TRUTH,
			 "stack at st_leaf_bare: the chain, every frame at its address\n");
	ksft_test_result(verdict != SFT_BROKEN && run.verdict[1] == SFT_TRUTH,
			 "stack at st_leaf_framed: the chain, every frame at its address\n");
#if LEAF_LR_TESTS
	if (SFT_SFRAME_VERSION)
		ksft_test_result(!ret && self.has_sframe && check_leaves_lr(),
				 "leaves: the return address in the link register at both system calls\n");
#endif
	ksft_test_result(!ret && check_fp_simulation(),
			 "frame pointers: the simulated frame pointer stack %s the chain\n",
			 SFT_SFRAME_VERSION ? "is not" : "is");

	/* A second run: the registration and the unwinding are repeatable. */
	ret = SFT_RECORD_CHAIN(&run);
	verdict = ret ? SFT_BROKEN :
		  sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	ksft_test_result(verdict == SFT_TRUTH,
			 "second run: the chain again\n");
#if SFT_SFRAME_VERSION == 3
	ksft_test_result(check_outermost(),
			 "outermost: the walk stops at a frame whose return address is undefined\n");
#endif
	sft_run_close(&run);

	if (SFT_SFRAME_VERSION)
		ksft_test_result(self.has_sframe && check_sensitivity(),
				 "sensitivity: without PT_GNU_SFRAME the stack is the frame pointer one, the comparison fails\n");

	sft_self_free(&self);
	sft_symtab_free(&syms);
	ksft_finished();
}
