// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of the perf tests: runs of the known call chain of the
 * sframe selftests (../sframe/sframe_chain.h), whose two leaves each make a
 * getppid system call, and a short chain of its own that ends in exit or
 * exit_group.  Each thread writes the ground truth of its system calls, the
 * stack the kernel must give for each, to its own file in DIR:
 *
 *	DIR/truth.TID:	one line per system call, in the order they were made:
 *			PID TID N ADDR:FUNC ... (N frames, innermost first)
 *
 * ADDR is the address after the system call for the first frame, a return
 * address for the others.  Before the runs, the stack pages the chain will
 * use are touched: the chain has a frame of 40 KiB that it does not write,
 * whose pages a sampled copy of the stack (perf's --call-graph dwarf) could
 * not read without.
 *
 *	sframe_perf_work chain DIR N		the chain N times
 *	sframe_perf_work threads DIR T N	T threads run it N times each
 *	sframe_perf_work fork DIR N EXE		a child runs it after fork(),
 *						another after exec of EXE
 *						("chain DIR N"), and this
 *						process runs it too
 *	sframe_perf_work exit DIR		in a child: a thread ends in exit,
 *						then the child in exit_group
 *	sframe_perf_work dlopen DIR N LIB	the chain of the library LIB
 *						(dlopen()), N times
 *	sframe_perf_work deep DIR N		a getppid system call N frames
 *						down a recursion of sfp_deep;
 *						the thread's ID is the name
 *						of the file DIR/deep.TID
 *
 * The exit chain: sfp_exit_caller -> sfp_exit_outer -> sfp_exit_leaf, which
 * makes the system call; the thread never returns to user space, so the
 * kernel takes its stack on the way out.  The child writes that truth into
 * memory shared with its parent, which writes the file.
 *
 * Exit codes: 0 done, 1 something failed (said on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#ifndef SFP_NO_DLOPEN
#include <dlfcn.h>
#endif

#include "sframe_chain.h"

/* Threads of "threads" at most. */
#define SFP_MAX_THREADS		16

/* Frames of the exit chain, the caller of sfp_exit_outer included. */
#define SFP_EXIT_FRAMES		3

static const char *truth_dir;

static void die(const char *what)
{
	fprintf(stderr, "sframe_perf_work: %s: %s\n", what, strerror(errno));
	exit(1);
}

static FILE *truth_open(void)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/truth.%d", truth_dir, gettid());
	f = fopen(path, "a");
	if (!f)
		die(path);
	return f;
}

static void truth_close(FILE *f)
{
	if (fclose(f))
		die("writing the truth");
}

/* Write the ground truth of one run of the chain. */
static void truth_write(FILE *f, const struct sft_walk *w)
{
	unsigned int s, i;

	if (w->samples != SFT_CHAIN_SAMPLES) {
		fprintf(stderr, "sframe_perf_work: %u system calls in a run\n",
			w->samples);
		exit(1);
	}
	for (s = 0; s < w->samples; s++) {
		const struct sft_truth *t = &w->truth[s];

		fprintf(f, "%d %d %u", getpid(), gettid(), t->nr);
		for (i = 0; i < t->nr; i++)
			fprintf(f, " %#lx:%s", t->addr[i], t->func[i]);
		fputc('\n', f);
	}
}

/* Touch 128 KiB of stack below the caller: more than the chain uses. */
SFT_FN static void sfp_touch_stack(void)
{
	char pages[128 * 1024];

	memset(pages, 0, sizeof(pages));
	asm volatile("" : : "r" (pages) : "memory");
}

/*
 * Run the chain @n times from this function, the outermost frame of the
 * truth.
 */
SFT_FN static void sfp_chain_caller(long n)
{
	static __thread struct sft_walk w;
	FILE *f = truth_open();
	long i;

	sfp_touch_stack();
	for (i = 0; i < n; i++) {
		if (SFT_RUN_CHAIN(&w)) {
			fprintf(stderr, "sframe_perf_work: no [stack] mapping\n");
			exit(1);
		}
		truth_write(f, &w);
	}
	truth_close(f);
}

static long count_arg(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < 1 || n > 100000) {
		fprintf(stderr, "sframe_perf_work: bad number '%s'\n", s);
		exit(1);
	}
	return n;
}

