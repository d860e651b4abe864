// SPDX-License-Identifier: GPL-2.0
/*
 * A deferred user callchain record (PERF_RECORD_CALLCHAIN_DEFERRED) says how
 * many entries its callchain has, and the merge copies that many into the
 * samples that wait for it.  Feed a session, in pipe mode, a sample and then
 * its record with a count that is right, one that runs past the record, one
 * that runs into the record's sample_id, and a record too short for the count
 * itself: only the first may be merged, the others must fail to parse.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "debug.h"
#include "deferred-callchain-stream.h"
#include "tests.h"

#define TID		100
#define COOKIE		0x1234500000001ULL

static int test__deferred_callchain_size(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	const u64 nr = DCS_NR_USER_IPS;
	const struct {
		const char *what;
		u64 nr;
		bool truncated;
	} cases[] = {
		{ "is right", nr, false },
		{ "runs past the record", 1000, false },
		{ "runs into the sample_id", nr + 2, false },
		{ "runs into the sample_id by one", nr + 1, false },
		{ "has no room for its count", nr, true },
	};
	u64 stream[64], *pos, cookie = COOKIE;
	struct perf_event_header *hdr;
	struct dcs_tool dt;
	size_t i;
	int err, k;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pos = dcs__put_sample(dcs__put_header(stream), TID, 100, COOKIE);
		if (cases[i].truncated) {
			/* The record ends after its cookie; a sample follows */
			hdr = (void *)pos;
			hdr->type = PERF_RECORD_CALLCHAIN_DEFERRED;
			hdr->misc = PERF_RECORD_MISC_USER;
			hdr->size = sizeof(*hdr) + sizeof(cookie);
			pos = dcs__put(pos + 1, &cookie, 1);
			pos = dcs__put_sample(pos, TID, 120, COOKIE);
		} else {
			pos = dcs__put_record(pos, TID, 110, COOKIE,
					      cases[i].nr);
		}
		err = dcs__process(&dt, stream, pos);
		pr_debug("a record whose callchain %s: err %d, %d samples\n",
			 cases[i].what, err, dt.nr_samples);
		/* Merged: the sample's entries but the cookie, the record's */
		if (!i) {
			if (err || dt.nr_samples != 1 ||
			    !dcs__merged(&dt.samples[0], TID))
				return TEST_FAIL;
			continue;
		}
		/* The others fail, no sample longer than its own 4 entries */
		if (!err)
			return TEST_FAIL;
		for (k = 0; k < dt.nr_samples; k++) {
			if (dt.samples[k].nr > 4)
				return TEST_FAIL;
		}
	}
	return TEST_OK;
}

DEFINE_SUITE("Deferred callchain record size", deferred_callchain_size);
