/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codectl(2), for the tests that register SFrame sections themselves: the
 * sections of a dlopen()ed library, or sections they wrote.  Only the four
 * ranges are passed, as CODECTL_SFRAME_SIZE_VER0 defines them.
 */
#ifndef SFRAME_CODECTL_H
#define SFRAME_CODECTL_H

#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/codectl.h>

/* Register [sframe_start, sframe_end) for the text range: 0 or -errno. */
static inline int sft_codectl_register(unsigned long text_start,
				       unsigned long text_end,
				       unsigned long sframe_start,
				       unsigned long sframe_end)
{
	struct codectl_sframe arg = {
		.text_start = text_start,
		.text_end = text_end,
		.sframe_start = sframe_start,
		.sframe_end = sframe_end,
	};

	if (syscall(__NR_codectl, CODECTL_REGISTER_SFRAME, &arg,
		    CODECTL_SFRAME_SIZE_VER0, 0))
		return -errno;
	return 0;
}

/* Remove the registration of the text range at @text_start: 0 or -errno. */
static inline int sft_codectl_unregister(unsigned long text_start)
{
	struct codectl_unregister arg = { .text_start = text_start };

	if (syscall(__NR_codectl, CODECTL_UNREGISTER, &arg, sizeof(arg), 0))
		return -errno;
	return 0;
}

#endif /* SFRAME_CODECTL_H */