static void *thread_main(void *arg)
{
	sfp_chain_caller((long)arg);
	return NULL;
}

static int run_threads(long nthreads, long n)
{
	pthread_t tid[SFP_MAX_THREADS];
	long i;

	if (nthreads > SFP_MAX_THREADS) {
		fprintf(stderr, "sframe_perf_work: at most %d threads\n",
			SFP_MAX_THREADS);
		return 1;
	}
	for (i = 0; i < nthreads; i++) {
		errno = pthread_create(&tid[i], NULL, thread_main, (void *)n);
		if (errno)
			die("pthread_create");
	}
	for (i = 0; i < nthreads; i++) {
		errno = pthread_join(tid[i], NULL);
		if (errno)
			die("pthread_join");
	}
	return 0;
}

static int wait_ok(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "sframe_perf_work: child %d: status %#x\n",
			pid, status);
		return 1;
	}
	return 0;
}

static int run_fork(long n, const char *exe, const char *nstr)
{
	pid_t forked, execed;
	int ret;

	fflush(NULL);
	forked = fork();
	if (forked < 0)
		die("fork");
	if (!forked) {
		sfp_chain_caller(n);
		_exit(0);
	}
	execed = fork();
	if (execed < 0)
		die("fork");
	if (!execed) {
		execl(exe, exe, "chain", truth_dir, nstr, (char *)NULL);
		die(exe);
	}
	sfp_chain_caller(n);
	ret = wait_ok(forked);
	return wait_ok(execed) | ret;
}

/* The truth of one exit, written by the child, read by its parent. */
struct sfp_exit_truth {
	pid_t pid, tid;
	unsigned long addr[SFP_EXIT_FRAMES];
	const char *func[SFP_EXIT_FRAMES];
	int done;
};

/*
 * System call @nr (exit or exit_group) with status 0, its return address,
 * where the user stack of the task in it begins, stored at @ip first.
 */
