// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the user stack unwinding selftests.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/auxvec.h>
#include <linux/elf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "../kselftest.h"
#include "sframe_lib.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC	10	/* a GNU extension, not in <linux/elf.h> */
#endif

/* Data pages of the ring buffer: room for many 510-entry deferred stacks. */
#define SFT_RING_PAGES	32

static const char * const tracefs_candidates[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static bool tracefs_usable(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events", dir);
	return access(path, F_OK) == 0;
}

/* Find tracefs, mounting it if nobody did; 0, or a negative errno (printed). */
static int tracefs_dir(char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tracefs_candidates); i++) {
		if (tracefs_usable(tracefs_candidates[i])) {
			snprintf(buf, len, "%s", tracefs_candidates[i]);
			return 0;
		}
	}

	/* A bare guest root may not mount it at boot. */
	if (mount("nodev", tracefs_candidates[0], "tracefs", 0, NULL)) {
		int err = errno;

		ksft_print_msg("tracefs is not mounted and mount(%s) failed: %s\n",
			       tracefs_candidates[0], strerror(err));
		return -err;
	}
	if (!tracefs_usable(tracefs_candidates[0])) {
		ksft_print_msg("tracefs mounted at %s has no events/ directory\n",
			       tracefs_candidates[0]);
		return -ENOENT;
	}
	ksft_print_msg("mounted tracefs at %s\n", tracefs_candidates[0]);
	snprintf(buf, len, "%s", tracefs_candidates[0]);
	return 0;
}

/**
 * sft_now() - The monotonic clock
 *
 * Return: seconds since an arbitrary point, as a double.
 */
double sft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/**
 * sft_tracepoint_id() - Read the perf id of a tracepoint from tracefs
 * @group: event group, e.g. "syscalls"
 * @event: event name, e.g. "sys_enter_getppid"
 *
 * Return: the id (for perf_event_attr.config), or a negative errno after
 * printing why.
 */
int sft_tracepoint_id(const char *group, const char *event)
{
	char dir[128], path[384];
	FILE *f;
	int id, ret;

	ret = tracefs_dir(dir, sizeof(dir));
	if (ret)
		return ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, group, event);
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		ksft_print_msg("no tracepoint %s/%s: %s: %s\n", group, event,
			       path, strerror(-ret));
		return ret;
	}
	if (fscanf(f, "%d", &id) != 1 || id < 0) {
		ksft_print_msg("%s: not a tracepoint id\n", path);
		id = -EINVAL;
	}
	fclose(f);
	return id;
}

/**
 * sft_hold_tracepoint() - Keep a syscalls tracepoint on, and check it fires
 * @tp: the id of syscalls:sys_enter_getppid (sft_tracepoint_id())
 *
 * Holds a counting event on this process for the rest of its life, which
 * must see its own getppid, so that the events a test then opens or the
 * tracefs instances it enables add themselves to a tracepoint that is
 * already on, instead of turning it off and on again.  On the arm64 guest
 * under TCG, right after a memory cgroup was removed, the kernel was seen
 * to turn a syscalls tracepoint on with no effect: no task hit it until it
 * was turned off and on again.  A standalone program that only opens,
 * tests and closes such an event reproduces it, without SFrame or deferred
 * unwinding.  Turns it off and on at most five times.
 *
 * Return: the event's file descriptor, or -1 after printing why.
 */
int sft_hold_tracepoint(int tp)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.config = tp,
	};
	unsigned long long count;
	int attempt, fd;

	for (attempt = 0; attempt < 5; attempt++) {
		fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			ksft_perror("perf_event_open(the tracepoint to hold)");
			return -1;
		}
		syscall(__NR_getppid);
		if (read(fd, &count, sizeof(count)) == sizeof(count) &&
		    count == 1)
			return fd;
		ksft_print_msg("getppid missed its tracepoint (attempt %d)\n",
			       attempt + 1);
		close(fd);
		usleep(200 * 1000);
	}
	return -1;
}

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static void tracepoint_attr(struct perf_event_attr *attr, int tp_id,
			    bool deferred)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = tp_id;
	attr->sample_period = 1;
	/* sft_perf_collect() parses exactly this layout. */
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr->sample_id_all = 1;
	/* For sft_perf_print_count() */
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->disabled = 1;
	attr->exclude_callchain_kernel = 1;
	attr->defer_callchain = deferred;
	/* The deferred record goes to events with defer_output only. */
	attr->defer_output = deferred;
}

