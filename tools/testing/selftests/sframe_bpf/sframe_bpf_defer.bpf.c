// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs of the sframe_bpf tests of deferred user stacks: programs
 * that cannot fault ask for the user stack of one process (target_tgid)
 * with bpf_unwind_user_request(), and a raw_tp program receives it from
 * the bpf_unwind_user_stack tracepoint on the process's way back to user
 * space.  Both pass what they have to user space in a ring buffer, which
 * stitches them by cookie.
 *
 *  - req_getppid: the syscalls/sys_enter_getppid tracepoint, where the
 *    known chain of ../sframe makes its system calls;
 *  - req_sample: a perf event sampling the program's user time, in the
 *    timer interrupt, as profilers do;
 *  - req_exit: sys_enter_exit_group: the task exits with its request
 *    pending, the stack comes on its way out;
 *  - req_exiting: sched_process_exit: the task is exiting, no request;
 *  - req_test_run: a raw_tp program run by BPF_PROG_TEST_RUN, in the
 *    bpf() system call of the test itself;
 *  - deliver: the bpf_unwind_user_stack tracepoint;
 *  - bad_null, bad_prog_type: what the verifier must refuse.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#include "sframe_bpf.h"

char _license[] SEC("license") = "GPL";

extern int bpf_unwind_user_request(__u64 *cookie) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} stacks SEC(".maps");

static __always_inline int request(void *ctx, __u32 kind, int walk)
{
	struct sfb_record *r = sfb_reserve(&stacks, kind);

	if (!r)
		return 0;
	r->ret = bpf_unwind_user_request(&r->cookie);
	/* What the program gets now: the walk that cannot fault */
	if (walk)
		r->user_len = bpf_get_stack(ctx, r->user, sizeof(r->user),
					    BPF_F_USER_STACK);
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/*
 * A tracepoint program decides whether the perf events of the tracepoint
 * get the event: 1, for the test program's own event.
 */
SEC("tracepoint/syscalls/sys_enter_getppid")
int req_getppid(void *ctx)
{
	request(ctx, SFB_REQ_SYSCALL, 1);
	return 1;
}

SEC("perf_event")
int req_sample(struct bpf_perf_event_data *ctx)
{
	return request(ctx, SFB_REQ_SAMPLE, 1);
}

SEC("tracepoint/syscalls/sys_enter_exit_group")
int req_exit(void *ctx)
{
	request(ctx, SFB_REQ_EXIT, 0);
	return 1;
}

SEC("tracepoint/sched/sched_process_exit")
int req_exiting(void *ctx)
{
	request(ctx, SFB_REQ_EXITING, 0);
	return 1;
}

SEC("raw_tp")
int req_test_run(void *ctx)
{
	return request(ctx, SFB_REQ_TEST_RUN, 0);
}

/* args: the cookie, the number of return addresses, the addresses */
SEC("raw_tp/bpf_unwind_user_stack")
int deliver(struct bpf_raw_tracepoint_args *ctx)
{
	struct sfb_record *r = sfb_reserve(&stacks, SFB_DELIVERED);
	const void *ips = (const void *)ctx->args[2];
	__u64 nr = ctx->args[1];

	if (!r)
		return 0;
	r->cookie = ctx->args[0];
	r->ret = nr;
	if (nr > SFB_MAX_IPS)
		nr = SFB_MAX_IPS;
	if (nr && !bpf_probe_read_kernel(r->user, nr * sizeof(__u64), ips))
		r->user_len = nr * sizeof(__u64);
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/* The verifier must refuse these two: never loaded but by that test */
SEC("?raw_tp")
int bad_null(void *ctx)
{
	return bpf_unwind_user_request((__u64 *)0);
}

SEC("?socket")
int bad_prog_type(void *ctx)
{
	__u64 cookie = 0;

	return bpf_unwind_user_request(&cookie);
}
