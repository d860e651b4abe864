// SPDX-License-Identifier: GPL-2.0
/*
 * A traced task whose mmap_lock is held for seconds must not hold up the
 * removal of a tracing instance.
 *
 * The stacktrace:user callback runs in the deferred unwinder's SRCU read
 * section, and removing an instance waits for that section with
 * event_mutex held.  Here a child makes its own mmap_lock wait: one thread
 * populates a large anonymous range (MADV_POPULATE_WRITE holds the lock
 * for reading while it faults every page in), a second one queues for the
 * lock for writing (mmap()), and then the traced thread makes a system
 * call with a stacktrace:user trigger.  A callback that waited for the
 * mmap_lock would wait behind the writer, and with it the rmdir of the
 * instance.  The test checks that the rmdir returns while the lock is
 * still held (it takes seconds under TCG by itself: the lock is held for
 * STALL_MS), and that the stack was written meanwhile, with the name of a
 * file in its frames.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "ftrace_util.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

/* The rmdir's bound, and how long the lock is meant to be held */
#define STALL_MS	14000
#define MIN_STALL_MS	6000
#define CALIBRATE_MB	64

/* What the child measured, in CLOCK_MONOTONIC milliseconds */
struct result {
	double pop_start, pop_end;	/* the read holder */
	double w_start, w_end;		/* the queued writer */
	double call, ret;		/* the traced system call */
};

struct stall {
	char *mem;
	size_t size;
	struct result *r;
	/* These three: __atomic_*() */
	int started;
	int pop_go, w_go;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Wait for @flag: no system call that takes the mmap_lock */
static void wait_for(int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		usleep(1000);
}

static void *populate(void *arg)
{
	struct stall *s = arg;

	wait_for(&s->pop_go);
	s->r->pop_start = now_ms();
	__atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
	madvise(s->mem, s->size, MADV_POPULATE_WRITE);
	s->r->pop_end = now_ms();
	return NULL;
}

static void *writer(void *arg)
{
	struct stall *s = arg;
	void *p;

	/* Queued only once the populate holds the lock */
	wait_for(&s->w_go);
	s->r->w_start = now_ms();
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s->r->w_end = now_ms();
	if (p != MAP_FAILED)
		munmap(p, 4096);
	return NULL;
}

/* MiB per second that MADV_POPULATE_WRITE faults in here */
static double populate_rate(void)
{
	size_t size = (size_t)CALIBRATE_MB << 20;
	double t0, t1;
	char *m;

	m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	t0 = now_ms();
	madvise(m, size, MADV_POPULATE_WRITE);
	t1 = now_ms();
	munmap(m, size);
	return CALIBRATE_MB / ((t1 - t0) / 1e3);
}

static size_t mem_available_mb(void)
{
	char line[128];
	size_t kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
			break;
	fclose(f);
	return kb / 1024;
}

/*
 * The child: the traced thread (this one), the read holder and the
 * writer.  @up gets its tid, then the results; @down says when the
 * trigger is set.
 */
static void child(int up, int down, size_t size)
{
	struct result r = { };
	struct stall s = { .size = size, .r = &r };
	pthread_t pop, wr;
	pid_t tid = gettid();
	char go;

	/*
	 * Everything the traced call and its walk read, in memory and mapped
	 * before the stall: this thread's stack, the program's code and
	 * .sframe, the C library's code.  The populate takes most of the free
	 * memory; a page of these read in meanwhile would wait for the
	 * mmap_lock behind the writer (a fault that must wait for I/O under
	 * the per-VMA lock retries under the mmap_lock), and the walk, which
	 * may fault, with it: seen on arm64, the traced call returned only
	 * when the populate was done.  Before the populate's range is mapped,
	 * which this must not fault in.
	 */
	if (mlockall(MCL_CURRENT))
		_exit(3);
	s.mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s.mem == MAP_FAILED)
		_exit(2);
	if (write(up, &tid, sizeof(tid)) != sizeof(tid) ||
	    read(down, &go, 1) != 1)
		_exit(2);

	/* Threads made before: making one maps its stack */
	if (pthread_create(&pop, NULL, populate, &s) ||
	    pthread_create(&wr, NULL, writer, &s))
		_exit(2);
	/* The populate holds the lock once it started, until it is done */
	__atomic_store_n(&s.pop_go, 1, __ATOMIC_RELEASE);
	wait_for(&s.started);
	usleep(2000 * 1000);
	__atomic_store_n(&s.w_go, 1, __ATOMIC_RELEASE);
	/*
	 * A second for the writer to queue behind the populate.  Whether it
	 * did is told afterwards by its clock: in mmap() from before the
	 * traced call to after it, seconds while the populate held the lock.
	 */
	usleep(1000 * 1000);

	r.call = now_ms();
	if (write(up, &r.call, sizeof(r.call)) != sizeof(r.call))
		_exit(2);
	/* The traced system call: its stack is taken on the way out */
	syscall(SYS_getppid);
	r.ret = now_ms();

