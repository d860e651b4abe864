/* SPDX-License-Identifier: GPL-2.0 */
/* What the BPF programs of sframe_bpf pass to user space, and how. */
#ifndef SFRAME_BPF_H
#define SFRAME_BPF_H

/* perf_event_max_stack's default */
#define SFB_MAX_IPS	127

enum sfb_kind {
	SFB_SYSCALL = 1,	/* sys_enter_getppid */
	SFB_SAMPLE = 2,		/* task-clock sample, no callchain */
	SFB_SAMPLE_PE = 3,	/* task-clock sample, deferred callchain */
	SFB_UPROBE = 4,		/* uprobe at st_leaf_bare */
	SFB_UPROBE_S = 5,	/* sleepable uprobe at st_leaf_bare */
	/* sframe_bpf_defer.bpf.c: bpf_unwind_user_request() at ... */
	SFB_REQ_SYSCALL = 6,	/* sys_enter_getppid */
	SFB_REQ_SAMPLE = 7,	/* task-clock sample */
	SFB_REQ_EXIT = 8,	/* sys_enter_exit_group */
	SFB_REQ_EXITING = 9,	/* sched_process_exit */
	SFB_REQ_TEST_RUN = 10,	/* BPF_PROG_TEST_RUN of a raw_tp program */
	SFB_DELIVERED = 11,	/* the bpf_unwind_user_stack tracepoint */
};

struct sfb_record {
	__u32 kind;
	__s32 stackid;			/* bpf_get_stackid(), user */
	__s64 user_len;			/* bpf_get_stack(), user: bytes */
	__s64 kernel_len;		/* ... kernel (SFB_SAMPLE_PE) */
	__u64 cookie;			/* of the request or the delivery */
	__s64 ret;			/* request's return; delivery's nr */
	__u64 user[SFB_MAX_IPS];
	__u64 kernel[16];
};

#ifdef __bpf__
/* Set by the loader: the process whose stacks are recorded */
volatile const __u32 target_tgid;

/* A record of target_tgid's, reserved in @ring; NULL for other tasks */
static __always_inline struct sfb_record *sfb_reserve(void *ring, __u32 kind)
{
	struct sfb_record *r;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return NULL;
	r = bpf_ringbuf_reserve(ring, sizeof(*r), 0);
	if (!r)
		return NULL;
	r->kind = kind;
	r->stackid = -1;
	r->user_len = 0;
	r->kernel_len = 0;
	r->cookie = 0;
	r->ret = 0;
	return r;
}
#endif

#endif /* SFRAME_BPF_H */
