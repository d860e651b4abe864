// SPDX-License-Identifier: GPL-2.0
/*
 * Complete user stacks for BPF programs that cannot fault.
 *
 * A perf_event, kprobe, tracepoint, raw_tp or fentry program runs where a
 * page fault cannot be taken: bpf_get_stack() gives it the user stack as
 * far as it can be walked without faulting (see stackmap.c).  A program
 * that needs the whole stack every time asks for it with
 * bpf_unwind_user_request(), which gives it a cookie to store with its
 * own data.  The deferred unwinder then walks the stack in task context,
 * on the task's way back to user space, where the stack and the .sframe
 * sections may be paged in, and the bpf_unwind_user_stack tracepoint
 * delivers it with that cookie to the programs attached to it (raw_tp or
 * tp_btf), which stitch it to what they stored.
 *
 * One unwind_work serves all of BPF: the deferred unwinder has room for
 * few users, and the requests of all programs in one kernel entry share
 * one walk and one cookie, as perf's deferred callchains do.  Nothing is
 * allocated per request, so a program detached with requests in flight
 * leaves nothing behind: the stack is still delivered, to whatever is
 * attached then.  A task that exits with a request pending gets its stack
 * delivered on its way out (unwind_deferred_task_exit()).
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/hardirq.h>
#include <linux/init.h>
#include <linux/unwind_deferred.h>

#define CREATE_TRACE_POINTS
#include <trace/events/bpf_unwind.h>

static struct unwind_work bpf_unwind_work;

static void bpf_unwind_deliver(struct unwind_work *work,
			       struct unwind_stacktrace *trace, u64 cookie)
{
	trace_bpf_unwind_user_stack(cookie, trace->nr, trace->entries);
}

__bpf_kfunc_start_defs();

/**
 * bpf_unwind_user_request() - Ask for current's user stack at its return
 *                             to user space
 * @cookie: set to the cookie that the stack will be delivered with, or to
 *          0 on error
 *
 * The stack is walked by the deferred unwinder in task context, before
 * the task returns to user space, and delivered by the
 * bpf_unwind_user_stack tracepoint, once per kernel entry: the requests
 * of one entry, by any program, get the same cookie.
 *
 * Return: 0 when this call queued the walk; 1 when an earlier request of
 * this kernel entry did (the stack is delivered once, with the same
 * cookie, and may have been delivered already: a request made while the
 * task works its way back to user space comes after the walk); -EINVAL
 * when current has no user stack to walk (a kernel thread, an exiting
 * task, a task not entered from user space);
 * -EOPNOTSUPP in NMI context on an architecture without NMI-safe cmpxchg.
 * The kfunc is registered only once bpf_unwind_work has its slot.
 */
__bpf_kfunc int bpf_unwind_user_request(u64 *cookie)
{
	*cookie = 0;
	/* unwind_deferred_request() would warn: no program may make it */
	if (!IS_ENABLED(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG) && in_nmi())
		return -EOPNOTSUPP;
	return unwind_deferred_request(&bpf_unwind_work, cookie);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpf_unwind_kfunc_ids)
BTF_ID_FLAGS(func, bpf_unwind_user_request)
BTF_KFUNCS_END(bpf_unwind_kfunc_ids)

static const struct btf_kfunc_id_set bpf_unwind_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bpf_unwind_kfunc_ids,
};

static int __init bpf_unwind_init(void)
{
	int err;

	err = unwind_deferred_init(&bpf_unwind_work, bpf_unwind_deliver);
	if (err) {
		pr_warn("bpf: no deferred user stacks: %d\n", err);
		return 0;
	}

	/* Tracing's hook covers perf_event, tracepoint, raw_tp and LSM too */
	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
					&bpf_unwind_kfunc_set);
	return err ?: register_btf_kfunc_id_set(BPF_PROG_TYPE_KPROBE,
						&bpf_unwind_kfunc_set);
}
late_initcall(bpf_unwind_init);
