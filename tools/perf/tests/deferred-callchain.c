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
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "data.h"
#include "debug.h"
#include "event.h"
#include "evlist.h"
#include "header.h"
#include "sample.h"
#include "session.h"
#include "tests.h"
#include "tool.h"

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
#define KERNEL_IP	0xffffffff81000000ULL

/* The user part of the stack that the record gives. */
static const u64 user_ips[] = { PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403000 };

/* What the session delivers to the tool, in order. */
struct delivered {
	u32 tid;
	u64 nr;
	u64 ips[8];
};

struct deferred_tool {
	struct perf_tool tool;
	struct delivered samples[16];
	int nr_samples;
};

static int deferred_tool__sample(const struct perf_tool *tool,
				 union perf_event *event __maybe_unused,
				 struct perf_sample *sample,
				 struct machine *machine __maybe_unused)
{
	struct deferred_tool *dt = container_of(tool, struct deferred_tool, tool);
	struct delivered *d;

	if (dt->nr_samples == (int)ARRAY_SIZE(dt->samples) ||
	    sample->callchain->nr > ARRAY_SIZE(d->ips))
		return -1;
	d = &dt->samples[dt->nr_samples++];
	d->tid = sample->tid;
	d->nr = sample->callchain->nr;
	memcpy(d->ips, sample->callchain->ips, d->nr * sizeof(u64));
	return 0;
}

/* Append @n u64 words to the stream at @pos. */
static u64 *put(u64 *pos, const u64 *words, size_t n)
{
	memcpy(pos, words, n * sizeof(u64));
	return pos + n;
}

/*
 * A sample of cpu-clock (IP, TID, TIME, CALLCHAIN) whose callchain is a
 * kernel frame and the cookie of a deferred user callchain.
 */
static u64 *put_sample(u64 *pos, u32 tid, u64 time, u64 cookie)
{
	struct perf_event_header *hdr = (void *)pos;
	u64 body[] = {
		0x401000,				/* ip */
		(u64)tid << 32 | tid,			/* pid, tid */
		time,
		4, PERF_CONTEXT_KERNEL, KERNEL_IP,	/* callchain */
		PERF_CONTEXT_USER_DEFERRED, cookie,
	};

	hdr->type = PERF_RECORD_SAMPLE;
	hdr->misc = PERF_RECORD_MISC_KERNEL;
	hdr->size = sizeof(*hdr) + sizeof(body);
	return put(pos + 1, body, ARRAY_SIZE(body));
}

/*
 * The deferred callchain record of @cookie, with its sample_id (TID, TIME):
 * user_ips, said to be @nr entries.
 */
static u64 *put_record(u64 *pos, u32 tid, u64 time, u64 cookie, u64 nr)
{
	struct perf_event_header *hdr = (void *)pos;
	u64 head[] = { cookie, nr };
	u64 id[] = { (u64)tid << 32 | tid, time };

	hdr->type = PERF_RECORD_CALLCHAIN_DEFERRED;
	hdr->misc = PERF_RECORD_MISC_USER;
	hdr->size = sizeof(*hdr) + sizeof(head) + sizeof(user_ips) + sizeof(id);
	pos = put(pos + 1, head, ARRAY_SIZE(head));
	pos = put(pos, user_ips, ARRAY_SIZE(user_ips));
	return put(pos, id, ARRAY_SIZE(id));
}

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
	return put(pos + 1, body, ARRAY_SIZE(body));
}

static u64 *put_attr(u64 *pos)
{
	struct perf_record_header_attr *ev = (void *)pos;
	u64 id = 1;

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_HEADER_ATTR;
	ev->header.size = sizeof(*ev) + sizeof(id);
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	ev->attr.sample_id_all = 1;
	ev->attr.defer_callchain = 1;
	ev->attr.defer_output = 1;
	return put((u64 *)(ev + 1), &id, 1);
}

/* Was @d a sample of @tid with the kernel frame merged with user_ips? */
static bool merged(const struct delivered *d, u32 tid)
{
	return d->tid == tid && d->nr == 3 + ARRAY_SIZE(user_ips) &&
	       d->ips[1] == KERNEL_IP &&
	       d->ips[2] == PERF_CONTEXT_USER_DEFERRED &&
	       !memcmp(&d->ips[3], user_ips, sizeof(user_ips));
}

