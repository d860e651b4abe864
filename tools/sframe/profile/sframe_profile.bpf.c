// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile's BPF programs (CO-RE, against the running kernel's BTF).
 *
 * sample, on a cpu-clock event of each CPU: the user stack as it can be
 * taken where the program runs, without faulting (bpf_get_stack()), and a
 * request for the complete one (bpf_unwind_user_request()), whose cookie
 * goes with the sample.  deliver, on the bpf_unwind_user_stack
 * tracepoint: the complete stack, walked by the deferred unwinder on the
 * task's way back to user space, with the cookie of its samples.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sframe_profile.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader: the process to sample, 0 for every process */
const volatile __u32 target_tgid;
/* Set by the loader: take no deferred stack (-a) */
const volatile bool atomic_only;

/* Events the ring buffer had no room for */
__u64 lost;

extern int bpf_unwind_user_request(__u64 *cookie) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} events SEC(".maps");

static __always_inline struct sp_event *reserve(__u32 kind, __u64 id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = id >> 32;
	struct sp_event *e;

	/* A kernel thread has no user stack */
	if (!task->mm || (target_tgid && tgid != target_tgid))
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost, 1);
		return NULL;
	}
	e->kind = kind;
	e->tgid = tgid;
	e->tid = (__u32)id;
	e->request = 0;
	e->cookie = 0;
	e->nr = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	struct sp_event *e = reserve(SP_SAMPLE, bpf_get_current_pid_tgid());
	long len;

	if (!e)
		return 0;
	e->request = -95;	/* EOPNOTSUPP */
	if (!atomic_only && bpf_ksym_exists(bpf_unwind_user_request))
		e->request = bpf_unwind_user_request(&e->cookie);
	len = bpf_get_stack(ctx, e->ips, sizeof(e->ips), BPF_F_USER_STACK);
	e->nr = len > 0 ? len / sizeof(__u64) : 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/bpf_unwind_user_stack")
int BPF_PROG(deliver, __u64 cookie, unsigned int nr, const unsigned long *ips)
{
	struct sp_event *e = reserve(SP_STACK, bpf_get_current_pid_tgid());

	if (!e)
		return 0;
	e->cookie = cookie;
	if (nr > SP_MAX_IPS)
		nr = SP_MAX_IPS;
	if (nr && !bpf_probe_read_kernel(e->ips, nr * sizeof(__u64), ips))
		e->nr = nr;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
