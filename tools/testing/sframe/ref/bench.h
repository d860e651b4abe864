/* SPDX-License-Identifier: GPL-2.0 */
/* The interface between the benchmark (bench.c) and its decoder half. */
#ifndef _BENCH_H
#define _BENCH_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_NONE	INT64_MIN	/* no rule for this PC */
#define BENCH_NOT_SP	(INT64_MIN + 1)	/* a CFA that is not SP-based */

int ours_setup(unsigned long sframe, const void *buf, size_t len,
	       unsigned long text, unsigned long text_end);
size_t ours_lookup(const uint64_t *pcs, size_t n, int64_t *out);
unsigned long ours_reads(void);

#endif /* _BENCH_H */
