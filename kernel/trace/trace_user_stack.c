// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user stacks for the stacktrace:user event trigger.
 *
 * The trigger asks the deferred unwinder for the user stack of the current
 * task and records the cookie it gets right after the event.  Before the
 * task returns to user space, the unwinder calls back here in task context:
 * each frame is resolved to the file it is in and its offset in that file,
 * and the stack is written into the instance's buffer with the same cookie.
 * Each instance with such triggers has an unwind_work of its own while it
 * has them, so that each stack goes only to the buffers whose events asked
 * for it; the unwinder calls back once per instance per entry into the
 * kernel, however many events asked.
 *
 * The callback runs inside the unwinder's SRCU read section, which removing
 * a trigger or an instance waits for with event_mutex held: it must not
 * wait for anything the traced task controls.  It never sleeps on the
 * task's mmap_lock: it takes it only if it is free (mmap_read_trylock()),
 * and otherwise looks each frame's VMA up under its per-VMA lock, which
 * does not wait either; a frame whose VMA cannot be had so is recorded by
 * its address.
 *
 * A stack record (user_stack_deferred, see trace_entries.h) holds its
 * frames as 64-bit words in a __data_loc array, and the names of their
 * objects in a __data_loc string, separated by
 * TRACE_USER_STACK_NAME_SEP, in the order of their first frame.  Each word
 * holds the object in its top eight bits (TRACE_USER_STACK_OBJ_*, or the
 * index of a name plus TRACE_USER_STACK_OBJ_NAMED) and the offset in it in
 * the other 56.  Names are escaped as /proc/<pid>/maps does (a newline as
 * "\012"), and so is the separator.  The names are in the record itself, so
 * that every record can be read on its own: whatever the buffer overwrote,
 * swapped into a snapshot or handed to a reader before, and whoever reads
 * it (trace, trace_pipe, or the raw pages with the format file).
 */
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/unwind_deferred.h>

#include "trace.h"

/*
 * The deferred unwinder has BITS_PER_LONG - 2 unwind_works for the whole
 * system, perf takes one: instances with a stacktrace:user trigger take at
 * most a quarter of them.
 */
#define USER_STACK_MAX_INSTANCES	(BITS_PER_LONG / 4)

/*
 * The largest record written, whatever the page size: room for the
 * unwinder's largest stack (UNWIND_MAX_ENTRIES, 510 frames on 64-bit)
 * when the names are few and short, less when they are not.
 */
#define USER_STACK_MAX_RECORD		SZ_4K

/*
 * The distinct objects (files, special mappings) a record names at most,
 * and the hash table that finds them again: each is looked up once per
 * record, however the frames alternate between them.
 */
#define USER_STACK_MAX_OBJS		64
#define USER_STACK_HASH_BITS		7

/* What a name is escaped for: a newline, as in maps, and the separator */
static const char user_stack_esc[] = { '\n', TRACE_USER_STACK_NAME_SEP, 0 };

/* The objects of the stack being resolved */
struct user_stack_objs {
	const void	*keys[USER_STACK_MAX_OBJS];	/* a file, or a name */
	u64		is_file;			/* keys holding a reference */
	u16		name_off[USER_STACK_MAX_OBJS];	/* in the scratch buffer */
	u16		name_len[USER_STACK_MAX_OBJS];
	u8		obj[USER_STACK_MAX_OBJS];
	u8		slots[1 << USER_STACK_HASH_BITS]; /* key index + 1, or 0 */
};

static_assert(USER_STACK_MAX_OBJS <= 64);	/* the bits of is_file */
static_assert(USER_STACK_MAX_OBJS <= TRACE_USER_STACK_MAX_NAMES);
static_assert(USER_STACK_MAX_RECORD <= U16_MAX);

/* Instances that hold an unwind_work, protected by event_mutex */
static unsigned int user_stack_instances;