/* Tell a kernel without deferred callchains from a bad event. */
static void explain_einval(int tp_id)
{
	struct perf_event_attr attr;
	int fd;

	tracepoint_attr(&attr, tp_id, false);
	fd = perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	ksft_print_msg("without defer_callchain it opens: no deferred callchains here\n");
	close(fd);
}

/* Map the ring buffer of the event @p->fd; close it on failure. */
static int perf_map(struct sft_perf *p)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc;
	int err;

	p->map_len = (1 + SFT_RING_PAGES) * page;
	p->base = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       p->fd, 0);
	if (p->base == MAP_FAILED) {
		err = errno;
		ksft_print_msg("mmap of the perf ring buffer: %s\n",
			       strerror(err));
		p->base = NULL;
		sft_perf_close(p);
		return -err;
	}

	pc = p->base;
	p->data_offset = pc->data_offset ? pc->data_offset : (__u64)page;
	p->data_size = pc->data_size ? pc->data_size :
		       (__u64)SFT_RING_PAGES * page;
	return 0;
}

/**
 * sft_perf_open_tracepoint() - Sample every hit of a tracepoint by this thread
 * @p: the event to set up
 * @tp_id: tracepoint id from sft_tracepoint_id()
 * @deferred: ask for a deferred user callchain and its record on this event
 *
 * The event is opened disabled, with the user callchain only, and its ring
 * buffer is mapped.
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_perf_open_tracepoint(struct sft_perf *p, int tp_id, bool deferred)
{
	return sft_perf_open_tracepoint_pid(p, tp_id, deferred, 0);
}

/**
 * sft_perf_open_tracepoint_pid() - sft_perf_open_tracepoint() for a task
 * @p: the event to set up
 * @tp_id: the tracepoint's id
 * @deferred: ask for deferred user callchains
 * @pid: the task whose events are sampled: 0 for the caller, or another
 *	task, whose records this process reads from its ring buffer, even
 *	after the task is gone
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_perf_open_tracepoint_pid(struct sft_perf *p, int tp_id, bool deferred,
				 pid_t pid)
{
	struct perf_event_attr attr;
	int err;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->tp_id = tp_id;
	p->deferred = deferred;
	p->pid = pid;

	tracepoint_attr(&attr, tp_id, deferred);
	p->fd = perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (p->fd < 0) {
		err = errno;
		ksft_print_msg("perf_event_open(tracepoint %d%s): %s\n", tp_id,
			       deferred ? ", defer_callchain, defer_output" : "",
			       strerror(err));
		if (deferred && err == EINVAL)
			explain_einval(tp_id);
		return -err;
	}
	return perf_map(p);
}

/*
 * Open the sampling event @attr, set up as far as its type says, for the
 * user callchain only, deferred, the deferred record going to this event,
 * whose ring buffer is mapped; disabled.  @what names it in messages.
 */
static int perf_open_user_sampling(struct sft_perf *p,
				   struct perf_event_attr *attr, pid_t pid,
				   const char *what)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->tp_id = -1;

	attr->size = sizeof(*attr);
	/* sft_perf_collect() parses exactly this layout. */
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_callchain_kernel = 1;
	attr->defer_callchain = 1;
	attr->defer_output = 1;
	p->fd = perf_event_open(attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (p->fd < 0) {
		err = errno;
		ksft_print_msg("perf_event_open(%s of %d, %s): %s\n", what,
			       pid, "defer_callchain, defer_output",
			       strerror(err));
		return -err;
	}
	return perf_map(p);
}

