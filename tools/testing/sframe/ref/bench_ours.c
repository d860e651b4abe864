// SPDX-License-Identifier: GPL-2.0
/*
 * The decoder's half of the lookup benchmark (bench.c), built with the
 * harness shim: registers a section, and the same rows as a JIT table
 * (CODECTL_REGISTER_JIT), in fake user memory, and times
 * sframe_find_rule() or sframe_jit_find_rule() on a list of PCs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sframe.h>
#include <linux/uaccess.h>

#include "bench.h"
#include "test_mem.h"
#include "../../../include/tools/codectl_jit.h"

/* Each JIT entry: its fields and up to two 1-byte words, CFA and FP */
#define JIT_STRIDE	16

/* What is registered: the section, the JIT table, and which one is used */
static struct sframe_section bench_sec, jit_sec;
static unsigned long sec_addr, jit_addr;
static const void *sec_buf;
static void *jit_buf;
static size_t sec_len, jit_len;
static bool use_jit;
static unsigned long reads_before;

/* Make the one in use the only mapping, with the window on it */
static void map_used(void)
{
	unsigned long addr = use_jit ? jit_addr : sec_addr;
	size_t len = use_jit ? jit_len : sec_len;

	reads_before += test_mem_fast.reads;
	test_mem_reset();
	test_mem_map(addr, use_jit ? jit_buf : sec_buf, len);
	test_mem_set_window(addr, addr + len);
}

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
	sec_addr = sframe;
	sec_buf = buf;
	sec_len = len;
	use_jit = false;
	reads_before = 0;
	test_mem_reset();
	if (test_mem_map(sframe, buf, len))
		return -ENOMEM;
	test_mem_set_window(sframe, sframe + len);
	return sframe_section_init(&bench_sec, sframe, sframe + len, sframe,
				   text, text_end);
}

/**
 * ours_jit_setup() - register the same rows as a JIT table
 * @table:	user address to map the table at
 * @rows:	the rows, in address order
 * @n:		their number
 * @text:	start of the code area
 * @text_end:	its end
 *
 * One entry a row, as a JIT that emitted the functions would write them.
 * The section stays in use until ours_use_jit().
 *
 * Return: 0, -ENOMEM, -EINVAL for rows a JIT could not append, or the
 * error of sframe_jit_init().
 */
int ours_jit_setup(unsigned long table, const struct bench_row *rows,
		   size_t n, unsigned long text, unsigned long text_end)
{
	struct codectl_jit_table *t;
	unsigned char words[2];
	size_t i;
	int ret;

	free(jit_buf);
	jit_len = codectl_jit_table_bytes(JIT_STRIDE, n);
	jit_buf = calloc(1, jit_len);
	if (!jit_buf)
		return -ENOMEM;
	t = jit_buf;
	codectl_jit_table_init(t, JIT_STRIDE, n);
	for (i = 0; i < n; i++) {
		words[0] = (unsigned char)rows[i].cfa;
		words[1] = (unsigned char)-16;
		if (codectl_jit_append(t, rows[i].start - text,
				       rows[i].end - rows[i].start,
				       CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP,
							1 + !!rows[i].fp_saved,
							CODECTL_JIT_WORD_1B),
				       CODECTL_JIT_TYPE_DEFAULT, words,
				       1 + !!rows[i].fp_saved) < 0)
			return -EINVAL;
	}
	jit_addr = table;
	use_jit = true;
	map_used();
	ret = sframe_jit_init(&jit_sec, table, table + jit_len, text, text_end);
	use_jit = false;
	map_used();
	return ret;
}

/**
 * ours_use_jit() - choose what ours_lookup() looks up in
 * @jit:	the JIT table, else the section
 */
void ours_use_jit(bool jit)
{
	if (jit != use_jit) {
		use_jit = jit;
		map_used();
	}
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
		int rc = use_jit ?
			 sframe_jit_find_rule(&jit_sec, pcs[i], true, &rule,
					      &budget) :
			 sframe_find_rule(&bench_sec, pcs[i], true, &rule,
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
 * Return: the count, of both the section and the JIT table.
 */
unsigned long ours_reads(void)
{
	return reads_before + test_mem_fast.reads;
}
