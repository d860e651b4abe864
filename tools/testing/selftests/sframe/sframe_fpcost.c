// SPDX-License-Identifier: GPL-2.0
/*
 * What a frame of a deferred user stack costs the kernel, by frame pointer
 * (a measurement, not a test; built with frame pointers, no SFrame).
 *
 *   sframe_fpcost [CALLS]
 *
 * A recursion of fc_a (and fc_b) makes a getppid system call at its
 * bottom, CALLS times (default 4000) for each depth and layout, while perf
 * samples the system call with a deferred callchain; the time per system
 * call, the best of batches of FC_BATCH, is measured with the event
 * disabled and enabled, at depths 8 and 136.  The difference per frame
 * between the two depths is the cost of a frame of the walk.  Two
 * layouts: fc_a calling itself, every return address in one mapping; and
 * fc_a and fc_b calling each other, fc_b on a page that MADV_DONTFORK
 * makes a mapping of its own, so that consecutive return addresses are
 * in different mappings.  Each is measured twice: first with the vDSO's
 * SFrame section registered, as in every task, so that the unwinder tries
 * SFrame before it follows the frame pointers; then with it unregistered,
 * the task's registry empty: frame pointers only.  Run on two kernels, with
 * and without a change of the unwinder, it gives that change's cost per
 * frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "../kselftest.h"
#include "sframe_codectl.h"
#include "sframe_lib.h"

#define FC_SHALLOW	8
#define FC_DEEP		136
/* System calls timed together; fewer than the ring holds stacks of */
#define FC_BATCH	20

static SFT_FN long fc_leaf(void)
{
	return sft_getppid();
}

/* fc_b, for fc_a */
static long (*fc_other)(int n, int alt);

/* Each on a page of its own (-falign-functions=4096): see main() */
static SFT_FN long fc_a(int n, int alt)
{
	long r = n ? (alt ? fc_other : fc_a)(n - 1, alt) : fc_leaf();

	SFT_KEEP(r);
	return r;
}

static SFT_FN long fc_b(int n, int alt)
{
	long r = n ? fc_a(n - 1, alt) : fc_leaf();

	SFT_KEEP(r);
	return r;
}

/* Throw away what the ring holds */
static void drain(struct sft_perf *p)
{
	struct perf_event_mmap_page *pc = p->base;
	__u64 head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
}

/*
 * Nanoseconds per system call at @depth, the event on or off: the best of
 * @calls / FC_BATCH batches, as other work on the host or in the guest
 * only ever makes a batch slower.
 */
static double run(struct sft_perf *p, int depth, int alt, bool on, int calls)
{
	double best = 1e30, t0, t;
	int i, b;

	if (on && sft_perf_enable(p))
		exit(1);
	for (b = 0; b < calls / FC_BATCH; b++) {
		drain(p);
		t0 = sft_now();
		for (i = 0; i < FC_BATCH; i++)
			fc_a(depth, alt);
		t = sft_now() - t0;
		best = t < best ? t : best;
	}
	if (on && sft_perf_disable(p))
		exit(1);
	drain(p);
	return best / FC_BATCH * 1e9;
}

/* One stack, to see that the kernel walks all of it */
static unsigned int frames(struct sft_perf *p, int depth, int alt)
{
	static struct sft_sample s[4];
	struct sft_ring_stats st;

	drain(p);
	if (sft_perf_enable(p))
		exit(1);
	fc_a(depth, alt);
	if (sft_perf_disable(p))
		exit(1);
	if (sft_perf_collect(p, s, 4, &st) != 1 || !s[0].merged)
		return 0;
	return s[0].nr;
}

/* The cost of a frame in each layout */
static void measure(struct sft_perf *p, int calls)
{
	int alt;

	for (alt = 0; alt < 2; alt++) {
		double off_s, off_d, on_s, on_d;
		unsigned int fs, fd;

		fs = frames(p, FC_SHALLOW, alt);
		fd = frames(p, FC_DEEP, alt);
		if (!fs || fd <= fs)
			ksft_exit_fail_msg("stacks of %u and %u frames\n", fs, fd);
		/* Warm up, then measure */
		run(p, FC_DEEP, alt, true, calls / 10 + FC_BATCH);
		off_s = run(p, FC_SHALLOW, alt, false, calls);
		off_d = run(p, FC_DEEP, alt, false, calls);
		on_s = run(p, FC_SHALLOW, alt, true, calls);
		on_d = run(p, FC_DEEP, alt, true, calls);
		printf("  %s: %u and %u frames: %.0f and %.0f ns a call without the event,\n",
		       alt ? "two mappings, alternating" : "one mapping",
		       fs, fd, off_s, off_d);
		printf("    %.0f and %.0f ns with it: %.1f ns a frame\n", on_s, on_d,
		       ((on_d - off_d) - (on_s - off_s)) / (fd - fs));
	}
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 4000;
	unsigned long page = sysconf(_SC_PAGESIZE);
	struct sft_reg regs[2];
	struct sft_perf p;
	int tp;

	if (calls <= 0)
		ksft_exit_fail_msg("usage: %s [CALLS]\n", argv[0]);
	fc_other = fc_b;
	/* fc_b's page, a mapping of its own: the same text, another VMA */
	if (madvise((void *)((unsigned long)fc_b & ~(page - 1)), page,
		    MADV_DONTFORK))
		ksft_exit_fail_msg("madvise: %s\n", strerror(errno));
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&p, tp, true))
		ksft_exit_fail_msg("cannot sample getppid with deferred callchains\n");

	printf("the vDSO's SFrame section registered:\n");
	measure(&p, calls);
	/* The vDSO's is the only registration there is */
	if (sft_regs_read(regs, 2) != 1 ||
	    sft_codectl_unregister(regs[0].text_start))
		ksft_exit_fail_msg("cannot unregister the vDSO's SFrame section\n");
	printf("no SFrame section registered:\n");
	measure(&p, calls);
	sft_perf_close(&p);
	return 0;
}
