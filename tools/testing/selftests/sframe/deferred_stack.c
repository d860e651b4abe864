// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user stack through perf, checked against ground truth.
 *
 * A perf event samples the syscalls/sys_enter_getppid tracepoint of this
 * thread with defer_callchain set: the sample carries no user IPs, only
 * PERF_CONTEXT_USER_DEFERRED and a cookie, and the kernel unwinds the user
 * stack on the way back to user space into a PERF_RECORD_CALLCHAIN_DEFERRED
 * with the same cookie, written to this event because it has defer_output.
 * That stack must be main() -> sframe_chain_1() -> ... -> sframe_chain_8(),
 * frame by frame, at the exact addresses the chain recorded while running.
 *
 * The Makefile builds this program once per kind of unwind information
 * (fp_deferred: frame pointers).  SFRAME_SYNC_CALLCHAIN=1 in the
 * environment asks for a synchronous user callchain instead, to exercise
 * the reader, the symbolizer and the comparison on kernels without deferred
 * callchains; the deferred-only check is then skipped and the run says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "../kselftest.h"
#include "sframe_lib.h"
#include "stack_chain.h"

#define TP_GROUP	"syscalls"
#define TP_EVENT	"sys_enter_getppid"
#define MAX_SAMPLES	8

static struct sft_sample samples[MAX_SAMPLES];

/* Open and enable the event, right before the chain's system call. */
static int record_start(struct sft_perf *ev, bool sync)
{
	int tp, ret;

	tp = sft_tracepoint_id(TP_GROUP, TP_EVENT);
	if (tp < 0)
		return tp;
	ret = sft_perf_open_tracepoint(ev, tp, !sync);
	if (ret)
		return ret;
	return sft_perf_enable(ev);
}

/* Stop sampling, check the system call happened, read the ring buffer. */
static int record_stop(struct sft_perf *ev, long chain_ret,
		       struct sft_ring_stats *st)
{
	int n;

	n = sft_perf_disable(ev);
	if (n)
		return n;
	if (chain_ret != getppid()) {
		ksft_print_msg("getppid via the chain returned %ld, getppid() %d\n",
			       chain_ret, getppid());
		return -EIO;
	}
	n = sft_perf_collect(ev, samples, MAX_SAMPLES, st);
	if (n < 0)
		return n;
	ksft_print_msg("ring: %u samples, %u deferred records\n",
		       st->samples, st->deferred);
	ksft_print_msg("ring: %u unmatched, %u duplicate, %u lost, %u other\n",
		       st->unmatched, st->duplicates, st->lost, st->other);
	return n;
}

static bool check_sample(const struct sft_sample *s, int nsamples, bool sync)
{
	bool ok = true;

	if (nsamples != 1) {
		ksft_print_msg("expected exactly one sample for one %s, got %d\n",
			       TP_EVENT, nsamples);
		return false;
	}
	if (s->pid != (__u32)getpid() || s->tid != (__u32)gettid()) {
		ksft_print_msg("sample is from pid %u tid %u, not from us\n",
			       s->pid, s->tid);
		ok = false;
	}
	if (s->kernel_ips) {
		ksft_print_msg("sample has %u kernel IPs, yet exclude_callchain_kernel\n",
			       s->kernel_ips);
		ok = false;
	}
	if (sync) {
		if (!s->sync_user || s->deferred) {
			ksft_print_msg("synchronous mode: sample has no PERF_CONTEXT_USER chain\n");
			ok = false;
		}
		return ok;
	}
	/* The deferred path: the marker and the cookie, nothing else. */
	if (s->sync_user) {
		ksft_print_msg("sample has a synchronous user callchain (%u IPs)\n",
			       s->nr);
		ok = false;
	}
	if (s->malformed || !s->deferred || s->chain_nr != 2 || !s->cookie) {
		ksft_print_msg("sample callchain is not exactly USER_DEFERRED, cookie\n");
		ksft_print_msg("(%u words, deferred %d, cookie %#llx)\n",
			       s->chain_nr, s->deferred,
			       (unsigned long long)s->cookie);
		ok = false;
	}
	return ok;
}

