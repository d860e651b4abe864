// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user stacks for the stacktrace:user event trigger.
 *
 * The trigger asks the deferred unwinder for the user stack of the current
 * task and records the cookie it gets right after the event.  Before the
 * task returns to user space, the unwinder calls back here in task context,
 * where page faults and the mmap lock are allowed: each frame is resolved to
 * the file it is in and its offset in that file, and the stack is written
 * into the instance's buffer with the same cookie.  Each instance with such
 * a trigger has an unwind_work of its own, so that each stack goes only to
 * the buffers whose events asked for it; the unwinder calls back once per
 * instance per entry into the kernel, however many events asked.
 *
 * A stack record holds its frames as 64-bit words, followed by the names
 * of the objects they are in, each NUL-terminated, in the order of their
 * first frame.  Each word holds the object in its top eight bits
 * (TRACE_USER_STACK_OBJ_*, or the index of a name plus
 * TRACE_USER_STACK_OBJ_NAMED) and the offset in it in the other 56.  The
 * names are in the record itself, so that every record can be read on its
 * own: whatever the buffer overwrote, swapped into a snapshot or handed to
 * a reader before, and whoever reads it (trace, trace_pipe, or the raw
 * pages with the format file).
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/unwind_deferred.h>

#include "trace.h"

/*
 * The deferred unwinder has BITS_PER_LONG - 2 unwind_works for the whole
 * system, perf takes one: instances with a stacktrace:user trigger take at
 * most a quarter of them.
 */
#define USER_STACK_MAX_INSTANCES	(BITS_PER_LONG / 4)

/* The largest record written, whatever the size of the sub-buffers. */
#define USER_STACK_MAX_RECORD		(2 * PAGE_SIZE)

/*
 * Where a stack is resolved before it is written: room for the frames and,
 * apart, for the names, each as large as the largest record.
 */
#define USER_STACK_SCRATCH_SIZE		(2 * USER_STACK_MAX_RECORD)

/* Instances that hold an unwind_work, protected by event_mutex */
static unsigned int user_stack_instances;

/*
 * A scratch buffer per CPU, so that a trigger on a hot event does not
 * allocate per stack.  They exist while an instance holds an unwind_work:
 * made by the first trace_user_stack_get(), freed by the last
 * trace_user_stack_release(), after which no callback runs.  The callback
 * may sleep for the mmap lock: it takes the buffer after that, and keeps
 * the local lock (no migration, no other user on this CPU) until the stack
 * is in the ring buffer.  Nothing under the local lock sleeps: VMA lookups
 * under the mmap lock, d_path() (RCU and seqlocks), the ring buffer write.
 */
struct user_stack_scratch {
	local_lock_t	lock;
	void		*buf;
};

static DEFINE_PER_CPU(struct user_stack_scratch, user_stack_scratch) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

static void user_stack_scratch_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct user_stack_scratch *s = per_cpu_ptr(&user_stack_scratch,
							   cpu);

		kfree(s->buf);
		s->buf = NULL;
	}
}

static int user_stack_scratch_alloc(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct user_stack_scratch *s = per_cpu_ptr(&user_stack_scratch,
							   cpu);

		s->buf = kmalloc_node(USER_STACK_SCRATCH_SIZE, GFP_KERNEL,
				      cpu_to_node(cpu));
		if (!s->buf) {
			user_stack_scratch_free();
			return -ENOMEM;
		}
	}
	return 0;
}

/* What a frame is in, while a stack is being resolved */
struct user_stack_build {
	u64		*frames;
	char		*names;		/* NUL-terminated, one after the other */
	size_t		names_len;
	size_t		room;		/* bytes left for frames and names */
	unsigned int	nr_names;
	struct file	*last_file;	/* the file of the last named frame */
	unsigned int	last_obj;
};

static u64 user_stack_frame(unsigned int obj, u64 offset)
{
	return ((u64)obj << TRACE_USER_STACK_OBJ_SHIFT) |
	       (offset & TRACE_USER_STACK_OFFSET_MASK);
}

/*
 * The object index of the name at @b->names + @b->names_len, @len bytes
 * long: an earlier one of the same name, or this one, which is kept.
 */
static unsigned int user_stack_add_name(struct user_stack_build *b,
					size_t len)
{
	const char *new = b->names + b->names_len;
	const char *p = b->names;
	unsigned int i;

	for (i = 0; i < b->nr_names; i++) {
		size_t n = strlen(p);

		if (n == len && !memcmp(p, new, len))
			return TRACE_USER_STACK_OBJ_NAMED + i;
		p += n + 1;
	}
	if (b->nr_names >= TRACE_USER_STACK_MAX_NAMES)
		return TRACE_USER_STACK_OBJ_UNNAMED;
	b->names_len += len + 1;
	b->room -= len + 1;
	return TRACE_USER_STACK_OBJ_NAMED + b->nr_names++;
}

