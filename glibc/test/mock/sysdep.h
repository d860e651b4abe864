/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glibc's internal <sysdep.h>: INTERNAL_SYSCALL_CALL goes to the test's
 * fake kernel, sft_syscall(), which returns -errno as the kernel does.
 */
#ifndef SFT_SYSDEP_H
#define SFT_SYSDEP_H
#include <errno.h>
long sft_syscall(long nr, unsigned int option, const void *info, size_t size,
		 unsigned int flags);
#define INTERNAL_SYSCALL_CALL(name, ...)	sft_syscall(__NR_##name, __VA_ARGS__)
#define INTERNAL_SYSCALL_ERROR_P(ret)	((unsigned long)(ret) > -4096UL)
#define INTERNAL_SYSCALL_ERRNO(ret)	(-(ret))
#endif