	pthread_join(pop, NULL);
	pthread_join(wr, NULL);
	if (write(up, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

/*
 * Stacks of @tid in the instance's trace, and whether one names a file;
 * in @requests, the trigger's records of the system call (its cookie),
 * written when it was made.
 */
static unsigned int stacks_of(const char *dir, pid_t tid, bool *named,
			      unsigned int *requests)
{
	struct ftu_trace t;
	unsigned int i, j, n = 0;
	char *text;

	*named = false;
	*requests = 0;
	text = ftu_read(dir, "trace", NULL);
	if (!text || ftu_parse(text, &t)) {
		free(text);
		return 0;
	}
	for (i = 0; i < t.nrecs; i++)
		*requests += t.recs[i].cookie_record && t.recs[i].pid == tid;
	for (i = 0; i < t.nstacks; i++) {
		if (t.stacks[i].pid != tid)
			continue;
		n++;
		for (j = 0; j < t.stacks[i].nr; j++)
			if (t.stacks[i].frames[j].name[0] == '/')
				*named = true;
		ftu_print_stack(&t.stacks[i]);
	}
	ftu_trace_free(&t);
	free(text);
	return n;
}

int main(void)
{
	int up[2], down[2], status;
	struct ftu_instance in;
	double rate, t0, t1, call;
	size_t avail, mb;
	struct result r;
	char trig[128];
	unsigned int nstacks, requests;
	bool named;
	pid_t pid, tid;
	int i;

	ksft_print_header();
	ksft_set_plan(2);

	rate = populate_rate();
	avail = mem_available_mb();
	mb = rate * STALL_MS / 1e3;
	ksft_print_msg("populate: %.0f MiB/s, %zu MiB available\n", rate,
		       avail);
	if (mb > avail * 6 / 10)
		mb = avail * 6 / 10;
	if (rate <= 0 || mb * 1e3 / rate < MIN_STALL_MS)
		ksft_exit_skip("cannot hold the mmap_lock for %d ms here\n",
			       MIN_STALL_MS);

	if (ftu_instance_create(&in, "sframe_ftrace_stall"))
		ksft_exit_fail_msg("no instance\n");
	if (pipe(up) || pipe(down))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid)
		child(up[1], down[0], mb << 20);

	if (read(up[0], &tid, sizeof(tid)) != sizeof(tid)) {
		waitpid(pid, &status, 0);
		ksft_exit_fail_msg("the child did not start%s\n",
				   WIFEXITED(status) && WEXITSTATUS(status) == 3 ?
				   ": mlockall() failed" : "");
	}
	snprintf(trig, sizeof(trig), "stacktrace:user if common_pid == %d",
		 tid);
	if (ftu_write(in.dir, "events/syscalls/sys_enter_getppid/trigger",
		      trig))
		ksft_exit_fail_msg("cannot set the trigger\n");
	if (write(down[1], "g", 1) != 1 ||
	    read(up[0], &call, sizeof(call)) != sizeof(call))
		ksft_exit_fail_msg("the child went\n");

	/* The stack is taken on the way out of the system call */
	for (i = 0; i < 30; i++) {
		usleep(100 * 1000);
		nstacks = stacks_of(in.dir, tid, &named, &requests);
		if (nstacks)
			break;
	}

	t0 = now_ms();
	if (ftu_instance_remove(&in))
		ksft_exit_fail_msg("rmdir failed\n");
	t1 = now_ms();

	if (read(up[0], &r, sizeof(r)) != sizeof(r) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		ksft_exit_fail_msg("the child failed\n");

	ksft_print_msg("populate (mmap_lock read) %.0f ms (%zu MiB), writer in mmap() %.0f-%.0f ms\n",
		       r.pop_end - r.pop_start, mb, r.w_start - r.pop_start,
		       r.w_end - r.pop_start);
	ksft_print_msg("traced call at %.0f ms, rmdir from %.0f ms to %.0f ms\n",
		       r.call - r.pop_start, t0 - r.pop_start,
		       t1 - r.pop_start);
	ksft_print_msg("traced system call returned after %.0f ms\n",
		       r.ret - r.call);
	ksft_print_msg("before the rmdir: %u stack requests of it, %u stacks\n",
		       requests, nstacks);
	ksft_print_msg("rmdir took %.0f ms, %.0f ms before the lock was free\n",
		       t1 - t0, r.pop_end - t1);
	/*
	 * The rmdir says nothing unless the writer was queued when the
	 * traced call was made and the lock still held when it started.
	 */
	if (r.w_start > r.call || r.w_end < r.call || r.pop_end < t0)
		ksft_exit_fail_msg("the lock was not held at the rmdir: no verdict\n");

	ksft_test_result(t1 < r.pop_end,
			 "rmdir of the instance while the traced task's mmap_lock is held\n");
	ksft_test_result(nstacks == 1 && named,
			 "the stack written meanwhile, with file names (%u stacks)\n",
			 nstacks);
	ksft_finished();
}