/**
 * sft_perf_open_task_clock() - Sample the user time of a task
 * @p: the event to set up
 * @pid: the task
 * @period_ns: its running time between two samples, in nanoseconds
 *
 * The event is opened disabled; each sample has the user callchain only,
 * deferred, and the deferred record goes to this event, whose ring buffer
 * is mapped.
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_perf_open_task_clock(struct sft_perf *p, pid_t pid, __u64 period_ns)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = period_ns;
	return perf_open_user_sampling(p, &attr, pid, "task-clock");
}

/**
 * sft_perf_open_breakpoint() - Sample each execution of a user address
 * @p: the event to set up
 * @pid: the task (0: the caller)
 * @addr: the instruction
 *
 * A hardware breakpoint, which stops before the instruction runs, so that
 * the sample's registers, and the deferred unwind at the return to user
 * space, are those at @addr (a uprobe's would be its out-of-line copy's).
 * Opened disabled, like sft_perf_open_task_clock().
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_perf_open_breakpoint(struct sft_perf *p, pid_t pid, unsigned long addr)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = addr;
	attr.bp_len = sizeof(long);
	attr.sample_period = 1;
	return perf_open_user_sampling(p, &attr, pid, "breakpoint");
}

/**
 * sft_perf_print_count() - Print what a tracepoint event counted
 * @p: the event, from sft_perf_open_tracepoint()
 *
 * When a run has fewer samples than system calls, this tells an event that
 * was never scheduled in (running 0) or that did not count the calls from
 * one that counted them and lost their samples.
 *
 * Return: true when the event ran and counted nothing: the tracepoint did
 * not fire for this task (see sft_perf_missed()).
 */
bool sft_perf_print_count(const struct sft_perf *p)
{
	__u64 v[3];

	if (read(p->fd, v, sizeof(v)) != sizeof(v)) {
		ksft_perror("read of the perf event");
		return false;
	}
	ksft_print_msg("event: %llu hits, enabled %llu ns, running %llu ns\n",
		       (unsigned long long)v[0], (unsigned long long)v[1],
		       (unsigned long long)v[2]);
	return !v[0] && v[2];
}

/**
 * sft_perf_missed() - After a run without samples: did the event miss them?
 * @p: the event, from sft_perf_open_tracepoint(), disabled
 *
 * On the arm64 guest, about one pass in eight of the sframe kselftests
 * has a process whose syscalls:sys_enter_getppid event runs and counts
 * none of its system calls, from its first to its last: the system call
 * tracepoint does not fire for the task, and perf has nothing to sample.
 * That is not the unwinder's doing (no sample, not a wrong stack), and a
 * new event, which registers the tracepoint again, gets the system calls.
 * So when the event ran and counted nothing, it is closed and opened again
 * and the caller runs once more, saying so.  RESULTS.md tracks the bug.
 *
 * Return: true when the event missed the run and was opened again.
 */
bool sft_perf_missed(struct sft_perf *p)
{
	struct sft_perf was = *p;

	if (was.tp_id < 0 || !sft_perf_print_count(p))
		return false;
	ksft_print_msg("perf: the event counted no system call: opened again\n");
	sft_perf_close(p);
	return !sft_perf_open_tracepoint_pid(p, was.tp_id, was.deferred,
					     was.pid);
}

/**
 * sft_perf_enable() - Start counting and sampling
 * @p: the event
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_perf_enable(struct sft_perf *p)
{
	if (ioctl(p->fd, PERF_EVENT_IOC_ENABLE, 0)) {
		ksft_perror("PERF_EVENT_IOC_ENABLE");
		return -errno;
	}
	return 0;
}

/**
 * sft_perf_disable() - Stop counting and sampling
 * @p: the event
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_perf_disable(struct sft_perf *p)
{
	if (ioctl(p->fd, PERF_EVENT_IOC_DISABLE, 0)) {
		ksft_perror("PERF_EVENT_IOC_DISABLE");
		return -errno;
	}
	return 0;
}

/**
 * sft_perf_close() - Unmap the ring buffer and close the event
 * @p: the event
 */
void sft_perf_close(struct sft_perf *p)
{
	if (p->base)
		munmap(p->base, p->map_len);
	if (p->fd >= 0)
		close(p->fd);
	p->base = NULL;
	p->fd = -1;
}

/* Copy @len bytes at ring offset @pos, which may wrap around the end. */
static void ring_copy(const struct sft_perf *p, __u64 pos, void *dst,
		      size_t len)
{
	const char *data = (const char *)p->base + p->data_offset;
	__u64 off = pos % p->data_size;
	size_t first = len;

	if (first > p->data_size - off)
		first = p->data_size - off;
	memcpy(dst, data + off, first);
	memcpy((char *)dst + first, data, len - first);
}

struct deferred_rec {
	__u64 cookie;
	__u32 pid, tid;
	bool used;
	unsigned int nr;
	__u64 ips[SFT_MAX_IPS];
};

