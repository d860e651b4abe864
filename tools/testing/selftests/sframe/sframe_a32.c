// SPDX-License-Identifier: GPL-2.0
/*
 * AArch32 programs for the compat tests on arm64: see sframe_a32.h.
 *
 * The file is one PT_LOAD segment, mapped read, write and execute at
 * SFT_A32_BASE:
 *
 *	0x0000	ELF header, program headers (PT_LOAD, PT_GNU_SFRAME,
 *		PT_GNU_STACK)
 *	0x0100	code: the calls, the write, the loop
 *	0x1000	data page (SFT_A32_DATA): the test's bytes; the results
 *	0x1800	the SFrame section
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/elf.h>

#include "../kselftest.h"
#include "sframe_a32.h"
#include "sfw.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	(PT_LOOS + 0x474e554)
#endif
#ifndef EM_ARM
#define EM_ARM		40
#endif
/* EABI version 5, the AArch32 compat loader's requirement */
#define A32_EF_EABI5	0x05000000

#define A32_CODE	0x100u
#define A32_DATA	0x1000u
#define A32_RESULTS	(A32_DATA + SFT_A32_DATA_LEN)
#define A32_SFRAME	0x1800u
#define A32_SFRAME_ROOM	0x400u
#define A32_SIZE	(A32_SFRAME + A32_SFRAME_ROOM)

/* A32 instructions, condition "always" */
static __u32 a32_movw(unsigned int rd, __u32 imm)
{
	return 0xe3000000 | (imm >> 12 & 0xf) << 16 | rd << 12 | (imm & 0xfff);
}

static __u32 a32_movt(unsigned int rd, __u32 imm)
{
	return 0xe3400000 | (imm >> 28 & 0xf) << 16 | rd << 12 |
	       (imm >> 16 & 0xfff);
}

#define A32_SVC0	0xef000000	/* svc #0 */
#define A32_STR_R0_R5	0xe5850000	/* str r0, [r5] */
#define A32_LOOP	0xeafffffe	/* b . */

/* Instructions per call: four arguments, r7, svc, r5, str */
#define A32_CALL_INSNS	13
#define A32_WRITE_INSNS	8

static unsigned int a32_put_imm(__u32 *code, unsigned int i, unsigned int rd,
				__u32 imm)
{
	code[i++] = a32_movw(rd, imm);
	code[i++] = a32_movt(rd, imm);
	return i;
}

/**
 * sft_a32_loop() - Where the spin loop of a program of @n calls is
 * @n: the number of system calls the program makes
 *
 * Return: the loop's address in the program.
 */
__u32 sft_a32_loop(unsigned int n)
{
	return SFT_A32_BASE + A32_CODE +
	       4 * (n * A32_CALL_INSNS + A32_WRITE_INSNS);
}

/**
 * sft_a32_sframe() - Where the SFrame section of the programs is
 *
 * Return: its address in the program.
 */
__u32 sft_a32_sframe(void)
{
	return SFT_A32_BASE + A32_SFRAME;
}

/* The section: one FDE for the loop, CFA = SP, the RA in the link register */
static size_t a32_sframe(unsigned char *buf, unsigned int n)
{
	struct sfw_fre fre = sfw_fre(0, false, 1, 0);
	struct sfw_fde fde;
	struct sfw_sec s;

	sfw_fde_init(&fde, sft_a32_loop(n), 4, &fre, 1);
	sfw_sec_init(&s, 2, SFW_ABI_AARCH64_LE, sft_a32_sframe(), &fde, 1);
	return sfw_write(&s, buf, A32_SFRAME_ROOM);
}