/* The object index of the name of @vma's file, made room for in @b. */
static unsigned int user_stack_file_name(struct user_stack_build *b,
					 struct vm_area_struct *vma)
{
	char *start = b->names + b->names_len;
	char *p;
	size_t len;

	if (vma->vm_file == b->last_file)
		return b->last_obj;

	/* d_path() writes the name at the end of the room it is given. */
	b->last_file = vma->vm_file;
	p = d_path(file_user_path(vma->vm_file), start, b->room);
	if (IS_ERR(p)) {
		b->last_obj = TRACE_USER_STACK_OBJ_UNNAMED;
	} else {
		len = strlen(p);
		memmove(start, p, len + 1);
		b->last_obj = user_stack_add_name(b, len);
	}
	return b->last_obj;
}

/* The object index of a special mapping's name, such as "[vdso]". */
static unsigned int user_stack_special_name(struct user_stack_build *b,
					    const char *name)
{
	size_t len = strlen(name);

	if (len + 1 > b->room)
		return TRACE_USER_STACK_OBJ_UNNAMED;
	memcpy(b->names + b->names_len, name, len + 1);
	return user_stack_add_name(b, len);
}

/*
 * Resolve the frames of @trace into @b, as many as fit.  Called with the
 * mmap lock of @mm held.  Return: the number of frames resolved.
 */
static unsigned int user_stack_resolve(struct user_stack_build *b,
				       struct mm_struct *mm,
				       const struct unwind_stacktrace *trace)
{
	unsigned int i;

	for (i = 0; i < trace->nr; i++) {
		unsigned long ip = trace->entries[i];
		struct vm_area_struct *vma;
		const char *special = NULL;
		unsigned int obj;
		u64 offset;

		/* The frame's word, and a name's terminating NUL at least */
		if (b->room < sizeof(u64) + 1)
			break;
		b->room -= sizeof(u64);

		vma = vma_lookup(mm, ip);
		if (vma && !vma->vm_file && vma->vm_ops && vma->vm_ops->name)
			special = vma->vm_ops->name(vma);
		if (!vma) {
			obj = TRACE_USER_STACK_OBJ_UNKNOWN;
			offset = ip;
		} else if (vma->vm_file) {
			obj = user_stack_file_name(b, vma);
			offset = ip - vma->vm_start +
				 ((u64)vma->vm_pgoff << PAGE_SHIFT);
		} else if (special) {
			obj = user_stack_special_name(b, special);
			offset = ip - vma->vm_start;
		} else {
			obj = TRACE_USER_STACK_OBJ_ANON;
			offset = ip;
		}
		b->frames[i] = user_stack_frame(obj, offset);
	}
	return i;
}

static void user_stack_write(struct trace_array *tr, u64 cookie,
			     const u64 *frames, unsigned int nr,
			     const char *names, size_t names_len,
			     unsigned int nr_names, unsigned int dropped)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct user_stack_deferred_entry *entry;
	struct ring_buffer_event *event;

	event = __trace_buffer_lock_reserve(buffer, TRACE_USER_STACK_DEFERRED,
					    struct_size(entry, frames, nr) +
					    names_len, tracing_gen_ctx());
	if (!event)
		return;
	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	entry->nr = nr;
	entry->names = nr_names;
	entry->dropped = dropped;
	memcpy(entry->frames, frames, flex_array_size(entry, frames, nr));
	memcpy(entry->frames + nr, names, names_len);
	__buffer_unlock_commit(buffer, event);
}

/*
 * When memory or the mmap lock cannot be had: the frames as addresses,
 * without names, written straight into the buffer.
 */
static void user_stack_write_unnamed(struct trace_array *tr, u64 cookie,
				     const struct unwind_stacktrace *trace,
				     size_t max)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct user_stack_deferred_entry *entry;
	struct ring_buffer_event *event;
	unsigned int i, nr;

	nr = min_t(size_t, trace->nr,
		   (max - sizeof(*entry)) / sizeof(entry->frames[0]));
	event = __trace_buffer_lock_reserve(buffer, TRACE_USER_STACK_DEFERRED,
					    struct_size(entry, frames, nr),
					    tracing_gen_ctx());
	if (!event)
		return;
	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	entry->nr = nr;
	entry->names = 0;
	entry->dropped = trace->nr - nr;
	for (i = 0; i < nr; i++)
		entry->frames[i] = user_stack_frame(TRACE_USER_STACK_OBJ_UNKNOWN,
						    trace->entries[i]);
	__buffer_unlock_commit(buffer, event);
}