/* Sample layout for PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN. */
static int parse_sample(const __u64 *w, size_t words, struct sft_sample *s)
{
	__u64 nr, ctx = 0, i;

	memset(s, 0, sizeof(*s));
	if (words < 2)
		return -EINVAL;
	s->pid = (__u32)w[0];
	s->tid = (__u32)(w[0] >> 32);
	nr = w[1];
	if (nr > words - 2)
		return -EINVAL;
	s->chain_nr = nr;

	for (i = 0; i < nr; i++) {
		__u64 ip = w[2 + i];

		if (ip == PERF_CONTEXT_USER_DEFERRED) {
			/* The cookie follows and may look like a marker. */
			if (i + 2 != nr) {
				s->malformed = true;
				return 0;
			}
			s->deferred = true;
			s->cookie = w[2 + i + 1];
			break;
		}
		if (ip >= PERF_CONTEXT_MAX) {
			ctx = ip;
			if (ctx == PERF_CONTEXT_USER)
				s->sync_user = true;
			continue;
		}
		if (ctx != PERF_CONTEXT_USER) {
			s->kernel_ips++;
			continue;
		}
		if (s->nr < SFT_MAX_IPS)
			s->ips[s->nr++] = ip;
	}
	return 0;
}

/* cookie, nr, ips[nr], then the sample_id: pid, tid. */
static int parse_deferred(const __u64 *w, size_t words,
			  struct deferred_rec *d)
{
	__u64 nr;

	if (words < 3)
		return -EINVAL;
	nr = w[1];
	/* The size must be exact: a stray word means a layout mismatch. */
	if (nr > SFT_MAX_IPS || words != 2 + nr + 1)
		return -EINVAL;
	d->cookie = w[0];
	d->nr = nr;
	memcpy(d->ips, &w[2], nr * sizeof(__u64));
	d->pid = (__u32)w[2 + nr];
	d->tid = (__u32)(w[2 + nr] >> 32);
	d->used = false;
	return 0;
}

static void merge_deferred(struct sft_sample *out, unsigned int nsamples,
			   struct deferred_rec *recs, unsigned int nrecs,
			   struct sft_ring_stats *st)
{
	unsigned int i, j;

	for (i = 0; i < nsamples; i++) {
		struct sft_sample *s = &out[i];

		if (!s->deferred)
			continue;
		for (j = 0; j < nrecs; j++) {
			struct deferred_rec *d = &recs[j];

			if (d->cookie != s->cookie)
				continue;
			/* Samples of one entry context share the record. */
			if (s->merged) {
				if (!d->used)
					st->duplicates++;
				d->used = true;
				continue;
			}
			d->used = true;
			s->merged = true;
			s->rec_pid = d->pid;
			s->rec_tid = d->tid;
			s->nr = d->nr;
			memcpy(s->ips, d->ips, d->nr * sizeof(__u64));
		}
	}
	for (j = 0; j < nrecs; j++)
		if (!recs[j].used)
			st->unmatched++;
}

/**
 * sft_perf_collect() - Read every record and pair samples with deferred stacks
 * @p: the event, best disabled
 * @out: receives the samples in ring order
 * @max: room in @out; further samples are counted but dropped
 * @stats: receives counts of what the ring held
 *
 * A sample whose callchain ends in PERF_CONTEXT_USER_DEFERRED and a cookie
 * gets the IPs of the PERF_RECORD_CALLCHAIN_DEFERRED with that cookie; any
 * other sample gets the user part of its own callchain.
 *
 * Return: number of samples stored in @out, or a negative errno after
 * printing why.
 */