/*
 * Scratch space per CPU, so that a trigger on a hot event does not
 * allocate per stack: made when the first instance takes an unwind_work,
 * freed when the last gives it back, after which no callback runs.  Its
 * mutex is held while a stack is resolved and written, preemptible: the
 * holder may be preempted or move to another CPU, and a callback that runs
 * on this CPU meanwhile waits for it, which is bounded: the holder waits
 * for nothing else.  Preemption is off only inside the ring buffer's
 * reserve and commit, to copy the record.
 */
struct user_stack_scratch {
	struct mutex		lock;	/* for the two below */
	u64			*buf;	/* USER_STACK_MAX_RECORD bytes */
	struct user_stack_objs	*objs;
};

static DEFINE_PER_CPU(struct user_stack_scratch, user_stack_scratch);

static void user_stack_scratch_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct user_stack_scratch *s = per_cpu_ptr(&user_stack_scratch,
							   cpu);

		kfree(s->buf);
		kfree(s->objs);
		s->buf = NULL;
		s->objs = NULL;
	}
}

static int user_stack_scratch_alloc(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct user_stack_scratch *s = per_cpu_ptr(&user_stack_scratch,
							   cpu);

		mutex_init(&s->lock);
		s->buf = kmalloc_node(USER_STACK_MAX_RECORD, GFP_KERNEL,
				      cpu_to_node(cpu));
		s->objs = kmalloc_node(sizeof(*s->objs), GFP_KERNEL,
				       cpu_to_node(cpu));
		if (!s->buf || !s->objs) {
			user_stack_scratch_free();
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * A stack being resolved in the scratch buffer of @s: the frames from its
 * start up, the names from its end down, each name with room for the
 * separator or NUL that follows it in the record.
 */
struct user_stack_build {
	struct user_stack_scratch *s;
	unsigned int	lo;		/* end of the frames */
	unsigned int	hi;		/* start of the names */
	unsigned int	nr_keys;
	unsigned int	nr_names;
	unsigned int	names_size;	/* in the record, NUL included */
};

static u64 user_stack_frame(unsigned int obj, u64 offset)
{
	return ((u64)obj << TRACE_USER_STACK_OBJ_SHIFT) |
	       (offset & TRACE_USER_STACK_OFFSET_MASK);
}

/*
 * Add the name of @file, or the name @special, below the names of @b,
 * escaped.  Return: its object index, or TRACE_USER_STACK_OBJ_UNNAMED
 * when it does not fit.
 */
static unsigned int user_stack_add_name(struct user_stack_build *b,
					struct file *file, const char *special)
{
	char *buf = (char *)b->s->buf;
	char *lo = buf + b->lo, *top = buf + b->hi, *p, *end;
	unsigned int n = b->nr_names;
	size_t len;

	if (top - lo < 2)
		return TRACE_USER_STACK_OBJ_UNNAMED;
	/* The name at the top of the room, NUL-terminated */
	if (file) {
		p = d_path(file_user_path(file), lo, top - lo);
		if (IS_ERR(p))
			return TRACE_USER_STACK_OBJ_UNNAMED;
	} else {
		len = strlen(special);
		if (len + 1 > (size_t)(top - lo))
			return TRACE_USER_STACK_OBJ_UNNAMED;
		p = top - len - 1;
		memcpy(p, special, len + 1);
	}
	/* Escaped to the bottom of the room, then moved up under the others */
	end = seq_mangle_path(lo, p, user_stack_esc);
	if (!end)
		return TRACE_USER_STACK_OBJ_UNNAMED;
	len = end - lo;
	memmove(top - len - 1, lo, len);
	b->hi -= len + 1;
	b->s->objs->name_off[n] = b->hi;
	b->s->objs->name_len[n] = len;
	b->names_size += len + 1;
	b->nr_names++;
	return TRACE_USER_STACK_OBJ_NAMED + n;
}

/*
 * The object index of @key (@file, or the special mapping name @special):
 * found again, or named now, once per record.
 */
static unsigned int user_stack_obj(struct user_stack_build *b,
				   const void *key, struct file *file,
				   const char *special)
{
	struct user_stack_objs *o = b->s->objs;
	unsigned int h = hash_ptr(key, USER_STACK_HASH_BITS), k;

	while ((k = o->slots[h])) {
		if (o->keys[k - 1] == key)
			return o->obj[k - 1];
		h = (h + 1) & (BIT(USER_STACK_HASH_BITS) - 1);
	}
	if (b->nr_keys == USER_STACK_MAX_OBJS)
		return TRACE_USER_STACK_OBJ_UNNAMED;
	k = b->nr_keys++;
	o->slots[h] = k + 1;
	o->keys[k] = key;
	/* No other file may take its address before the record is written */
	if (file) {
		get_file(file);
		o->is_file |= BIT_ULL(k);
	}
	o->obj[k] = user_stack_add_name(b, file, special);
	return o->obj[k];
}

/* The VMA at @ip, per-VMA locked, or NULL; never waits. */
static struct vm_area_struct *user_stack_lock_vma(struct mm_struct *mm,
						  unsigned long ip)
{
	if (!IS_ENABLED(CONFIG_PER_VMA_LOCK))
		return NULL;
	return lock_vma_under_rcu(mm, ip);
}

/*
 * Resolve the frames of @trace into @b, as many as fit.  Return: the
 * number of frames resolved.
 */
static unsigned int user_stack_resolve(struct user_stack_build *b,
				       struct mm_struct *mm,
				       const struct unwind_stacktrace *trace)
{
	bool locked = mmap_read_trylock(mm);
	u64 *frames = b->s->buf;
	unsigned int i;

	for (i = 0; i < trace->nr; i++) {
		unsigned long ip = trace->entries[i];
		unsigned int obj = TRACE_USER_STACK_OBJ_UNKNOWN;
		struct vm_area_struct *vma;
		const char *special;
		u64 offset = ip;

		if (b->lo + sizeof(u64) > b->hi)
			break;
		b->lo += sizeof(u64);

		vma = locked ? vma_lookup(mm, ip) : user_stack_lock_vma(mm, ip);
		if (!vma) {
			frames[i] = user_stack_frame(obj, offset);
			continue;
		}
		special = !vma->vm_file && vma->vm_ops && vma->vm_ops->name ?
			  vma->vm_ops->name(vma) : NULL;
		if (vma->vm_file) {
			obj = user_stack_obj(b, vma->vm_file, vma->vm_file,
					     NULL);
			offset = ip - vma->vm_start +
				 ((u64)vma->vm_pgoff << PAGE_SHIFT);
		} else if (special) {
			obj = user_stack_obj(b, special, NULL, special);
			offset = ip - vma->vm_start;
		} else {
			obj = TRACE_USER_STACK_OBJ_ANON;
		}
		if (!locked)
			vma_end_read(vma);
		frames[i] = user_stack_frame(obj, offset);
	}
	if (locked)
		mmap_read_unlock(mm);
	return i;
}

/*
 * Write the record: @nr frames of @frames (NULL: those of @trace, as
 * addresses) and the names of @b (none if NULL).  Preemption is off only
 * here, in the ring buffer, for copies.
 */
static void user_stack_write(struct trace_array *tr, u64 cookie,
			     const struct unwind_stacktrace *trace,
			     const struct user_stack_build *b,
			     unsigned int nr)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	unsigned int names_size = b ? max(b->names_size, 1U) : 1;
	struct user_stack_deferred_entry *entry;
	size_t frames_size = nr * sizeof(u64);
	struct ring_buffer_event *event;
	unsigned int i;
	char *p;

	event = __trace_buffer_lock_reserve(buffer, TRACE_USER_STACK_DEFERRED,
					    sizeof(*entry) + frames_size +
					    names_size, tracing_gen_ctx());
	if (!event)
		return;
	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	entry->dropped = trace->nr - nr;
	entry->__data_loc_frames = frames_size << 16 | sizeof(*entry);
	entry->__data_loc_names = names_size << 16 |
				  (sizeof(*entry) + frames_size);
	p = (char *)entry + sizeof(*entry);
	if (b) {
		const struct user_stack_objs *o = b->s->objs;

		memcpy(p, b->s->buf, frames_size);
		p += frames_size;
		for (i = 0; i < b->nr_names; i++) {
			memcpy(p, (char *)b->s->buf + o->name_off[i],
			       o->name_len[i]);
			p += o->name_len[i];
			*p++ = TRACE_USER_STACK_NAME_SEP;
		}
		if (b->nr_names)
			p--;
	} else {
		for (i = 0; i < nr; i++) {
			u64 frame = user_stack_frame(TRACE_USER_STACK_OBJ_UNKNOWN,
						     trace->entries[i]);

			memcpy(p, &frame, sizeof(frame));
			p += sizeof(frame);
		}
	}
	*p = '\0';
	__buffer_unlock_commit(buffer, event);
}

/*
 * The deferred unwinder's callback: in the task, before it returns to user
 * space or as it exits, with its mm still there, in the unwinder's SRCU
 * read section.
 */
static void user_stack_callback(struct unwind_work *work,
				struct unwind_stacktrace *trace, u64 cookie)
{
	struct trace_array *tr = container_of(work, struct trace_array,
					      user_stack_work);
	struct user_stack_deferred_entry *entry;
	struct mm_struct *mm = current->mm;
	struct user_stack_build b = { };
	unsigned int nr, k;
	size_t max;

	max = min(ring_buffer_max_event_size(tr->array_buffer.buffer),
		  USER_STACK_MAX_RECORD);
	if (max < sizeof(*entry) + 1)
		return;

	if (!mm) {
		nr = min_t(size_t, trace->nr,
			   (max - sizeof(*entry) - 1) / sizeof(u64));
		user_stack_write(tr, cookie, trace, NULL, nr);
		return;
	}

	/* Whichever CPU it runs on until the record is written */
	b.s = per_cpu_ptr(&user_stack_scratch, raw_smp_processor_id());
	mutex_lock(&b.s->lock);
	b.hi = max - sizeof(*entry) - 1;
	b.s->objs->is_file = 0;
	memset(b.s->objs->slots, 0, sizeof(b.s->objs->slots));

	nr = user_stack_resolve(&b, mm, trace);
	user_stack_write(tr, cookie, trace, &b, nr);

	for (k = 0; k < b.nr_keys; k++)
		if (b.s->objs->is_file & BIT_ULL(k))
			fput((struct file *)b.s->objs->keys[k]);
	mutex_unlock(&b.s->lock);
}

/**
 * trace_user_stack_get - Give an instance's trigger the deferred unwinder
 * @tr: the instance, which gets a stacktrace:user trigger
 *
 * The first trigger of an instance gets it an unwind_work; the others
 * share it.  Called with event_mutex held.
 *
 * Return: 0; -ENOSPC when instances hold as many unwinders as they may;
 * -EBUSY when the system has no unwinder left; -ENOMEM.
 */
int trace_user_stack_get(struct trace_array *tr)
{
	int ret;

	lockdep_assert_held(&event_mutex);

	if (tr->user_stack_users) {
		tr->user_stack_users++;
		return 0;
	}
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
	tr->user_stack_users = 1;
	return 0;
}

/**
 * trace_user_stack_put - A trigger of an instance gives the unwinder back
 * @tr: the instance whose stacktrace:user trigger is freed
 *
 * With the instance's last trigger, its unwind_work goes: requests not
 * yet served then get no stack (their tasks are still in the kernel).
 * The trigger is off the event's list already.  Called with event_mutex
 * held.
 */
void trace_user_stack_put(struct trace_array *tr)
{
	lockdep_assert_held(&event_mutex);

	if (WARN_ON_ONCE(!tr->user_stack_users) || --tr->user_stack_users)
		return;
	/* No trigger that may still run asks the unwinder any more */
	tracepoint_synchronize_unregister();
	/* Waits for callbacks that run, and stops the others. */
	unwind_deferred_cancel(&tr->user_stack_work);
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
