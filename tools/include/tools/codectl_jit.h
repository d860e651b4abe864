/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a JIT needs to keep a CODECTL_REGISTER_JIT table right: set a table
 * up, append entries, retire them, rewrite a retired one in place, and chain
 * a new table, with the orderings the kernel's lookups rely on.  See
 * Documentation/userspace-api/codectl.rst.
 *
 * One writer at a time per table: a JIT that emits code from several
 * threads serializes these calls, as it serializes its code allocator.
 * The kernel's lookups are the only readers that need no lock.
 */
#ifndef _TOOLS_CODECTL_JIT_H
#define _TOOLS_CODECTL_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/codectl.h>

/* Bytes to reserve for a table of @entries entries of @entry_size bytes */
static inline size_t codectl_jit_table_bytes(unsigned int entry_size,
					     unsigned long entries)
{
	return sizeof(struct codectl_jit_table) + entries * entry_size;
}

/* Entry @i of @t */
static inline struct codectl_jit_entry *
codectl_jit_entry(struct codectl_jit_table *t, unsigned long i)
{
	return (struct codectl_jit_entry *)((char *)(t + 1) +
					    i * t->entry_size);
}

/*
 * Make the memory at @t, 8-byte aligned, an empty table with room for
 * @reserved entries of @entry_size bytes (a multiple of 4, from
 * CODECTL_JIT_ENTRY_MIN to CODECTL_JIT_ENTRY_MAX), before it is registered
 * or chained.
 */
static inline void codectl_jit_table_init(struct codectl_jit_table *t,
					  unsigned int entry_size,
					  unsigned long reserved)
{
	memset(t, 0, sizeof(*t));
	t->version = CODECTL_JIT_VERSION;
	t->entry_size = entry_size;
	t->reserved = reserved;
}

/* Fill entry @e: the fields the kernel reads, and the FRE's words */
static inline void codectl_jit_fill(struct codectl_jit_entry *e,
				    unsigned int off, unsigned int size,
				    unsigned char info, unsigned char type,
				    const void *words, size_t len)
{
	e->off = off;
	e->size = size;
	e->info = info;
	e->type = type;
	memcpy(e->data, words, len);
}

/*
 * Append the rule of [@off, @off + @size) of the code area: @info and
 * @type as an SFrame FRE and FDE type, @len bytes of FRE words.  Call it
 * once the code is in place; the range must start at or after the end of
 * the last entry.  Returns the entry's index, or -1 when the table is full
 * (chain a new one), the range is out of order or the words do not fit.
 */
static inline long codectl_jit_append(struct codectl_jit_table *t,
				      unsigned int off, unsigned int size,
				      unsigned char info, unsigned char type,
				      const void *words, size_t len)
{
	unsigned long used = t->used;
	struct codectl_jit_entry *e, *last;

	if (used >= t->reserved || !size ||
	    sizeof(*e) + len > t->entry_size)
		return -1;
	if (used) {
		last = codectl_jit_entry(t, used - 1);
		if (off < last->off || off - last->off < last->size)
			return -1;
	}
	e = codectl_jit_entry(t, used);
	codectl_jit_fill(e, off, size, info, type, words, len);
	e->state = ((e->state & ~CODECTL_JIT_LIVE) + CODECTL_JIT_STATE_GEN) |
		   CODECTL_JIT_LIVE;
	/* The entry, then the count: pairs with the kernel's acquire */
	__atomic_store_n(&t->used, used + 1, __ATOMIC_RELEASE);
	return used;
}

/*
 * Retire entry @i: from now on no walk uses it.  The code it described
 * may be freed once no thread has a frame in it (which the JIT must know
 * anyway), and its range reused by an entry rewritten in place
 * (codectl_jit_rewrite()) or described in a table further down the chain.
 */
static inline void codectl_jit_retire(struct codectl_jit_table *t,
				      unsigned long i)
{
	struct codectl_jit_entry *e = codectl_jit_entry(t, i);
	unsigned short s = e->state;

	__atomic_store_n(&e->state,
			 (unsigned short)((s & ~CODECTL_JIT_LIVE) +
					  CODECTL_JIT_STATE_GEN),
			 __ATOMIC_RELEASE);
}

/*
 * Rewrite retired entry @i in place for new code, and make it live.  The
 * new range must lie between the entries before and after it, so that the
 * table stays sorted.  Returns 0, or -1 when the entry is live, the range
 * is out of place or the words do not fit.
 */
static inline int codectl_jit_rewrite(struct codectl_jit_table *t,
				      unsigned long i, unsigned int off,
				      unsigned int size, unsigned char info,
				      unsigned char type, const void *words,
				      size_t len)
{
	struct codectl_jit_entry *e = codectl_jit_entry(t, i), *n;
	unsigned short s = e->state;

	if ((s & CODECTL_JIT_LIVE) || i >= t->used || !size ||
	    sizeof(*e) + len > t->entry_size)
		return -1;
	if (i > 0) {
		n = codectl_jit_entry(t, i - 1);
		if (off < n->off || off - n->off < n->size)
			return -1;
	}
	if (i + 1 < t->used) {
		n = codectl_jit_entry(t, i + 1);
		if (n->off < off || n->off - off < size)
			return -1;
	}
	/* A new generation, still retired, before the fields change */
	s += CODECTL_JIT_STATE_GEN;
	__atomic_store_n(&e->state, s, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	codectl_jit_fill(e, off, size, info, type, words, len);
	/* The fields, then the live mark */
	__atomic_store_n(&e->state, (unsigned short)(s | CODECTL_JIT_LIVE),
			 __ATOMIC_RELEASE);
	return 0;
}

/*
 * Chain table @next, set up with codectl_jit_table_init(), after @t, whose
 * next must be 0.  Entries appended to @next describe code from then on.
 */
static inline void codectl_jit_chain(struct codectl_jit_table *t,
				     struct codectl_jit_table *next)
{
	/* Its header, then the link: pairs with the kernel's acquire */
	__atomic_store_n(&t->next, (__u64)(unsigned long)next,
			 __ATOMIC_RELEASE);
}

#endif /* _TOOLS_CODECTL_JIT_H */
