/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bpf_unwind

#if !defined(_TRACE_BPF_UNWIND_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BPF_UNWIND_H

#include <linux/tracepoint.h>

/*
 * bpf_unwind_user_stack - the user stack that BPF programs asked for
 *
 * Fired in task context on the way back to user space, once per kernel
 * entry in which a BPF program called bpf_unwind_user_request(): @cookie
 * is the one the requests got, @ips the return addresses of the user
 * stack, innermost first (@nr may be 0: the walk found nothing).  BPF
 * programs attach to it as raw_tp or tp_btf programs.
 */
TRACE_EVENT(bpf_unwind_user_stack,

	TP_PROTO(u64 cookie, unsigned int nr, const unsigned long *ips),

	TP_ARGS(cookie, nr, ips),

	TP_STRUCT__entry(
		__field(u64, cookie)
		__field(unsigned int, nr)
		__dynamic_array(unsigned long, ips, nr)
	),

	TP_fast_assign(
		__entry->cookie = cookie;
		__entry->nr = nr;
		if (nr)
			memcpy(__get_dynamic_array(ips), ips,
			       nr * sizeof(unsigned long));
	),

	TP_printk("cookie=%llx nr=%u ips=%s", __entry->cookie, __entry->nr,
		  __print_array(__get_dynamic_array(ips), __entry->nr,
				sizeof(unsigned long)))
);

#endif /* _TRACE_BPF_UNWIND_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
