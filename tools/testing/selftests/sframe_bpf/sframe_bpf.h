/* SPDX-License-Identifier: GPL-2.0 */
/* What the BPF programs of sframe_bpf pass to user space. */
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
};

struct sfb_record {
	__u32 kind;
	__s32 stackid;			/* bpf_get_stackid(), user */
	__s64 user_len;			/* bpf_get_stack(), user: bytes */
	__s64 kernel_len;		/* ... kernel (SFB_SAMPLE_PE) */
	__u64 user[SFB_MAX_IPS];
	__u64 kernel[16];
};

#endif /* SFRAME_BPF_H */