int sft_perf_collect(struct sft_perf *p, struct sft_sample *out,
		     unsigned int max, struct sft_ring_stats *stats)
{
	/* Static: large, and the tests read rings from one thread only. */
	static struct deferred_rec recs[SFT_MAX_DEFERRED];
	/* Any record fits: perf_event_header.size is a __u16. */
	static __u64 buf[65536 / sizeof(__u64)];
	struct perf_event_mmap_page *pc = p->base;
	unsigned int nsamples = 0, nrecs = 0;
	__u64 head, tail;
	int ret = 0;

	memset(stats, 0, sizeof(*stats));

	/* Pairs with the kernel's store of data_head after the data. */
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;

	while (tail < head) {
		struct perf_event_header hdr;
		const __u64 *w = buf + 1;
		size_t words;

		ring_copy(p, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size % 8 ||
		    hdr.size > head - tail) {
			ksft_print_msg("bad perf record at %llu: type %u size %u\n",
				       (unsigned long long)tail, hdr.type,
				       hdr.size);
			ret = -EIO;
			break;
		}
		ring_copy(p, tail, buf, hdr.size);
		words = (hdr.size - sizeof(hdr)) / 8;

		switch (hdr.type) {
		case PERF_RECORD_SAMPLE:
			stats->samples++;
			if (nsamples >= max)
				break;
			if (parse_sample(w, words, &out[nsamples])) {
				ksft_print_msg("malformed sample record (%zu words)\n",
					       words);
				ret = -EIO;
				goto out;
			}
			nsamples++;
			break;
		case PERF_RECORD_CALLCHAIN_DEFERRED:
			stats->deferred++;
			if (nrecs >= SFT_MAX_DEFERRED)
				break;
			if (parse_deferred(w, words, &recs[nrecs])) {
				ksft_print_msg("malformed deferred record (%zu words)\n",
					       words);
				ret = -EIO;
				goto out;
			}
			nrecs++;
			break;
		case PERF_RECORD_LOST:
			/* id, lost */
			stats->lost += words >= 2 ? w[1] : 1;
			break;
		default:
			stats->other++;
			break;
		}
		tail += hdr.size;
	}
out:
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	if (!ret) {
		merge_deferred(out, nsamples, recs, nrecs, stats);
		ret = nsamples;
	}
	return ret;
}

/**
 * sft_read_file() - Read a whole file into memory
 * @path: the file
 * @image: receives a malloc()ed copy of its bytes
 * @len: receives their number
 *
 * Return: 0, or a negative errno.
 */
int sft_read_file(const char *path, char **image, size_t *len)
{
	struct stat sb;
	size_t done = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		close(fd);
		return -errno;
	}
	buf = malloc(sb.st_size ? sb.st_size : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (done < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + done, sb.st_size - done);

		if (n <= 0) {
			free(buf);
			close(fd);
			return n ? -errno : -EIO;
		}
		done += n;
	}
	close(fd);
	*image = buf;
	*len = done;
	return 0;
}

/* AT_PHDR from /proc/self/auxv: <sys/auxv.h> would drag in <elf.h>. */
static unsigned long auxv_phdr(void)
{
	unsigned long pair[2], val = 0;
	FILE *f;

	f = fopen("/proc/self/auxv", "r");
	if (!f)
		return 0;
	while (fread(pair, sizeof(pair), 1, f) == 1 && pair[0] != AT_NULL) {
		if (pair[0] == AT_PHDR) {
			val = pair[1];
			break;
		}
	}
	fclose(f);
	return val;
}

/* Runtime minus link-time address, from where the kernel put our phdrs. */
static int load_bias(const char *image, size_t len, unsigned long *bias)
{
	const struct elf64_hdr *eh = (const struct elf64_hdr *)image;
	unsigned long at_phdr = auxv_phdr();
	unsigned int i;

	if (!at_phdr || eh->e_phentsize != sizeof(struct elf64_phdr) ||
	    !sft_in_bounds(len, eh->e_phoff,
			   (__u64)eh->e_phnum * sizeof(struct elf64_phdr)))
		return -ENOEXEC;

	for (i = 0; i < eh->e_phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)
			(image + eh->e_phoff + i * sizeof(struct elf64_phdr));

		if (ph->p_type != PT_LOAD || eh->e_phoff < ph->p_offset ||
		    eh->e_phoff - ph->p_offset >= ph->p_filesz)
			continue;
		*bias = at_phdr - (ph->p_vaddr + (eh->e_phoff - ph->p_offset));
		return 0;
	}
	return -ENOEXEC;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sft_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Prefer a global name for aliases, then any stable order. */
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

