// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs of the sframe_bpf tests: they take the user stack of one
 * process (target_tgid) with bpf_get_stack() and bpf_get_stackid() and
 * pass it to user space in a ring buffer.
 *
 *  - on_getppid: the syscalls/sys_enter_getppid tracepoint, where the
 *    known chain of ../sframe makes its system calls; a tracepoint
 *    program cannot fault: the stack is taken in atomic context;
 *  - on_sample: a perf event that samples the program's user time
 *    (task-clock, in the timer interrupt), as bpftrace's profile probes
 *    and BCC's profile do, without a callchain in the sample;
 *  - on_sample_pe: the same on an event that samples callchains with
 *    defer_callchain: bpf_get_stack() is then bpf_get_stack_pe(), which
 *    reads the sample's callchain for the kernel stack;
 *  - on_leaf, on_leaf_s: uprobes at the entry of st_leaf_bare, the second
 *    sleepable: bpf_get_stack() may fault there.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#include "sframe_bpf.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SFB_MAX_IPS * sizeof(__u64));
	__uint(max_entries, 4096);
} stackmap SEC(".maps");

static __always_inline int record(void *ctx, __u32 kind, int pe, int id)
{
	struct sfb_record *r = sfb_reserve(&stacks, kind);

	if (!r)
		return 0;
	r->user_len = bpf_get_stack(ctx, r->user, sizeof(r->user),
				    BPF_F_USER_STACK);
	/* Sleepable programs cannot use stack maps */
	r->stackid = id ? bpf_get_stackid(ctx, &stackmap, BPF_F_USER_STACK) : -1;
	r->kernel_len = pe ? bpf_get_stack(ctx, r->kernel, sizeof(r->kernel), 0)
			   : 0;
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/*
 * A tracepoint program decides whether the perf events of the tracepoint
 * get the event: 1, for the test program's own event, perf's walk.
 */
SEC("tracepoint/syscalls/sys_enter_getppid")
int on_getppid(void *ctx)
{
	record(ctx, SFB_SYSCALL, 0, 1);
	return 1;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	return record(ctx, SFB_SAMPLE, 0, 1);
}

SEC("perf_event")
int on_sample_pe(struct bpf_perf_event_data *ctx)
{
	return record(ctx, SFB_SAMPLE_PE, 1, 1);
}

SEC("uprobe")
int on_leaf(void *ctx)
{
	return record(ctx, SFB_UPROBE, 0, 1);
}

SEC("uprobe.s")
int on_leaf_s(void *ctx)
{
	return record(ctx, SFB_UPROBE_S, 0, 0);
}
