// SPDX-License-Identifier: GPL-2.0
/*
 * Streams of synthesized events with deferred user callchains: a pipe
 * header, the attribute of one cpu-clock event with deferred callchains,
 * samples waiting for a deferred callchain and the records that give it,
 * and a session that reads the stream from a pipe.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "data.h"
#include "debug.h"
#include "deferred-callchain-stream.h"
#include "event.h"
#include "header.h"
#include "sample.h"
#include "session.h"

const u64 dcs_user_ips[DCS_NR_USER_IPS] = {
	PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403000,
};

/* Append @n u64 words to the stream at @pos. */
u64 *dcs__put(u64 *pos, const u64 *words, size_t n)
{
	memcpy(pos, words, n * sizeof(u64));
	return pos + n;
}

/*
 * The pipe header and the attribute of the stream's one event: cpu-clock
 * (IP, TID, TIME, CALLCHAIN) with deferred user callchains.
 */
u64 *dcs__put_header(u64 *pos)
{
	struct perf_pipe_file_header *phdr = (void *)pos;
	struct perf_record_header_attr *ev;
	u64 id = 1;

	phdr->magic = 0x32454c4946524550ULL;	/* "PERFILE2" */
	phdr->size = sizeof(*phdr);
	ev = (void *)(phdr + 1);
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
	return dcs__put((u64 *)(ev + 1), &id, 1);
}

/* A sample whose callchain is a kernel frame and the cookie @cookie. */
u64 *dcs__put_sample(u64 *pos, u32 tid, u64 time, u64 cookie)
{
	struct perf_event_header *hdr = (void *)pos;
	u64 body[] = {
		0x401000,				/* ip */
		(u64)tid << 32 | tid,			/* pid, tid */
		time,
		4, PERF_CONTEXT_KERNEL, DCS_KERNEL_IP,	/* callchain */
		PERF_CONTEXT_USER_DEFERRED, cookie,
	};

	hdr->type = PERF_RECORD_SAMPLE;
	hdr->misc = PERF_RECORD_MISC_KERNEL;
	hdr->size = sizeof(*hdr) + sizeof(body);
	return dcs__put(pos + 1, body, ARRAY_SIZE(body));
}

/*
 * The deferred callchain record of @cookie, with its sample_id (TID, TIME):
 * dcs_user_ips, said to be @nr entries.
 */
u64 *dcs__put_record(u64 *pos, u32 tid, u64 time, u64 cookie, u64 nr)
{
	struct perf_event_header *hdr = (void *)pos;
	u64 head[] = { cookie, nr };
	u64 id[] = { (u64)tid << 32 | tid, time };

	hdr->type = PERF_RECORD_CALLCHAIN_DEFERRED;
	hdr->misc = PERF_RECORD_MISC_USER;
	hdr->size = sizeof(*hdr) + sizeof(head) + sizeof(dcs_user_ips) +
		    sizeof(id);
	pos = dcs__put(pos + 1, head, ARRAY_SIZE(head));
	pos = dcs__put(pos, dcs_user_ips, ARRAY_SIZE(dcs_user_ips));
	return dcs__put(pos, id, ARRAY_SIZE(id));
}

/* Was @d a sample of @tid with its kernel frame merged with the record's? */
bool dcs__merged(const struct dcs_delivered *d, u32 tid)
{
	return d->tid == tid && d->nr == 3 + DCS_NR_USER_IPS &&
	       d->ips[1] == DCS_KERNEL_IP &&
	       d->ips[2] == PERF_CONTEXT_USER_DEFERRED &&
	       !memcmp(&d->ips[3], dcs_user_ips, sizeof(dcs_user_ips));
}

static int dcs_tool__sample(const struct perf_tool *tool,
			    union perf_event *event __maybe_unused,
			    struct perf_sample *sample,
			    struct machine *machine __maybe_unused)
{
	struct dcs_tool *dt = container_of(tool, struct dcs_tool, tool);
	struct dcs_delivered *d;

	if (dt->nr_samples == (int)ARRAY_SIZE(dt->samples))
		return -1;
	d = &dt->samples[dt->nr_samples++];
	d->tid = sample->tid;
	d->nr = sample->callchain->nr;
	memcpy(d->ips, sample->callchain->ips,
	       min_t(u64, d->nr, ARRAY_SIZE(d->ips)) * sizeof(u64));
	return 0;
}

/*
 * Feed the stream from @stream to @end to a session, in pipe mode, with
 * deferred callchains merged, @dt seeing the samples it delivers; the
 * result of processing it.
 */
int dcs__process(struct dcs_tool *dt, const u64 *stream, const u64 *end)
{
	struct perf_data data = {
		.path = "-",
		.mode = PERF_DATA_MODE_READ,
	};
	size_t len = (end - stream) * sizeof(u64);
	struct perf_session *session;
	int fds[2], err;

	if (pipe(fds))
		return -errno;
	if (write(fds[1], stream, len) != (ssize_t)len) {
		close(fds[0]);
		close(fds[1]);
		return -EIO;
	}
	close(fds[1]);
	data.file.fd = fds[0];

	memset(dt, 0, sizeof(*dt));
	perf_tool__init(&dt->tool, /*ordered_events=*/false);
	dt->tool.sample = dcs_tool__sample;
	dt->tool.attr = perf_event__process_attr;
	dt->tool.merge_deferred_callchains = true;

	session = perf_session__new(&data, &dt->tool);
	if (IS_ERR(session)) {
		pr_debug("cannot read the synthesized events\n");
		close(fds[0]);
		return PTR_ERR(session);
	}
	err = perf_session__process_events(session);
	perf_session__delete(session);
	return err;
}
