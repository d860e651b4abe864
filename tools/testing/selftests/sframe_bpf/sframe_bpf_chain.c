// SPDX-License-Identifier: GPL-2.0
/*
 * The program whose user stacks the BPF programs of sframe_bpf take.  It
 * is built three times: with frame pointers and no SFrame (_fp), without
 * frame pointers and with SFrame V2 (_v2) or V3 (_v3, linked -static, by
 * GNU as 2.46 or later).  sframe_bpf starts it with its output on a pipe
 * and its input on another, and attaches its programs once the program
 * says "ready"; the program goes on when it reads a line.
 *
 *	sframe_bpf_chain_* chain RUNS
 *		runs the known chain of ../sframe RUNS times; for each of its
 *		system calls, prints the stack it recorded ("T ..."), and
 *		the user callchain of a perf event sampling the same system
 *		call, perf's own walk, which BPF had before ("P ..."); first
 *		prints where st_leaf_bare lies ("S ...");
 *	sframe_bpf_chain_* spin SECONDS
 *		prints where spin_leaf, spin_mid, spin_top and main lie
 *		("S ..."), then spins in spin_leaf, called from spin_mid,
 *		spin_top and main, for SECONDS of its CPU time;
 *	sframe_bpf_chain_* spin-evict SECONDS
 *		the same, while another thread, named sfb-evict, keeps
 *		dropping the pages of the program's .sframe section from its
 *		page tables (MADV_DONTNEED), every millisecond: a walk that
 *		cannot fault finds them missing, a walk that can faults them
 *		in again.
 */
#define _GNU_SOURCE		/* pthread_setname_np() */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"

static struct sft_symtab syms;

static void wait_go(void)
{
	char line[16];

	printf("ready %d\n", getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(2);
}

static int print_sym(const char *name)
{
	const struct sft_sym *s = sft_symtab_find(&syms, name);

	if (!s)
		return -1;
	printf("S %s %lx %lx\n", name, s->start, s->start + s->size);
	return 0;
}

static void print_ips(char tag, int run, int i, unsigned int nr,
		      const __u64 *ips)
{
	unsigned int j;

	printf("%c %d %d %u", tag, run, i, nr);
	for (j = 0; j < nr; j++)
		printf(" %llx", (unsigned long long)ips[j]);
	printf("\n");
}

static int chain(int runs)
{
	struct sft_sample samples[SFT_RUN_MAX_SAMPLES];
	struct sft_ring_stats stats;
	static struct sft_walk w;
	struct sft_perf p;
	int tp, run, n, i;
	__u64 addr[SFT_MAX_LEVELS];
	unsigned int j;

	if (print_sym("st_leaf_bare"))
		return 2;
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&p, tp, false))
		return 2;
	wait_go();
	for (run = 0; run < runs; run++) {
		if (sft_perf_enable(&p))
			return 2;
		if (SFT_RUN_CHAIN(&w))
			return 2;
		if (sft_perf_disable(&p))
			return 2;
		n = sft_perf_collect(&p, samples, SFT_RUN_MAX_SAMPLES, &stats);
		if (n != SFT_CHAIN_SAMPLES) {
			printf("E run %d: %d perf samples\n", run, n);
			return 2;
		}
		for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
			const struct sft_truth *t = &w.truth[i];

			for (j = 0; j < t->nr; j++)
				addr[j] = t->addr[j];
			print_ips('T', run, i, t->nr, addr);
			print_ips('P', run, i, samples[i].nr, samples[i].ips);
		}
	}
	sft_perf_close(&p);
	return 0;
}

static double spin_end;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The loop where the samples land: no call, no system call.  Long enough
 * (about 0.1 s under TCG) that few samples land in spin_mid's clock_gettime()
 * instead: a CPU-time clock is a system call, and the C library has no
 * SFrame section here, so such a sample's stack ends in the C library.
 */
SFT_FN unsigned long spin_leaf(unsigned long n)
{
	unsigned long i, x = n;

	for (i = 0; i < 20000000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

SFT_FN unsigned long spin_mid(unsigned long n)
{
	unsigned long x = 0;

	while (cpu_now() < spin_end)
		x += spin_leaf(n + x);
	SFT_KEEP(x);
	return x;
}

SFT_FN unsigned long spin_top(unsigned long n)
{
	unsigned long x = spin_mid(n);

	SFT_KEEP(x);
	return x;
}

struct pages {
	unsigned long start, len;
};

/* The pages of the program's .sframe, from its program headers */
static void find_sframe(struct pages *sframe)
{
	unsigned long page = sysconf(_SC_PAGESIZE), start;
	const struct elf64_phdr *ph;
	struct sft_elf e;

	if (sft_elf_load(&e, "/proc/self/exe"))
		return;
	ph = sft_elf_find_phdr(&e, PT_GNU_SFRAME);
	if (ph) {
		start = syms.bias + ph->p_vaddr;
		sframe->start = start & ~(page - 1);
		sframe->len = start + ph->p_memsz - sframe->start;
	}
	sft_elf_free(&e);
}

static void *evict(void *data)
{
	const struct pages *sframe = data;

	for (;;) {
		madvise((void *)sframe->start, sframe->len, MADV_DONTNEED);
		usleep(1000);
	}
	return NULL;
}

/* Inlined: main calls spin_top, as the tests expect */
static inline __attribute__((always_inline)) int spin(double seconds,
						      bool evicting)
{
	static struct pages sframe;
	pthread_t thread;
	unsigned long x;

	if (print_sym("spin_leaf") || print_sym("spin_mid") ||
	    print_sym("spin_top") || print_sym("main"))
		return 2;
	if (evicting) {
		find_sframe(&sframe);
		if (!sframe.len) {
			printf("E no PT_GNU_SFRAME\n");
			return 2;
		}
		if (pthread_create(&thread, NULL, evict, &sframe))
			return 2;
		/* For profilers of the whole process to tell it apart */
		pthread_setname_np(thread, "sfb-evict");
	}
	wait_go();
	spin_end = cpu_now() + seconds;
	x = spin_top(getpid());
	SFT_KEEP(x);
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc != 3)
		return 2;
	if (sft_symtab_load_self(&syms))
		return 2;
	if (!strcmp(argv[1], "chain"))
		ret = chain(atoi(argv[2]));
	else if (!strcmp(argv[1], "spin"))
		ret = spin(atof(argv[2]), false);
	else if (!strcmp(argv[1], "spin-evict"))
		ret = spin(atof(argv[2]), true);
	else
		ret = 2;
	fflush(stdout);
	return ret;
}
