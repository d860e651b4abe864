/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake user memory for the SFrame decoder in userspace.
 *
 * test_mem_map() makes @len bytes at @buf readable at user address @uaddr.
 * The buffer is referenced, not copied: it must live until the next
 * test_mem_reset(), and writes to it are seen by later reads (to test data
 * that changes under the decoder).  Reads of unmapped bytes fail like a
 * fault: copy_from_user() copies the mapped prefix and returns the number of
 * bytes it did not copy, and the decoder returns -EFAULT.
 *
 * test_mem_set_window() sets the only range the decoder may read: a read
 * that leaves it abort()s, which is the proof that no read leaves the
 * section.  Until it is called, every address is inside the window.
 */
#ifndef _SFRAME_TEST_MEM_H
#define _SFRAME_TEST_MEM_H

#include <stddef.h>

/* Forget all mappings; also reset the window, reject reason and ABI. */
void test_mem_reset(void);
/* Map fake user memory; 0, or -1 if it wraps, overlaps or is one too many. */
int test_mem_map(unsigned long uaddr, const void *buf, size_t len);
/* Reads outside [start, end) abort(). */
void test_mem_set_window(unsigned long start, unsigned long end);
/* The reason of the last sframe_reject() since the last reset, or NULL. */
const char *test_last_reject(void);

/* Forget the last reject reason (before each call whose reason is checked). */
void test_reject_clear(void);
/* Number of sframe_reject() calls since the last reset. */
unsigned long test_reject_count(void);
/* Number of copy_from_user() calls since the last reset: the cost of lookups. */
unsigned long test_mem_reads(void);
/*
 * The ABI that sframe_section_init() accepts, an SFRAME_ABI_* value, as the
 * kernel accepts only its own; 0 (the default) accepts both AMD64 and
 * AArch64 little-endian.
 */
void test_set_abi(unsigned int abi);

#endif
