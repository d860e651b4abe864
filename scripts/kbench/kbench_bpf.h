/* SPDX-License-Identifier: GPL-2.0 */
/* What kbench.bpf.c leaves for kbench.c to check */
#ifndef KBENCH_BPF_H
#define KBENCH_BPF_H

#include <linux/types.h>

#define KB_BPF_MAX_IPS	1024

/* The keys of kb_stacks */
#define KB_BPF_WALK		0
#define KB_BPF_DELIVERED	1
#define KB_BPF_NR_STACKS	2

struct kb_bpf_stack {
	__s64 len;		/* bytes of ips[], or a negative errno */
	__s64 ret;		/* bpf_unwind_user_request()'s return */
	__u64 ips[KB_BPF_MAX_IPS];
};

#endif
