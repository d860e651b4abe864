// SPDX-License-Identifier: GPL-2.0
/*
 * Merging of deferred user callchains (PERF_RECORD_CALLCHAIN_DEFERRED) into
 * the samples that carry their cookie, on a stream of synthesized events in
 * pipe mode: a sample before its record, a sample after it (the kernel hands
 * out the cookie of a deferred unwind until the thread returns to user space,
 * so a sample taken in the unwind itself comes after the record), a sample of
 * another thread with the same cookie value, a sample whose record never
 * comes, and the exit of a thread both before and after its record (a kernel
 * may unwind an exiting task after writing its PERF_RECORD_EXIT): its record
 * is not kept after its exit, in either order, and the samples waiting for
 * it are merged.  Then a thread exits with a sample waiting for a record
 * that never comes, and a new thread gets its TID: its record is kept.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "debug.h"
#include "deferred-callchain-stream.h"
#include "tests.h"

#define TEST_TID	100
#define OTHER_TID	200
#define LATE_TID	300
#define EXIT_TID	400
#define REUSED_TID	500
#define COOKIE		0x1234500000001ULL
#define LOST_COOKIE	0x1234500000002ULL
#define LATE_COOKIE	0x1234500000003ULL
#define EXIT_COOKIE	0x1234500000004ULL
#define OLD_COOKIE	0x1234500000005ULL
#define NEW_COOKIE	0x1234500000006ULL

/* The exit (or fork) of thread @tid, with its sample_id (TID, TIME) */
static u64 *put_task(u64 *pos, u32 type, u32 tid, u64 time)
{
	struct perf_event_header *hdr = (void *)pos;
	u64 body[] = {
		(u64)tid << 32 | tid,			/* pid, ppid */
		(u64)tid << 32 | tid,			/* tid, ptid */
		time,
		(u64)tid << 32 | tid, time,		/* sample_id */
	};

	hdr->type = type;
	hdr->misc = PERF_RECORD_MISC_USER;
	hdr->size = sizeof(*hdr) + sizeof(body);
	return dcs__put(pos + 1, body, ARRAY_SIZE(body));
}

/* Was @d a sample of @tid left alone, its cookie last? */
static bool unmerged(const struct dcs_delivered *d, u32 tid, u64 cookie)
{
	return d->tid == tid && d->nr == 4 && d->ips[3] == cookie;
}

static int test__deferred_callchain(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	const u64 nr = DCS_NR_USER_IPS;
	struct dcs_tool dt;
	u64 stream[256], *pos;

	pos = dcs__put_header(stream);
	pos = dcs__put_sample(pos, TEST_TID, 100, COOKIE);	/* before */
	pos = dcs__put_sample(pos, OTHER_TID, 110, COOKIE);	/* other thread */
	pos = dcs__put_record(pos, TEST_TID, 120, COOKIE, nr);
	pos = dcs__put_sample(pos, TEST_TID, 130, COOKIE);	/* after */
	pos = dcs__put_sample(pos, TEST_TID, 140, LOST_COOKIE);	/* no record */
	pos = dcs__put_record(pos, EXIT_TID, 170, EXIT_COOKIE, nr);
	pos = put_task(pos, PERF_RECORD_EXIT, EXIT_TID, 180);
	pos = dcs__put_sample(pos, EXIT_TID, 190, EXIT_COOKIE);	/* after exit */
	pos = dcs__put_sample(pos, LATE_TID, 200, LATE_COOKIE);	/* waits */
	pos = put_task(pos, PERF_RECORD_EXIT, LATE_TID, 210);
	pos = dcs__put_record(pos, LATE_TID, 220, LATE_COOKIE, nr);
	pos = dcs__put_sample(pos, LATE_TID, 230, LATE_COOKIE);	/* after both */
	pos = dcs__put_sample(pos, REUSED_TID, 240, OLD_COOKIE); /* never merged */
	pos = put_task(pos, PERF_RECORD_EXIT, REUSED_TID, 250);
	pos = put_task(pos, PERF_RECORD_FORK, REUSED_TID, 260);
	pos = dcs__put_record(pos, REUSED_TID, 270, NEW_COOKIE, nr);
	pos = dcs__put_sample(pos, REUSED_TID, 280, NEW_COOKIE); /* after it */

	if (dcs__process(&dt, stream, pos)) {
		pr_debug("processing the events failed\n");
		return TEST_FAIL;
	}

	/*
	 * The record delivers the sample before it and leaves the other
	 * thread's alone, the sample after the record is merged at once.  The
	 * record after its thread's exit delivers the sample waiting for it,
	 * merged, the next one waits.  The record of a new thread with the TID
	 * of one that exited delivers the old thread's sample as it is, and
	 * is kept for the sample after it.  The end of the stream delivers the
	 * ones still waiting, as they are: no record of a thread that exited,
	 * before or after its record, is merged later.
	 */
	if (dt.nr_samples != 9)
		pr_debug("%d samples delivered, not 9\n", dt.nr_samples);
	else if (!dcs__merged(&dt.samples[0], TEST_TID))
		pr_debug("the sample before its record was not merged\n");
	else if (!dcs__merged(&dt.samples[1], TEST_TID))
		pr_debug("the sample after its record was not merged\n");
	else if (!dcs__merged(&dt.samples[2], LATE_TID))
		pr_debug("the sample before an exit and its record was not merged\n");
	else if (!unmerged(&dt.samples[3], REUSED_TID, OLD_COOKIE))
		pr_debug("the sample of the exited thread was changed\n");
	else if (!dcs__merged(&dt.samples[4], REUSED_TID))
		pr_debug("the record of a new thread with an old TID was not kept\n");
	else if (!unmerged(&dt.samples[5], OTHER_TID, COOKIE))
		pr_debug("the sample of another thread was changed\n");
	else if (!unmerged(&dt.samples[6], TEST_TID, LOST_COOKIE))
		pr_debug("the sample without a record was changed\n");
	else if (!unmerged(&dt.samples[7], EXIT_TID, EXIT_COOKIE))
		pr_debug("the record of a thread that exited was merged\n");
	else if (!unmerged(&dt.samples[8], LATE_TID, LATE_COOKIE))
		pr_debug("a record that came after its thread's exit was kept\n");
	else
		return TEST_OK;
	return TEST_FAIL;
}

DEFINE_SUITE("Merge deferred callchains", deferred_callchain);
