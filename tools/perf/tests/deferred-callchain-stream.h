/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streams of synthesized events with deferred user callchains, read in pipe
 * mode as perf report reads perf record's output: what the deferred
 * callchain tests share.
 */
#ifndef __PERF_TESTS_DEFERRED_CALLCHAIN_STREAM_H
#define __PERF_TESTS_DEFERRED_CALLCHAIN_STREAM_H

#include <linux/types.h>
#include "tool.h"

/* The kernel frame of the samples, and the user stack of the records */
#define DCS_KERNEL_IP		0xffffffff81000000ULL
#define DCS_NR_USER_IPS		4
extern const u64 dcs_user_ips[DCS_NR_USER_IPS];

/* A sample the session delivered to the tool */
struct dcs_delivered {
	u32 tid;
	u64 nr;		/* as it came, even when more than @ips holds */
	u64 ips[8];
};

struct dcs_tool {
	struct perf_tool tool;
	struct dcs_delivered samples[16];
	int nr_samples;
};

u64 *dcs__put(u64 *pos, const u64 *words, size_t n);
u64 *dcs__put_header(u64 *pos);
u64 *dcs__put_sample(u64 *pos, u32 tid, u64 time, u64 cookie);
u64 *dcs__put_record(u64 *pos, u32 tid, u64 time, u64 cookie, u64 nr);
bool dcs__merged(const struct dcs_delivered *d, u32 tid);
int dcs__process(struct dcs_tool *dt, const u64 *stream, const u64 *end);

#endif /* __PERF_TESTS_DEFERRED_CALLCHAIN_STREAM_H */
