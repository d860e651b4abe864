// SPDX-License-Identifier: GPL-2.0
/*
 * dl-sframe-guest: what the patched ld.so does where the host test
 * (dl-sframe-test.c, with a fake codectl) cannot show it: on the test
 * kernel, in the x86-64 guest (scripts/guest/glibc-job.sh).  Built with
 * the patched ld.so as its interpreter.
 *
 *	dl-sframe-guest refused-exec ENOSYS|EPERM LIB N
 *		codectl fails from exec on, as on a kernel without it
 *		(ENOSYS) or under a seccomp filter that forbids it (EPERM):
 *		a filter that makes it so, then exec of "cycles LIB N", so
 *		that ld.so's probe at startup meets it (what ld.so tried is
 *		in its LD_DEBUG=files output; a filter that returns an errno
 *		cannot count the calls).
 *	dl-sframe-guest cycles LIB N
 *		N dlopen()s and dlclose()s of LIB, which has PT_GNU_SFRAME,
 *		all work, and the registrations do not change.
 *	dl-sframe-guest refused ENOSYS|EPERM LIB N
 *		codectl fails the same way from a filter installed after
 *		ld.so's startup (a sandbox): the N cycles work, nothing is
 *		registered, and ld.so made exactly one codectl call in all
 *		of them (the first registration, refused), counted by the
 *		filter's SIGSYS.
 *	dl-sframe-guest fails LIB
 *		dlopen(LIB, RTLD_NOW) fails after LIB (and what it needs) was
 *		mapped and registered: the registrations are the same after
 *		it as before.
 *	dl-sframe-guest bench LIB N
 *		N dlopen() + dlclose() of LIB; prints the median time of a
 *		cycle, in nanoseconds, over 9 rounds.
 *	dl-sframe-guest bench-exec PROG N
 *		N runs of PROG (fork, exec, wait): the same for a run.
 *
 * Exit: 0 as expected, 1 not as expected, 2 could not run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#ifndef __NR_codectl
#define __NR_codectl	473
#endif

#define BENCH_ROUNDS	9

static volatile sig_atomic_t codectl_calls;
static int codectl_errno;

/* Each codectl call traps here and fails with codectl_errno. */
static void on_sigsys(int sig, siginfo_t *si, void *uc_void)
{
	ucontext_t *uc = uc_void;

	if (si->si_syscall != __NR_codectl)
		_exit(2);
	codectl_calls++;
	uc->uc_mcontext.gregs[REG_RAX] = -codectl_errno;
}

/*
 * A seccomp filter that makes codectl fail with @err: through SIGSYS,
 * which counts the calls, or (@at_exec, for a filter that an exec keeps)
 * as the system call's own error.
 */
static int refuse_codectl(int err, int at_exec)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_codectl, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, at_exec ?
			 SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA) :
			 SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};
	struct sigaction sa = {
		.sa_sigaction = on_sigsys,
		.sa_flags = SA_SIGINFO,
	};

	codectl_errno = err;
	if ((!at_exec && sigaction(SIGSYS, &sa, NULL)) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		printf("# sigaction, PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		/* Said, not skipped: the case needs what the kernel lacks */
		printf("# PR_SET_SECCOMP: %s%s\n", strerror(errno),
		       errno == EINVAL ?
		       " (the kernel has no CONFIG_SECCOMP_FILTER: this case cannot run)" :
		       "");
		return -1;
	}
	return 0;
}

/* The lines of /proc/self/sframe, or -1 */
static int registrations(void)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f = fopen("/proc/self/sframe", "re");

	if (!f) {
		perror("/proc/self/sframe");
		return -1;
	}
	while (getline(&line, &cap, f) > 0)
		n++;
	free(line);
	fclose(f);
	return n;
}

static void show_registrations(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/sframe", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

/* dlopen() @lib, call its sft_lib(), dlclose() it; 0 if all worked */
static int use_lib(const char *lib)
{
	int (*fn)(int);
	void *h = dlopen(lib, RTLD_NOW);

	if (!h) {
		printf("# dlopen: %s\n", dlerror());
		return -1;
	}
	fn = (int (*)(int))dlsym(h, "sft_lib");
	if (!fn || fn(41) != 42) {
		printf("# %s: no working sft_lib()\n", lib);
		dlclose(h);
		return -1;
	}
	if (dlclose(h)) {
		printf("# dlclose: %s\n", dlerror());
		return -1;
	}
	return 0;
}

/* @n cycles of use_lib(@lib), the registrations unchanged: 0, 1, or 2 */
static int cycles(const char *lib, int n)
{
	int before = registrations(), i;

	if (before < 0)
		return 2;
	for (i = 0; i < n; i++) {
		if (use_lib(lib))
			return 1;
		if (registrations() != before) {
			printf("# cycle %d: registrations changed\n", i + 1);
			show_registrations();
			return 1;
		}
	}
	return 0;
}

/* The errno of "ENOSYS" or "EPERM" */
static int refusal(const char *how)
{
	return !strcmp(how, "ENOSYS") ? ENOSYS : EPERM;
}

static int refused_exec(const char *how, const char *lib, const char *n)
{
	if (refuse_codectl(refusal(how), 1))
		return 2;
	fflush(stdout);
	execl("/proc/self/exe", "dl-sframe-guest", "cycles", lib, n,
	      (char *)NULL);
	printf("# exec: %s\n", strerror(errno));
	return 2;
}

static int refused(const char *how, const char *lib, int n)
{
	int ret;

	if (refuse_codectl(refusal(how), 0))
		return 2;
	ret = cycles(lib, n);
	if (ret)
		return ret;
	printf("# %d dlopen/dlclose with codectl failing with %s: %d codectl calls\n",
	       n, how, (int)codectl_calls);
	return codectl_calls == 1 ? 0 : 1;
}

static int fails(const char *lib)
{
	int before, after;
	void *h;

	before = registrations();
	if (before < 0)
		return 2;
	h = dlopen(lib, RTLD_NOW);
	if (h) {
		printf("# dlopen(%s) did not fail\n", lib);
		return 2;
	}
	printf("# dlopen failed as it should: %s\n", dlerror());
	after = registrations();
	if (after != before) {
		printf("# %d registrations before, %d after\n", before, after);
		show_registrations();
		return 1;
	}
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Run PROG once: 0 if it exited with 0 */
static int run_prog(const char *prog)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

/* Print the median over BENCH_ROUNDS rounds of @n calls of @fn(@arg) */
static int bench(int (*fn)(const char *), const char *arg, int n)
{
	double ns[BENCH_ROUNDS], t0;
	int r, i;

	if (fn(arg))
		return 2;
	for (r = 0; r < BENCH_ROUNDS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (fn(arg))
				return 2;
		ns[r] = (now_ns() - t0) / n;
	}
	qsort(ns, BENCH_ROUNDS, sizeof(ns[0]), cmp_double);
	printf("%.0f\n", ns[BENCH_ROUNDS / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "refused"))
		return refused(argv[2], argv[3], atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "refused-exec"))
		return refused_exec(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "cycles"))
		return cycles(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "fails"))
		return fails(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "bench"))
		return bench(use_lib, argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "bench-exec"))
		return bench(run_prog, argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: %s refused|refused-exec ENOSYS|EPERM LIB N | cycles LIB N | fails LIB | bench LIB N | bench-exec PROG N\n",
		argv[0]);
	return 2;
}
