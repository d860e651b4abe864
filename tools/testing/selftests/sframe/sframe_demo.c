// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame demo (not a test): show, for one system call, the user stack the
 * kernel took of this program -- built without frame pointers, with SFrame
 * -- next to the one it takes of a copy whose PT_GNU_SFRAME is PT_NULL,
 * where it can only follow frame pointers.  Both against the call chain the
 * program really made.
 *
 *	sframe_demo		print the two stacks side by side
 *	sframe_demo --dump	(internal) print this process's stack, one
 *				frame a line, for the side-by-side view
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "sframe_lib.h"

#define TIMEOUT		30
#define ROWS_BELOW_MAIN	2

struct frame_line {
	char desc[96];
	char mark;		/* '=' right, 'X' wrong, ' ' not checked */
};

static struct sft_symtab syms;
static struct sft_run run;

/* Describe the stack of system call 0, frame by frame, against the truth. */
static unsigned int describe_stack(struct frame_line *lines, unsigned int max)
{
	const struct sft_sample *s = &run.samples[0];
	const struct sft_truth *t = &run.walk.truth[0];
	unsigned int i, n = 0;

	for (i = 0; i < s->nr && i < t->nr + ROWS_BELOW_MAIN && n < max; i++) {
		char where[80];

		sft_describe(&syms, where, sizeof(where), i, s->ips[i]);
		snprintf(lines[n].desc, sizeof(lines[n].desc), "%#llx %s",
			 (unsigned long long)s->ips[i], where);
		if (i >= t->nr)
			lines[n].mark = ' ';
		else
			lines[n].mark = s->ips[i] == t->addr[i] ? '=' : 'X';
		n++;
	}
	return n;
}

/* Run the copy without PT_GNU_SFRAME in --dump mode and read its lines. */
static int fp_stack(struct frame_line *lines, unsigned int max)
{
	struct sft_elf e;
	char path[128], buf[256];
	unsigned int n = 0;
	int fds[2], ret;
	pid_t pid;
	FILE *f;

	if (sft_elf_load(&e, "/proc/self/exe"))
		return -1;
	if (!sft_elf_find_phdr(&e, PT_GNU_SFRAME)) {
		fprintf(stderr, "sframe_demo: built without SFrame?\n");
		sft_elf_free(&e);
		return -1;
	}
	sft_elf_find_phdr(&e, PT_GNU_SFRAME)->p_type = PT_NULL;
	sft_tmp_copy(path, sizeof(path), "demo-ptnull");
	ret = sft_elf_save(&e, path);
	sft_elf_free(&e);
	if (ret || pipe(fds))
		return -1;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(path, path, "--dump", NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(buf, sizeof(buf), f) && n < max) {
		char *tab = strchr(buf, '\t');

		buf[strcspn(buf, "\n")] = '\0';
		if (!tab || !tab[1])
			continue;
		lines[n].mark = buf[0];
		snprintf(lines[n].desc, sizeof(lines[n].desc), "%s", tab + 1);
		n++;
	}
	if (f)
		fclose(f);
	ret = sft_wait(pid, TIMEOUT, path);
	unlink(path);
	return ret ? -1 : (int)n;
}

static unsigned int count_right(const struct frame_line *l, unsigned int n)
{
	unsigned int i, right = 0;

	for (i = 0; i < n; i++)
		right += l[i].mark == '=';
	return right;
}

int main(int argc, char **argv)
{
	static struct frame_line sf[SFT_MAX_LEVELS + 8], fp[SFT_MAX_LEVELS + 8];
	const struct sft_truth *t = &run.walk.truth[0];
	unsigned int i, nsf, nfp_ok, rows;
	int nfp, ret;

	if (sft_symtab_load_self(&syms))
		return 1;
	ret = sft_run_open(&run);
	if (!ret)
		ret = SFT_RECORD_CHAIN(&run);
	if (ret || sft_run_verdict(&run, &syms, SFT_ANY, true) == SFT_BROKEN) {
		fprintf(stderr, "sframe_demo: no deferred user stack recorded\n");
		return 1;
	}
	nsf = describe_stack(sf, ARRAY_SIZE(sf));

	if (argc == 2 && !strcmp(argv[1], "--dump")) {
		for (i = 0; i < nsf; i++)
			printf("%c\t%s\n", sf[i].mark, sf[i].desc);
		return 0;
	}

	nfp = fp_stack(fp, ARRAY_SIZE(fp));
	if (nfp < 0) {
		fprintf(stderr, "sframe_demo: the copy without PT_GNU_SFRAME did not run\n");
		return 1;
	}

	printf("The user stack of one getppid() system call of this program, as the kernel\n"
	       "unwound it for perf (tracepoint syscalls:sys_enter_getppid, deferred callchain).\n"
	       "The program is built with -O2 -fomit-frame-pointer -Wa,--gsframe: no frame\n"
	       "pointers, an SFrame V%u section.\n\n", SFT_SFRAME_VERSION);
	printf("  SFrame:       this program; the kernel registered its .sframe at exec\n"
	       "  frame ptrs:   a copy whose PT_GNU_SFRAME is PT_NULL: only frame pointers\n"
	       "  '=' the frame the program really had (ground truth), 'X' a wrong one\n\n");
	printf("%3s  %-20s | %-46s | %s\n", "#", "real call chain", "kernel, SFrame",
	       "kernel, frame pointers only");
	rows = nsf > (unsigned int)nfp ? nsf : (unsigned int)nfp;
	if (rows < t->nr)
		rows = t->nr;
	for (i = 0; i < rows; i++) {
		const char *want = i < t->nr ? t->func[i] : "(libc start code)";
		char left[112], right[112];

		if (i < nsf)
			snprintf(left, sizeof(left), "%c %.96s", sf[i].mark,
				 sf[i].desc);
		else
			snprintf(left, sizeof(left), "  (end of the stack)");
		if (i < (unsigned int)nfp)
			snprintf(right, sizeof(right), "%c %.96s", fp[i].mark,
				 fp[i].desc);
		else if (i == (unsigned int)nfp)
			snprintf(right, sizeof(right), "  (end of the stack)");
		else
			right[0] = '\0';
		printf("%3u  %-20s | %-46s | %s\n", i, want, left, right);
	}
	nfp_ok = count_right(fp, nfp);
	printf("\nSFrame: %u of %u frames right.  Frame pointers only: %u of %u right.\n",
	       count_right(sf, nsf), t->nr, nfp_ok, t->nr);

	sft_run_close(&run);
	sft_symtab_free(&syms);
	return count_right(sf, nsf) == t->nr && nfp_ok < t->nr ? 0 : 1;
}