static bool check_record(const struct sft_sample *s,
			 const struct sft_ring_stats *st)
{
	if (!s->merged) {
		ksft_print_msg("no deferred record with cookie %#llx among %u\n",
			       (unsigned long long)s->cookie, st->deferred);
		return false;
	}
	if (s->rec_pid != s->pid || s->rec_tid != s->tid) {
		ksft_print_msg("deferred record from %u/%u, sample from %u/%u\n",
			       s->rec_pid, s->rec_tid, s->pid, s->tid);
		return false;
	}
	ksft_print_msg("deferred record for cookie %#llx: %u IPs\n",
		       (unsigned long long)s->cookie, s->nr);
	return true;
}

/* @caller: the function that called sframe_chain_1(). */
static bool check_stack(const struct sft_symtab *syms,
			const struct sft_sample *s, const char *caller)
{
	struct sft_frame expect[SFT_CHAIN_DEPTH + 1];
	unsigned int i;

	for (i = 0; i < SFT_CHAIN_DEPTH; i++) {
		expect[i].func = sft_chain_func[i];
		expect[i].addr = sft_chain_addr[i];
	}
	expect[i].func = caller;
	expect[i].addr = sft_chain_addr[i];

	return sft_stack_matches(syms, expect, SFT_CHAIN_DEPTH + 1,
				 s->ips, s->nr);
}

int main(int argc, char **argv)
{
	const char *env = getenv("SFRAME_SYNC_CALLCHAIN");
	bool sync = env && strcmp(env, "0");
	struct sft_ring_stats st;
	struct sft_symtab syms;
	struct sft_perf ev = { .fd = -1 };
	const struct sft_sample *s = &samples[0];
	bool sample_ok;
	int n;

	ksft_print_header();
	ksft_set_plan(4);
	ksft_print_msg("%s: %s user callchain of %s/%s\n",
		       argc ? argv[0] : "?",
		       sync ? "SYNCHRONOUS (development mode)" : "deferred",
		       TP_GROUP, TP_EVENT);

	if (sft_symtab_load_self(&syms)) {
		ksft_test_result_fail("record: no symbols for the test program\n");
		goto skip3;
	}
	n = record_start(&ev, sync);
	if (!n) {
		/*
		 * Called from main() itself, never from a helper that may or
		 * may not be inlined: main is the frame after the chain.
		 */
		long ret = sframe_chain_1(__NR_getppid, 0);

		n = record_stop(&ev, ret, &st);
	}
	sft_perf_close(&ev);
	if (n < 0) {
		ksft_test_result_fail("record: %s on %s/%s\n",
				      sync ? "sampling" : "deferred sampling",
				      TP_GROUP, TP_EVENT);
		goto skip3_syms;
	}
	ksft_test_result_pass("record: %s sampling on %s/%s\n",
			      sync ? "synchronous" : "deferred",
			      TP_GROUP, TP_EVENT);

	sample_ok = check_sample(s, n, sync);
	ksft_test_result(sample_ok, "sample: %s\n",
			 sync ? "synchronous user callchain" :
			 "only PERF_CONTEXT_USER_DEFERRED and a cookie");
	if (!sample_ok) {
		ksft_test_result_skip("deferred record: needs a good sample\n");
		ksft_test_result_skip("user stack: needs a good sample\n");
		goto out;
	}

	if (sync) {
		ksft_test_result_skip("deferred record: synchronous mode\n");
	} else if (!check_record(s, &st)) {
		ksft_test_result_fail("deferred record: with the sample's cookie\n");
		ksft_test_result_skip("user stack: needs the deferred record\n");
		goto out;
	} else {
		ksft_test_result_pass("deferred record: with the sample's cookie\n");
	}

	ksft_test_result(check_stack(&syms, s, __func__),
			 "user stack: %s -> %s ... -> %s\n", __func__,
			 sft_chain_func[SFT_CHAIN_DEPTH - 1], sft_chain_func[0]);
out:
	sft_symtab_free(&syms);
	ksft_finished();

skip3_syms:
	sft_symtab_free(&syms);
skip3:
	ksft_test_result_skip("sample: nothing recorded\n");
	ksft_test_result_skip("deferred record: nothing recorded\n");
	ksft_test_result_skip("user stack: nothing recorded\n");
	ksft_finished();
}
