// SPDX-License-Identifier: GPL-2.0
/*
 * The decoder's half of the lookup benchmark (bench.c), built with the
 * harness shim: registers a section in fake user memory and times
 * sframe_find_rule() on a list of PCs.
 */
#include <errno.h>
#include <linux/sframe.h>
#include <linux/uaccess.h>

#include "bench.h"
#include "test_mem.h"

static struct sframe_section bench_sec;

/**
 * ours_setup() - register a section with the decoder
 * @sframe:	user address to map the section at
 * @buf:	its bytes
 * @len:	their number
 * @text:	start of the text it describes
 * @text_end:	end of that text
 *
 * Return: 0, or the error of sframe_section_init().
 */
int ours_setup(unsigned long sframe, const void *buf, size_t len,
	       unsigned long text, unsigned long text_end)
{
	test_mem_reset();
	if (test_mem_map(sframe, buf, len))
		return -ENOMEM;
	test_mem_set_window(sframe, sframe + len);
	return sframe_section_init(&bench_sec, sframe, sframe + len, sframe,
				   text, text_end);
}

/**
 * ours_lookup() - look up PCs as topmost frames
 * @pcs:	the PCs
 * @n:		their number
 * @out:	per PC, the CFA offset, BENCH_NONE when there is no rule, or
 *		BENCH_NOT_SP when the CFA is not SP-based, as it is in every
 *		row of the benchmark's sections (NULL: only count)
 *
 * Return: the number of PCs that have a rule.
 */
size_t ours_lookup(const uint64_t *pcs, size_t n, int64_t *out)
{
	struct sframe_rule rule;
	size_t i, found = 0;

	for (i = 0; i < n; i++) {
		/* Each lookup is one frame of its own walk */
		u32 budget = SFRAME_WALK_BUDGET;
		int rc = sframe_find_rule(&bench_sec, pcs[i], true, &rule,
					  &budget);

		if (!rc)
			found++;
		if (out)
			out[i] = rc ? BENCH_NONE :
				 rule.cfa.kind != SFRAME_LOC_SP ?
				 BENCH_NOT_SP : rule.cfa.offset;
	}
	return found;
}

/**
 * ours_reads() - copy_from_user() calls since ours_setup()
 *
 * Return: the count.
 */
unsigned long ours_reads(void)
{
	return test_mem_fast.reads;
}