/**
 * sft_symtab_load_self() - Load the function symbols of the running program
 * @st: receives the table; free with sft_symtab_free()
 *
 * Reads .symtab of /proc/self/exe, so the program must not be stripped, and
 * relocates the symbols by the load bias (PIE or not, static or not).
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_symtab_load_self(struct sft_symtab *st)
{
	const struct elf64_shdr *sh, *symsh = NULL, *strsh;
	const struct elf64_hdr *eh;
	size_t len = 0, i, nsyms;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = sft_read_file("/proc/self/exe", &st->image, &len);
	if (ret) {
		ksft_print_msg("reading /proc/self/exe: %s\n", strerror(-ret));
		return ret;
	}

	eh = (const struct elf64_hdr *)st->image;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(struct elf64_shdr) ||
	    !sft_in_bounds(len, eh->e_shoff,
			   (__u64)eh->e_shnum * sizeof(*sh))) {
		ksft_print_msg("/proc/self/exe: not ELF64 with section headers\n");
		ret = -ENOEXEC;
		goto err;
	}
	sh = (const struct elf64_shdr *)(st->image + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB) {
			symsh = &sh[i];
			break;
		}
	}
	if (!symsh || symsh->sh_link >= eh->e_shnum ||
	    symsh->sh_entsize != sizeof(struct elf64_sym) ||
	    !sft_in_bounds(len, symsh->sh_offset, symsh->sh_size)) {
		ksft_print_msg("/proc/self/exe has no usable .symtab (stripped?)\n");
		ret = -ENOENT;
		goto err;
	}
	strsh = &sh[symsh->sh_link];
	if (!sft_in_bounds(len, strsh->sh_offset, strsh->sh_size) ||
	    !strsh->sh_size || st->image[strsh->sh_offset + strsh->sh_size - 1]) {
		ksft_print_msg("/proc/self/exe: bad symbol string table\n");
		ret = -ENOEXEC;
		goto err;
	}

	ret = load_bias(st->image, len, &st->bias);
	if (ret) {
		ksft_print_msg("/proc/self/exe: cannot find the load bias\n");
		goto err;
	}

	nsyms = symsh->sh_size / sizeof(struct elf64_sym);
	st->syms = calloc(nsyms ? nsyms : 1, sizeof(*st->syms));
	if (!st->syms) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < nsyms; i++) {
		const struct elf64_sym *sym = (const struct elf64_sym *)
			(st->image + symsh->sh_offset) + i;
		unsigned char type = ELF64_ST_TYPE(sym->st_info);
		struct sft_sym *s;

		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym->st_shndx == SHN_UNDEF || !sym->st_size ||
		    sym->st_name >= strsh->sh_size)
			continue;
		s = &st->syms[st->nr++];
		s->start = sym->st_value + st->bias;
		s->size = sym->st_size;
		s->name = st->image + strsh->sh_offset + sym->st_name;
		s->global = ELF64_ST_BIND(sym->st_info) != STB_LOCAL;
	}
	qsort(st->syms, st->nr, sizeof(*st->syms), sym_cmp);
	return 0;
err:
	sft_symtab_free(st);
	return ret;
}

/**
 * sft_symtab_free() - Release what sft_symtab_load_self() allocated
 * @st: the table
 */
void sft_symtab_free(struct sft_symtab *st)
{
	free(st->syms);
	free(st->image);
	memset(st, 0, sizeof(*st));
}

/**
 * sft_symtab_lookup() - Find the function containing an address
 * @st: the table
 * @addr: runtime address
 *
 * Return: the innermost function whose [start, start + size) holds @addr,
 * or NULL.
 */
const struct sft_sym *sft_symtab_lookup(const struct sft_symtab *st,
					unsigned long addr)
{
	const struct sft_sym *best = NULL;
	size_t i;

	/* A few lookups per test: a scan keeps overlapping symbols simple. */
	for (i = 0; i < st->nr; i++) {
		const struct sft_sym *s = &st->syms[i];

		if (addr < s->start || addr - s->start >= s->size)
			continue;
		if (!best || s->start > best->start)
			best = s;
	}
	return best;
}

/**
 * sft_symtab_find() - Find a function by name
 * @st: the table
 * @name: its name
 *
 * Return: the first symbol of that name, or NULL.
 */
const struct sft_sym *sft_symtab_find(const struct sft_symtab *st,
				      const char *name)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->syms[i].name, name))
			return &st->syms[i];
	return NULL;
}

/* Return addresses point after the call: look up the call itself. */
static const struct sft_sym *frame_sym(const struct sft_symtab *st,
				       unsigned int frame, __u64 ip)
{
	return sft_symtab_lookup(st, frame ? ip - 1 : ip);
}

