/* SPDX-License-Identifier: GPL-2.0 */
/* The interface between the benchmark (bench.c) and its decoder half. */
#ifndef _BENCH_H
#define _BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_NONE	INT64_MIN	/* no rule for this PC */
#define BENCH_NOT_SP	(INT64_MIN + 1)	/* a CFA that is not SP-based */

/* One row of a function: CFA = SP + @cfa, FP saved at CFA - 16 or not */
struct bench_row {
	uint64_t	start;
	uint64_t	end;
	int		cfa;
	int		fp_saved;
};

int ours_setup(unsigned long sframe, const void *buf, size_t len,
	       unsigned long text, unsigned long text_end);
int ours_jit_setup(unsigned long table, const struct bench_row *rows,
		   size_t n, unsigned long text, unsigned long text_end);
void ours_use_jit(bool jit);
size_t ours_lookup(const uint64_t *pcs, size_t n, int64_t *out);
unsigned long ours_reads(void);

#endif /* _BENCH_H */