static __always_inline void sfp_exit_syscall(unsigned long *ip, long nr)
{
#if defined(__x86_64__)
	asm volatile("lea 1f(%%rip), %%rcx\n\t"
		     "mov %%rcx, %[ip]\n\t"
		     "syscall\n"
		     "1:"
		     : [ip] "=m" (*ip)
		     : "a" (nr), "D" (0L)
		     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = 0;

	asm volatile("adr x9, 1f\n\t"
		     "str x9, %[ip]\n\t"
		     "svc #0\n"
		     "1:"
		     : [ip] "=m" (*ip), "+r" (x0)
		     : "r" (x8)
		     : "x9", "memory");
#endif
}

/*
 * Exit without returning to user space: @nr is exit or exit_group.  What
 * follows the system call never runs, but it keeps the address after it
 * inside this function.
 */
SFT_FN static void sfp_exit_leaf(struct sfp_exit_truth *t, long nr)
{
	t->func[0] = __func__;
	t->addr[1] = (unsigned long)__builtin_return_address(0);
	t->pid = getpid();
	t->tid = gettid();
	t->done = 1;
	sfp_exit_syscall(&t->addr[0], nr);
	t->done = 2;
}

SFT_FN static void sfp_exit_outer(struct sfp_exit_truth *t, long nr)
{
	t->func[1] = __func__;
	t->addr[2] = (unsigned long)__builtin_return_address(0);
	sfp_exit_leaf(t, nr);
	/* Not a tail call. */
	asm volatile("" : : : "memory");
}

SFT_FN static void sfp_exit_caller(struct sfp_exit_truth *t, long nr)
{
	t->func[2] = __func__;
	sfp_exit_outer(t, nr);
	asm volatile("" : : : "memory");
}

static void *exit_thread(void *arg)
{
	sfp_exit_caller(arg, SYS_exit);
	return NULL;
}

static void write_exit_truth(FILE *f, const struct sfp_exit_truth *t)
{
	int i;

	fprintf(f, "%d %d %d", t->pid, t->tid, SFP_EXIT_FRAMES);
	for (i = 0; i < SFP_EXIT_FRAMES; i++)
		fprintf(f, " %#lx:%s", t->addr[i], t->func[i]);
	fputc('\n', f);
}

static int run_exit(void)
{
	struct sfp_exit_truth *t;
	char path[4096];
	pthread_t thr;
	pid_t pid;
	FILE *f;
	int i;

	t = mmap(NULL, 2 * sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		die("mmap");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		errno = pthread_create(&thr, NULL, exit_thread, &t[0]);
		if (errno)
			die("pthread_create");
		errno = pthread_join(thr, NULL);
		if (errno)
			die("pthread_join");
		sfp_exit_caller(&t[1], SYS_exit_group);
		_exit(2);
	}
	if (waitpid(pid, &i, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(i) || WEXITSTATUS(i) || t[0].done != 1 ||
	    t[1].done != 1) {
		fprintf(stderr, "sframe_perf_work: exit child: status %#x\n", i);
		return 1;
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/truth.%d", truth_dir, t[i].tid);
		f = fopen(path, "w");
		if (!f)
			die(path);
		write_exit_truth(f, &t[i]);
		truth_close(f);
	}
	return 0;
}

#ifndef SFP_NO_DLOPEN
/* Run the chain of the library @lib @n times from this function. */
SFT_FN static int sfp_dlopen_caller(const char *lib, long n)
{
	static struct sft_walk w;
	int (*prepare)(struct sft_walk *w, const char *caller);
	void (*entry)(struct sft_walk *w);
	void *h = dlopen(lib, RTLD_NOW);
	FILE *f;
	long i;

	if (!h) {
		fprintf(stderr, "sframe_perf_work: %s\n", dlerror());
		return 1;
	}
	prepare = (int (*)(struct sft_walk *, const char *))
		  dlsym(h, "sft_chain_prepare");
	entry = (void (*)(struct sft_walk *))dlsym(h, "st_entry");
	if (!prepare || !entry) {
		fprintf(stderr, "sframe_perf_work: %s has no chain\n", lib);
		return 1;
	}
	f = truth_open();
	sfp_touch_stack();
	for (i = 0; i < n; i++) {
		if (prepare(&w, __func__)) {
			fprintf(stderr, "sframe_perf_work: no [stack] mapping\n");
			return 1;
		}
		if (!setjmp(w.done))
			entry(&w);
		truth_write(f, &w);
	}
	truth_close(f);
	return 0;
}
#endif

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: sframe_perf_work chain DIR N | threads DIR T N |\n"
		"       fork DIR N EXE | exit DIR | dlopen DIR N LIB\n");
	exit(1);
}

/*
 * Recurse @depth frames deep, then make a getppid system call: a stack
 * deeper than perf_event_max_stack (127).  The addition after the call keeps
 * it from being a tail call.
 */
SFT_FN static long sfp_deep(long depth)
{
	long ret;

	/* the system call inline: the C library has no SFrame here */
	if (depth > 1)
		ret = sfp_deep(depth - 1);
	else
		ret = sft_getppid();
	asm volatile("" : "+r" (ret));
	return ret + 1;
}

static int run_deep(long depth)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/deep.%d", truth_dir, gettid());
	f = fopen(path, "w");
	if (!f)
		die(path);
	truth_close(f);
	sfp_touch_stack();
	sfp_deep(depth);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode;

	if (argc < 3)
		bad_usage();
	mode = argv[1];
	truth_dir = argv[2];

	if (!strcmp(mode, "chain") && argc == 4) {
		sfp_chain_caller(count_arg(argv[3]));
		return 0;
	}
	if (!strcmp(mode, "threads") && argc == 5)
		return run_threads(count_arg(argv[3]), count_arg(argv[4]));
	if (!strcmp(mode, "fork") && argc == 5)
		return run_fork(count_arg(argv[3]), argv[4], argv[3]);
	if (!strcmp(mode, "exit") && argc == 3)
		return run_exit();
	if (!strcmp(mode, "deep") && argc == 4)
		return run_deep(count_arg(argv[3]));
#ifndef SFP_NO_DLOPEN
	if (!strcmp(mode, "dlopen") && argc == 5)
		return sfp_dlopen_caller(argv[4], count_arg(argv[3]));
#endif
	bad_usage();
}