int sft_a32_write(const char *path, const struct sft_a32_call *calls,
		  unsigned int n, const void *data, size_t data_len)
{
	struct elf32_phdr *ph;
	struct elf32_hdr *eh;
	unsigned char *img;
	size_t sframe_len;
	unsigned int i, j, k;
	__u32 *code;
	int fd, ret = 0;

	if (n > SFT_A32_MAX_CALLS || data_len > SFT_A32_DATA_LEN)
		return -EINVAL;
	img = calloc(1, A32_SIZE);
	if (!img)
		return -ENOMEM;

	/* The calls, each result stored in its slot; then write(1, ...) */
	code = (__u32 *)(img + A32_CODE);
	k = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < 4; j++)
			k = a32_put_imm(code, k, j, calls[i].args[j]);
		code[k++] = a32_movw(7, calls[i].nr);
		code[k++] = A32_SVC0;
		k = a32_put_imm(code, k, 5, SFT_A32_BASE + A32_RESULTS + 4 * i);
		code[k++] = A32_STR_R0_R5;
	}
	k = a32_put_imm(code, k, 0, 1);
	k = a32_put_imm(code, k, 1, SFT_A32_BASE + A32_RESULTS);
	k = a32_put_imm(code, k, 2, 4 * n);
	code[k++] = a32_movw(7, 4);	/* write */
	code[k++] = A32_SVC0;
	code[k++] = A32_LOOP;
	if (data)
		memcpy(img + A32_DATA, data, data_len);
	sframe_len = a32_sframe(img + A32_SFRAME, n);
	if (!sframe_len) {
		free(img);
		return -E2BIG;
	}

	eh = (struct elf32_hdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_ARM;
	eh->e_version = EV_CURRENT;
	eh->e_entry = SFT_A32_BASE + A32_CODE;
	eh->e_phoff = sizeof(*eh);
	eh->e_flags = A32_EF_EABI5;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 3;

	ph = (struct elf32_phdr *)(img + sizeof(*eh));
	ph[0].p_type = PT_LOAD;
	ph[0].p_offset = 0;
	ph[0].p_vaddr = SFT_A32_BASE;
	ph[0].p_paddr = SFT_A32_BASE;
	ph[0].p_filesz = A32_SIZE;
	ph[0].p_memsz = A32_SIZE;
	ph[0].p_flags = PF_R | PF_W | PF_X;
	ph[0].p_align = 0x1000;
	ph[1].p_type = PT_GNU_SFRAME;
	ph[1].p_offset = A32_SFRAME;
	ph[1].p_vaddr = SFT_A32_BASE + A32_SFRAME;
	ph[1].p_paddr = SFT_A32_BASE + A32_SFRAME;
	ph[1].p_filesz = sframe_len;
	ph[1].p_memsz = sframe_len;
	ph[1].p_flags = PF_R;
	ph[1].p_align = 8;
	/* A stack that is not executable */
	ph[2].p_type = PT_GNU_STACK;
	ph[2].p_flags = PF_R | PF_W;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		ret = -errno;
	else if (write(fd, img, A32_SIZE) != A32_SIZE)
		ret = -EIO;
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	free(img);
	return ret;
}

/* How long the program may take to write its results */
#define A32_TIMEOUT_MS	30000

/* Why the program is gone: its exit status */
static void a32_reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		ksft_print_msg("%s\n",
			       "the AArch32 program did not run: a CPU without AArch32 EL0, or a kernel without CONFIG_COMPAT?");
	else if (WIFEXITED(status))
		ksft_print_msg("the AArch32 program exited with %d\n",
			       WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		ksft_print_msg("the AArch32 program was killed by signal %d\n",
			       WTERMSIG(status));
}

int sft_a32_start(const char *path, unsigned int n, __s32 *results,
		  pid_t *pid)
{
	size_t got = 0, len = n * sizeof(*results);
	int fds[2], ret = 0;
	pid_t child;

	if (pipe(fds)) {
		ret = -errno;
		ksft_perror("pipe");
		return ret;
	}
	fflush(stdout);
	fflush(stderr);
	child = fork();
	if (child < 0) {
		ret = -errno;
		ksft_perror("fork");
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (!child) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(path, path, NULL);
		fprintf(stderr, "execl(%s): %s\n", path, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while (got < len) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, A32_TIMEOUT_MS) != 1) {
			ksft_print_msg("the AArch32 program wrote nothing for %d s\n",
				       A32_TIMEOUT_MS / 1000);
			ret = -ETIMEDOUT;
			break;
		}
		r = read(fds[0], (char *)results + got, len - got);
		if (r <= 0) {
			ksft_print_msg("the AArch32 program stopped after %zu bytes of %zu\n",
				       got, len);
			ret = -EPIPE;
			break;
		}
		got += r;
	}
	close(fds[0]);
	if (ret) {
		a32_reap(child);
		return ret;
	}
	*pid = child;
	return 0;
}
