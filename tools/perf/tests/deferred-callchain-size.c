// SPDX-License-Identifier: GPL-2.0
/*
 * A deferred user callchain record (PERF_RECORD_CALLCHAIN_DEFERRED) says how
 * many entries its callchain has, and the merge copies that many into the
 * samples that wait for it.  Feed a session, in pipe mode, a sample and then
 * its record with a count that is right, one that runs past the record, one
 * that runs into the record's sample_id, and a record too short for the count
 * itself: only the first may be merged, the others must fail to parse.
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

#define TID		100
#define COOKIE		0x1234500000001ULL
#define KERNEL_IP	0xffffffff81000000ULL

/* The callchain that the records hold. */
static const u64 user_ips[] = { PERF_CONTEXT_USER, 0x401000, 0x402000 };

struct size_tool {
	struct perf_tool tool;
	int nr_samples;
	u64 nr;		/* the callchain length of the last sample */
};

static int size_tool__sample(const struct perf_tool *tool,
			     union perf_event *event __maybe_unused,
			     struct perf_sample *sample,
			     struct machine *machine __maybe_unused)
{
	struct size_tool *st = container_of(tool, struct size_tool, tool);

	st->nr_samples++;
	st->nr = sample->callchain->nr;
	return 0;
}

static u64 *put(u64 *pos, const u64 *words, size_t n)
{
	memcpy(pos, words, n * sizeof(u64));
	return pos + n;
}

/* The attribute of a cpu-clock event with deferred user callchains. */
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

/* A sample whose callchain is a kernel frame and the cookie. */
static u64 *put_sample(u64 *pos)
{
	struct perf_event_header *hdr = (void *)pos;
	u64 body[] = {
		0x401000,				/* ip */
		(u64)TID << 32 | TID,			/* pid, tid */
		100,					/* time */
		4, PERF_CONTEXT_KERNEL, KERNEL_IP,	/* callchain */
		PERF_CONTEXT_USER_DEFERRED, COOKIE,
	};

	hdr->type = PERF_RECORD_SAMPLE;
	hdr->misc = PERF_RECORD_MISC_KERNEL;
	hdr->size = sizeof(*hdr) + sizeof(body);
	return put(pos + 1, body, ARRAY_SIZE(body));
}

/*
 * The record of the sample's cookie: user_ips and the sample_id (TID, TIME),
 * its callchain said to have @nr entries.  With @truncated, the record ends
 * after the cookie, and what follows it in the stream is another sample.
 */
static u64 *put_record(u64 *pos, u64 nr, bool truncated)
{
	struct perf_event_header *hdr = (void *)pos;
	u64 head[] = { COOKIE, nr };
	u64 id[] = { (u64)TID << 32 | TID, 110 };

	hdr->type = PERF_RECORD_CALLCHAIN_DEFERRED;
	hdr->misc = PERF_RECORD_MISC_USER;
	if (truncated) {
		hdr->size = sizeof(*hdr) + sizeof(u64);
		return put_sample(put(pos + 1, head, 1));
	}
	hdr->size = sizeof(*hdr) + sizeof(head) + sizeof(user_ips) + sizeof(id);
	pos = put(pos + 1, head, ARRAY_SIZE(head));
	pos = put(pos, user_ips, ARRAY_SIZE(user_ips));
	return put(pos, id, ARRAY_SIZE(id));
}

/*
 * Process a sample and its record claiming @nr entries; return the result
 * of the processing and what the tool saw in @st.
 */
static int process(struct size_tool *st, u64 nr, bool truncated)
{
	struct perf_pipe_file_header *phdr;
	struct perf_data data = {
		.path = "-",
		.mode = PERF_DATA_MODE_READ,
	};
	struct perf_session *session;
	u64 stream[64], *pos;
	int fds[2], err;
	size_t len;

	memset(stream, 0, sizeof(stream));
	phdr = (void *)stream;
	phdr->magic = 0x32454c4946524550ULL;	/* "PERFILE2" */
	phdr->size = sizeof(*phdr);
	pos = put_attr(stream + sizeof(*phdr) / sizeof(u64));
	pos = put_sample(pos);
	pos = put_record(pos, nr, truncated);
	len = (pos - stream) * sizeof(u64);

	if (pipe(fds))
		return -errno;
	if (write(fds[1], stream, len) != (ssize_t)len) {
		close(fds[0]);
		close(fds[1]);
		return -EIO;
	}
	close(fds[1]);
	data.file.fd = fds[0];

	memset(st, 0, sizeof(*st));
	perf_tool__init(&st->tool, /*ordered_events=*/false);
	st->tool.sample = size_tool__sample;
	st->tool.attr = perf_event__process_attr;
	st->tool.merge_deferred_callchains = true;

	session = perf_session__new(&data, &st->tool);
	if (IS_ERR(session)) {
		close(fds[0]);
		return PTR_ERR(session);
	}
	err = perf_session__process_events(session);
	perf_session__delete(session);
	return err;
}

static int test__deferred_callchain_size(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	const u64 nr = ARRAY_SIZE(user_ips);
	const struct {
		const char *what;
		u64 nr;
		bool truncated;
	} bad[] = {
		{ "runs past the record", 1000, false },
		{ "runs into the sample_id", nr + 2, false },
		{ "runs into the sample_id by one", nr + 1, false },
		{ "has no room for its count", nr, true },
	};
	struct size_tool st;
	size_t i;
	int err;

	/* The sample's 4 entries less the cookie, and the record's */
	err = process(&st, nr, false);
	if (err || st.nr_samples != 1 || st.nr != 3 + nr) {
		pr_debug("a record of the right size: err %d, %d samples, %llu entries\n",
			 err, st.nr_samples, (unsigned long long)st.nr);
		return TEST_FAIL;
	}

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = process(&st, bad[i].nr, bad[i].truncated);
		if (!err || st.nr > 4) {
			pr_debug("a record whose callchain %s: err %d, %d samples, last %llu entries\n",
				 bad[i].what, err, st.nr_samples,
				 (unsigned long long)st.nr);
			return TEST_FAIL;
		}
	}
	return TEST_OK;
}

DEFINE_SUITE("Deferred callchain record size", deferred_callchain_size);
