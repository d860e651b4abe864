/* SPDX-License-Identifier: GPL-2.0 */
/* What sframe-profile's BPF programs pass to user space. */
#ifndef SFRAME_PROFILE_H
#define SFRAME_PROFILE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* perf_event_max_stack's default */
#define SP_MAX_IPS	127
#define SP_COMM_LEN	16

enum sp_kind {
	SP_SAMPLE = 1,		/* a sample: the stack taken without faulting */
	SP_STACK = 2,		/* a deferred stack, for the samples of a cookie */
};

struct sp_event {
	__u32 kind;
	__u32 tgid;
	__u32 tid;
	__s32 request;		/* SP_SAMPLE: bpf_unwind_user_request()'s return */
	__u64 cookie;		/* SP_SAMPLE: the request's; SP_STACK: its own */
	__u32 nr;		/* return addresses in ips */
	char comm[SP_COMM_LEN];
	__u64 ips[SP_MAX_IPS];	/* innermost first */
};

#endif /* SFRAME_PROFILE_H */