/* Name an address outside our symbols by its mapping: libc.so.6+0x27ca8. */
static void describe_mapping(char *buf, size_t len, __u64 ip)
{
	char line[512];
	FILE *f;

	snprintf(buf, len, "?");
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;
		const char *name;
		int pos = 0;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &start, &end,
			   &off, &pos) < 3 || !pos)
			continue;
		if (ip < start || ip >= end)
			continue;
		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line + pos, '/');
		name = name ? name + 1 : line + pos;
		snprintf(buf, len, "?%s+%#llx", *name ? name : "[anon]",
			 (unsigned long long)(ip - start + off));
		break;
	}
	fclose(f);
}

static void describe(char *buf, size_t len, const struct sft_sym *s, __u64 ip)
{
	if (s)
		snprintf(buf, len, "%s+0x%llx", s->name,
			 (unsigned long long)(ip - s->start));
	else
		describe_mapping(buf, len, ip);
}

/**
 * sft_describe() - Name the address of a frame: function+offset, or mapping
 * @st: symbols of the running program
 * @buf: receives the name
 * @len: size of @buf
 * @frame: the frame's index: frames past 0 hold return addresses
 * @ip: the address
 */
void sft_describe(const struct sft_symtab *st, char *buf, size_t len,
		  unsigned int frame, __u64 ip)
{
	describe(buf, len, frame_sym(st, frame, ip), ip);
}

static void print_row(const char *num, const char *want, const char *got,
		      const char *verdict)
{
	char row[256];
	size_t end;

	snprintf(row, sizeof(row), "%3s  %-36s  %-36s  %s", num, want, got,
		 verdict);
	end = strlen(row);
	while (end && row[end - 1] == ' ')
		row[--end] = '\0';
	ksft_print_msg("%s\n", row);
}

/**
 * sft_stack_matches() - Compare an unwound user stack with the expected one
 * @st: symbols of the running program
 * @expect: expected frames, innermost first
 * @n: number of expected frames
 * @ips: unwound IPs, innermost first; ips[0] is where the thread was
 *	 interrupted, the others are return addresses
 * @nr: number of unwound IPs
 *
 * Frame i matches when its IP lies in expect[i].func and, if expect[i].addr
 * is not 0, equals it.  Frames past @n (the C library's start code) are not
 * checked.  On a mismatch, prints an expected-versus-got table.
 *
 * Return: true when the first @n frames match.
 */
bool sft_stack_matches(const struct sft_symtab *st,
		       const struct sft_frame *expect, unsigned int n,
		       const __u64 *ips, unsigned int nr)
{
	unsigned int i, rows;
	bool ok = true;

	for (i = 0; i < n; i++) {
		const struct sft_sym *s;

		if (i >= nr) {
			ok = false;
			break;
		}
		s = frame_sym(st, i, ips[i]);
		if (!s || strcmp(s->name, expect[i].func) ||
		    (expect[i].addr && expect[i].addr != ips[i])) {
			ok = false;
			break;
		}
	}

	if (ok) {
		ksft_print_msg("user stack: %u frames, first %u as expected: %s..%s\n",
			       nr, n, n ? expect[0].func : "",
			       n ? expect[n - 1].func : "");
		return true;
	}

	ksft_print_msg("user stack mismatch (%u frames unwound, %u expected):\n",
		       nr, n);
	print_row("#", "expected", "got", "");
	/* Show a few frames past the expectation, to see what is there. */
	rows = (nr > n ? nr : n);
	if (rows > n + 4)
		rows = n + 4;
	for (i = 0; i < rows; i++) {
		char num[16], want[96], got[96];
		const char *verdict = "";

		snprintf(num, sizeof(num), "%u", i);
		if (i < n && expect[i].addr)
			snprintf(want, sizeof(want), "%s @%#lx", expect[i].func,
				 expect[i].addr);
		else
			snprintf(want, sizeof(want), "%s",
				 i < n ? expect[i].func : "(not checked)");

		if (i < nr) {
			const struct sft_sym *s = frame_sym(st, i, ips[i]);
			char where[64];

			describe(where, sizeof(where), s, ips[i]);
			snprintf(got, sizeof(got), "%s @%#llx", where,
				 (unsigned long long)ips[i]);
			if (i < n) {
				if (!s || strcmp(s->name, expect[i].func))
					verdict = "<-- wrong function";
				else if (expect[i].addr &&
					 expect[i].addr != ips[i])
					verdict = "<-- wrong address";
			}
		} else {
			snprintf(got, sizeof(got), "(missing)");
			verdict = "<-- missing";
		}
		print_row(num, want, got, verdict);
	}
	return false;
}

