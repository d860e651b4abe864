// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF programs of "kbench bpf" (kbench.c): what a user stack costs a
 * BPF program.  Each runs on kbench's own perf event on the tracepoint
 * syscalls:sys_enter_getppid (so only for kbench's thread) and returns 0,
 * so that the event writes nothing:
 *
 *  - kb_none: nothing, the cost of running a program at all;
 *  - kb_walk: bpf_get_stack(BPF_F_USER_STACK), the walk that cannot
 *    fault, as bpftrace's ustack and BCC's profile take it;
 *  - kb_request: bpf_unwind_user_request(), the deferred walk on the way
 *    back to user space, which kb_deliver receives from the
 *    bpf_unwind_user_stack tracepoint and copies, as a profiler would.
 *
 * kb_walk and kb_deliver leave the last stack in kb_stacks for kbench to
 * check against the chain it called.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "kbench_bpf.h"

char _license[] SEC("license") = "GPL";

extern int bpf_unwind_user_request(__u64 *cookie) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KB_BPF_NR_STACKS);
	__type(key, __u32);
	__type(value, struct kb_bpf_stack);
} kb_stacks SEC(".maps");

static __always_inline struct kb_bpf_stack *kb_slot(__u32 key)
{
	return bpf_map_lookup_elem(&kb_stacks, &key);
}

SEC("tracepoint")
int kb_none(void *ctx)
{
	return 0;
}

SEC("tracepoint")
int kb_walk(void *ctx)
{
	struct kb_bpf_stack *s = kb_slot(KB_BPF_WALK);

	if (s)
		s->len = bpf_get_stack(ctx, s->ips, sizeof(s->ips),
				       BPF_F_USER_STACK);
	return 0;
}

SEC("tracepoint")
int kb_request(void *ctx)
{
	struct kb_bpf_stack *s = kb_slot(KB_BPF_DELIVERED);
	__u64 cookie;

	if (s)
		s->ret = bpf_unwind_user_request(&cookie);
	return 0;
}

/* args: the cookie, the number of return addresses, the addresses */
SEC("raw_tp/bpf_unwind_user_stack")
int kb_deliver(struct bpf_raw_tracepoint_args *ctx)
{
	struct kb_bpf_stack *s = kb_slot(KB_BPF_DELIVERED);
	const void *ips = (const void *)ctx->args[2];
	__u64 nr = ctx->args[1];

	if (!s)
		return 0;
	if (nr > KB_BPF_MAX_IPS)
		nr = KB_BPF_MAX_IPS;
	s->len = -1;
	if (nr && !bpf_probe_read_kernel(s->ips, nr * sizeof(__u64), ips))
		s->len = nr * sizeof(__u64);
	return 0;
}
