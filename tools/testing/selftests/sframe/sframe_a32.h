/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AArch32 programs for the compat tests on arm64, written by the tests
 * themselves: no AArch32 toolchain is needed.
 *
 * The program makes the system calls it is given, in order, with up to four
 * arguments each, writes their return values to its standard output (one
 * 32-bit word each, in order), then spins in a loop until it is killed.
 * Its memory is one segment at SFT_A32_BASE: the code, then a data page
 * whose addresses the calls may pass (SFT_A32_DATA: room for the
 * arguments, written by the test), then an SFrame section that the ELF
 * program headers announce with PT_GNU_SFRAME, which describes the loop:
 * a loader that registered the SFrame sections of compat programs would
 * register this one.
 */
#ifndef SFRAME_A32_H
#define SFRAME_A32_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#define SFT_A32_BASE		0x10000u
/* Where the data page is, and how much of it the test may fill */
#define SFT_A32_DATA		(SFT_A32_BASE + 0x1000u)
#define SFT_A32_DATA_LEN	0x400u

/* The most system calls a program makes */
#define SFT_A32_MAX_CALLS	48

/* AArch32 system call numbers (arch/arm64/tools/syscall_32.tbl) */
#define SFT_A32_NR_GETPID	20
#define SFT_A32_NR_CODECTL	473

struct sft_a32_call {
	__u32 nr;
	__u32 args[4];
};

/**
 * sft_a32_write() - Write an AArch32 program to a file
 * @path: the file, created executable (mode 0755) or truncated
 * @calls: the system calls it makes
 * @n: how many, at most SFT_A32_MAX_CALLS
 * @data: bytes for the data page, at SFT_A32_DATA, or NULL
 * @data_len: their length, at most SFT_A32_DATA_LEN
 *
 * Return: 0, or a negative errno.
 */
int sft_a32_write(const char *path, const struct sft_a32_call *calls,
		  unsigned int n, const void *data, size_t data_len);

/**
 * sft_a32_start() - Run a program that sft_a32_write() wrote
 * @path: the program
 * @n: the number of its system calls
 * @results: receives their return values
 * @pid: receives its pid once it runs
 *
 * Waits until the program wrote its results, at most 30 seconds; it then
 * spins until the caller kills it and waits for it.
 *
 * Return: 0; or a negative errno after printing why, the program gone.
 */
int sft_a32_start(const char *path, unsigned int n, __s32 *results,
		  pid_t *pid);

/* The addresses of the program's spin loop, and of its SFrame section */
__u32 sft_a32_loop(unsigned int n);
__u32 sft_a32_sframe(void);

#endif /* SFRAME_A32_H */