/* Was @d a sample of @tid left alone, its cookie last? */
static bool unmerged(const struct delivered *d, u32 tid, u64 cookie)
{
	return d->tid == tid && d->nr == 4 && d->ips[3] == cookie;
}

static int test__deferred_callchain(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	struct deferred_tool dt = { .nr_samples = 0 };
	struct perf_pipe_file_header *phdr;
	struct perf_data data = {
		.path = "-",
		.mode = PERF_DATA_MODE_READ,
	};
	struct perf_session *session;
	u64 stream[256], *pos;
	int fds[2], err = TEST_FAIL;
	size_t len;

	phdr = (void *)stream;
	phdr->magic = 0x32454c4946524550ULL;	/* "PERFILE2" */
	phdr->size = sizeof(*phdr);
	pos = put_attr(stream + sizeof(*phdr) / sizeof(u64));
	pos = put_sample(pos, TEST_TID, 100, COOKIE);		/* before */
	pos = put_sample(pos, OTHER_TID, 110, COOKIE);		/* other thread */
	pos = put_record(pos, TEST_TID, 120, COOKIE, ARRAY_SIZE(user_ips));
	pos = put_sample(pos, TEST_TID, 130, COOKIE);		/* after */
	pos = put_sample(pos, TEST_TID, 140, LOST_COOKIE);	/* no record */
	pos = put_record(pos, EXIT_TID, 170, EXIT_COOKIE, ARRAY_SIZE(user_ips));
	pos = put_task(pos, PERF_RECORD_EXIT, EXIT_TID, 180);
	pos = put_sample(pos, EXIT_TID, 190, EXIT_COOKIE);	/* after exit */
	pos = put_sample(pos, LATE_TID, 200, LATE_COOKIE);	/* waits */
	pos = put_task(pos, PERF_RECORD_EXIT, LATE_TID, 210);
	pos = put_record(pos, LATE_TID, 220, LATE_COOKIE, ARRAY_SIZE(user_ips));
	pos = put_sample(pos, LATE_TID, 230, LATE_COOKIE);	/* after both */
	pos = put_sample(pos, REUSED_TID, 240, OLD_COOKIE);	/* never merged */
	pos = put_task(pos, PERF_RECORD_EXIT, REUSED_TID, 250);
	pos = put_task(pos, PERF_RECORD_FORK, REUSED_TID, 260);
	pos = put_record(pos, REUSED_TID, 270, NEW_COOKIE, ARRAY_SIZE(user_ips));
	pos = put_sample(pos, REUSED_TID, 280, NEW_COOKIE);	/* after it */
	len = (pos - stream) * sizeof(u64);

	if (pipe(fds))
		return TEST_FAIL;
	if (write(fds[1], stream, len) != (ssize_t)len) {
		close(fds[0]);
		close(fds[1]);
		return TEST_FAIL;
	}
	close(fds[1]);
	data.file.fd = fds[0];

	perf_tool__init(&dt.tool, /*ordered_events=*/false);
	dt.tool.sample = deferred_tool__sample;
	dt.tool.attr = perf_event__process_attr;
	dt.tool.merge_deferred_callchains = true;

	session = perf_session__new(&data, &dt.tool);
	if (IS_ERR(session)) {
		pr_debug("cannot read the synthesized events\n");
		close(fds[0]);
		return TEST_FAIL;
	}
	if (perf_session__process_events(session)) {
		pr_debug("processing the events failed\n");
		goto out;
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
	else if (!merged(&dt.samples[0], TEST_TID))
		pr_debug("the sample before its record was not merged\n");
	else if (!merged(&dt.samples[1], TEST_TID))
		pr_debug("the sample after its record was not merged\n");
	else if (!merged(&dt.samples[2], LATE_TID))
		pr_debug("the sample before an exit and its record was not merged\n");
	else if (!unmerged(&dt.samples[3], REUSED_TID, OLD_COOKIE))
		pr_debug("the sample of the exited thread was changed\n");
	else if (!merged(&dt.samples[4], REUSED_TID))
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
		err = TEST_OK;
out:
	perf_session__delete(session);
	return err;
}

DEFINE_SUITE("Merge deferred callchains", deferred_callchain);