/*
 * The deferred unwinder's callback: in the task, before it returns to user
 * space or as it exits, with its mm still there.
 */
static void user_stack_callback(struct unwind_work *work,
				struct unwind_stacktrace *trace, u64 cookie)
{
	struct trace_array *tr = container_of(work, struct trace_array,
					      user_stack_work);
	struct user_stack_deferred_entry *entry;
	struct mm_struct *mm = current->mm;
	struct user_stack_build b = { };
	struct user_stack_scratch *scratch;
	unsigned int nr;
	size_t max;

	max = min(ring_buffer_max_event_size(tr->array_buffer.buffer),
		  USER_STACK_MAX_RECORD);
	if (max < sizeof(*entry))
		return;

	if (!mm || mmap_read_lock_killable(mm)) {
		user_stack_write_unnamed(tr, cookie, trace, max);
		return;
	}
	/* Frames and names go to two halves, then into the record. */
	local_lock(&user_stack_scratch.lock);
	scratch = this_cpu_ptr(&user_stack_scratch);
	b.frames = scratch->buf;
	b.names = scratch->buf + USER_STACK_MAX_RECORD;
	b.room = max - sizeof(*entry);
	nr = user_stack_resolve(&b, mm, trace);
	mmap_read_unlock(mm);

	user_stack_write(tr, cookie, b.frames, nr, b.names, b.names_len,
			 b.nr_names, trace->nr - nr);
	local_unlock(&user_stack_scratch.lock);
}

/**
 * trace_user_stack_get - Give an instance its deferred unwinder
 * @tr: the instance, which gets a stacktrace:user trigger
 *
 * The unwinder stays with the instance until it is removed, so that no
 * request made before a trigger is removed is lost.  Called with
 * event_mutex held.
 *
 * Return: 0; -ENOSPC when instances hold as many unwinders as they may;
 * -EBUSY when the system has no unwinder left; -ENOMEM.
 */
int trace_user_stack_get(struct trace_array *tr)
{
	int ret;

	lockdep_assert_held(&event_mutex);

	if (tr->user_stack_ready)
		return 0;
	if (user_stack_instances >= USER_STACK_MAX_INSTANCES)
		return -ENOSPC;
	if (!user_stack_instances) {
		ret = user_stack_scratch_alloc();
		if (ret)
			return ret;
	}
	ret = unwind_deferred_init(&tr->user_stack_work, user_stack_callback);
	if (ret) {
		if (!user_stack_instances)
			user_stack_scratch_free();
		return ret;
	}
	user_stack_instances++;
	tr->user_stack_ready = true;
	return 0;
}

/**
 * trace_user_stack_release - Give back an instance's deferred unwinder
 * @tr: the instance, being removed
 *
 * Requests not yet served are dropped: their events go with the instance's
 * buffer.  No trigger of the instance may run any more.  Called with
 * event_mutex held.
 */
void trace_user_stack_release(struct trace_array *tr)
{
	lockdep_assert_held(&event_mutex);

	if (!tr->user_stack_ready)
		return;
	/* Waits for callbacks that run, and stops the others. */
	unwind_deferred_cancel(&tr->user_stack_work);
	tr->user_stack_ready = false;
	if (!--user_stack_instances)
		user_stack_scratch_free();
}

/**
 * trace_user_stack_request - Ask for the user stack of the current task
 * @tr: the instance whose trigger fired
 * @trace_ctx: the context of the event, for the cookie record
 *
 * Records a user_stack_cookie entry in @tr's buffer: the cookie of the
 * stack that the user_stack_deferred entry with the same cookie holds, or
 * 0 when there will be none (a task that exits, or an NMI on an
 * architecture where the unwinder cannot be asked from one).  Kernel
 * threads have no user stack: nothing is recorded for them.  Callable
 * from any context.
 */
void trace_user_stack_request(struct trace_array *tr, unsigned int trace_ctx)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct user_stack_cookie_entry *entry;
	struct ring_buffer_event *event;
	u64 cookie = 0;

	if (current->flags & PF_KTHREAD || !current->mm)
		return;
	if ((IS_ENABLED(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG) || !in_nmi()) &&
	    unwind_deferred_request(&tr->user_stack_work, &cookie) < 0)
		cookie = 0;

	event = __trace_buffer_lock_reserve(buffer, TRACE_USER_STACK_COOKIE,
					    sizeof(*entry), trace_ctx);
	if (!event)
		return;
	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	__buffer_unlock_commit(buffer, event);
}
