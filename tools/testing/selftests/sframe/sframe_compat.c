// SPDX-License-Identifier: GPL-2.0
/*
 * Compat (AArch32) tasks on arm64: no SFrame registration, no user stack.
 *
 * The unwinder walks the stacks of AArch64 tasks only: AArch32 frame records
 * come in two layouts that the frame pointer does not tell apart, and
 * SFrame has no AArch32 ABI, so a compat task gets no user stack rather
 * than a wrong one (arch/arm64/include/asm/unwind_user.h).  The test writes
 * an AArch32 program (sframe_a32.c) whose PT_GNU_SFRAME describes the loop
 * it spins in, runs it and checks:
 *  - exec: the program runs (the CPU and the kernel run AArch32 code) and
 *    its getpid system call returns its pid;
 *  - registration: /proc/<pid>/sframe lists nothing: the ELF loader does
 *    not register the section of a compat program, and its own
 *    codectl(CODECTL_REGISTER_SFRAME) of the section fails with EOPNOTSUPP;
 *  - stack: a perf task-clock event samples it while it spins in user mode
 *    and asks for deferred user callchains: every sample gets its deferred
 *    record, and every one of them is empty.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/codectl.h>

#include "../kselftest.h"
#include "sframe_a32.h"
#include "sframe_lib.h"

/* How long the program is sampled, and how often */
#define SAMPLE_MS	300
#define PERIOD_NS	1000000ULL
/* Fewer samples than this: the event did not see the program run */
#define MIN_SAMPLES	20

enum { CALL_GETPID, CALL_REGISTER, NR_CALLS };

static pid_t child = -1;
static __s32 results[NR_CALLS];

/* Write the program and run it until it reported its results. */
static bool start(const char *path)
{
	struct codectl_sframe arg = { 0 };
	struct sft_a32_call calls[NR_CALLS] = { 0 };
	int ret;

	/* Its own section for its loop: what the ELF loader skipped */
	arg.text_start = SFT_A32_BASE;
	arg.text_end = sft_a32_loop(NR_CALLS) + 4;
	arg.sframe_start = sft_a32_sframe();
	arg.sframe_end = sft_a32_sframe() + 64;
	calls[CALL_GETPID].nr = SFT_A32_NR_GETPID;
	calls[CALL_REGISTER].nr = SFT_A32_NR_CODECTL;
	calls[CALL_REGISTER].args[0] = CODECTL_REGISTER_SFRAME;
	calls[CALL_REGISTER].args[1] = SFT_A32_DATA;
	calls[CALL_REGISTER].args[2] = CODECTL_SFRAME_SIZE_VER0;
	ret = sft_a32_write(path, calls, NR_CALLS, &arg, sizeof(arg));
	if (ret) {
		ksft_print_msg("writing %s: %s\n", path, strerror(-ret));
		return false;
	}
	return !sft_a32_start(path, NR_CALLS, results, &child);
}

static bool check_exec(void)
{
	if (results[CALL_GETPID] != child) {
		ksft_print_msg("getpid() returned %d, not %d\n",
			       results[CALL_GETPID], child);
		return false;
	}
	return true;
}

/* No line in /proc/<pid>/sframe; codectl() failed with EOPNOTSUPP */
static bool check_registration(void)
{
	char path[64], line[512];
	int lines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sframe", child);
	f = fopen(path, "re");
	if (!f) {
		ksft_print_msg("%s: %s\n", path, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		ksft_print_msg("registered: %s", line);
		lines++;
	}
	fclose(f);
	if (results[CALL_REGISTER] != -EOPNOTSUPP) {
		ksft_print_msg("codectl(CODECTL_REGISTER_SFRAME) returned %d, not -EOPNOTSUPP\n",
			       results[CALL_REGISTER]);
		return false;
	}
	return !lines;
}

static void nap_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

/* Every sample of the spinning program: a deferred record, empty */
static bool check_stacks(void)
{
	static struct sft_sample samples[SFT_MAX_DEFERRED];
	struct sft_ring_stats st;
	struct sft_perf ev;
	unsigned int bad = 0, merged = 0;
	int n, i;

	if (sft_perf_open_task_clock(&ev, child, PERIOD_NS))
		return false;
	if (sft_perf_enable(&ev)) {
		sft_perf_close(&ev);
		return false;
	}
	nap_ms(SAMPLE_MS);
	/* Stopped, it has made the deferred walk of its last sample. */
	if (kill(child, SIGSTOP) || waitpid(child, NULL, WUNTRACED) != child) {
		ksft_perror("stopping the AArch32 program");
		sft_perf_close(&ev);
		return false;
	}
	if (sft_perf_disable(&ev)) {
		sft_perf_close(&ev);
		return false;
	}
	n = sft_perf_collect(&ev, samples, SFT_MAX_DEFERRED, &st);
	sft_perf_close(&ev);
	if (n < 0)
		return false;
	for (i = 0; i < n && i < SFT_MAX_DEFERRED; i++) {
		const struct sft_sample *s = &samples[i];

		if (s->merged)
			merged++;
		if (!s->deferred || !s->merged || s->nr || s->sync_user) {
			if (bad++ < 4)
				ksft_print_msg("sample %d: %s, %s, %u user frames, first %#llx\n",
					       i, s->deferred ? "deferred" : "not deferred",
					       s->merged ? "record found" : "no record",
					       s->nr, s->nr ? (unsigned long long)s->ips[0] : 0);
		}
	}
	ksft_print_msg("%d samples, %u deferred records (%u matched), %u lost\n",
		       n, st.deferred, merged, st.lost);
	ksft_print_msg("%u samples without an empty deferred stack\n", bad);
	if (n < MIN_SAMPLES) {
		ksft_print_msg("fewer than %d samples in %d ms\n", MIN_SAMPLES,
			       SAMPLE_MS);
		return false;
	}
	return !bad;
}

int main(void)
{
	char path[128];
	bool ran;

	ksft_print_header();
	ksft_set_plan(3);
	sft_tmp_copy(path, sizeof(path), "a32");

	ran = start(path);
	ksft_test_result(ran && check_exec(),
			 "exec: an AArch32 program runs, its getpid() is its pid\n");
	ksft_test_result(ran && check_registration(),
			 "registration: none at exec for its PT_GNU_SFRAME, codectl() refused with EOPNOTSUPP\n");
	ksft_test_result(ran && check_stacks(),
			 "stack: each sample of the AArch32 program gets an empty deferred user stack\n");

	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	unlink(path);
	ksft_finished();
}
