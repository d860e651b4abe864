// SPDX-License-Identifier: GPL-2.0
/*
 * Fake user memory and the decoder's hooks for the userspace harness: see
 * test_mem.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include "test_mem.h"

#define TEST_MEM_MAPS	16

struct test_mapping {
	unsigned long	uaddr;
	unsigned long	len;
	const unsigned char *buf;
};

static struct test_mapping maps[TEST_MEM_MAPS];
static unsigned int nr_maps;
static const char *last_reject;
static unsigned long reject_count;
static unsigned int accepted_abi;

struct test_mem_fast test_mem_fast = {
	.win_len = ~0UL,
};

static const struct test_mapping *test_mem_find(unsigned long addr);

/* Point the fast path at the mapping that holds the whole window, if any */
static void test_mem_update_fast(void)
{
	struct test_mem_fast *f = &test_mem_fast;
	const struct test_mapping *m = test_mem_find(f->win_start);

	f->win_buf = NULL;
	if (m && f->win_len <= m->len - (f->win_start - m->uaddr))
		f->win_buf = m->buf + (f->win_start - m->uaddr);
}

void test_mem_reset(void)
{
	nr_maps = 0;
	memset(&test_mem_fast, 0, sizeof(test_mem_fast));
	test_mem_fast.win_len = ~0UL;
	last_reject = NULL;
	reject_count = 0;
	accepted_abi = 0;
}

int test_mem_map(unsigned long uaddr, const void *buf, size_t len)
{
	unsigned int i;

	if (nr_maps == TEST_MEM_MAPS || !len || uaddr + len < uaddr)
		return -1;
	for (i = 0; i < nr_maps; i++)
		if (uaddr < maps[i].uaddr + maps[i].len &&
		    maps[i].uaddr < uaddr + len)
			return -1;
	maps[nr_maps].uaddr = uaddr;
	maps[nr_maps].len = len;
	maps[nr_maps].buf = buf;
	nr_maps++;
	test_mem_update_fast();
	return 0;
}

void test_mem_set_window(unsigned long start, unsigned long end)
{
	/* An empty or wrapping window lets nothing through */
	test_mem_fast.win_start = start;
	test_mem_fast.win_len = end > start ? end - start : 0;
	test_mem_update_fast();
}

void test_mem_window_violation(unsigned long addr, unsigned long n)
{
	fprintf(stderr,
		"sframe harness: read of %lu bytes at %#lx leaves the window [%#lx, %#lx)\n",
		n, addr, test_mem_fast.win_start,
		test_mem_fast.win_start + test_mem_fast.win_len);
	abort();
}

static const struct test_mapping *test_mem_find(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < nr_maps; i++)
		if (addr >= maps[i].uaddr && addr - maps[i].uaddr < maps[i].len)
			return &maps[i];
	return NULL;
}

/* Copy the mapped prefix of [from, from + n), across adjacent mappings. */
unsigned long test_mem_copy_slow(void *to, unsigned long from, unsigned long n)
{
	unsigned char *dst = to;

	while (n) {
		const struct test_mapping *m = test_mem_find(from);
		unsigned long chunk;

		if (!m)
			break;
		chunk = m->len - (from - m->uaddr);
		if (chunk > n)
			chunk = n;
		memcpy(dst, m->buf + (from - m->uaddr), chunk);
		dst += chunk;
		from += chunk;
		n -= chunk;
	}
	/* As the kernel does: what could not be copied reads as zeroes. */
	memset(dst, 0, n);
	return n;
}

unsigned long test_mem_reads(void)
{
	return test_mem_fast.reads;
}

const char *test_last_reject(void)
{
	return last_reject;
}

void test_reject_clear(void)
{
	last_reject = NULL;
}

unsigned long test_reject_count(void)
{
	return reject_count;
}

void test_record_reject(const char *why)
{
	last_reject = why;
	reject_count++;
}

void test_set_abi(unsigned int abi)
{
	accepted_abi = abi;
}

int test_abi_supported(unsigned int abi)
{
	/* The SFRAME_ABI_* values of AArch64 LE and AMD64 */
	if (!accepted_abi)
		return abi == 2 || abi == 3;
	return abi == accepted_abi;
}