/**
 * sft_regs_read() - Read this process's SFrame registrations
 * @regs: receives the first @max of them, in the order of the file
 * @max: room in @regs
 *
 * Parses /proc/self/sframe: one line per registration, "TEXT-RANGE
 * SFRAME-RANGE vVERSION exec|codectl ok|bad [sframe-addr=HEX]
 * [build-id=HEX] [PATH]", of which it reads the first five fields.
 *
 * Return: the number of registrations (also those past @max), or a
 * negative errno after printing why: the file is missing or a line does
 * not have that format.
 */
int sft_regs_read(struct sft_reg *regs, unsigned int max)
{
	char line[PATH_MAX + 256], source[16], state[16];
	unsigned int n = 0;
	int ret = 0;
	FILE *f;

	f = fopen("/proc/self/sframe", "re");
	if (!f) {
		ret = -errno;
		ksft_print_msg("/proc/self/sframe: %s\n", strerror(-ret));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		struct sft_reg r;

		memset(&r, 0, sizeof(r));
		if (sscanf(line, "%lx-%lx %lx-%lx v%u %15s %15s", &r.text_start,
			   &r.text_end, &r.sframe_start, &r.sframe_end,
			   &r.version, source, state) != 7 ||
		    (strcmp(source, "exec") && strcmp(source, "codectl")) ||
		    (strcmp(state, "ok") && strcmp(state, "bad"))) {
			ksft_print_msg("/proc/self/sframe: bad line: %s", line);
			ret = -EPROTO;
			break;
		}
		r.user = !strcmp(source, "codectl");
		r.bad = !strcmp(state, "bad");
		if (n < max)
			regs[n] = r;
		n++;
	}
	fclose(f);
	return ret ? ret : (int)n;
}

/**
 * sft_regs_find() - The registration of a text range
 * @regs: registrations from sft_regs_read()
 * @n: their number
 * @text_start: the start of its text range
 *
 * Return: the registration, or NULL.
 */
const struct sft_reg *sft_regs_find(const struct sft_reg *regs,
				    unsigned int n, unsigned long text_start)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (regs[i].text_start == text_start)
			return &regs[i];
	return NULL;
}

/**
 * sft_regs_dump() - Print /proc/self/sframe, for the messages of a failure
 */
void sft_regs_dump(void)
{
	char line[PATH_MAX + 256];
	FILE *f;

	f = fopen("/proc/self/sframe", "re");
	if (!f)
		return;
	ksft_print_msg("/proc/self/sframe:\n");
	while (fgets(line, sizeof(line), f))
		ksft_print_msg("  %s", line);
	fclose(f);
}

/**
 * sft_wait() - Wait for a child, for a bounded time
 * @pid: the child
 * @timeout_s: seconds; then it is killed
 * @what: what it is, for the messages
 *
 * Return: its exit code, or -1 after printing how it died or hung.
 */
int sft_wait(pid_t pid, int timeout_s, const char *what)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	long naps = timeout_s * 100L;
	int status;
	pid_t got;

	for (;;) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			break;
		if (got < 0) {
			ksft_print_msg("waitpid(%s): %s\n", what,
				       strerror(errno));
			return -1;
		}
		if (naps-- <= 0) {
			ksft_print_msg("%s (pid %d) still runs after %d s: killing it\n",
				       what, pid, timeout_s);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	if (WIFSIGNALED(status)) {
		ksft_print_msg("%s (pid %d) was killed by signal %d (%s)\n",
			       what, pid, WTERMSIG(status),
			       strsignal(WTERMSIG(status)));
		return -1;
	}
	return WEXITSTATUS(status);
}

/**
 * sft_spawn() - Run a program and wait for it, for a bounded time
 * @argv: its arguments, @argv[0] the program
 * @env: a variable to add to its environment, "NAME=value", or NULL
 * @timeout_s: seconds it may take; then it is killed
 *
 * Return: its exit code, or -1 when it did not run, died or hung (printed).
 */
int sft_spawn(char *const argv[], const char *env, int timeout_s)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ksft_perror("fork");
		return -1;
	}
	if (!pid) {
		if (env)
			putenv((char *)env);
		execv(argv[0], argv);
		ksft_print_msg("exec %s: %s\n", argv[0], strerror(errno));
		fflush(stdout);
		_exit(126);
	}
	return sft_wait(pid, timeout_s, argv[0]);
}
